// Placeholder: the Shapefile module's sources are being written.
