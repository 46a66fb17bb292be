#!/usr/bin/python3
"""spectral-search.py: the spectral solver over many small grids, every edge
combination and drops near edges and corners, against blow-ups and against
an exact modal solution computed here with NumPy, independently of the
solver.

The exact solution: a drop is water displaced at rest (docs/solvers.md,
spectral), so a mode of wavenumber k follows D_k cos(omega t) e^(-2 nu k^2 t)
(the mean, k = 0, stays). With `fixed` (height 0 at the edge's cell face,
half a cell beyond the edge cell), `clamp` (a mirror about that face) and
`wrap` edges, the modes are those of the grid's periodic extension: odd
about a fixed edge's face, even about a clamp edge's face, period 2m (fixed,
fixed; clamp, clamp), 4m (fixed, clamp), m (wrap). `absorb` edges have no
such solution: there the run must stay finite and bounded (its largest
height at most BOUND times the drop's).

Needs NumPy (Debian: python3-numpy).
Usage: tools/spectral-search.py [--quick] [--frames N] [--tol T] [RR]
(RR: the program, ./ripplerender by default). Prints one line per failing
case and a summary; exit status 1 if any case failed."""
import itertools, json, math, os, random, subprocess, sys, tempfile
import numpy as np

G, SIGMA, RHO, NU, DX, FPS = 9.81, 0.0728, 1000.0, 1e-6, 0.001, 30.0
BOUND = 4.0
KINDS = ["fixed", "clamp", "absorb", "wrap"]


def fold(x, m, lo, hi):
    """(grid cell, sign) of position x of an axis's periodic extension:
    reflections about the edges' cell faces, negated at a fixed edge."""
    s = 1
    while not 0 <= x < m:
        low = x < 0
        x = -1 - x if low else 2 * m - 1 - x
        if (lo if low else hi) == "fixed":
            s = -s
    return x, s


def extension(m, lo, hi):
    """The P x m matrix taking an axis's m cells to its periodic extension."""
    if lo == "wrap":
        return np.eye(m)
    P = 2 * m if lo == hi else 4 * m
    E = np.zeros((P, m))
    for x in range(P):
        src, s = fold(x, m, lo, hi)
        E[x, src] += s
    return E


def omega(k):
    return np.sqrt(G * k + SIGMA / RHO * k ** 3)


def exact(D, edges, times):
    """The heights at `times` from D displaced at rest at t = 0."""
    h, w = D.shape
    Ex, Ey = extension(w, edges[0], edges[1]), extension(h, edges[2], edges[3])
    big = Ey @ D @ Ex.T
    Py, Px = big.shape
    F = np.fft.fft2(big)
    ky = 2 * np.pi * np.fft.fftfreq(Py, DX)
    kx = 2 * np.pi * np.fft.fftfreq(Px, DX)
    k = np.hypot(ky[:, None], kx[None, :])
    out = []
    for t in times:
        fac = np.cos(omega(k) * t) * np.exp(-2 * NU * k * k * t)
        fac[0, 0] = 1.0
        out.append(np.real(np.fft.ifft2(F * fac))[:h, :w])
    return np.array(out)


def run(rr, tmp, w, h, edges, drops, frames, solver="spectral"):
    sc = {"grid": {"width": w, "height": h, "cell_size": DX}, "time": {"fps": FPS, "frames": frames},
          "solver": {"type": solver}, "boundary": dict(zip(["left", "right", "top", "bottom"], edges)),
          "drops": [{"x": x, "y": y} for x, y in drops]}
    out = os.path.join(tmp, "o.npy")
    p = subprocess.run([rr, "-", "-o", out, "-y", "-q", "-j1"], input=json.dumps(sc), capture_output=True, text=True)
    if p.returncode:
        return p.returncode, p.stderr.strip(), None
    return 0, "", np.load(out).astype(np.float64)


def edge_sets():
    for lr in [("wrap", "wrap")] + list(itertools.product(KINDS[:3], repeat=2)):
        for tb in [("wrap", "wrap")] + list(itertools.product(KINDS[:3], repeat=2)):
            yield lr + tb


def drops_near(w, h, rng):
    """A drop near a corner, one near an edge's middle, and one anywhere."""
    cx = rng.choice([0, 1, w - 1, w - 2]) if w > 2 else 0
    cy = rng.choice([0, 1, h - 1, h - 2]) if h > 2 else 0
    return [(min(max(cx, 0), w - 1), min(max(cy, 0), h - 1)), (w // 2, rng.choice([0, h - 1])),
            (rng.randrange(w), rng.randrange(h))]


def main():
    args = sys.argv[1:]
    quick = "--quick" in args
    frames = int(args[args.index("--frames") + 1]) if "--frames" in args else 300
    tol = float(args[args.index("--tol") + 1]) if "--tol" in args else 1e-3
    rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--frames", "--tol"))]
    rr = rest[0] if rest else "./ripplerender"
    rng = random.Random(25)
    sizes = [(512, 3), (3, 512), (64, 40), (1, 1), (1, 70), (70, 1), (2, 2)]
    per = 120 if quick else 600
    sizes += [(rng.randint(1, 70), rng.randint(1, 70)) for _ in range(per)]
    edges_all = list(edge_sets())
    cases = [((512, 3), ("fixed",) * 4, [(170, 1)]), ((64, 40), ("absorb", "clamp", "fixed", "fixed"), [(21, 20), (62, 1)])]
    for i, (w, h) in enumerate(sizes):
        cases.append(((w, h), edges_all[i % len(edges_all)] if i >= 7 else rng.choice(edges_all), drops_near(w, h, rng)))
    # every edge combination once more on a tiny and a thin grid
    for e in edges_all:
        cases.append(((rng.randint(1, 6), rng.randint(1, 6)), e, None))
    bad = 0
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for (w, h), edges, drops in cases:
            if drops is None:
                drops = drops_near(w, h, rng)
            drops = [(x, y) for x, y in drops]
            rc, err, a = run(rr, tmp, w, h, list(edges), drops, frames)
            tag = f"{w}x{h} {'/'.join(edges)} drops {drops}"
            if rc:
                print(f"FAIL {tag}: status {rc}: {err}")
                bad += 1
                continue
            peak = np.abs(a[0]).max()
            if not np.isfinite(a).all() or np.abs(a).max() > BOUND * max(peak, 1e-30):
                print(f"FAIL {tag}: largest height {np.abs(a).max():.3g}, drop's {peak:.3g}")
                bad += 1
                continue
            if "absorb" in edges or peak == 0:
                continue
            want = exact(a[0], edges, np.arange(frames) / FPS)
            e = np.abs(a - want).max() / peak
            worst = max(worst, e)
            if e > tol:
                print(f"FAIL {tag}: differs from the exact solution by {e:.3g} of the peak")
                bad += 1
    print(f"{len(cases)} cases, {frames} frames each: {bad} failed; worst error against the exact solution "
          f"{worst:.3g} of the peak (tolerance {tol})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
