import KartpackCore
import Testing

/// `RegularFile.parentPath` gives what Foundation's `deletingLastPathComponent` gives, and does not trap on the
/// one-character names where Foundation's Linux version does (`"a"`, `"."`).
@Suite struct ParentPathTests {
    @Test(arguments: [
        ("", ""), ("a", ""), (".", ""), ("whole.json", ""), ("a/b", "a"), ("./x", "."), ("/", "/"), ("/a", "/"),
        ("/a/b/", "/a"), ("a/b//", "a"), ("a//b", "a"), ("..", ""), ("x/..", "x"), ("/srv/maps/out", "/srv/maps"),
    ])
    func parentOf(path: String, parent: String) {
        #expect(RegularFile.parentPath(path) == parent, "\(path)")
    }
}
