// Placeholder: the TileArchive module's sources are being written.
