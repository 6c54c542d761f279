import Foundation
import KartpackCore

/// A usage error: bad command line (exit 64).
struct UsageError: KartpackError {
    var message: String
    var exitCode: ExitCode { .usage }
    var description: String { message }
}

/// A declared option of a subcommand.
struct OptionSpec {
    enum Kind { case flag, value, repeatable }
    var name: String
    var kind: Kind
    var help: String
    var valueName: String = "VALUE"
    /// A one-letter alias such as `o` for `-o`.
    var short: Character? = nil
}

/// Parses `--name value`, `--name=value`, flags and positionals against a list of declared options.
/// Anything undeclared is a usage error: a typo never silently changes behaviour.
struct ParsedArguments {
    var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    init(_ arguments: [String], options: [OptionSpec]) throws(UsageError) {
        var byName: [String: OptionSpec] = [:]
        var byShort: [String: String] = [:]
        for o in options {
            byName[o.name] = o
            if let c = o.short { byShort["-\(c)"] = o.name }
        }
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            var arg = arguments[i]
            i += 1
            if !onlyPositionals, let long = byShort[arg] { arg = "--" + long }
            if onlyPositionals || !arg.hasPrefix("--") || arg == "-" {
                if !onlyPositionals && arg.hasPrefix("-") && arg.count > 1 && arg != "-" {
                    throw UsageError(message: "unknown option '\(arg)'")
                }
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(arg.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let spec = byName[name] else { throw UsageError(message: "unknown option '--\(name)'") }
            switch spec.kind {
            case .flag:
                if inline != nil { throw UsageError(message: "option '--\(name)' takes no value") }
                flags.insert(name)
            case .value, .repeatable:
                let v: String
                if let inline {
                    v = inline
                } else {
                    guard i < arguments.count else { throw UsageError(message: "option '--\(name)' needs a value") }
                    v = arguments[i]
                    i += 1
                }
                if spec.kind == .value, values[name] != nil {
                    throw UsageError(message: "option '--\(name)' given more than once")
                }
                values[name, default: []].append(v)
            }
        }
    }

    /// True when a flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// True when `--help` or `-h` is given as an option, not as the value of another option
    /// (`--name --help` names a package "--help") and not after `--`.
    static func asksForHelp(_ arguments: [String], options: [OptionSpec]) -> Bool {
        var takesValue = Set<String>()
        for o in options where o.kind != .flag {
            takesValue.insert("--" + o.name)
            if let c = o.short { takesValue.insert("-\(c)") }
        }
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            if arg == "--" { return false }
            if arg == "--help" || arg == "-h" { return true }
            i += takesValue.contains(arg) ? 2 : 1
        }
        return false
    }

    /// The value of a single-valued option.
    func value(_ name: String) -> String? { values[name]?.last }

    /// All values of a repeatable option, in order.
    func values(_ name: String) -> [String] { values[name] ?? [] }

    /// An integer option within a range.
    func int(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let s = value(name) else { return nil }
        guard let v = Int(s), range.contains(v) else {
            throw UsageError(
                message: "option '--\(name)' needs an integer in \(range.lowerBound)...\(range.upperBound), got '\(s)'")
        }
        return v
    }

    /// A floating-point option within a range.
    func double(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let s = value(name) else { return nil }
        guard let v = Double(s), v.isFinite, range.contains(v) else {
            throw UsageError(
                message: "option '--\(name)' needs a number in \(range.lowerBound)...\(range.upperBound), got '\(s)'")
        }
        return v
    }

    /// One of a fixed set of words.
    func choice(_ name: String, _ allowed: [String], default def: String) throws(UsageError) -> String {
        guard let s = value(name) else { return def }
        guard allowed.contains(s) else {
            throw UsageError(
                message: "option '--\(name)' must be one of \(allowed.joined(separator: ", ")), got '\(s)'")
        }
        return s
    }
}

/// Formats the help text of a subcommand.
func helpText(usage: String, summary: String, options: [OptionSpec], footer: String = "") -> String {
    var s = "usage: \(usage)\n\n\(summary)\n"
    if !options.isEmpty {
        s += "\noptions:\n"
        for o in options {
            let long = o.kind == .flag ? "--\(o.name)" : "--\(o.name) \(o.valueName)"
            let left = o.short.map { "-\($0), " + long } ?? long
            s += "  " + left.padding(toLength: max(left.count + 2, 26), withPad: " ", startingAt: 0) + o.help + "\n"
        }
    }
    if !footer.isEmpty { s += "\n" + footer + "\n" }
    return s
}
