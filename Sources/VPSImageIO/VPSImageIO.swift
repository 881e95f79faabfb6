// VPSImageIO: see docs/architecture.md
