/// One instruction of a compiled pattern (Thompson's construction).
enum RegexInstruction: Sendable {
    /// Consumes one scalar equal to this one.
    case scalar(Unicode.Scalar)
    /// Consumes one scalar among these (case variants).
    case oneOf([Unicode.Scalar])
    /// Consumes any scalar (but a line feed unless `dotAll`).
    case any(dotAll: Bool)
    /// Consumes one scalar of `sets[index]`.
    case set(Int)
    /// Continues at both targets.
    case split(Int, Int)
    case jump(Int)
    /// Continues only when the assertion holds at the current position.
    case assert(RegexAssertion)
    case match
}

/// A compiled pattern: an immutable instruction list, shared by every thread without a lock.
final class RegexProgram: Sendable {
    /// The most instructions a pattern may compile to; bounds the work per scalar of text.
    static let maxInstructions = 4000

    let instructions: [RegexInstruction]
    let sets: [RegexCharSet]
    /// True when every match must start at the beginning of the text (`^…` without `(?m)`).
    let anchoredAtStart: Bool

    init(_ node: RegexNode) throws(StyleRegexError) {
        var compiler = Compiler()
        try compiler.emit(node)
        compiler.instructions.append(.match)
        instructions = compiler.instructions
        sets = compiler.sets
        anchoredAtStart = Self.startsWithTextStart(node)
    }

    private static func startsWithTextStart(_ node: RegexNode) -> Bool {
        switch node {
        case .assertion(.textStart): return true
        case .concat(let items): return items.first.map(startsWithTextStart) ?? false
        case .alternation(let branches): return !branches.isEmpty && branches.allSatisfy(startsWithTextStart)
        default: return false
        }
    }

    private struct Compiler {
        var instructions: [RegexInstruction] = []
        var sets: [RegexCharSet] = []

        mutating func append(_ i: RegexInstruction) throws(StyleRegexError) {
            guard instructions.count < RegexProgram.maxInstructions else {
                throw StyleRegexError(
                    message: "the pattern is too large: more than \(RegexProgram.maxInstructions) steps once "
                        + "its repetitions {n,m} are written out", offset: 0)
            }
            instructions.append(i)
        }

        mutating func emit(_ node: RegexNode) throws(StyleRegexError) {
            switch node {
            case .empty:
                break
            case .literal(let s, let fold):
                let variants = fold ? RegexCase.variants(of: s) : [s]
                try append(variants.count == 1 ? .scalar(s) : .oneOf(variants))
            case .any(let dotAll):
                try append(.any(dotAll: dotAll))
            case .set(let set):
                sets.append(set)
                try append(.set(sets.count - 1))
            case .assertion(let a):
                try append(.assert(a))
            case .concat(let items):
                for item in items { try emit(item) }
            case .alternation(let branches):
                // split L1, next; L1: a; jump end; next: split L2, … ; last branch falls through.
                var jumps: [Int] = []
                for (k, branch) in branches.enumerated() {
                    if k < branches.count - 1 {
                        let split = instructions.count
                        try append(.split(split + 1, -1))
                        try emit(branch)
                        jumps.append(instructions.count)
                        try append(.jump(-1))
                        instructions[split] = .split(split + 1, instructions.count)
                    } else {
                        try emit(branch)
                    }
                }
                for j in jumps { instructions[j] = .jump(instructions.count) }
            case .repeated(let inner, let min, let max):
                try emitRepeat(inner, min: min, max: max)
            }
        }

        private mutating func emitRepeat(_ inner: RegexNode, min: Int, max: Int?) throws(StyleRegexError) {
            guard let max else {
                if min == 0 {
                    // L: split body, end; body; jump L; end:
                    let loop = instructions.count
                    try append(.split(loop + 1, -1))
                    try emit(inner)
                    try append(.jump(loop))
                    instructions[loop] = .split(loop + 1, instructions.count)
                    return
                }
                for _ in 0..<(min - 1) { try emit(inner) }
                // L: body; split L, next
                let loop = instructions.count
                try emit(inner)
                try append(.split(loop, instructions.count + 1))
                return
            }
            for _ in 0..<min { try emit(inner) }
            guard max > min else { return }
            // Each optional copy: split body, end.
            var splits: [Int] = []
            for _ in min..<max {
                splits.append(instructions.count)
                try append(.split(instructions.count + 1, -1))
                try emit(inner)
            }
            for s in splits { instructions[s] = .split(s + 1, instructions.count) }
        }
    }
}
