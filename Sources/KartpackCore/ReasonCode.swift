/// A stable snake_case reason code: why a record was skipped, repaired or coerced, why a file was rejected, what a
/// warning, a publish finding or a failed run is about. The raw value is the code as it appears in reports, logs
/// and stderr; it is never reworded (docs/diagnostics.md lists every case with its meaning, and
/// `ReasonCodeDocsTests` checks that list against `allCases` both ways). Style-language diagnostics
/// (`StyleDiagnostic.code`) are not reason codes: they are documented with the style language.
public enum ReasonCode: String, CaseIterable, Sendable, Codable, Hashable, Comparable, CodingKeyRepresentable,
    CustomStringConvertible
{

    // MARK: File rejections (REJECT, exit 65 unless noted)
    /// `.shp` empty, shorter than 100 bytes, magic ≠ 9994, or over 4 GiB.
    case notAShapefile = "not_a_shapefile"
    /// The `.shp` header names an unknown shape type (e.g. 77) and no record has a known one.
    case unsupportedShapeType = "unsupported_shape_type"
    /// More than 256 M records, or shapelib disagrees with the index.
    case badIndex = "bad_index"
    /// A `.dbf` header or record layout that cannot be read: too short, a bad header or record length, no flag.
    case badDbfHeader = "bad_dbf_header"
    /// An `--encoding` iconv does not know, or text whose code page nothing declares and the text cannot decide.
    case unknownEncoding = "unknown_encoding"
    /// An input file is a symbolic link (opened with `O_NOFOLLOW`), FIFO, device, socket or folder.
    case notARegularFile = "not_a_regular_file"
    /// Shapelib refused to open the `.shp` (its message is quoted).
    case libraryError = "library_error"
    /// A read failed at the OS level (exit 74).
    case ioError = "io_error"
    /// The process (EMFILE) or the system (ENFILE) ran out of file descriptors: the run stops with exit 74.
    case tooManyOpenFiles = "too_many_open_files"
    /// The path does not exist, holds no `.shp`, or cannot be opened/listed (exit 66).
    case fileNotFound = "file_not_found", noShapefile = "no_shapefile", unreadable = "unreadable"
    /// No `.prj` and no `--source-crs`.
    case missingPrj = "missing_prj"
    /// The `.prj` is over 64 KiB, so the reader does not read it (warning `prj_too_large`) and the CRS is unknown.
    case prjTooLarge = "prj_too_large"
    /// `--source-crs` is not a CRS PROJ accepts, or a plain name that is not exactly a CRS's name (exit 64).
    case badSourceCrs = "bad_source_crs"
    /// The `.prj` is not WKT (prose, PROJ strings, PROJJSON, UTF-16, empty) or PROJ rejects it.
    case unparseablePrj = "unparseable_prj"
    /// Parseable but unsafe: nesting deeper than 64, file paths in grid names, PROJ-string keys, oversized.
    case hostilePrj = "hostile_prj"
    /// PROJ found no way from the layer's CRS to WGS 84 / Web Mercator (its log is quoted).
    case noTransform = "no_transform"
    /// PROJ's database `proj.db` is missing (install proj-data) or a context cannot be set up (exit 70).
    case projSetup = "proj_setup"
    /// Zero records: read as a layer without features and warned.
    case emptyLayer = "empty_layer"
    /// The input's own zoom range lies outside the package's, so the layer would be empty.
    case emptyZoomRange = "empty_zoom_range"
    /// `extract`: the package to cut a region from holds raster tiles.
    case notVectorTiles = "not_vector_tiles"
    /// `extract`: the area holds more than 2²³ tiles, or the run-length entries expand past 2²⁷ tiles.
    case tooManyTiles = "too_many_tiles"
    /// A `.gpkg` that is not an SQLite database, is corrupt, or lacks the GeoPackage tables.
    case notAGeopackage = "not_a_geopackage"
    /// A non-empty `x.gpkg-wal` (or `-journal`) lies beside the file: changes not yet written into it.
    case gpkgPendingChanges = "gpkg_pending_changes"
    /// `--layer` or a pipeline source's `layer` names no feature table of the file.
    case noSuchTable = "no_such_table"
    /// The GeoPackage has no feature table (a tiles- or attributes-only GeoPackage).
    case noFeatureTables = "no_feature_tables"
    /// The feature table is a view or a virtual table, or missing from the database: only real tables are read.
    case gpkgNotATable = "gpkg_not_a_table"
    /// The table has no `INTEGER PRIMARY KEY` column (the feature id every GeoPackage feature table has).
    case gpkgNoFeatureId = "gpkg_no_feature_id"
    /// `gpkg_geometry_columns` names a column the table lacks.
    case gpkgNoGeometryColumn = "gpkg_no_geometry_column"
    /// The geometry column's `srs_id` has no row in `gpkg_spatial_ref_sys`.
    case gpkgUnknownSrs = "gpkg_unknown_srs"
    /// The SRS row defines nothing (`undefined`: the spec's rows -1 and 0) and names no EPSG code.
    case gpkgUndefinedSrs = "gpkg_undefined_srs"
    /// A table or column name holds a NUL character, which SQL text cannot carry.
    case gpkgBadName = "gpkg_bad_name"
    /// SQLite failed while the table was read (a corrupt page, a value over 80 MiB, a row past the work limit).
    case gpkgReadFailed = "gpkg_read_failed"
    /// A pipeline's `regions.path` is a GeoPackage with more than one feature table.
    case regionsNotOneLayer = "regions_not_one_layer"

    // MARK: Record skips (SKIP, counted in `rejected`)
    /// An index entry whose offset or length points at no record.
    case badIndexEntry = "bad_index_entry"
    /// The record lies (partly) past the end of a `.shp` that is shorter than its header declares.
    case truncated = "truncated"
    /// NULL shape (type 0); counted, not an error: `convert`, `import` and `inspect` exit 0 for it.
    case nullGeometry = "null_geometry"
    /// The record's shape family differs from the file's (a Point in a Polygon file).
    case typeMismatch = "type_mismatch"
    /// The record's type code is unknown, e.g. 99.
    case unknownShapeType = "unknown_shape_type"
    /// Shapelib could not read the record (impossible counts or part starts; its message is quoted).
    case corruptRecord = "corrupt_record"
    /// First part start ≠ 0, vertices but no parts, an empty part.
    case badPartLayout = "bad_part_layout"
    /// No vertices, no line part with 2 distinct points, no ring with 3 distinct points and a non-zero area.
    case emptyGeometry = "empty_geometry"
    /// NaN or ±Inf x or y — before any GEOS call.
    case nonFiniteCoordinate = "non_finite_coordinate"
    /// A coordinate beyond ±10¹² (reader) or GeometryOps' limit: garbage that hangs GEOS.
    case outOfDomain = "out_of_domain"
    /// Too many vertices, parts or nested rings, or collections nested too deep, for one geometry.
    case tooComplex = "too_complex"
    /// The `.dbf` row carries the deletion flag `*`.
    case deletedInSource = "deleted_in_source"
    /// The geometry is not a GeoPackage geometry blob.
    case badGeometryBlob = "bad_geometry_blob"
    /// Broken WKB (the message gives the byte offset).
    case badWkb = "bad_wkb"
    /// Curves, surfaces, TINs, triangles and extended GeoPackage geometries.
    case unsupportedGeometryType = "unsupported_geometry_type"
    /// A GeometryCollection holding more than one family (points and polygons): a feature has one kind.
    case mixedGeometryCollection = "mixed_geometry_collection"
    /// The row's fid (its `INTEGER PRIMARY KEY`) is negative.
    case negativeFid = "negative_fid"
    /// The blob's SRS id differs from its column's: its coordinates would be read in the wrong CRS.
    case srsMismatch = "srs_mismatch"
    /// PROJ could not transform a coordinate (outside the source CRS's domain).
    case reprojectionFailed = "reprojection_failed"
    /// The whole geometry lies beyond ±85.0511°.
    case outsideWebMercator = "outside_web_mercator"
    /// Nothing of the geometry is left at the maximum zoom.
    case collapsedAtMaxZoom = "collapsed_at_max_zoom"
    /// Broken flat storage, a bad argument, or GEOS returned NULL/2 (its message is quoted).
    case malformedGeometry = "malformed_geometry", invalidArgument = "invalid_argument", geometryError =
        "geometry_error"
    /// The record is outside the clip region, fails the input's filter, or the stylesheet excludes it.
    case outsideRegion = "outside_region", filteredOut = "filtered_out", excludedByStyle = "excluded_by_style",
        outsideStyleZoomRange = "outside_style_zoom_range"

    // MARK: Repairs (REPAIR, counted in `repaired`, once per record and kind)
    /// A MultiPatch record was read as polygons, the way GDAL reads it.
    case multipatchAsPolygons = "multipatch_as_polygons"
    /// The `.shx` is missing or broken: rebuilt in memory by scanning the `.shp` (once per file).
    case rebuiltIndex = "rebuilt_index"
    /// An unclosed ring with ≥ 3 distinct points was closed.
    case closedRing = "closed_ring"
    /// A ring with fewer than 3 distinct points was dropped.
    case droppedRing = "dropped_ring"
    /// A ring whose points all lie on one line (zero area) was dropped.
    case droppedSliver = "dropped_sliver"
    /// A line part with fewer than 2 distinct points was dropped.
    case droppedPart = "dropped_part"
    /// Repeated consecutive points were removed.
    case removedDuplicates = "removed_duplicates"
    /// Rings were reordered by containment (a hole listed before its shell, shells and holes interleaved).
    case ringAssignment = "ring_assignment"
    /// Rings were reversed to ESRI orientation after classification by containment.
    case reorientedRings = "reoriented_rings"
    /// GEOS MakeValid (STRUCTURE) fixed an invalid polygon, e.g. a bowtie or a spike.
    case makeValid = "make_valid"
    /// Quantizing to the tile grid broke a ring at some zoom.
    case gridRepair = "grid_repair"
    /// A piece too broken for an exact repair was simplified again with a coarser tolerance.
    case coarseGridRepair = "coarse_grid_repair"
    /// A ring of at least 65 536 vertices with detail far below the max zoom's grid was thinned before tiling.
    case giantRingThinned = "giant_ring_thinned"
    /// A piece still broken after coarsening was redrawn on a grid of square blocks.
    case blockGridRepair = "block_grid_repair"
    /// The blocks of `block_grid_repair` failed the final validity check: the piece was left out of that tile.
    case gridRepairDropped = "grid_repair_dropped"
    /// Longitudes in 0…360° (or −360…0°) were wrapped to −180…180°.
    case wrappedLongitudes = "wrapped_longitudes"
    /// A feature smaller than the max-zoom grid is kept as a one-unit stand-in.
    case tinyFeatureKept = "tiny_feature_kept"
    /// A line or polygon whose parts jump across ±180° was unwrapped and tiled on both sides.
    case antimeridianSplit = "antimeridian_split"
    /// Coordinates beyond ±85.0511° latitude were clamped to the Web Mercator edge.
    case clippedPolar = "clipped_polar"

    // MARK: Attribute coercions (COERCE, counted in `coercedToNull` per value)
    /// `abc`, `--5`, decimal comma `1,5`, `12a`: null, never guessed.
    case unparseableNumber = "unparseable_number"
    /// An integer beyond Int64 (`99999999999999999999`), `1e999`, `NaN`, `inf`.
    case numberOutOfRange = "number_out_of_range"
    /// Impossible dates (`20231340`, `20230229`, `2023AB01`), and FoxPro datetimes outside years 1–9999.
    case badDate = "bad_date"
    /// An all-zero date (`00000000`, `0000    `): how writers say "no date".
    case zeroDate = "zero_date"
    /// A number of all `*`: dBASE's mark for a value that did not fit the field.
    case overflowMarker = "overflow_marker"
    /// A number field of NUL bytes (nothing was written).
    case nulFilledNumber = "nul_filled_number"
    /// A memo (`M`) value whose `.dbt`/`.fpt` is missing: null, never the block number.
    case memoFileMissing = "memo_file_missing"
    /// A memo block number that is not a number, or points outside the memo file.
    case badMemoBlock = "bad_memo_block"
    /// A memo over 1 MiB (`MemoFile.maxMemoBytes`).
    case memoTooLarge = "memo_too_large"
    /// A FoxPro binary field (`I`, `B`, `T`, `Y`) of the wrong width.
    case badBinaryValue = "bad_binary_value"
    /// A logical other than `T t Y y F f N n ?`.
    case badLogical = "bad_logical"
    /// A BLOB value in a GeoPackage `TEXT`, `DATE` or `DATETIME` column (SQLite stores any value in any column).
    case unparseableText = "unparseable_text"
    /// Invalid UTF-8 under a declared UTF-8 code page: replaced with U+FFFD (the value is kept).
    case invalidUtf8 = "invalid_utf8"

    // MARK: Warnings (WARN)
    /// The `.shp`/`.shx` header file length, or a record header's content length, disagrees with reality.
    case lengthMismatch = "length_mismatch"
    /// Record headers carry numbers other than their position (e.g. numbered from 0).
    case recordNumberMismatch = "record_number_mismatch"
    /// The `.shp` ends before its declared length (per file).
    case truncatedAt = "truncated_at"
    /// Bytes after the last indexed record are not in the `.shx` and are not read.
    case unindexedBytes = "unindexed_bytes"
    /// No `.dbf`: geometry only.
    case noAttributes = "no_attributes"
    /// The `.dbf` record count exceeds what the file holds.
    case dbfCountLies = "dbf_count_lies"
    /// An unusual header length that the file size proves consistent (e.g. `0x0D` followed by `0x00`).
    case dbfHeaderPadding = "dbf_header_padding"
    /// No `0x0D` after the field descriptors, while the header length is exactly the descriptors: read.
    case dbfNoTerminator = "dbf_no_terminator"
    /// A `.dbf` with no field, no record and a record length of 0: nothing to read.
    case dbfWithoutRecords = "dbf_without_records"
    /// A dBASE II or dBASE 7 table: its header is read by Kartpack, its records as dBASE III records.
    case dbfLegacyLayout = "dbf_legacy_layout"
    /// Records start with `0x00` instead of the space deletion flag: read as not deleted.
    case dbfNulDeletionFlag = "dbf_nul_deletion_flag"
    /// Records longer than their fields, proven by the file size: the extra bytes are ignored.
    case dbfRecordPadding = "dbf_record_padding"
    /// `C` fields wider than 255 bytes, the decimals byte holding the high byte (Clipper/FoxPro).
    case longCharacterField = "long_character_field"
    /// The last record's declared length runs past the end of the `.shp` but its own counts fit: read.
    case recordLengthOverrun = "record_length_overrun"
    /// The `.shp` header's shape type is Null or unknown.
    case headerShapeTypeFromRecords = "header_shape_type_from_records"
    /// The file's `application_id` is not `GPKG` (or 1.0's `GP10`/`GP11`).
    case gpkgApplicationId = "gpkg_application_id"
    /// A `BLOB` column (or one without a declared type) is not read: tiles cannot carry binary values.
    case blobFieldSkipped = "blob_field_skipped"
    /// The datum has no name but everything else matches an EPSG CRS: taken as that code.
    case crsIdentifiedByEllipsoid = "crs_identified_by_ellipsoid"
    /// Fewer / more `.dbf` rows than shapes.
    case missingAttributes = "missing_attributes", orphanDbfRows = "orphan_dbf_rows"
    /// Width-0 fields, OLE/picture/binary memos (`G`, `P`, `B` of width 10) and FoxPro's `_NullFlags` dropped.
    case droppedField = "dropped_field", unknownFieldType = "unknown_field_type", duplicateFieldName =
        "duplicate_field_name"
    /// A value that is not UTF-8 in a table that declares no code page: decoded as CP1252.
    case encodingFallback = "encoding_fallback"
    /// Bytes undefined in the code page replaced with U+FFFD (per value).
    case undecodableBytes = "undecodable_bytes"
    /// An empty `.cpg` is ignored.
    case emptyCpg = "empty_cpg"
    /// Nothing declares the code page and the text reads as well in CP1252 as in a DOS page: read as CP1252.
    case encodingTie = "encoding_tie"
    /// A `.cpg` that names no code page iconv knows is ignored: the text decides the encoding.
    case ignoredCpg = "ignored_cpg"
    /// Shapelib reported a problem while reading a value or record (quoted).
    case attributeReadError = "attribute_read_error", shapelibMessage = "shapelib_message"
    /// The transformation is approximate (a grid is missing).
    case ballparkTransform = "ballpark_transform"
    /// `--id-field` values missing or repeated (the id policy decides: reject, skip or warn).
    case missingId = "missing_id", duplicateId = "duplicate_id"
    /// Polygon records of a clip region or ancestor layer that cannot be projected were left out.
    case polygonsNotProjected = "polygons_not_projected"
    /// A descendant selector could not test whether a feature lies inside an ancestor: counted as not inside.
    case ancestorLookupFailed = "ancestor_lookup_failed"
    /// Tiles over the size or feature limits with nothing left to drop: written whole.
    case tileOverLimit = "tile_over_limit"
    /// Protected features (`thinning: never`) left out of a zoom whose tile they alone overfill.
    case protectedThinned = "protected_thinned"
    /// Features left out of a zoom below their highest zoom by the tile limits or `max-points`, per zoom.
    case droppedBySizeLimit = "dropped_by_size_limit", droppedByFeatureLimit = "dropped_by_feature_limit",
        droppedByMaxPoints = "dropped_by_max_points"
    /// Folder inputs: case variants, sidecars without a `.shp`, renamed layers, links and devices not followed.
    case duplicateShapefile = "duplicate_shapefile", duplicateSidecar = "duplicate_sidecar", orphanSidecar =
        "orphan_sidecar", layerRenamed = "layer_renamed", symlinkSkipped = "symlink_skipped", specialFileSkipped =
        "special_file_skipped", folderTooDeep = "folder_too_deep", unreadableFolder = "unreadable_folder",
        unreadableName = "unreadable_name"
    /// Zip entries skipped (duplicates by case, nested archives, file/folder clashes).
    case zipDuplicateEntry = "zip_duplicate_entry", zipNestedArchive = "zip_nested_archive", zipPathConflict =
        "zip_path_conflict"

    // MARK: Publishing (the build as a whole)
    /// A pipeline source has no feature left, so the package has no such layer.
    case noFeatures = "no_features"
    /// A source wrote fewer features than its `"minFeatures"`.
    case tooFewFeatures = "too_few_features"
    /// A source lost more than `"maxShrink"` (a share, 0–1) of the features the previous package had for it.
    case layerShrank = "layer_shrank"

    // MARK: Region packages (`kartpack package`, the night as a whole)
    /// The region's record has a null shape (names the regions file, record and id).
    case regionNull = "region_null"
    /// The region's polygon has no area.
    case regionZeroArea = "region_zero_area"
    /// A vertex of the region is NaN or infinite, or not finite after projection.
    case regionNonFinite = "region_non_finite"
    /// GEOS finds the region's polygon not valid (its reason is quoted).
    case regionInvalidPolygon = "region_invalid_polygon"
    /// The reader skipped the region's record for another reason (quoted).
    case regionUnreadable = "region_unreadable"
    /// The region's polygon cannot be projected to Web Mercator.
    case regionUnprojectable = "region_unprojectable"
    /// Nothing is left of the region after MakeValid and the buffer.
    case regionNoArea = "region_no_area"
    /// A region's package could not be built (an I/O or internal error): nothing is published.
    case regionBuildFailed = "region_build_failed"
    /// `run` or `package` ended by an error before it could judge the build: nothing is published.
    case runFailed = "run_failed"
    /// `run` or `package` was stopped by SIGINT or SIGTERM: nothing is published.
    case interrupted = "interrupted"
    /// `run`: every input was rejected or no feature is left.
    case nothingToWrite = "nothing_to_write"
    /// A region of the previous catalog is gone or empty tonight, and removals were not allowed.
    case regionRemoved = "region_removed"

    // MARK: File rejections
    /// The event of a rejected input, and its records' count in `rejected`, when no finer code applies.
    case fileRejected = "file_rejected"

    // MARK: Warnings
    /// Note: which max zoom `--max-zoom auto` chose and why.
    case maxZoomChosen = "max_zoom_chosen"

    // MARK: Import rejections
    /// The zip input is not a zip archive.
    case zipNotAnArchive = "zip_not_an_archive"
    /// A zip entry whose path would leave the extraction folder.
    case zipUnsafeEntry = "zip_unsafe_entry"
    /// A zip entry that does not inflate or fails its CRC.
    case zipCorruptEntry = "zip_corrupt_entry"
    /// A zip feature Kartpack does not read (encryption, a compression method other than stored/deflate).
    case zipUnsupported = "zip_unsupported"
    /// The import passed a limit on entries, bytes or depth.
    case importLimitExceeded = "import_limit_exceeded"
    /// The import source cannot be read.
    case sourceUnreadable = "source_unreadable"

    // MARK: Warnings
    /// A zip entry that is a link, device or FIFO: skipped.
    case zipSpecialFile = "zip_special_file"

    // MARK: Region packages
    /// Warning: a new region without any feature, left out of the catalog.
    case regionEmpty = "region_empty"
    /// Warning: a catalog written without `--sign` removed the previous signature.
    case signatureRemoved = "signature_removed"
    /// Counted: records whose features have no piece in a range shard's tiles.
    case outsideShard = "outside_shard"
    /// Counted: features of a source that touch no region's polygon.
    case outsideRegions = "outside_regions"

    // MARK: Tile decoding
    /// A tile that does not decode (`MVTDecodeError`, `verify` and the decode check): broken protobuf, bad tags.
    case mvtMalformedProtobuf = "mvt_malformed_protobuf", mvtMissingLayerName = "mvt_missing_layer_name",
        mvtDuplicateLayerName = "mvt_duplicate_layer_name", mvtUnsupportedVersion = "mvt_unsupported_version",
        mvtInvalidExtent = "mvt_invalid_extent", mvtInvalidValue = "mvt_invalid_value", mvtInvalidUtf8 =
        "mvt_invalid_utf8", mvtOddTagCount = "mvt_odd_tag_count", mvtKeyIndexOutOfRange = "mvt_key_index_out_of_range",
        mvtValueIndexOutOfRange = "mvt_value_index_out_of_range", mvtDuplicateKeyInFeature =
        "mvt_duplicate_key_in_feature", mvtInvalidGeometryType = "mvt_invalid_geometry_type", mvtMissingGeometry =
        "mvt_missing_geometry", mvtUnknownCommand = "mvt_unknown_command", mvtUnexpectedCommand =
        "mvt_unexpected_command", mvtTruncatedGeometry = "mvt_truncated_geometry", mvtZeroLengthLineto =
        "mvt_zero_length_lineto", mvtCoordinateOverflow = "mvt_coordinate_overflow", mvtWrongWinding =
        "mvt_wrong_winding", mvtLimitExceeded = "mvt_limit_exceeded"
    /// Tolerated while decoding a tile (`MVTDecodeWarning`, also `empty_layer`): a version 1 layer, a layer without a
    /// version, a feature of type UNKNOWN, a zero-area ring, a ring repeating its first point before ClosePath.
    case version1Layer = "version_1_layer", missingVersion = "missing_version", unknownGeometryType =
        "unknown_geometry_type", zeroAreaRing = "zero_area_ring", closingPointRepeated = "closing_point_repeated"

    // MARK: Validation (new cases go last: a case inserted before others renumbers them in stale builds)
    /// Warning (`validate`): a Shapefile's stored record boxes cannot be trusted (a box that does not hold its
    /// record's vertices, a `.shx` out of file order): a shard plan has every shard read it whole.
    case recordBoxUntrusted = "record_box_untrusted"

    /// The code as written in reports, logs and messages (`"\(code)"` is the raw value, never the case name).
    public var description: String { rawValue }

    /// Codes order by their raw value (the order reports and the diagnostic summary list them in).
    public static func < (a: ReasonCode, b: ReasonCode) -> Bool { a.rawValue < b.rawValue }
}
