// PackTransport: see docs/architecture.md
