// Runs MapLibre's own style validator (validateStyleMin, from the style-spec code bundled in maplibre-gl.js) on
// style files: node validate_style.js maplibre-gl.js style.json... -> one JSON line per file: {file, errors}.
// The validator is the shared chunk's export that carries .source/.layer/.filter/.paintProperty/.layoutProperty
// (validateStyleMin and its helpers), found by shape since the bundle's export names are minified.
"use strict";
const fs = require("fs");
const vm = require("vm");

const [bundle, ...styles] = process.argv.slice(2);
const src = fs.readFileSync(bundle, "utf8");
const line = src.split("\n").find((l) => l.startsWith('define("shared"'));
if (!line) throw new Error(`${bundle}: no shared chunk (not a maplibre-gl UMD build?)`);
const modules = {};
const ctx = {
  define: (name, deps, factory) => { modules[name] = factory; },
  console, performance, setTimeout, clearTimeout, TextDecoder, TextEncoder, URL, self: {},
};
ctx.globalThis = ctx;
vm.createContext(ctx);
vm.runInContext(line, ctx);
const shared = {};
modules.shared(shared);
const found = Object.values(shared).filter((f) => typeof f === "function" && typeof f.source === "function"
  && typeof f.layer === "function" && typeof f.filter === "function" && typeof f.paintProperty === "function"
  && typeof f.layoutProperty === "function");
if (found.length !== 1) throw new Error(`expected one validateStyleMin in ${bundle}, found ${found.length}`);
const validateStyleMin = found[0];
for (const file of styles) {
  const style = JSON.parse(fs.readFileSync(file, "utf8"));
  const errors = validateStyleMin(style).map((e) => e.message);
  process.stdout.write(JSON.stringify({ file, errors }) + "\n");
}
