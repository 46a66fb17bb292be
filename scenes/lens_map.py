#!/usr/bin/env python3
"""Writes scenes/lens.png, the speed map of scenes/lens.json: 8-bit grey,
256 x 160, white (value 1: the fast end of speed_range) everywhere except a
round lens of slow water centred at (72, 80), radius 44 cells, whose value
falls smoothly to 0 at its centre: v = 1 - (1 - (r/R)^2)^2, so the rim has
zero slope and scatters little. Slower water in the middle is a convex
lens for waves: the plane wave from the left comes to a focus behind it.
Run: python3 scenes/lens_map.py (standard library only)."""
import math
import os
import struct
import zlib

W, H, CX, CY, R = 256, 160, 72, 80, 44


def value(x, y):
    r = math.hypot(x - CX, y - CY) / R
    if r >= 1:
        return 1.0
    return 1.0 - (1.0 - r * r) ** 2   # 0 at the centre, 1 with zero slope at the rim


def chunk(kind, data):
    c = struct.pack(">I", len(data)) + kind + data
    return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


rows = b"".join(b"\0" + bytes(round(255 * value(x, y)) for x in range(W)) for y in range(H))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 0, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lens.png"), "wb") as f:
    f.write(png)
