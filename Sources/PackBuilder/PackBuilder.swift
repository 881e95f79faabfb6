// PackBuilder: see docs/architecture.md
