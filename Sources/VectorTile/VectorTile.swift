// Placeholder: the VectorTile module's sources are being written.
