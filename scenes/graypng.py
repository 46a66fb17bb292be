"""The 8-bit grey PNG writer of the map scripts (lens_map.py, shoal_map.py):
standard library only, one IDAT at zlib level 9, filter 0 on every row."""
import os
import struct
import zlib


def chunk(kind, data):
    c = struct.pack(">I", len(data)) + kind + data
    return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def write_gray(name, w, h, value):
    """Writes NAME beside this file: w x h pixels, pixel (x, y) the value
    value(x, y) in [0, 1], rounded to 0..255."""
    rows = b"".join(b"\0" + bytes(round(255 * value(x, y)) for x in range(w)) for y in range(h))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), name), "wb") as f:
        f.write(png)
