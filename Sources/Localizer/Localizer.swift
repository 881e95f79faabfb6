// Localizer: see docs/architecture.md
