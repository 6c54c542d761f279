#!/usr/bin/env python3
"""Prints `BYTES TILES` for a PMTiles v3 or MBTiles package (stdlib only).

TILES is the number of addressed tiles: the PMTiles header's addressed-tiles count, or the rows of the
MBTiles `tiles` table (view or table). Prints `- -` when the file is missing or unreadable.
"""
import os
import sqlite3
import struct
import sys


def stats(path: str) -> str:
    try:
        size = os.path.getsize(path)
    except OSError:
        return "- -"
    try:
        if path.endswith(".pmtiles"):
            with open(path, "rb") as f:
                head = f.read(127)
            if len(head) < 127 or head[:7] != b"PMTiles":
                return f"{size} -"
            (addressed,) = struct.unpack_from("<Q", head, 72)
            return f"{size} {addressed}"
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            (n,) = con.execute("SELECT count(*) FROM tiles").fetchone()
        finally:
            con.close()
        return f"{size} {n}"
    except (OSError, sqlite3.Error, struct.error):
        return f"{size} -"


if __name__ == "__main__":
    print(stats(sys.argv[1]))
