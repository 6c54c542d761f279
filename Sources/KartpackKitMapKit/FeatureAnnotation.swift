#if canImport(MapKit)
    import KartpackKit
    import MapKit

    /// A map pin for one point feature of a query: its first position, titled by `titleField` (else its class).
    public final class FeatureAnnotation: NSObject, MKAnnotation {
        /// The feature.
        public let feature: MapFeature
        /// Its first position.
        public let coordinate: CLLocationCoordinate2D
        /// The `titleField` attribute as text, else the feature's class.
        public let title: String?

        /// A pin for `feature`; nil when it has no position.
        public init?(feature: MapFeature, titleField: String? = nil) {
            guard let first = feature.geometry.coordinates.first else { return nil }
            self.feature = feature
            coordinate = CLLocationCoordinate2D(latitude: first.latitude, longitude: first.longitude)
            title = titleField.flatMap { feature[$0]?.description } ?? feature.featureClass
        }
    }

    extension KartpackPackage {
        /// Pins for at most `limit` point features of `layers` in the visible `region` of a map, spread evenly
        /// (`features(in:zoom:layers:limit:spread:)`: the choice is stable while the user zooms in). The zoom is
        /// MapLibre's for the region's width: `log2(360 / longitudeDelta × widthInPoints / 512)`.
        public func annotations(
            in region: MKCoordinateRegion, widthInPoints: Double, layers: [String]? = nil, limit: Int,
            titleField: String? = nil
        ) throws(KartpackKitError) -> [FeatureAnnotation] {
            let c = region.center
            let s = region.span
            let view = GeoRegion(
                west: max(-180, c.longitude - s.longitudeDelta / 2),
                south: max(-90, c.latitude - s.latitudeDelta / 2),
                east: min(180, c.longitude + s.longitudeDelta / 2),
                north: min(90, c.latitude + s.latitudeDelta / 2))
            let zoom = min(31, max(0, Int(log2(360 / max(s.longitudeDelta, 1e-9) * widthInPoints / 512))))
            return try features(in: view, zoom: zoom, layers: layers, limit: limit, spread: .even)
                .compactMap {
                    guard case .points = $0.geometry else { return nil }
                    return FeatureAnnotation(feature: $0, titleField: titleField)
                }
        }
    }
#endif
