/// `.prj` texts used by the tests, embedded so no test depends on files outside the repository.
enum PrjFixtures {
    /// ESRI WKT1 of SWEREF99 TM, as ArcGIS writes it for EPSG:3006.
    static let sweref99TM =
        #"PROJCS["SWEREF99_TM",GEOGCS["GCS_SWEREF99",DATUM["D_SWEREF99",SPHEROID["GRS_1980",6378137.0,298.257222101]],"#
        + #"PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],"#
        + #"PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian","#
        + #"15.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#

    /// The ESRI `.prj` of the NYC boroughs sample (`nybb_16a.zip`, shipped by python3-geopandas in
    /// /usr/lib/python3/dist-packages/geopandas/datasets/): US-feet state plane, EPSG:2263.
    static let nybb =
        #"PROJCS["NAD_1983_StatePlane_New_York_Long_Island_FIPS_3104_Feet",GEOGCS["GCS_North_American_1983","#
        + #"DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],"#
        + #"UNIT["Degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic"],"#
        + #"PARAMETER["False_Easting",984250.0],PARAMETER["False_Northing",0.0],"#
        + #"PARAMETER["Central_Meridian",-74.0],PARAMETER["Standard_Parallel_1",40.66666666666666],"#
        + #"PARAMETER["Standard_Parallel_2",41.03333333333333],PARAMETER["Latitude_Of_Origin","#
        + #"40.16666666666666],UNIT["Foot_US",0.3048006096012192]]"#

    /// ESRI NAD83 / UTM zone 15N, used as the horizontal part of compound cases.
    static let utm15N =
        #"PROJCS["NAD_1983_UTM_Zone_15N",GEOGCS["GCS_North_American_1983",DATUM["D_North_American_1983","#
        + #"SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree","#
        + #"0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],"#
        + #"PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",-93.0],PARAMETER["Scale_Factor","#
        + #"0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#

    /// An ESRI vertical CRS with VDATUM (the construct that can segfault PROJ 9.1.1).
    static let esriVertCS =
        #"VERTCS["NAVD_1988",VDATUM["North_American_Vertical_Datum_1988"],PARAMETER["Vertical_Shift",0.0],"#
        + #"PARAMETER["Direction",1.0],UNIT["Meter",1.0]]"#

    /// A transverse Mercator on WGS 84 whose EXTENSION carries a PROJ string with a grid path; `path` is the grid.
    static func withExtension(gridPath path: String) -> String {
        #"PROJCS["WGS 84 / UTM zone 33N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],"#
            + #"PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],"#
            + #"PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",15],PARAMETER["scale_factor","#
            + #"0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1],"#
            + #"EXTENSION["PROJ4","+proj=tmerc +lon_0=15 +k=0.9996 +x_0=500000 +datum=WGS84 +nadgrids="#
            + path + #" +units=m +no_defs"]]"#
    }

    /// WKT2 WGS 84 (latitude first) with a degenerate BBOX that makes PROJ 9.1.1 recurse forever in
    /// proj_create_crs_to_crs_from_pj (it segfaults on a stack overflow).
    static let degenerateBBox =
        #"GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563,"#
        + #"LENGTHUNIT["metre",1]]],PRIMEM["Greenwich",0,ANGLEUNIT["degree",0.0174532925199433]],CS[ellipsoidal,"#
        + #"2],AXIS["geodetic latitude (Lat)",north,ORDER[1],ANGLEUNIT["degree",0.0174532925199433]],"#
        + #"AXIS["geodetic longitude (Lon)",east,ORDER[2],ANGLEUNIT["degree",0.0174532925199433]],"#
        + #"USAGE[SCOPE["x"],AREA["x"],BBOX[-90,180,90,180]]]"#

    /// A geographic CRS on a made-up datum: PROJ only has a ballpark operation to WGS 84.
    static let customDatum =
        #"GEOGCS["Custom",DATUM["D_Custom",SPHEROID["Custom",6378000.0,300.0]],PRIMEM["Greenwich",0.0],UNIT["Degree","#
        + #"0.0174532925199433]]"#
}
