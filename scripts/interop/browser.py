"""Real-client helpers: MapLibre GL JS from PyPI wheels, a 127.0.0.1-only HTTP server with Range support, and
headless Chromium (SwiftShader WebGL) with every other host unresolvable.

The page under test posts its findings (map errors, missing images, rendered features with their evaluated paint
values, a PNG of the canvas) back to the server, so no browser driver is needed.
"""
import base64
import http.server
import json
import os
import pathlib
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

import pytest

SITE = pathlib.Path(sys.executable).resolve().parent.parent / "lib"


def _site_packages() -> pathlib.Path:
    import sysconfig
    return pathlib.Path(sysconfig.get_paths()["purelib"])


def maplibre_builds() -> dict:
    """{version: (maplibre-gl.js, pmtiles.js)} from the pinned wheels (roadstyle: 5.24.0, maplibre: 5.3.0)."""
    sp = _site_packages()
    pmtiles = sp / "roadstyle" / "vendor" / "pmtiles.js"
    builds = {
        "5.24.0": sp / "roadstyle" / "vendor" / "maplibre-gl.js",
        "5.3.0": sp / "maplibre" / "srcjs" / "maplibre-gl.js",
    }
    for version, path in builds.items():
        if not path.exists() or not pmtiles.exists():
            pytest.fail(f"{path} missing: install scripts/requirements-test.txt (roadstyle, maplibre) into the venv")
        head = path.read_text(encoding="utf-8", errors="replace")[:300]
        assert f"v{version}/" in head, f"{path} is not maplibre-gl {version}"
    return {v: (p, pmtiles) for v, p in builds.items()}


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("chromium not on PATH; scripts/bootstrap.sh installs Debian's chromium")


class _Handler(http.server.BaseHTTPRequestHandler):
    """GET with single-range support from the server's root; POST /result stores the body."""

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):  # noqa: N802
        server = self.server
        path = self.path.split("?", 1)[0]
        from urllib.parse import unquote
        path = unquote(path)
        server.requests.append(path)
        if path in server.pages:
            body = server.pages[path].encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        target = (server.root / path.lstrip("/")).resolve()
        if server.root not in target.parents and target != server.root or not target.is_file():
            self.send_error(404)
            return
        data = target.read_bytes()
        ctype = {".json": "application/json", ".png": "image/png", ".js": "text/javascript",
                 ".pbf": "application/x-protobuf", ".css": "text/css"}.get(target.suffix, "application/octet-stream")
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes="):
            a, _, b = rng[6:].partition("-")
            start = int(a) if a else max(0, len(data) - int(b))
            end = min(int(b), len(data) - 1) if a and b else len(data) - 1
            if start >= len(data):
                self.send_error(416)
                return
            chunk = data[start:end + 1]
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            server.ranges += 1
        else:
            chunk = data
            self.send_response(200)
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(chunk)))
        self.end_headers()
        self.wfile.write(chunk)

    def do_POST(self):  # noqa: N802
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        self.server.results.append(json.loads(body))
        self.send_response(204)
        self.end_headers()


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


class LocalServer:
    """Serves `root` on 127.0.0.1 (an ephemeral port) until closed."""

    def __init__(self, root: pathlib.Path):
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.root = root.resolve()
        self.httpd.pages = {}
        self.httpd.requests = []
        self.httpd.results = []
        self.httpd.ranges = 0
        self.port = self.httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def requests(self):
        return self.httpd.requests

    @property
    def ranges(self):
        return self.httpd.ranges

    def page(self, path: str, html: str):
        self.httpd.pages[path] = html

    def wait_result(self, timeout: float):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.httpd.results:
                return self.httpd.results.pop(0)
            time.sleep(0.2)
        return None

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


PAGE = """<!doctype html>
<html><head><meta charset="utf-8">
<style>html,body{margin:0;padding:0;background:#888} #map{width:%(width)dpx;height:%(height)dpx}</style>
<script src="/vendor/%(version)s/maplibre-gl.js"></script>
<script src="/vendor/pmtiles.js"></script>
</head><body><div id="map"></div>
<script>
const views = %(views)s;
const out = {version: maplibregl.getVersion ? maplibregl.getVersion() : "", errors: [], missing: [], views: []};
const protocol = new pmtiles.Protocol();
maplibregl.addProtocol("pmtiles", protocol.tile);
const map = new maplibregl.Map({container: "map", style: %(style)s, attributionControl: false,
  fadeDuration: 0, canvasContextAttributes: {preserveDrawingBuffer: true}, preserveDrawingBuffer: true,
  pixelRatio: 1, center: [0, 0], zoom: 0});
map.on("error", e => out.errors.push(String(e.error && (e.error.message || e.error) || e)));
map.on("styleimagemissing", e => out.missing.push(e.id));
function idle() { return new Promise(r => map.once("idle", r)); }
function evaluated(f) {
  const layer = map.style._layers ? map.style._layers[f.layer.id] : map.getLayer(f.layer.id);
  const paint = {};
  const feature = {type: f.geometry.type, properties: f.properties, id: f.id};
  for (const k of Object.keys(f.layer.paint || {})) {
    try {
      const v = layer.paint.get(k);
      let r = v && v.evaluate ? v.evaluate(feature, {}) : v;
      if (r && r.r !== undefined) r = [r.r, r.g, r.b, r.a];
      if (r && r.name !== undefined) r = r.name;
      if (r && r.to !== undefined && r.from !== undefined) r = r.to;
      paint[k] = r;
    } catch (err) { paint[k] = "error: " + err; }
  }
  for (const k of Object.keys(f.layer.layout || {})) {
    try {
      const v = layer.layout.get(k);
      let r = v && v.evaluate ? v.evaluate(feature, {}) : v;
      if (r && r.name !== undefined) r = r.name;
      if (r && r.sections) r = r.sections.map(s => s.text).join("");
      paint[k] = r;
    } catch (err) { paint[k] = "error: " + err; }
  }
  return paint;
}
async function run() {
  await new Promise(r => map.once("load", r));
  for (const v of views) {
    map.jumpTo({center: v.center, zoom: v.zoom});
    await idle();
    const feats = map.queryRenderedFeatures();
    const seen = {};
    const rendered = [];
    const symbolCounts = {};
    for (const f of feats) {
      const key = f.layer.id + "|" + f.sourceLayer + "|" + f.id;
      if (f.layer.type === "symbol") symbolCounts[key] = (symbolCounts[key] || 0) + 1;
      if (seen[key]) continue;
      seen[key] = true;
      rendered.push({layer: f.layer.id, type: f.layer.type, sourceLayer: f.sourceLayer, id: f.id,
                     properties: f.properties, values: evaluated(f)});
    }
    out.views.push({name: v.name, zoom: map.getZoom(), rendered: rendered, symbolCounts: symbolCounts,
                    png: map.getCanvas().toDataURL("image/png")});
  }
  await fetch("/result", {method: "POST", body: JSON.stringify(out)});
}
run().catch(e => { out.errors.push("page: " + e); fetch("/result", {method: "POST", body: JSON.stringify(out)}); });
</script></body></html>
"""


def render(server: LocalServer, version: str, style_url: str, views: list, width: int, height: int,
           timeout: float = 240) -> dict:
    """Loads `style_url` in headless Chromium with MapLibre `version`, visits `views` ({name, center, zoom}) and
    returns what the page posted (errors, missing images, per view the rendered features and a PNG). The server's
    request log and range count start afresh."""
    page = f"/page-{version}-{len(server.httpd.pages)}.html"
    server.httpd.requests.clear()
    server.httpd.ranges = 0
    server.page(page, PAGE % {"width": width, "height": height, "version": version,
                              "views": json.dumps(views), "style": json.dumps(style_url)})
    return open_page(server, server.base.rstrip("/") + page, width, height, timeout)


def open_page(server: LocalServer, url: str, width: int, height: int, timeout: float = 240) -> dict:
    """Opens `url` in headless Chromium (only 127.0.0.1 resolves) and returns the first JSON body the page posts to
    `server` (`/result`; a page on another origin posts with `mode: "no-cors"`)."""
    profile = tempfile.mkdtemp(prefix="kp-chromium-")
    cmd = [
        chromium(), "--headless=new", "--no-sandbox", "--disable-gpu-sandbox", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-default-apps", "--metrics-recording-only", "--no-default-browser-check",
        "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
        "--force-device-scale-factor=1", f"--window-size={width},{height}",
        # Only 127.0.0.1 resolves: every other host (glyph servers, CDNs) is unreachable.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--proxy-server=direct://", "--proxy-bypass-list=*",
        f"--user-data-dir={profile}", url,
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        result = server.wait_result(timeout)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
        shutil.rmtree(profile, ignore_errors=True)
    if result is None:
        pytest.fail(f"chromium gave no result in {timeout} s; stderr:\n{err.decode(errors='replace')[-3000:]}")
    return result


def png_bytes(data_url: str) -> bytes:
    assert data_url.startswith("data:image/png;base64,"), data_url[:40]
    return base64.b64decode(data_url.split(",", 1)[1])


def serve_vendor(root: pathlib.Path, builds: dict):
    """Copies the MapLibre builds and pmtiles.js under root/vendor."""
    for version, (gl, pm) in builds.items():
        d = root / "vendor" / version
        d.mkdir(parents=True, exist_ok=True)
        shutil.copy(gl, d / "maplibre-gl.js")
        shutil.copy(pm, root / "vendor" / "pmtiles.js")
