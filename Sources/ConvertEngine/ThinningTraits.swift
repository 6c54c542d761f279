import KartpackCore
import Styling

/// What thinning and coalescing need to know of each feature of one output layer beyond its record, kept beside
/// the records (`OutputLayer.traits`, one entry per record): its thinning tier (`ThinningPolicy`: `thinning:` of
/// the sheet, `"thinning"` of a pipeline source) and its identity class (`identity:`, `"identity"`: features whose
/// identity attributes differ are never coalesced). Each array stays empty while every feature has the default,
/// so a run that uses neither costs nothing.
package struct ThinningTraits: Sendable {
    /// Features noted so far (the layer's record count).
    private(set) var count = 0
    /// Per feature: its tier (0 = `auto`); empty while every feature is 0.
    private(set) var tiers: [Int16] = []
    /// Per feature: its identity class (0: no identity attributes; equal classes have equal identity names and
    /// values); empty while no feature has identity attributes.
    private(set) var identities: [Int32] = []
    /// The class of each identity seen (attribute names lowercased, and their values).
    private var classes: [IdentityKey: Int32] = [:]
    /// Per feature, with a piece store (`run`): its digest (`PieceReuse.featureDigest`; zero: none) and whether
    /// last night's package had it (`PieceReuse.claim`), for `TileReuse`; empty while no feature has a digest.
    private(set) var digests: [TileDigest] = []
    private(set) var unchanged: [Bool] = []
    /// Per feature beside `digests`: its record's place in tonight's piece store (`PieceStoreWriter.records`).
    private(set) var records: [UInt32] = []

    /// The identity of a feature: the attributes named, lowercased, and the feature's values of them (null when it
    /// has none), compared exactly.
    package struct IdentityKey: Hashable, Sendable {
        package var names: [String]
        package var values: [PropertyValue]

        /// The identity of `properties` for the attribute `names` (case-insensitive, as DBF field names).
        package init(names: [String], properties: Properties) {
            self.names = names.map { $0.lowercased() }
            values = self.names.map { n in
                properties.keys.firstIndex { $0.lowercased() == n }.map { properties.values[$0] } ?? .null
            }
        }
    }

    /// Notes the next feature: its tier, its identity (nil: none) and its digest (nil: none) with whether last
    /// night's package had it and its record's key.
    package mutating func append(
        tier: Int16, identity: IdentityKey?, digest: TileDigest? = nil, unchanged isUnchanged: Bool = false,
        record: UInt32? = nil
    ) {
        if digest != nil || !digests.isEmpty {
            let zero = TileDigest(high: 0, low: 0)
            if digests.isEmpty {
                digests = [TileDigest](repeating: zero, count: count)
                unchanged = [Bool](repeating: false, count: count)
                records = [UInt32](repeating: 0, count: count)
            }
            digests.append(digest ?? zero)
            unchanged.append(digest != nil && isUnchanged)
            records.append(record ?? 0)
        }
        if tier != 0 || !tiers.isEmpty {
            if tiers.isEmpty { tiers = [Int16](repeating: 0, count: count) }
            tiers.append(tier)
        }
        var cls: Int32 = 0
        if let identity, !identity.names.isEmpty {
            if let c = classes[identity] {
                cls = c
            } else {
                cls = Int32(classes.count + 1)
                classes[identity] = cls
            }
        }
        if cls != 0 || !identities.isEmpty {
            if identities.isEmpty { identities = [Int32](repeating: 0, count: count) }
            identities.append(cls)
        }
        count += 1
    }

    /// Takes back `unchanged` from the features whose `ranks` another feature of the layer shares: a tile writes
    /// such features in input order (`PreparePass.stableOrder`), which a re-export may change.
    mutating func unmarkSharedRanks(_ ranks: (Int) -> UInt64) {
        guard unchanged.contains(true) else { return }
        var keyed = (0..<count).map { (rank: ranks($0), feature: $0) }
        keyed.sort { ($0.rank, $0.feature) < ($1.rank, $1.feature) }
        for i in keyed.indices.dropFirst() where keyed[i].rank == keyed[i - 1].rank {
            unchanged[keyed[i].feature] = false
            unchanged[keyed[i - 1].feature] = false
        }
    }

    /// Forgets the features from index `n` on (the rollback of a rejected input). Their identity classes stay
    /// known: only equality of classes matters.
    mutating func truncate(to n: Int) {
        guard n < count else { return }
        if !tiers.isEmpty { tiers.removeLast(tiers.count - n) }
        if !identities.isEmpty { identities.removeLast(identities.count - n) }
        if !digests.isEmpty {
            digests.removeLast(digests.count - n)
            unchanged.removeLast(unchanged.count - n)
            records.removeLast(records.count - n)
        }
        count = n
    }
}
