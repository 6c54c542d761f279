// TileArchive = the C-free archive core (`PMTiles`: PMTiles reader/writer, formats, errors, atomic publishing)
// plus the MBTiles (SQLite) reader and writer and `openTileArchive`. Re-exported so that importers of
// TileArchive see one module; code that must stay free of SQLite (KartpackKit) imports PMTiles alone.
@_exported public import PMTiles
