#if canImport(MapKit)
    import KartpackKit
    import MapKit

    /// An overlay over a package's bounds: add it to an `MKMapView` to mark (or frame) the region a package
    /// covers, e.g. `mapView.setVisibleMapRect(overlay.boundingMapRect, animated: true)`.
    ///
    /// Built only where MapKit exists (Apple platforms); Linux CI never compiles this file (docs/kartpack-kit.md).
    public final class PackageOverlay: NSObject, MKOverlay {
        /// The package.
        public let package: KartpackPackage
        /// The centre of the package's bounds.
        public let coordinate: CLLocationCoordinate2D
        /// The package's bounds in map points (latitudes clamped to Web Mercator's ±85.0511°).
        public let boundingMapRect: MKMapRect

        /// An overlay over `package.bounds`.
        public init(package: KartpackPackage) {
            self.package = package
            let b = package.bounds
            let limit = 85.0511287798066
            let nw = MKMapPoint(CLLocationCoordinate2D(latitude: min(b.north, limit), longitude: b.west))
            let se = MKMapPoint(CLLocationCoordinate2D(latitude: max(b.south, -limit), longitude: b.east))
            boundingMapRect = MKMapRect(x: nw.x, y: nw.y, width: se.x - nw.x, height: se.y - nw.y)
            coordinate = CLLocationCoordinate2D(
                latitude: (b.south + b.north) / 2, longitude: (b.west + b.east) / 2)
        }
    }
#endif
