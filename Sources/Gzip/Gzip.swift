// Placeholder: the Gzip module's sources are being written.
