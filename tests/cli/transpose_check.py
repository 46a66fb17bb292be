"""A scene against its transpose, for tests/cli/test_transpose.sh.

  transpose_check.py RR DIR SOLVER WIDTH HEIGHT ABSORB_WIDTH EDGES

renders a WIDTH x HEIGHT scene (two drops, one near a corner; EDGES is
"absorb" for all four edges, or left,right,top,bottom) to .npy, then its
transpose (width and height swapped, every drop's x and y swapped, left and
right edges for top and bottom), and prints the largest difference between
the first run's heights and the second's transposed.
"""
import array
import json
import struct
import subprocess
import sys


def npy(path):
    b = open(path, "rb").read()
    n = struct.unpack("<H", b[8:10])[0]
    shape = tuple(int(v) for v in b[10:10 + n].decode().split("(")[1].split(")")[0].split(",") if v.strip())
    a = array.array("f")
    a.frombytes(b[10 + n:])
    return shape, a


def render(rr, d, tag, solver, w, h, aw, drops, edges):
    scene = {"grid": {"width": w, "height": h},
             "time": {"fps": 30, "frames": 12, "steps_per_frame": "auto"},
             "solver": {"type": solver},
             "boundary": dict(edges, absorb_width=aw),
             "drops": [{"time": 0, "x": x, "y": y, "radius": 2, "amplitude": -1.0} for x, y in drops],
             "render": {"mode": "colormap"}}
    path = f"{d}/{tag}.json"
    with open(path, "w") as f:
        json.dump(scene, f)
    subprocess.run([rr, path, "-o", f"{d}/{tag}.npy", "-y"], check=True, stdin=subprocess.DEVNULL)
    return npy(f"{d}/{tag}.npy")


def main():
    rr, d, solver = sys.argv[1], sys.argv[2], sys.argv[3]
    w, h, aw = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    names = ("left", "right", "top", "bottom")
    kinds = sys.argv[7].split(",") if "," in sys.argv[7] else [sys.argv[7]] * 4
    edges = dict(zip(names, kinds))
    drops = [(w // 3, h // 2), (w - 2, 1)]
    (n, ha, wa), a = render(rr, d, "a", solver, w, h, aw, drops, edges)
    t_edges = {"left": edges["top"], "right": edges["bottom"], "top": edges["left"], "bottom": edges["right"]}
    shape_b, b = render(rr, d, "b", solver, h, w, aw, [(y, x) for x, y in drops], t_edges)
    assert shape_b == (n, wa, ha), shape_b
    worst = 0.0
    for k in range(n):
        for y in range(ha):
            row = (k * ha + y) * wa
            for x in range(wa):
                worst = max(worst, abs(a[row + x] - b[(k * wa + x) * ha + y]))
    print(f"{worst:.3g}")


main()
