// Placeholder: the Reprojection module's sources are being written.
