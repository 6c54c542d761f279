import Foundation

extension ClientExpression {
    /// The value for one feature, with MapLibre's semantics; throws MapLibre's run-time errors (an ordering
    /// comparison of mixed types, a non-boolean condition, a bad colour), which the caller turns into a false
    /// filter or the property's default.
    func evaluate(_ c: ExpressionContext) throws(StyleEvaluationError) -> ExpressionValue {
        switch self {
        case .literal(let v): return v
        case .get(let key): return ExpressionValue(c.property(key))
        case .has(let key): return .bool(c.property(key) != nil)
        case .match(let input, let arms, let fallback):
            let v = try input.evaluate(c)
            for arm in arms where arm.labels.contains(v) { return try arm.value.evaluate(c) }
            return try fallback.evaluate(c)
        case .step(let input, let base, let stops):
            let x = try number(input.evaluate(c), "step input")
            var chosen = base
            for (at, value) in stops where x >= at { chosen = value }
            return try chosen.evaluate(c)
        case .interpolate(let b, let input, let stops):
            let x = try number(input.evaluate(c), "interpolate input")
            guard !x.isNaN else { throw StyleEvaluationError(reason: "interpolate input is NaN") }
            guard let first = stops.first, let last = stops.last else {
                throw StyleEvaluationError(reason: "no stops")
            }
            if x <= first.0 { return try first.1.evaluate(c) }
            if x >= last.0 { return try last.1.evaluate(c) }
            let i = stops.lastIndex { $0.0 <= x } ?? 0
            let (x0, e0) = stops[i]
            let (x1, e1) = stops[i + 1]
            let t = b == 1 ? (x - x0) / (x1 - x0) : (pow(b, x - x0) - 1) / (pow(b, x1 - x0) - 1)
            guard t.isFinite else {
                throw StyleEvaluationError(reason: "interpolation factor is not finite")
            }
            return try Self.mix(e0.evaluate(c), e1.evaluate(c), t)
        case .call(let op, let args):
            return try call(op, args, c)
        }
    }

    static func mix(_ a: ExpressionValue, _ b: ExpressionValue, _ t: Double) throws(StyleEvaluationError)
        -> ExpressionValue
    {
        switch (a, b) {
        case (.number(let x), .number(let y)): return .number(x + (y - x) * t)
        case (.array(let xs), .array(let ys)) where xs.count == ys.count:
            var out: [ExpressionValue] = []
            for (x, y) in zip(xs, ys) { out.append(try mix(x, y, t)) }
            return .array(out)
        default:
            if let x = color(a), let y = color(b) {
                func ch(_ p: UInt8, _ q: UInt8) -> UInt8 {
                    UInt8(min(max((Double(p) + (Double(q) - Double(p)) * t).rounded(), 0), 255))
                }
                return .color(
                    LookColor(
                        red: ch(x.red, y.red), green: ch(x.green, y.green), blue: ch(x.blue, y.blue),
                        alpha: x.alpha + (y.alpha - x.alpha) * t))
            }
            throw StyleEvaluationError(reason: "cannot interpolate \(a.typeName) and \(b.typeName)")
        }
    }

    /// A colour value, or a string MapLibre would coerce to one.
    static func color(_ v: ExpressionValue) -> LookColor? {
        switch v {
        case .color(let c): c
        case .string(let s): LookColor(css: s)
        default: nil
        }
    }

    func number(_ v: ExpressionValue, _ what: String) throws(StyleEvaluationError) -> Double {
        guard case .number(let d) = v else {
            throw StyleEvaluationError(reason: "\(what) is \(v.typeName)")
        }
        return d
    }

    func boolean(_ v: ExpressionValue, _ what: String) throws(StyleEvaluationError) -> Bool {
        guard case .bool(let b) = v else {
            throw StyleEvaluationError(reason: "\(what) is \(v.typeName)")
        }
        return b
    }

    func call(_ op: String, _ args: [ClientExpression], _ c: ExpressionContext)
        throws(StyleEvaluationError)
        -> ExpressionValue
    {
        func value(_ i: Int) throws(StyleEvaluationError) -> ExpressionValue { try args[i].evaluate(c) }
        func numbers() throws(StyleEvaluationError) -> [Double] {
            var out: [Double] = []
            for i in args.indices { out.append(try number(value(i), op)) }
            return out
        }
        switch op {
        case "typeof": return .string(try value(0).typeName)
        case "to-string": return .string(try value(0).text)
        case "to-number":
            for i in args.indices {
                switch try value(i) {
                case .number(let d): return .number(d)
                case .bool(let b): return .number(b ? 1 : 0)
                case .null: return .number(0)
                case .string(let s):
                    if let d = Double(s.trimmingCharacters(in: .whitespaces)) { return .number(d) }
                default: break
                }
            }
            throw StyleEvaluationError(reason: "to-number: no argument converts")
        case "to-boolean":
            switch try value(0) {
            case .null: return .bool(false)
            case .bool(let b): return .bool(b)
            case .number(let d): return .bool(d != 0 && !d.isNaN)
            case .string(let s): return .bool(!s.isEmpty)
            default: return .bool(true)
            }
        case "!": return .bool(!(try boolean(value(0), "! argument")))
        case "length":
            switch try value(0) {
            case .string(let s): return .number(Double(s.utf16.count))
            case .array(let a): return .number(Double(a.count))
            case let v: throw StyleEvaluationError(reason: "length of \(v.typeName)")
            }
        case "downcase", "upcase":
            guard case .string(let s) = try value(0) else {
                throw StyleEvaluationError(reason: "\(op) of non-text")
            }
            return .string(op == "downcase" ? s.lowercased() : s.uppercased())
        case "==", "!=":
            let equal = Self.equal(try value(0), try value(1))
            return .bool(op == "==" ? equal : !equal)
        case "<", "<=", ">", ">=":
            let order: Int
            switch (try value(0), try value(1)) {
            case (.number(let a), .number(let b)): order = a < b ? -1 : (a > b ? 1 : 0)
            case (.string(let a), .string(let b)):
                // JavaScript compares UTF-16 code units.
                order = a.utf16.lexicographicallyPrecedes(b.utf16) ? -1 : (a == b ? 0 : 1)
            case (let a, let b):
                throw StyleEvaluationError(reason: "\(op) of \(a.typeName) and \(b.typeName)")
            }
            switch op {
            case "<": return .bool(order < 0)
            case "<=": return .bool(order <= 0)
            case ">": return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case "all":
            for i in args.indices where !(try boolean(value(i), "all argument")) { return .bool(false) }
            return .bool(true)
        case "any":
            for i in args.indices where try boolean(value(i), "any argument") { return .bool(true) }
            return .bool(false)
        case "case":
            var i = 0
            while i + 1 < args.count {
                if try boolean(value(i), "case condition") { return try value(i + 1) }
                i += 2
            }
            return try value(args.count - 1)
        case "coalesce":
            for i in args.indices {
                let v = try value(i)
                if v != .null { return v }
            }
            return .null
        case "concat":
            var s = ""
            for i in args.indices { s += try value(i).text }
            return .string(s)
        case "in":
            let needle = try value(0)
            switch try value(1) {
            case .array(let a): return .bool(a.contains { Self.equal($0, needle) })
            case .string(let s):
                guard case .string(let n) = needle else { throw StyleEvaluationError(reason: "in: needle") }
                return .bool(n.isEmpty || s.contains(n))
            case let v: throw StyleEvaluationError(reason: "in: haystack is \(v.typeName)")
            }
        case "index-of":
            let needle = try value(0)
            let start = args.count == 3 ? try number(value(2), "index-of start") : 0
            let from = start.isNaN ? 0 : Int(min(max(start, 0), 1e9))
            switch try value(1) {
            case .array(let a):
                let i = a.indices.first { $0 >= from && Self.equal(a[$0], needle) }
                return .number(Double(i ?? -1))
            case .string(let s):
                guard case .string(let n) = needle else {
                    throw StyleEvaluationError(reason: "index-of: needle")
                }
                let hay = Array(s.utf16)
                let pat = Array(n.utf16)
                var i = max(from, 0)
                while i + pat.count <= hay.count {
                    if hay[i..<(i + pat.count)].elementsEqual(pat) { return .number(Double(i)) }
                    i += 1
                }
                return .number(-1)
            case let v: throw StyleEvaluationError(reason: "index-of: haystack is \(v.typeName)")
            }
        case "slice":
            let start = try number(value(1), "slice start")
            let end = args.count == 3 ? try number(value(2), "slice end") : nil
            func range(_ n: Int) -> Range<Int> {
                func clamp(_ x: Double) -> Int {
                    let i = x.isFinite ? Int(max(min(x, 1e9), -1e9)) : (x > 0 ? n : -n)
                    return i < 0 ? max(n + i, 0) : min(i, n)
                }
                let lo = clamp(start)
                let hi = end.map(clamp) ?? n
                return lo..<max(lo, hi)
            }
            switch try value(0) {
            case .string(let s):
                let scalars = Array(s.unicodeScalars)
                var out = String.UnicodeScalarView()
                out.append(contentsOf: scalars[range(scalars.count)])
                return .string(String(out))
            case .array(let a): return .array(Array(a[range(a.count)]))
            case let v: throw StyleEvaluationError(reason: "slice of \(v.typeName)")
            }
        case "+": return .number(try numbers().reduce(0, +))
        case "*": return .number(try numbers().reduce(1, *))
        case "-":
            let n = try numbers()
            return .number(n.count == 1 ? -n[0] : n[0] - n[1])
        case "/":
            let n = try numbers()
            return .number(n[0] / n[1])
        case "%":
            let n = try numbers()
            return .number(n[0].truncatingRemainder(dividingBy: n[1]))
        case "min": return .number(try numbers().min() ?? .nan)
        case "max": return .number(try numbers().max() ?? .nan)
        case "zoom": return .number(c.zoom)
        case "geometry-type": return .string(c.geometryType)
        case "id": return c.id.map { .number(Double($0)) } ?? .null
        case "rgb", "rgba":
            let n = try numbers()
            func ch(_ x: Double) -> UInt8 { UInt8(min(max(x.isNaN ? 0 : x.rounded(), 0), 255)) }
            return .color(
                LookColor(red: ch(n[0]), green: ch(n[1]), blue: ch(n[2]), alpha: n.count == 4 ? n[3] : 1))
        case "to-color":
            for i in args.indices {
                if let col = Self.color(try value(i)) { return .color(col) }
            }
            throw StyleEvaluationError(reason: "to-color: no argument is a colour")
        default:
            throw StyleEvaluationError(reason: "operator \(op)")
        }
    }

    /// MapLibre's `==`: same type and value (values of different types are never equal).
    static func equal(_ a: ExpressionValue, _ b: ExpressionValue) -> Bool { a == b }
}
