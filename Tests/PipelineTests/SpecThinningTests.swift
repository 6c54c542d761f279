import KartpackTestSupport
import Styling
import Testing

@testable import ConvertEngine
@testable import PipelineFiles

/// A pipeline source's `thinning` and `identity` (issue 38): parsed, written in the canonical form only when set,
/// compiled into the conversion's inputs, and a bad policy named with its path.
@Suite struct SpecThinningTests {
    private func spec(_ source: String) -> String {
        #"{"version": 1, "sources": [{"path": "a.shp"}, {"path": "b.shp", "#
            + source + #"}], "output": {"path": "out.pmtiles"}}"#
    }

    @Test func sourceThinningAndIdentityParseAndCompile() throws {
        let parsed = try specParse(spec(#""thinning": "never", "identity": ["AGARE", "FASTID"]"#))
        #expect(parsed.sources[0].thinning == nil && parsed.sources[0].identity == nil)
        #expect(parsed.sources[1].thinning == "never")
        #expect(parsed.sources[1].identity == ["AGARE", "FASTID"])
        let (options, problems) = PipelineRunner.compile(parsed)
        #expect(problems.isEmpty)
        let o = try #require(options)
        #expect(o.inputs[0].thinning == nil && o.inputs[0].identity == nil)
        #expect(o.inputs[1].thinning == .never)
        #expect(o.inputs[1].identity == ["AGARE", "FASTID"])
        let priority = try specParse(spec(#""thinning": "priority 7""#))
        #expect(PipelineRunner.compile(priority).0?.inputs[1].thinning == .priority(7))
    }

    @Test func theCanonicalFormHasThemOnlyWhenSet() throws {
        let plain = try specParse(minimalSpecJSON).canonicalJSON
        #expect(!plain.contains("thinning") && !plain.contains("identity"))
        let set = try specParse(spec(#""thinning": "priority 3", "identity": ["AGARE"]"#))
        let text = set.canonicalJSON
        #expect(text.contains(#""thinning":"priority 3""#) && text.contains(#""identity":["AGARE"]"#))
    }

    @Test func badPoliciesAndIdentitiesAreNamedWithTheirPath() throws {
        for bad in ["sometimes", "priority", "priority 1001", "priority -1", "never 2"] {
            let parsed = try specParse(spec(#""thinning": ""# + bad + #"""#))
            let problems = PipelineRunner.compile(parsed).1
            #expect(problems.count == 1 && problems[0].contains("sources[1].thinning"), "\(bad): \(problems)")
        }
        for bad in [#""thinning": 3"#, #""thinning": """#] {
            #expect(specIssues(spec(bad)).contains { $0.contains("sources[1].thinning") }, "\(bad)")
        }
        #expect(specIssues(spec(#""identity": ["A", "A"]"#)).contains { $0.contains("listed twice") })
        #expect(specIssues(spec(#""identity": "A""#)).contains { $0.contains("sources[1].identity") })
    }
}
