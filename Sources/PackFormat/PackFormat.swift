// PackFormat: see docs/architecture.md
