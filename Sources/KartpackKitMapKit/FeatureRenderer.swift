#if canImport(MapKit)
    import KartpackKit
    import MapKit

    #if canImport(UIKit)
        import UIKit
        typealias PlatformColor = UIColor
    #else
        import AppKit
        typealias PlatformColor = NSColor
    #endif

    /// MapKit shapes and renderers for queried features with the look of a `ClientStyle`.
    public enum FeatureShapes {
        /// An `MKMultiPolygon` (holes kept) or `MKMultiPolyline` for a polygon or line feature; nil for points
        /// (use `FeatureAnnotation`).
        public static func overlay(for feature: MapFeature) -> MKOverlay? {
            func coordinates(_ ring: [GeoCoordinate]) -> [CLLocationCoordinate2D] {
                ring.map { CLLocationCoordinate2D(latitude: $0.latitude, longitude: $0.longitude) }
            }
            switch feature.geometry {
            case .points: return nil
            case .lines(let lines):
                return MKMultiPolyline(
                    lines.map { l in
                        let c = coordinates(l)
                        return MKPolyline(coordinates: c, count: c.count)
                    })
            case .polygons(let polygons):
                return MKMultiPolygon(
                    polygons.map { p in
                        let outer = coordinates(p.exterior)
                        let holes = p.holes.map { h in
                            let c = coordinates(h)
                            return MKPolygon(coordinates: c, count: c.count)
                        }
                        return MKPolygon(coordinates: outer, count: outer.count, interiorPolygons: holes)
                    })
            }
        }

        /// A renderer for an overlay made by `overlay(for:)`: the look's solid fill (colour × opacity) and its
        /// stroke (colour, width, dash lengths scaled by the width). Pattern fills are not drawn here: draw
        /// `look.pattern?.image` with a custom `MKOverlayRenderer` (see docs/kartpack-kit.md).
        public static func renderer(for overlay: MKOverlay, look: ClientLook) -> MKOverlayRenderer? {
            let renderer: MKOverlayPathRenderer
            if let p = overlay as? MKMultiPolygon {
                renderer = MKMultiPolygonRenderer(multiPolygon: p)
            } else if let l = overlay as? MKMultiPolyline {
                renderer = MKMultiPolylineRenderer(multiPolyline: l)
            } else {
                return nil
            }
            if let f = look.fill { renderer.fillColor = color(f.color, opacity: f.opacity) }
            if let s = look.stroke {
                renderer.strokeColor = color(s.color, opacity: s.opacity)
                renderer.lineWidth = s.width
                renderer.lineJoin = .round
                renderer.lineDashPattern = s.dashes.map { $0.map { NSNumber(value: $0 * s.width) } }
            }
            return renderer
        }

        static func color(_ c: LookColor, opacity: Double) -> PlatformColor {
            #if canImport(UIKit)
                UIColor(
                    red: Double(c.red) / 255, green: Double(c.green) / 255, blue: Double(c.blue) / 255,
                    alpha: c.alpha * opacity)
            #else
                NSColor(
                    srgbRed: Double(c.red) / 255, green: Double(c.green) / 255, blue: Double(c.blue) / 255,
                    alpha: c.alpha * opacity)
            #endif
        }
    }
#endif
