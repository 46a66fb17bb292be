"""Checks of decoded pictures for tests/cli/test_depth.sh (16-bit levels,
16-bit against 8-bit, alpha against the heights). Each prints one number.

  levels FILE PIX_FMT BYTES          distinct samples in the first plane
                                     (PIX_FMT a planar format, or packed: all samples)
  match16 FILE16 FILE8               max |v16 - 257 v8| over all samples (rgb48le / rgb24)
  alpha FILE NPY TOP [DECODER]       max |alpha - min(1, |h| / TOP)| in 1/255 units, frame 0
  luma FILE NPY PIX_FMT BITS         RMS of plane 0 (a height render's grey, range [-1, 1])
                                     against BT.709 limited range (16 + 219 v) << (BITS - 8)
                                     with v from the .npy heights, in levels; frame 0
"""
import array
import math
import struct
import subprocess
import sys


def decode(path, pix_fmt, extra=(), vf=None):
    cmd = ["ffmpeg", "-v", "error", *extra, "-i", path, "-frames:v", "1"]
    if vf:
        cmd += ["-vf", vf]
    cmd += ["-f", "rawvideo", "-pix_fmt", pix_fmt, "-"]
    return subprocess.run(cmd, capture_output=True, check=True, stdin=subprocess.DEVNULL).stdout


def size(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=width,height", "-of", "csv=p=0", path],
                         capture_output=True, check=True, text=True, stdin=subprocess.DEVNULL).stdout
    w, h = out.strip().split(",")[:2]
    return int(w), int(h)


def samples16(raw):
    a = array.array("H")
    a.frombytes(raw)
    if sys.byteorder == "big":
        a.byteswap()
    return a


def heights(npy, n):
    d = open(npy, "rb").read()
    hl = struct.unpack("<H", d[8:10])[0]
    h = array.array("f")
    h.frombytes(d[10 + hl: 10 + hl + 4 * n])
    if sys.byteorder == "big":
        h.byteswap()
    assert len(h) == n
    return h


def main(argv):
    what = argv[1]
    if what == "levels":
        path, pix_fmt, nbytes = argv[2], argv[3], int(argv[4])
        raw = decode(path, pix_fmt)
        a = samples16(raw) if nbytes == 2 else array.array("B", raw)
        w, h = size(path)
        planar = pix_fmt.startswith(("yuv", "gbr", "gray"))
        print(len(set(a[: w * h] if planar else a)))
    elif what == "match16":
        a16 = samples16(decode(argv[2], "rgb48le"))
        a8 = decode(argv[3], "rgb24")
        assert len(a16) == len(a8)
        print(max(abs(a16[i] - 257 * a8[i]) for i in range(len(a8))))
    elif what == "alpha":
        path, npy, top = argv[2], argv[3], float(argv[4])
        extra = ["-c:v", argv[5]] if len(argv) > 5 else []
        a = samples16(decode(path, "gray16le", extra, "alphaextract"))
        h = heights(npy, len(a))
        print("%.2f" % max(abs(a[i] / 65535 - min(1.0, abs(h[i]) / top)) * 255 for i in range(len(a))))
    elif what == "luma":
        path, npy, pix_fmt, bits = argv[2], argv[3], argv[4], int(argv[5])
        w, hgt = size(path)
        y = samples16(decode(path, pix_fmt))[: w * hgt]
        h = heights(npy, w * hgt)
        k = 1 << (bits - 8)
        err = sum((y[i] - (16 + 219 * min(1.0, max(0.0, (h[i] + 1) / 2))) * k) ** 2 for i in range(w * hgt))
        print("%.3f" % math.sqrt(err / (w * hgt)))
    else:
        sys.exit("depth_check.py: unknown check " + what)


if __name__ == "__main__":
    main(sys.argv)
