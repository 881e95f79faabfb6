// PackStore: see docs/architecture.md
