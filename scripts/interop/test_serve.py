"""`kartpack style` writes a folder that works where it is, and `kartpack serve` shows it: the style's URLs are
relative to the style file (never the build machine's paths), an `index.html` viewer with MapLibre GL JS (vendored
from the roadstyle wheel) sits beside it, and the server (POSIX sockets) answers GET/HEAD with byte ranges, refuses
paths out of its folder, bounds its request heads and connections, and stops cleanly on SIGINT and SIGTERM. In
headless Chromium, the sample served by `kartpack serve` draws every class its tiles carry, and the served viewer
page itself loads and draws the map; its layer list, tile-boundary box and click popup work when used."""
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import time
import urllib.request

import pytest

import browser
from conftest import ROOT, read_pmtiles
from test_maplibre_browser import assert_every_class_drawn, grid_views

SHEET = ROOT / "SampleData" / "forest.kss"


def kp(kartpack, *args, expect=0, env=None):
    proc = subprocess.run([kartpack, *map(str, args)], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == expect, f"kartpack {' '.join(map(str, args))}: exit {proc.returncode}\n{proc.stderr}"
    return proc


class Served:
    """`kartpack serve ARGS --port 0` running until closed; `base` is the URL it printed."""

    def __init__(self, kartpack, *args, env=None):
        self.proc = subprocess.Popen([kartpack, "serve", *map(str, args), "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, f"no URL in {line!r}: {self.proc.stderr.read() if self.proc.poll() is not None else ''}"
        self.port = int(m.group(1))
        self.base = m.group(0)

    def stop(self, sig=signal.SIGINT, timeout=15):
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            pytest.fail(f"kartpack serve did not stop on {sig!r} within {timeout} s")


def raw(port, request: bytes, timeout=10):
    """Sends `request` as is and returns (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def get(port, path, headers=""):
    return raw(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}\r\n".encode())


@pytest.fixture(scope="module")
def sample(kartpack, tmp_path_factory):
    """The sample job's package and its style folder, written without --base-url."""
    folder = tmp_path_factory.mktemp("site") / "map"
    folder.mkdir()
    package = folder / "forest-plan.pmtiles"
    kp(kartpack, "run", ROOT / "Pipelines" / "forest-plan.json", "--set", f"output.path={package}", "--force",
       "--quiet")
    kp(kartpack, "style", SHEET, "--package", package, "-o", folder / "style.json")
    return folder, package


@pytest.fixture(scope="module")
def server(kartpack, sample):
    s = Served(kartpack, sample[0])
    yield s
    s.stop()


def test_style_urls_are_relative_to_the_style_file_and_a_viewer_is_beside_it(kartpack, sample, tmp_path):
    folder, package = sample
    style = json.loads((folder / "style.json").read_text())
    assert style["sprite"] == "sprite"
    assert style["glyphs"] == "glyphs/{fontstack}/{range}.pbf"
    assert style["sources"]["kartpack"]["url"] == "pmtiles://forest-plan.pmtiles"
    page = (folder / "index.html").read_text()
    assert 'data-style="style.json"' in page and "viewer/maplibre-gl.js" in page
    for name in ("viewer.js", "maplibre-gl.js", "maplibre-gl.css", "pmtiles.js"):
        assert (folder / "viewer" / name).stat().st_size > 0, name
    assert "v5.24.0/" in (folder / "viewer" / "maplibre-gl.js").read_text()[:300]
    # A package outside the style's folder: `../` steps, never the build machine's absolute path.
    other = tmp_path / "styles" / "plan"
    kp(kartpack, "style", SHEET, "--package", package, "-o", other / "style.json")
    text = (other / "style.json").read_text()
    assert str(tmp_path) not in text and str(folder) not in text
    url = json.loads(text)["sources"]["kartpack"]["url"]
    assert url.startswith("pmtiles://../")
    assert (other / url[len("pmtiles://"):]).resolve() == package.resolve()
    # --base-url makes them absolute under it, `../` steps resolved.
    kp(kartpack, "style", SHEET, "--package", package, "-o", other / "abs.json", "--base-url",
       "https://example.org/maps/plan/")
    absolute = json.loads((other / "abs.json").read_text())
    assert absolute["sprite"] == "https://example.org/maps/plan/sprite"
    assert "/../" not in absolute["sources"]["kartpack"]["url"]
    assert absolute["sources"]["kartpack"]["url"].startswith("pmtiles://https://example.org/")


def test_served_style_has_absolute_urls_and_tiles_come_by_range(server, sample):
    folder, package = sample
    status, headers, body = get(server.port, "/style.json")
    assert status == 200 and headers["access-control-allow-origin"] == "*"
    style = json.loads(body)
    assert style["sprite"] == server.base + "sprite"
    assert style["glyphs"] == server.base + "glyphs/{fontstack}/{range}.pbf"
    assert style["sources"]["kartpack"]["url"] == "pmtiles://" + server.base + "forest-plan.pmtiles"
    data = package.read_bytes()
    status, headers, body = get(server.port, "/forest-plan.pmtiles", "Range: bytes=0-126\r\n")
    assert status == 206 and body == data[:127]
    assert headers["content-range"] == f"bytes 0-126/{len(data)}"
    status, headers, body = get(server.port, "/forest-plan.pmtiles", "Range: bytes=-10\r\n")
    assert status == 206 and body == data[-10:]
    status, headers, body = get(server.port, "/forest-plan.pmtiles", f"Range: bytes={len(data) - 5}-\r\n")
    assert status == 206 and body == data[-5:]
    status, headers, _ = get(server.port, "/forest-plan.pmtiles", f"Range: bytes={len(data)}-\r\n")
    assert status == 416 and headers["content-range"] == f"bytes */{len(data)}"
    status, headers, body = get(server.port, "/forest-plan.pmtiles")
    assert status == 200 and body == data and headers["accept-ranges"] == "bytes"
    # Ranges the server does not take (several, inverted, another unit) get the whole file, as RFC 9110 allows.
    for value in ("bytes=0-1,5-6", "bytes=5-2", "items=0-5", "bytes=x-y"):
        status, headers, body = get(server.port, "/forest-plan.pmtiles", f"Range: {value}\r\n")
        assert status == 200 and body == data, value
    status, headers, body = raw(server.port, b"HEAD /forest-plan.pmtiles HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200 and body == b"" and int(headers["content-length"]) == len(data)
    status, headers, _ = raw(server.port, b"OPTIONS /forest-plan.pmtiles HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 204 and "Range" in headers["access-control-allow-headers"]
    status, _, body = get(server.port, "/")
    assert status == 200 and b"viewer/viewer.js" in body
    status, headers, _ = get(server.port, "/viewer/maplibre-gl.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    status, _, _ = get(server.port, "/glyphs/Noto%20Sans%20Regular/0-255.pbf")
    assert status == 200


def test_no_path_leaves_the_folder_and_requests_are_bounded(server, sample, tmp_path):
    folder, _ = sample
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    (folder / "escape.txt").symlink_to(secret)
    (folder / "inside.json").symlink_to(folder / "sprite.json")
    try:
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/viewer/../../secret.txt", "/escape.txt",
                     "/.hidden", "/a%00b"):
            status, _, body = get(server.port, path)
            assert status in (403, 404) and b"secret" not in body, (path, status)
        assert get(server.port, "/escape.txt")[0] == 403
        assert get(server.port, "/inside.json")[0] == 200
        assert get(server.port, "/missing.json")[0] == 404
        assert raw(server.port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")[0] == 405
        assert raw(server.port, b"GARBAGE\r\n\r\n")[0] == 400
        big = b"GET / HTTP/1.1\r\n" + b"".join(b"X-Filler-%d: %s\r\n" % (i, b"a" * 200) for i in range(100)) + b"\r\n"
        assert raw(server.port, big)[0] == 431
    finally:
        (folder / "escape.txt").unlink()
        (folder / "inside.json").unlink()
    # Idle connections beyond the limit are turned away with 503 at once, and the server serves again after.
    idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(40)]
    try:
        time.sleep(0.5)
        refused = 0
        for s in idle:
            s.settimeout(0.2)
            try:
                refused += s.recv(64).startswith(b"HTTP/1.1 503")
            except socket.timeout:
                pass
        assert refused >= 40 - 32, refused
    finally:
        for s in idle:
            s.close()
    deadline = time.time() + 15

    def status():
        # Until the server has noticed the closed connections it answers 503 and closes; the kernel may then reset
        # the connection before the 503 is read (our request bytes were unread). Both mean "not yet".
        try:
            return get(server.port, "/style.json")[0]
        except ConnectionResetError:
            return None

    while status() != 200:
        assert time.time() < deadline, "the server did not recover after the idle connections closed"
        time.sleep(0.2)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signals_stop_the_server_cleanly(kartpack, sample, sig, code):
    s = Served(kartpack, sample[0])
    assert get(s.port, "/style.json")[0] == 200
    started = time.time()
    assert s.stop(sig) == code
    assert time.time() - started < 5
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", s.port), timeout=2)


def test_a_package_alone_is_served_with_a_plain_or_given_style(kartpack, sample):
    folder, package = sample
    for extra in ([], ["--style", SHEET]):
        s = Served(kartpack, package, *extra)
        try:
            style = json.loads(get(s.port, "/style.json")[2])
            assert style["sources"]["kartpack"]["url"] == "pmtiles://" + s.base + "forest-plan.pmtiles"
            status, _, body = get(s.port, "/forest-plan.pmtiles", "Range: bytes=0-6\r\n")
            assert status == 206 and body == b"PMTiles"
            assert get(s.port, "/viewer/pmtiles.js")[0] == 200
            if extra:
                assert style["sprite"] == s.base + "sprite" and get(s.port, "/sprite.png")[0] == 200
        finally:
            s.stop()


def test_missing_viewer_files_say_where_they_were_looked_for(kartpack, sample, tmp_path):
    folder, package = sample
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "style.json").write_text((folder / "style.json").read_text())
    env = dict(os.environ, KARTPACK_VIEWER_DIR=str(tmp_path / "nowhere"))
    proc = kp(kartpack, "serve", bare, "--port", "0", expect=69, env=env)
    assert str(tmp_path / "nowhere") in proc.stderr and "scripts/bootstrap.sh" in proc.stderr
    proc = kp(kartpack, "style", SHEET, "--package", package, "-o", bare / "s2.json", env=env)
    assert str(tmp_path / "nowhere") in proc.stderr


def test_the_served_sample_draws_every_class_in_maplibre(kartpack, sample, server, tmp_path):
    """A page on another origin loads MapLibre from the served viewer folder and the style from `kartpack serve`:
    features of every class the tiles carry are drawn at zooms 9, 10 and 12, with no error and no missing image."""
    folder, package = sample
    site = tmp_path / "page"
    site.mkdir()
    builds = browser.maplibre_builds()
    browser.serve_vendor(site, {"5.24.0": builds["5.24.0"]})
    page_server = browser.LocalServer(site)
    try:
        style = json.loads(get(server.port, "/style.json")[2])
        h = read_pmtiles(package).header
        bounds = (h["min_lon_e7"] / 1e7, h["min_lat_e7"] / 1e7, h["max_lon_e7"] / 1e7, h["max_lat_e7"] / 1e7)
        views = [{"name": f"all-{z}", "center": style["center"], "zoom": z} for z in (9, 10)]
        views += grid_views(bounds, 12)
        result = browser.render(page_server, "5.24.0", server.base + "style.json", views, 1024, 768)
    finally:
        page_server.close()
    assert result["errors"] == [], result["errors"][:5]
    assert result["missing"] == [], result["missing"][:5]
    assert_every_class_drawn(result["views"], package, (9, 10, 12))


def test_the_served_viewer_page_draws_the_map(server):
    """The viewer page itself (index.html + viewer.js + vendored MapLibre), in headless Chromium: its layer list
    is filled and counts features drawn."""
    cmd = [browser.chromium(), "--headless=new", "--no-sandbox", "--disable-gpu-sandbox", "--no-first-run",
           "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
           "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--window-size=1024,768",
           "--virtual-time-budget=60000", "--dump-dom", server.base]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    dom = proc.stdout
    layers = re.findall(r'<li data-layer="([^"]+)"( data-drawn="(\d+)")?', dom)
    assert layers, dom[-2000:]
    # The layer list holds the style's layers (background aside), each with a visibility box.
    names = [name for name, _, _ in layers]
    assert any(n.startswith("avdelningar") for n in names) and any(n.startswith("vagar") for n in names), names
    assert dom.count('<input type="checkbox" checked=""') + dom.count("<input type=\"checkbox\">") >= len(names)
    # Where the map went idle within the page's time budget, the counts show what it drew.
    drawn = [int(n) for _, _, n in layers if n]
    assert not drawn or sum(drawn) > 50, layers
    assert "Map" in dom and "maplibregl-canvas" in dom


def test_a_style_beside_its_package_folder_is_served_from_their_common_parent(kartpack, sample):
    """`style` writes `pmtiles://../../map/…` for a package outside the style's folder; served from the common
    parent, the style's URLs resolve (`../` steps applied) to files the server hands out."""
    folder, package = sample
    root = folder.parent
    plan = root / "styles" / "plan"
    kp(kartpack, "style", SHEET, "--package", package, "-o", plan / "style.json")
    assert json.loads((plan / "style.json").read_text())["sources"]["kartpack"]["url"] == \
        "pmtiles://../../map/forest-plan.pmtiles"
    s = Served(kartpack, root)
    try:
        style = json.loads(get(s.port, "/styles/plan/style.json")[2])
        url = style["sources"]["kartpack"]["url"]
        assert url == f"pmtiles://{s.base}map/forest-plan.pmtiles", url
        assert style["sprite"] == f"{s.base}styles/plan/sprite"
        status, _, body = get(s.port, "/map/forest-plan.pmtiles", "Range: bytes=0-6\r\n")
        assert status == 206 and body == b"PMTiles"
        assert get(s.port, "/styles/plan/")[0] == 200
    finally:
        s.stop()


def test_an_mbtiles_package_is_served_tile_by_tile(kartpack, sample, tmp_path):
    """No browser reads MBTiles: `serve PKG.mbtiles` hands out its tiles at /tiles/Z/X/Y.pbf (gzip tiles with
    Content-Encoding: gzip, 204 where the package has none), and MapLibre draws them without an error."""
    import gzip
    folder, package = sample
    mb = tmp_path / "plan.mbtiles"
    kp(kartpack, "extract", package, "--bbox", "-180,-85,180,85", "-o", mb)
    tiles = read_pmtiles(package).tiles
    (z, x, y), blob = next(iter(sorted(tiles.items())))
    s = Served(kartpack, mb, "--style", SHEET)
    try:
        style = json.loads(get(s.port, "/style.json")[2])
        assert style["sources"]["kartpack"]["tiles"] == [s.base + "tiles/{z}/{x}/{y}.pbf"]
        status, headers, body = get(s.port, f"/tiles/{z}/{x}/{y}.pbf")
        assert status == 200 and headers.get("content-encoding") == "gzip"
        unzip = lambda b: gzip.decompress(b) if b[:2] == b"\x1f\x8b" else b
        assert unzip(body) == unzip(blob)
        assert get(s.port, "/tiles/0/0/0.pbf")[0] in (200, 204)
        assert get(s.port, "/tiles/3/9/0.pbf")[0] == 404  # outside the grid: not a tile address
        assert get(s.port, "/tiles/20/1/1.pbf")[0] == 204
        site = tmp_path / "page"
        site.mkdir()
        browser.serve_vendor(site, {"5.24.0": browser.maplibre_builds()["5.24.0"]})
        page_server = browser.LocalServer(site)
        try:
            views = [{"name": "z10", "center": style["center"], "zoom": 10}]
            result = browser.render(page_server, "5.24.0", s.base + "style.json", views, 1024, 768)
        finally:
            page_server.close()
        assert result["errors"] == [] and result["missing"] == [], result["errors"][:5]
        assert len(result["views"][0]["rendered"]) > 50
    finally:
        s.stop()


DRIVER = """<!doctype html>
<html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="viewer" src="index.html" style="width:1024px;height:768px;border:0"></iframe>
<script>
const out = {errors: []};
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function until(test, what, ms = 60000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try { const v = test(); if (v) return v; } catch (e) {}
    await sleep(100);
  }
  throw new Error("timed out waiting for " + what);
}
async function run() {
  const frame = document.getElementById("viewer");
  const w = await until(() => frame.contentWindow.kartpackViewer.ready && frame.contentWindow, "the viewer", 180000);
  const map = w.kartpackViewer.map, doc = w.document;
  out.viewerErrors = w.kartpackViewer.errors;
  const items = () => [...doc.querySelectorAll("#layers li")];
  out.layers = items().map(li => ({id: li.dataset.layer, drawn: +(li.dataset.drawn || 0),
                                   checked: li.querySelector("input").checked}));
  out.styleLayers = map.getStyle().layers.filter(l => l.type !== "background").map(l => l.id);
  // Tile boundaries: the box turns them on and off.
  const tiles = doc.getElementById("tiles");
  out.tiles = [map.showTileBoundaries];
  tiles.click(); out.tiles.push(map.showTileBoundaries);
  tiles.click(); out.tiles.push(map.showTileBoundaries);
  // The layer list: unticking a drawn layer hides it (nothing of it is drawn), ticking shows it again.
  const item = items().find(li => +(li.dataset.drawn || 0) > 0);
  const id = item.dataset.layer, box = item.querySelector("input");
  box.click();
  out.hidden = {id, visibility: map.getLayoutProperty(id, "visibility")};
  await until(() => map.loaded() && map.queryRenderedFeatures({layers: [id]}).length === 0, "the layer to hide");
  box.click();
  out.shown = map.getLayoutProperty(id, "visibility");
  await until(() => map.loaded() && map.queryRenderedFeatures({layers: [id]}).length > 0, "the layer to show");
  // A click on a drawn feature with a class opens a popup with its layer, class and attributes.
  const canvas = map.getCanvas(), rect = canvas.getBoundingClientRect();
  let target = null;
  for (let gy = 1; gy < 24 && !target; gy++) {
    for (let gx = 1; gx < 32 && !target; gx++) {
      const p = [rect.width * gx / 32, rect.height * gy / 24];
      const hit = map.queryRenderedFeatures(p).find(f => f.properties.class !== undefined);
      if (hit) target = {point: p, feature: hit};
    }
  }
  out.target = target && {layer: target.feature.sourceLayer, id: target.feature.id,
                          properties: target.feature.properties};
  const [x, y] = target.point;
  for (const type of ["mousedown", "mouseup", "click"]) {
    canvas.dispatchEvent(new w.MouseEvent(type, {bubbles: true, cancelable: true, view: w, button: 0,
                                                 clientX: rect.left + x, clientY: rect.top + y}));
  }
  const table = await until(() => doc.querySelector(".maplibregl-popup-content table.kp-attrs"), "the popup");
  out.popup = {heads: [...table.querySelectorAll("th")].map(c => c.textContent),
               rows: [...table.querySelectorAll("tr")].filter(r => r.children.length === 2)
                       .map(r => [r.children[0].textContent, r.children[1].textContent])};
}
run().catch(e => out.errors.push(String(e))).finally(() =>
  fetch("%(result)s", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
                       body: JSON.stringify(out)}));
</script></body></html>
"""


def test_the_viewer_layer_list_tile_boundaries_and_click_popup_work(server, sample, tmp_path):
    """The served viewer page driven in headless Chromium (a same-origin page holds it in a frame and uses its DOM,
    as a user would): the layer list names every style layer and hides and shows a layer, the tile-boundary box
    turns MapLibre's tile boundaries on and off, and a click on a drawn feature opens a popup with its layer, its
    class and its attributes."""
    folder, _ = sample
    results = browser.LocalServer(tmp_path)
    (folder / "drive-viewer.html").write_text(DRIVER % {"result": results.base + "result"}, encoding="utf-8")
    try:
        out = browser.open_page(results, server.base + "drive-viewer.html", 1100, 800, timeout=300)
    finally:
        results.close()
        (folder / "drive-viewer.html").unlink()
    assert out["errors"] == [], out
    assert out["viewerErrors"] == [], out["viewerErrors"][:5]
    assert [l["id"] for l in out["layers"]] == out["styleLayers"]
    assert all(l["checked"] for l in out["layers"]), out["layers"]
    assert sum(l["drawn"] for l in out["layers"]) > 50, out["layers"]
    assert out["tiles"] == [False, True, False]
    assert out["hidden"]["visibility"] == "none" and out["shown"] == "visible", out
    target, popup = out["target"], out["popup"]
    cls = target["properties"]["class"]
    assert f"{target['layer']} · class {cls}" in popup["heads"], popup
    keys = {k for k, _ in popup["rows"]}
    assert set(target["properties"]) <= keys, popup
    assert ["class", str(cls)] in popup["rows"], popup
