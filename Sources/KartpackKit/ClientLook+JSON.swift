import KartpackJSON

extension ClientLook {
    /// The look as JSON in MapLibre's property names, one object per drawn layer in draw order:
    /// `{"layer": ID, "kind": "fill"|"pattern"|"outline"|"line"|"circle"|"icon"|"label", PROPERTY: VALUE…}`
    /// with colours as `#rrggbb` (or `rgba(…)`), a pattern's or icon's sprite `images`
    /// (`pixelRatio`, `x`, `y`, `width`, `height`), and for labels `text` and `text-field-attribute`.
    public var json: JSONValue {
        func color(_ c: LookColor) -> JSONValue { .string(c.description) }
        func images(_ set: SpriteImageSet?) -> JSONValue {
            .array(
                (set?.images ?? []).map { i in
                    .object([
                        ("pixelRatio", .double(i.pixelRatio)), ("x", .int(Int64(i.rect.x))),
                        ("y", .int(Int64(i.rect.y))),
                        ("width", .int(Int64(i.rect.width))), ("height", .int(Int64(i.rect.height))),
                    ])
                })
        }
        return .array(
            layers.map { l in
                var m: [(key: String, value: JSONValue)] = [("layer", .string(l.id))]
                switch l.look {
                case .fill(let f):
                    m += [
                        ("kind", .string("fill")), ("fill-color", color(f.color)),
                        ("fill-opacity", .double(f.opacity)),
                    ]
                case .pattern(let p):
                    m += [
                        ("kind", .string("pattern")), ("fill-pattern", .string(p.name)),
                        ("fill-opacity", .double(p.opacity)),
                        ("images", images(p.image)),
                    ]
                case .stroke(let s):
                    m += [
                        ("kind", .string(s.isOutline ? "outline" : "line")), ("line-color", color(s.color)),
                        ("line-width", .double(s.width)), ("line-opacity", .double(s.opacity)),
                        ("line-dasharray", s.dashes.map { .array($0.map { .double($0) }) } ?? .null),
                    ]
                case .circle(let c):
                    m += [
                        ("kind", .string("circle")), ("circle-color", color(c.color)),
                        ("circle-radius", .double(c.radius)),
                        ("circle-opacity", .double(c.opacity)), ("circle-stroke-color", color(c.strokeColor)),
                        ("circle-stroke-width", .double(c.strokeWidth)),
                    ]
                case .icon(let i):
                    m += [
                        ("kind", .string("icon")), ("icon-image", .string(i.name)),
                        ("icon-size", .double(i.size)),
                        ("images", images(i.image)),
                    ]
                case .label(let t):
                    m += [
                        ("kind", .string("label")), ("text", .string(t.text)),
                        ("text-field-attribute", t.field.map { .string($0) } ?? .null),
                        ("text-color", color(t.color)),
                        ("text-size", .double(t.size)), ("symbol-placement", .string(t.placement)),
                    ]
                }
                return .object(m)
            })
    }
}
