"""Seams of looped clips for tests/cli/test_loop.sh, on float32 .npy heights
(frames, height, width). Prints one number.

  seam CLIP NEXT       RMS(NEXT[0] - CLIP[0]) over the median RMS difference of
                       consecutive frames of CLIP: NEXT is the same scene with
                       one loop period more of preroll, so its frame 0 is
                       CLIP's frame N (one past the last), and this is the
                       seam against an ordinary step
  shift A B K          max |A[i] - B[i + K]| over A's frames
"""
import array
import math
import struct
import sys


def frames(path):
    d = open(path, "rb").read()
    assert d[:6] == b"\x93NUMPY" and d[6] == 1
    hl = struct.unpack("<H", d[8:10])[0]
    hdr = d[10:10 + hl].decode("latin1")
    shape = tuple(int(v) for v in hdr.split("(")[1].split(")")[0].split(",") if v.strip())
    h = array.array("f")
    h.frombytes(d[10 + hl:])
    if sys.byteorder == "big":
        h.byteswap()
    n = shape[1] * shape[2]
    return [h[i * n:(i + 1) * n] for i in range(shape[0])]


def rms(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)) / len(a))


def main(argv):
    if argv[1] == "seam":
        clip, nxt = frames(argv[2]), frames(argv[3])
        steps = sorted(rms(clip[i], clip[i + 1]) for i in range(len(clip) - 1))
        print("%.6g" % (rms(nxt[0], clip[0]) / steps[len(steps) // 2]))
    elif argv[1] == "shift":
        a, b, k = frames(argv[2]), frames(argv[3]), int(argv[4])
        print("%.6g" % max(max(abs(x - y) for x, y in zip(a[i], b[i + k])) for i in range(len(a))))


main(sys.argv)
