/// The browser viewer of a style folder: `index.html` and `viewer/viewer.js`, written by `kartpack style` next to
/// the style and served by `kartpack serve`. The page loads MapLibre GL JS and pmtiles.js from `viewer/` (files
/// `ViewerPage.libraryFiles`, vendored at install time), fetches the style, makes its relative URLs absolute
/// against the style's own URL (MapLibre GL JS wants absolute sprite and glyph URLs and resolves `pmtiles://`
/// paths against the page), and shows the map with a layer list, tile boundaries on demand and the attributes and
/// class of a clicked feature.
public enum ViewerPage {
    /// The MapLibre files the page loads from `viewer/`.
    public static let libraryFiles = ["maplibre-gl.js", "maplibre-gl.css", "pmtiles.js"]
    /// The page's own script, under `viewer/`.
    public static let scriptName = "viewer.js"

    /// `index.html` for the style file `styleName` (a name in the same folder).
    public static func html(styleName: String) -> String {
        let escaped =
            styleName.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Kartpack map</title>
            <link rel="stylesheet" href="viewer/maplibre-gl.css">
            <style>
            html, body, #map { margin: 0; padding: 0; width: 100%; height: 100%; font: 13px sans-serif; }
            #panel { position: absolute; top: 8px; left: 8px; z-index: 2; background: #fffe; padding: 6px 8px;
              border-radius: 4px; box-shadow: 0 1px 4px #0004; max-height: 80%; overflow: auto; max-width: 22em; }
            #panel h1 { font-size: 13px; margin: 0 0 4px; } #panel ul { list-style: none; margin: 0; padding: 0; }
            #panel label { white-space: nowrap; } #status { color: #555; margin-top: 4px; }
            .kp-attrs td { padding: 0 4px; vertical-align: top; } .kp-attrs th { text-align: left; }
            </style>
            <script src="viewer/maplibre-gl.js"></script>
            <script src="viewer/pmtiles.js"></script>
            </head><body data-style="\(escaped)">
            <div id="map"></div>
            <div id="panel"><h1 id="title">Kartpack map</h1>
            <label><input type="checkbox" id="tiles"> tile boundaries</label>
            <ul id="layers"></ul><div id="status"></div></div>
            <script src="viewer/viewer.js"></script>
            </body></html>

            """
    }

    /// `viewer/viewer.js`.
    public static let script = #"""
        "use strict";
        // Kartpack viewer: loads the style named by ?style= (else the page's data-style), makes its URLs absolute
        // against the style's URL, and shows it with a layer list, tile boundaries and feature attributes.
        (function () {
          const status = document.getElementById("status");
          if (typeof maplibregl === "undefined" || typeof pmtiles === "undefined") {
            status.textContent = "MapLibre GL JS or pmtiles.js is missing from viewer/ next to this page.";
            return;
          }
          const name = new URLSearchParams(location.search).get("style") || document.body.dataset.style || "style.json";
          const styleURL = new URL(name, location.href).href;
          const protocol = new pmtiles.Protocol();
          maplibregl.addProtocol("pmtiles", protocol.tile);
          const braces = u => u.replace(/%7B/gi, "{").replace(/%7D/gi, "}");
          const absolute = u => braces(new URL(u, styleURL).href);
          function resolve(style) {
            if (typeof style.sprite === "string") style.sprite = absolute(style.sprite);
            else if (Array.isArray(style.sprite)) style.sprite = style.sprite.map(s => ({...s, url: absolute(s.url)}));
            if (typeof style.glyphs === "string") style.glyphs = absolute(style.glyphs);
            for (const s of Object.values(style.sources || {})) {
              if (typeof s.url === "string") {
                s.url = s.url.startsWith("pmtiles://") ? "pmtiles://" + absolute(s.url.slice(10)) : absolute(s.url);
              }
              if (Array.isArray(s.tiles)) s.tiles = s.tiles.map(absolute);
            }
            return style;
          }
          const viewer = {map: null, errors: [], drawn: {}, ready: false};
          window.kartpackViewer = viewer;
          fetch(styleURL).then(r => {
            if (!r.ok) throw new Error(styleURL + ": HTTP " + r.status);
            return r.json();
          }).then(style => {
            document.getElementById("title").textContent = style.name || "Kartpack map";
            document.title = style.name || document.title;
            const map = new maplibregl.Map({container: "map", style: resolve(style), hash: true});
            viewer.map = map;
            map.addControl(new maplibregl.NavigationControl());
            map.addControl(new maplibregl.ScaleControl());
            map.on("error", e => {
              const text = String(e.error && (e.error.message || e.error) || e);
              viewer.errors.push(text);
              status.textContent = text;
            });
            document.getElementById("tiles").addEventListener("change", e => {
              map.showTileBoundaries = e.target.checked;
            });
            listLayers(map, style);
            map.on("idle", () => countDrawn(map));
            map.on("click", e => showFeatures(map, e));
          }).catch(e => {
            viewer.errors.push(String(e));
            status.textContent = String(e);
          });

          function listLayers(map, style) {
            const list = document.getElementById("layers");
            for (const layer of style.layers) {
              if (layer.type === "background") continue;
              const item = document.createElement("li");
              const label = document.createElement("label");
              const box = document.createElement("input");
              box.type = "checkbox";
              box.checked = (layer.layout || {}).visibility !== "none";
              box.addEventListener("change", () => {
                map.setLayoutProperty(layer.id, "visibility", box.checked ? "visible" : "none");
              });
              label.append(box, " " + layer.id);
              item.append(label);
              item.dataset.layer = layer.id;
              list.append(item);
            }
          }

          function countDrawn(map) {
            const drawn = {};
            for (const f of map.queryRenderedFeatures()) {
              drawn[f.layer.id] = (drawn[f.layer.id] || 0) + 1;
            }
            viewer.drawn = drawn;
            for (const item of document.querySelectorAll("#layers li")) {
              item.dataset.drawn = drawn[item.dataset.layer] || 0;
              item.title = item.dataset.drawn + " features drawn in this view";
            }
            const problem = viewer.errors.length ? " · " + viewer.errors[0] : "";
            status.textContent = "zoom " + map.getZoom().toFixed(2) + problem;
            viewer.ready = true;
          }

          function cell(tag, text) {
            const c = document.createElement(tag);
            c.textContent = text;
            return c;
          }

          function showFeatures(map, e) {
            const seen = new Set();
            const table = document.createElement("table");
            table.className = "kp-attrs";
            for (const f of map.queryRenderedFeatures(e.point)) {
              const key = f.sourceLayer + "/" + f.id;
              if (seen.has(key)) continue;
              seen.add(key);
              const head = document.createElement("tr");
              const cls = f.properties.class !== undefined ? " · class " + f.properties.class : "";
              const title = cell("th", f.sourceLayer + cls);
              title.colSpan = 2;
              head.append(title);
              table.append(head);
              for (const [k, v] of Object.entries(f.properties)) {
                const row = document.createElement("tr");
                row.append(cell("td", k), cell("td", String(v)));
                table.append(row);
              }
            }
            if (seen.size === 0) return;
            new maplibregl.Popup({maxWidth: "360px"}).setLngLat(e.lngLat).setDOMContent(table).addTo(map);
          }
        })();

        """#
}
