"""No garbled text passes (issue 36), on real text: for each language the encoding detector knows (CLDR through
ICU, scripts/generate-exemplar-letters.py), the names of every locale in that language — 30 values with accented
letters — are written in each code page that writes the language, without .cpg and with LDID 0, and read back by
`kartpack inspect`. Every set is read in a code page that gives the same text, or refused (`unknown_encoding`):
never read wrong. Most are read (Czech in CP1250 and CP852, French, Polish, Cyrillic, Greek, Arabic …); the test
also fails if fewer than 120 of the 142 sets are. Skipped where ICU 72 is absent."""
import ctypes
import importlib.util
import json
import struct
import subprocess

import pytest

from conftest import ROOT, kartpack_bin

WGS84 = ('GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],'
         'UNIT["degree",0.0174532925199433]]')


def generator():
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "generate-exemplar-letters.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


def locale_names(lang: str, locales: list) -> list:
    """ICU's name of every locale, in `lang`."""
    uc = ctypes.CDLL("libicuuc.so.72")
    display = uc.uloc_getDisplayName_72
    display.restype = ctypes.c_int32
    display.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int32,
                        ctypes.POINTER(ctypes.c_int)]
    buf = ctypes.create_string_buffer(1024)
    out = []
    for loc in locales:
        st = ctypes.c_int(0)
        n = display(loc, lang.encode(), buf, 512, ctypes.byref(st))
        if st.value <= 0 and n > 0:
            out.append(ctypes.string_at(buf, 2 * n).decode("utf-16-le"))
    return out


def write_set(base, values, width=60):
    """`base`.shp etc.: points with a NAME C(60) field holding `values` (bytes), no .cpg, LDID 0."""
    n = len(values)

    def header(words):
        return struct.pack(">7i", 9994, 0, 0, 0, 0, 0, words) + struct.pack("<2i8d", 1000, 1, 0, 0, n, 0, 0, 0, 0, 0)

    shp = header(50 + 14 * n) + b"".join(struct.pack(">2i", i + 1, 10) + struct.pack("<idd", 1, i, 0)
                                          for i in range(n))
    shx = header(50 + 4 * n) + b"".join(struct.pack(">2i", 50 + 14 * i, 10) for i in range(n))
    dbf = struct.pack("<4BIHH20x", 3, 126, 1, 1, n, 65, 1 + width)
    dbf += b"NAME".ljust(11, b"\0") + b"C" + b"\0" * 4 + bytes([width, 0]) + b"\0" * 14 + b"\r"
    dbf += b"".join(b" " + v[:width].ljust(width) for v in values) + b"\x1a"
    for ext, data in (("shp", shp), ("shx", shx), ("dbf", dbf), ("prj", WGS84.encode())):
        base.with_suffix("." + ext).write_bytes(data)


def test_real_text_is_read_right_or_refused_never_garbled(tmp_path):
    try:
        ctypes.CDLL("libicui18n.so.72")
    except OSError:
        pytest.skip("ICU 72 (libicui18n.so.72) is absent")
    gen = generator()
    lib = gen.icu()
    locales = [lib["available"](k) for k in range(lib["count"]())]
    sets = []
    for lang, pages, _ in gen.languages():
        texts = [t for t in locale_names(lang, locales) if any(ord(c) >= 0x80 for c in t)]
        for cp in pages.split():
            values = [e for e in (t.encode(cp.lower(), "ignore") for t in texts) if any(b >= 0x80 for b in e)][:30]
            if values:
                base = tmp_path / f"{lang}-{cp}"
                write_set(base, values)
                sets.append((lang, cp, values, base))
    # One inspect of the folder reads every set.
    proc = subprocess.run([kartpack_bin(), "inspect", str(tmp_path), "--format", "json"], capture_output=True,
                          timeout=600)
    layers = {l["path"]: l for l in json.loads(proc.stdout)["layers"]}
    read, refused, wrong = [], [], []
    for lang, cp, values, base in sets:
        layer = layers[str(base) + ".shp"]
        rejection = [e for e in layer["errors"] if e["code"] == "file_rejected"]
        if rejection:
            assert rejection[0]["message"].endswith("[unknown_encoding]"), rejection[0]["message"]
            refused.append(f"{lang}/{cp}")
            continue
        got = layer["encoding"]["name"]
        same = got != "UTF-8" and all(v.decode(cp.lower()) == v.decode(got.lower()) for v in values)
        (read if same else wrong).append(f"{lang}/{cp} as {got}")
    assert not wrong, f"read in a code page that garbles them: {wrong}"
    assert len(read) >= 120, f"only {len(read)} of {len(sets)} sets read; refused: {refused}"
