// Placeholder: the SQLiteStore module's sources are being written.
