/// Runs a `RegexProgram` over a text as a Pike VM: all NFA states are advanced together, one scalar at a time,
/// each state at most once per position. The work is O(text length × program size) whatever the pattern — no
/// backtracking, so `^(a+)+$` on `aaaa…!` takes as long as `^a+$`.
///
/// A matcher owns the scratch lists it reuses between calls; it is not thread-safe, so each thread uses its own
/// (`StyleRegex.makeMatcher()`), while the program it runs is shared.
final class RegexMachine {
    let program: RegexProgram
    private var current: StateList
    private var next: StateList
    private var stack: [Int] = []

    init(program: RegexProgram) {
        self.program = program
        current = StateList(capacity: program.instructions.count)
        next = StateList(capacity: program.instructions.count)
    }

    /// True when the program matches somewhere in `text`.
    func search(_ text: String) -> Bool {
        let code = program.instructions
        let anchored = program.anchoredAtStart
        current.clear()
        next.clear()
        var iterator = text.unicodeScalars.makeIterator()
        var previous: Unicode.Scalar? = nil
        var scalar = iterator.next()
        var atStart = true
        while true {
            // An unanchored search starts a new attempt at every position.
            if atStart || !anchored {
                if add(0, to: &current, previous: previous, next: scalar, atStart: atStart) { return true }
            }
            guard let s = scalar else { return false }
            if current.isEmpty && anchored { return false }
            let following = iterator.next()
            for k in 0..<current.count {
                let pc = current.dense[k]
                let advance: Bool
                switch code[pc] {
                case .scalar(let c): advance = s == c
                case .oneOf(let cs): advance = cs.contains(s)
                case .any(let dotAll): advance = dotAll || s != "\n"
                case .set(let index): advance = program.sets[index].contains(s)
                default: advance = false
                }
                if advance, add(pc + 1, to: &next, previous: s, next: following, atStart: false) { return true }
            }
            swap(&current, &next)
            next.clear()
            previous = s
            scalar = following
            atStart = false
        }
    }

    /// Adds state `pc` and everything reachable from it without consuming text; true when `match` is reachable.
    private func add(
        _ pc: Int, to list: inout StateList, previous: Unicode.Scalar?, next: Unicode.Scalar?, atStart: Bool
    ) -> Bool {
        let code = program.instructions
        stack.removeAll(keepingCapacity: true)
        stack.append(pc)
        while let p = stack.popLast() {
            guard list.insert(p) else { continue }
            switch code[p] {
            case .match: return true
            case .jump(let target): stack.append(target)
            case .split(let a, let b):
                stack.append(b)
                stack.append(a)
            case .assert(let a):
                if Self.holds(a, previous: previous, next: next, atStart: atStart) { stack.append(p + 1) }
            default: break
            }
        }
        return false
    }

    private static func holds(
        _ a: RegexAssertion, previous: Unicode.Scalar?, next: Unicode.Scalar?, atStart: Bool
    ) -> Bool {
        switch a {
        case .textStart: return atStart
        case .textEnd: return next == nil
        case .lineStart: return atStart || previous == "\n"
        case .lineEnd: return next == nil || next == "\n"
        case .wordBoundary, .notWordBoundary:
            let before = previous.map(RegexCase.isWord) ?? false
            let after = next.map(RegexCase.isWord) ?? false
            return (before != after) == (a == .wordBoundary)
        }
    }
}

/// A set of NFA states with O(1) insert, membership and clear (Briggs–Torczon sparse set).
struct StateList {
    private(set) var dense: [Int]
    private var sparse: [Int]
    private(set) var count = 0

    init(capacity: Int) {
        dense = [Int](repeating: 0, count: max(1, capacity))
        sparse = [Int](repeating: 0, count: max(1, capacity))
    }

    var isEmpty: Bool { count == 0 }

    /// Inserts `x`; false when it was already there.
    mutating func insert(_ x: Int) -> Bool {
        let s = sparse[x]
        if s < count && dense[s] == x { return false }
        sparse[x] = count
        dense[count] = x
        count += 1
        return true
    }

    mutating func clear() { count = 0 }
}
