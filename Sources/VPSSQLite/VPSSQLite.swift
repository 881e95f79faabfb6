// VPSSQLite: see docs/architecture.md
