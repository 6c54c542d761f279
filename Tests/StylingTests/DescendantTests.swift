import Styling
import Testing

/// A resolver stub: records which ancestor sets the classifier asks about and answers from a fixed set.
final class RecordingResolver {
    var asked: [AncestorSelectorID] = []
    var insideSets: Set<AncestorSelectorID>
    init(inside: Set<AncestorSelectorID>) { insideSets = inside }
    func isInside(_ id: AncestorSelectorID) -> Bool {
        asked.append(id)
        return insideSets.contains(id)
    }
}

@Suite struct DescendantTests {
    static let sheet = """
        avdelningar { class: stand }
        fastigheter[AGARE ^= "Södra"] avdelningar { class: member-stand }
        hansyn[TYP = "Nyckelbiotop"][zoom >= 10] avdelningar[BESTTYP = Myr] { class: wet-key-biotope }
        kommuner fastigheter[AGARE ^= "Södra"] avdelningar { class: member-stand-in-kommun }
        fastigheter[AGARE ^= "Södra"] vagar, hansyn[TYP = "Nyckelbiotop"] vagar { class: inner-road }
        """

    @Test func ancestorSelectorsAreListedOnceWithParentsFirst() throws {
        let c = StyleClassifier(sheet: try parseClean(Self.sheet))
        let a = c.ancestorSelectors
        #expect(
            a.map(\.description) == [
                "fastigheter[AGARE ^= \"Södra\"]",
                "hansyn[TYP = \"Nyckelbiotop\"]",
                "kommuner",
                "fastigheter[AGARE ^= \"Södra\"] (inside #2)",
            ])
        #expect(a.map(\.id.rawValue) == [0, 1, 2, 3])
        #expect(a[3].parent == AncestorSelectorID(rawValue: 2))
        #expect(a[0].parent == nil)
        #expect(a[0].isLayer("FASTIGHETER") && !a[0].isLayer("hansyn"))
        #expect(a[0].matches(properties: props(("agare", .string("Södra skogsägarna")))))
        #expect(!a[0].matches(properties: props(("AGARE", .string("Holmen")))))
        #expect(!a[0].matches(properties: props()))
        // Zoom filters stay with the classifier: the hansyn set has only the TYP filter.
        #expect(a[1].filters.count == 1)
        #expect(c.usesAncestors(layer: "avdelningar") && !c.usesAncestors(layer: "hansyn"))
    }

    @Test func classifierAsksForTheRightSet() throws {
        let c = StyleClassifier(sheet: try parseClean(Self.sheet))
        let stand = props(("BESTTYP", .string("Barrskog")))
        // Inside nothing: asked about the member sets (most specific first), gets the base class.
        var r = RecordingResolver(inside: [])
        #expect(c.style(layer: "avdelningar", properties: stand, zoom: 12, inside: r.isInside).className == "stand")
        #expect(r.asked == [AncestorSelectorID(rawValue: 3), AncestorSelectorID(rawValue: 0)])
        // Inside a Södra property.
        r = RecordingResolver(inside: [AncestorSelectorID(rawValue: 0)])
        #expect(
            c.style(layer: "avdelningar", properties: stand, zoom: 12, inside: r.isInside).className == "member-stand")
        // Inside a Södra property that is inside a kommun: the chain (0,3) wins over (1,2).
        r = RecordingResolver(inside: [AncestorSelectorID(rawValue: 3), AncestorSelectorID(rawValue: 0)])
        #expect(
            c.style(layer: "avdelningar", properties: stand, zoom: 12, inside: r.isInside).className
                == "member-stand-in-kommun")
        #expect(r.asked == [AncestorSelectorID(rawValue: 3)])
    }

    @Test func ancestorZoomAndSubjectFiltersAreCheckedBeforeAsking() throws {
        let c = StyleClassifier(sheet: try parseClean(Self.sheet))
        let myr = props(("BESTTYP", .string("Myr")))
        var r = RecordingResolver(inside: [AncestorSelectorID(rawValue: 1)])
        #expect(
            c.style(layer: "avdelningar", properties: myr, zoom: 12, inside: r.isInside).className == "wet-key-biotope")
        #expect(r.asked == [AncestorSelectorID(rawValue: 1)])
        // Below zoom 10 the hansyn compound's zoom filter fails, so set 1 is never asked about.
        r = RecordingResolver(inside: [AncestorSelectorID(rawValue: 1)])
        #expect(c.style(layer: "avdelningar", properties: myr, zoom: 9, inside: r.isInside).className == "stand")
        #expect(!r.asked.contains(AncestorSelectorID(rawValue: 1)))
        #expect(c.dependsOnZoom(layer: "avdelningar"))
        // Each set is asked about at most once per feature, even when several rules need it.
        r = RecordingResolver(inside: [AncestorSelectorID(rawValue: 1)])
        #expect(c.style(layer: "vagar", properties: props(), zoom: 9, inside: r.isInside).className == "inner-road")
        #expect(r.asked.count == Set(r.asked).count)
    }

    /// The classifier, given a brute-force containment answer, agrees with a direct evaluation of the selector
    /// semantics over a small grid of features.
    @Test func matchesBruteForceReference() throws {
        let c = StyleClassifier(sheet: try parseClean(Self.sheet))
        let types = ["Myr", "Barrskog"]
        for t in types {
            for zoom in [9, 12] {
                for mask in 0..<16 {
                    let inside = { (id: AncestorSelectorID) in mask & (1 << id.rawValue) != 0 }
                    let got = c.style(
                        layer: "avdelningar", properties: props(("BESTTYP", .string(t))), zoom: zoom, inside: inside
                    ).className
                    // Reference: the most specific matching rule, written out by hand.
                    var expected = "stand"
                    var best = Specificity(filters: 0, names: 1)
                    func consider(_ ok: Bool, _ s: Specificity, _ name: String) {
                        if ok && s >= best {
                            best = s
                            expected = name
                        }
                    }
                    consider(inside(AncestorSelectorID(rawValue: 0)), Specificity(filters: 1, names: 2), "member-stand")
                    consider(
                        t == "Myr" && zoom >= 10 && inside(AncestorSelectorID(rawValue: 1)),
                        Specificity(filters: 3, names: 2), "wet-key-biotope")
                    consider(
                        inside(AncestorSelectorID(rawValue: 3)), Specificity(filters: 1, names: 3),
                        "member-stand-in-kommun")
                    #expect(got == expected, "type \(t) zoom \(zoom) mask \(mask)")
                }
            }
        }
    }
}
