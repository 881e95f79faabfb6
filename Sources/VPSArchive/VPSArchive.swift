// VPSArchive: see docs/architecture.md
