import Foundation
import KartpackTestSupport
import Testing

@testable import Reprojection

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct CRSResolverTests {
    private func resolveError(prj: String?, override: String? = nil) -> ProjectionError? {
        do {
            _ = try CRSResolver.resolve(prjText: prj, override: override, prjFile: "layer.prj")
            return nil
        } catch {
            return error
        }
    }

    @Test func esriSweref99IsIdentifiedAsEPSG3006() throws {
        let r = try CRSResolver.resolveDetailed(prjText: PrjFixtures.sweref99TM, override: nil, prjFile: "a.prj")
        #expect(r.crs.name == "SWEREF99 TM")
        #expect(r.crs.epsg == 3006)
        #expect(r.confidence == 100)
        #expect(r.crs.definition == "EPSG:3006")
        #expect(r.crs.origin == "prj")
        #expect(r.crs.isGeographic == false)
        #expect(r.crs.label == "EPSG:3006")
        #expect(r.removedNodes.isEmpty)
    }

    @Test func esriUSFeetStatePlaneIsIdentifiedAsEPSG2263() throws {
        let crs = try CRSResolver.resolve(prjText: PrjFixtures.nybb, override: nil, prjFile: "nybb.prj")
        #expect(crs.epsg == 2263)
        #expect(crs.name == "NAD83 / New York Long Island (ftUS)")
        #expect(crs.definition == "EPSG:2263")
    }

    @Test func nybbPrjFromGeopandasWhenInstalled() throws {
        // Cross-check the embedded text against the file python3-geopandas ships, when it is there.
        let zip = "/usr/lib/python3/dist-packages/geopandas/datasets/nybb_16a.zip"
        guard FileManager.default.fileExists(atPath: zip), FileManager.default.fileExists(atPath: "/usr/bin/unzip")
        else { return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        p.arguments = ["-p", zip, "nybb.prj"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == PrjFixtures.nybb)
        #expect(try CRSResolver.resolve(prjText: text, override: nil, prjFile: "nybb.prj").epsg == 2263)
    }

    @Test func overrideWinsOverPrj() throws {
        let crs = try CRSResolver.resolve(prjText: PrjFixtures.sweref99TM, override: "EPSG:4326", prjFile: "a.prj")
        #expect(crs.epsg == 4326)
        #expect(crs.name == "WGS 84")
        #expect(crs.origin == "option")
        #expect(crs.definition == "EPSG:4326")
        #expect(crs.isGeographic)
    }

    @Test func overrideAsProjString() throws {
        let crs = try CRSResolver.resolve(prjText: nil, override: " +proj=utm +zone=33 +datum=WGS84 ", prjFile: nil)
        #expect(crs.origin == "option")
        #expect(!crs.isGeographic)
        #expect(crs.definition.contains("+zone=33"))
        let t = try CoordinateTransformer(from: crs, to: .wgs84)
        var xy = [500_000.0, 6_000_000.0]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] - 15) < 1e-9)
        #expect(abs(xy[1] - 54.1481041) < 1e-7)
    }

    @Test func badOverrideIsAUsageErrorWithPROJText() {
        let e = resolveError(prj: nil, override: "EPSG:999999")
        guard case .badOverride(let text, let detail)? = e else {
            Issue.record("expected badOverride, got \(String(describing: e))")
            return
        }
        #expect(text == "EPSG:999999")
        #expect(detail.contains("not found"))
        #expect(e?.exitCode == .usage)
        #expect(resolveError(prj: nil, override: "   ")?.exitCode == .usage)
    }

    @Test func missingPrjTellsToPassSourceCRS() {
        let e = resolveError(prj: nil)
        #expect(e == .missingPrj(file: "layer.prj"))
        #expect(e?.exitCode == .dataError)
        #expect(e?.description.contains("--source-crs") == true)
        #expect(e?.description.contains("layer.prj") == true)
    }

    @Test func garbagePrjQuotesPROJ() {
        // Well-formed WKT that PROJ cannot build a CRS from: the message quotes PROJ.
        let e = resolveError(prj: #"GEOGCS["broken",DATUM["D"]]"#)
        guard case .unparseablePrj(let file, let detail)? = e else {
            Issue.record("expected unparseablePrj, got \(String(describing: e))")
            return
        }
        #expect(file == "layer.prj")
        #expect(detail.hasPrefix("PROJ says: "))
        #expect(detail.count > "PROJ says: ".count)
        #expect(e?.exitCode == .dataError)
        // Not WKT at all: refused before PROJ sees it.
        guard case .unparseablePrj(_, let why)? = resolveError(prj: "this is not a projection file") else {
            Issue.record("expected unparseablePrj")
            return
        }
        #expect(why.contains("WKT"))
    }

    @Test func nonCRSWKTIsRefused() {
        #expect(resolveError(prj: #"CONVERSION["x",METHOD["Transverse Mercator"]]"#)?.exitCode == .dataError)
    }

    // The hang tests below check their own time inside the body (under 10 s from when the body starts). The
    // 15-minute trait is only the backstop against a true hang, and it counts from when the test is handed to
    // Swift Testing's shared pool: on a 2-core machine the long CLI tests hold both of its threads, and these three
    // waited 230–270 s to run in two CI runs of 2026-12-07 (one failed at the former 1-minute limit).
    @Test(.timeLimit(.minutes(15)))
    func extensionWithNadgridsDevZeroDoesNotHang() throws {
        let start = ContinuousClock.now
        let r = try CRSResolver.resolveDetailed(
            prjText: PrjFixtures.withExtension(gridPath: "/dev/zero"), override: nil, prjFile: "x.prj")
        #expect(r.removedNodes == ["EXTENSION"])
        #expect(!r.crs.definition.contains("nadgrids"))
        let t = try CoordinateTransformer(from: r.crs, to: .wgs84)
        var xy = [500_000.0, 6_000_000.0]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] - 15) < 1e-9)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test(.timeLimit(.minutes(15)))
    func extensionPointingAtAFIFODoesNotHang() throws {
        let dir = try TemporaryDirectory(prefix: "kp-proj-fifo")
        let fifo = dir.file("grid.gsb")
        #expect(mkfifo(fifo, 0o600) == 0)
        let start = ContinuousClock.now
        let crs = try CRSResolver.resolve(
            prjText: PrjFixtures.withExtension(gridPath: fifo), override: nil, prjFile: nil)
        let t = try CoordinateTransformer(from: crs, to: .webMercator)
        var xy = [500_000.0, 6_000_000.0]
        #expect(t.transform(&xy) == 0)
        #expect(ContinuousClock.now - start < .seconds(10))
        withExtendedLifetime(dir) {}  // the FIFO must exist for the whole test
    }

    @Test func esriVertCSWithVDatumIsRefusedAlone() {
        let e = resolveError(prj: PrjFixtures.esriVertCS)
        guard case .unparseablePrj? = e else {
            Issue.record("expected a refusal, got \(String(describing: e))")
            return
        }
        let nested = #"COMPD_CS["x","# + PrjFixtures.utm15N + "," + PrjFixtures.esriVertCS + "]"
        guard case .hostilePrj(_, let reason)? = resolveError(prj: nested) else {
            Issue.record("expected hostilePrj")
            return
        }
        #expect(reason.contains("VERTCS"))
    }

    @Test func esriCompoundKeepsTheHorizontalPart() throws {
        let r = try CRSResolver.resolveDetailed(
            prjText: PrjFixtures.utm15N + "," + PrjFixtures.esriVertCS, override: nil, prjFile: nil)
        #expect(r.crs.epsg == 26915)
        #expect(r.removedNodes == ["VERTCS"])
    }

    @Test(.timeLimit(.minutes(15)))
    func degenerateBBoxDoesNotRecurse() throws {
        let start = ContinuousClock.now
        let r = try CRSResolver.resolveDetailed(prjText: PrjFixtures.degenerateBBox, override: nil, prjFile: nil)
        #expect(r.removedNodes == ["BBOX"])
        #expect(r.crs.isGeographic)
        #expect(r.crs.epsg == 4326)
        // Also build the transform from the (sanitized) WKT itself, which is where PROJ 9.1.1 recursed.
        var info = r.crs
        info.definition = PrjFixtures.degenerateBBox
        let t = try CoordinateTransformer(from: info, to: .wgs84)
        var xy = [18.0, 59.0]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] - 18) < 1e-9 && abs(xy[1] - 59) < 1e-9)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func deepNestingAndHugeFilesAreRefused() {
        let deep = "PROJCS[" + String(repeating: "A[", count: 10_000) + String(repeating: "]", count: 10_001)
        guard case .hostilePrj? = resolveError(prj: deep) else {
            Issue.record("expected hostilePrj for deep nesting")
            return
        }
        let huge = String(repeating: " ", count: 1 << 20) + PrjFixtures.sweref99TM
        guard case .hostilePrj(_, let reason)? = resolveError(prj: huge) else {
            Issue.record("expected hostilePrj for a 1 MB file")
            return
        }
        #expect(reason.contains("bytes"))
    }

    @Test func unidentifiedCRSKeepsItsWKT() throws {
        let r = try CRSResolver.resolveDetailed(prjText: PrjFixtures.customDatum, override: nil, prjFile: nil)
        #expect(r.crs.epsg == nil)
        #expect(r.crs.name == "Custom")
        #expect(r.crs.isGeographic)
        #expect(r.crs.definition == PrjFixtures.customDatum)
        #expect(r.crs.label == "Custom")
    }

    @Test func boundCRSKeepsItsOwnDatumShift() throws {
        // GDAL-style WKT1 with TOWGS84: identified as EPSG:4230, but the WKT (and its own shift) is kept.
        let wkt =
            #"GEOGCS["ED50",DATUM["European_Datum_1950",SPHEROID["International 1924",6378388,297,AUTHORITY["EPSG","#
            + #""7022"]],TOWGS84[-100,-100,-100,0,0,0,0],AUTHORITY["EPSG","6230"]],PRIMEM["Greenwich",0,"#
            + #"AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],"#
            + #"AUTHORITY["EPSG","4230"]]"#
        // With EPSG's own shift (-87,-98,-121) PROJ identifies it as "BoundCRS of EPSG:4230" at 100.
        let epsgShift = wkt.replacingOccurrences(of: "TOWGS84[-100,-100,-100,", with: "TOWGS84[-87,-98,-121,")
        let known = try CRSResolver.resolve(prjText: epsgShift, override: nil, prjFile: nil)
        #expect(known.epsg == 4230)
        #expect(known.definition.contains("TOWGS84[-87,-98,-121,"))
        let crs = try CRSResolver.resolve(prjText: wkt, override: nil, prjFile: nil)
        #expect(crs.definition.contains("TOWGS84"))
        #expect(crs.isGeographic)
        let t = try CoordinateTransformer(from: crs, to: .wgs84)
        // cs2cs -d 10 +proj=longlat +ellps=intl +towgs84=-100,-100,-100,0,0,0,0 +to +proj=longlat +datum=WGS84
        //   <<< "10 50" gives 9.9988686307 49.9994105129 (PROJ 9.1.1).
        var xy = [10.0, 50.0]
        #expect(t.transform(&xy) == 0)
        #expect(abs(xy[0] - 9.9988686307) < 1e-8)
        #expect(abs(xy[1] - 49.9994105129) < 1e-8)
    }
}
