// Placeholder: the Pipeline module's sources are being written.
