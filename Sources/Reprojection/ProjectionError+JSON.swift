import KartpackCore
import KartpackJSON

extension ProjectionError {
    /// The error as JSON (`{"code": …, and its fields}`), for the CRS child process's answer.
    var json: JSONValue {
        func s(_ v: String?) -> JSONValue { v.map { .string($0) } ?? .null }
        var members: [(String, JSONValue)] = [("code", .string(code.rawValue))]
        switch self {
        case .missingPrj(let file): members.append(("file", s(file)))
        case .prjTooLarge(let file, let size, let limit):
            members += [("file", .string(file)), ("size", .int(Int64(size))), ("limit", .int(Int64(limit)))]
        case .unparseablePrj(let file, let detail): members += [("file", s(file)), ("detail", .string(detail))]
        case .hostilePrj(let file, let reason): members += [("file", s(file)), ("reason", .string(reason))]
        case .badOverride(let text, let detail): members += [("text", .string(text)), ("detail", .string(detail))]
        case .cannotCreateTransform(let source, let target, let detail):
            members += [("source", .string(source)), ("target", .string(target)), ("detail", .string(detail))]
        case .projDatabaseMissing(let detail): members += [("case", .string("database")), ("detail", .string(detail))]
        case .projSetupFailed(let detail): members += [("case", .string("setup")), ("detail", .string(detail))]
        case .tooManyOpenFiles(let what, let reason): members += [("what", .string(what)), ("reason", .string(reason))]
        }
        return .object(members)
    }

    /// The error `json` describes, or nil for anything else.
    init?(json v: JSONValue) {
        guard let raw = v["code"]?.stringValue, let code = ReasonCode(rawValue: raw) else { return nil }
        let file = v["file"]?.stringValue
        let detail = v["detail"]?.stringValue
        switch code {
        case .missingPrj: self = .missingPrj(file: file)
        case .prjTooLarge:
            guard let file, let size = v["size"]?.intValue, let limit = v["limit"]?.intValue else { return nil }
            self = .prjTooLarge(file: file, size: Int(size), limit: Int(limit))
        case .unparseablePrj:
            guard let detail else { return nil }
            self = .unparseablePrj(file: file, detail: detail)
        case .hostilePrj:
            guard let reason = v["reason"]?.stringValue else { return nil }
            self = .hostilePrj(file: file, reason: reason)
        case .badSourceCrs:
            guard let text = v["text"]?.stringValue, let detail else { return nil }
            self = .badOverride(text: text, detail: detail)
        case .noTransform:
            guard let source = v["source"]?.stringValue, let target = v["target"]?.stringValue, let detail else {
                return nil
            }
            self = .cannotCreateTransform(source: source, target: target, detail: detail)
        case .projSetup:
            guard let detail else { return nil }
            self =
                v["case"]?.stringValue == "database"
                ? .projDatabaseMissing(detail: detail) : .projSetupFailed(detail: detail)
        case OpenFileLimit.code:
            guard let what = v["what"]?.stringValue, let reason = v["reason"]?.stringValue else { return nil }
            self = .tooManyOpenFiles(what: what, reason: reason)
        default: return nil
        }
    }
}
