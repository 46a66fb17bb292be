#!/usr/bin/env python3
"""keywalk.py: walks every key of the scene schema through every solver, render mode and
output kind it could meet, and sorts what each one does:

  acts      the frames (rgb24 hashes) or the heights (.npy bytes) change
  refused   exit 2 with one line that names the key
  n/a       docs/scene.md's "used by" column says the key does not apply to
            that solver or mode

A key that is accepted, changes nothing and is not documented as not applying
is a silently ignored key: the walk fails, naming it.

Usage: tests/cli/keywalk.py RIPPLERENDER SCHEMA DOCS WORKDIR   (prints "ok"/"FAIL" lines)
"""
import hashlib, json, os, re, subprocess, sys

rr, schema_path, docs_path, work = sys.argv[1:5]
schema = json.load(open(schema_path))
defs = schema.get("$defs", {})

# The solvers and render modes walked are the schema's; the program's own
# tables are compared with them below (a new solver or mode is walked once
# the schema names it, and the walk fails until it does).
SOLVERS = schema["properties"]["solver"]["properties"]["type"]["enum"]
MODES = schema["properties"]["render"]["properties"]["mode"]["enum"]


def resolve(node):
    while "$ref" in node:
        ref = node["$ref"].split("/")[-1]
        merged = dict(defs[ref])
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        node = merged
    return node


def used_by(docs):
    """{(section, key): set of solver, mode or output-kind names} from the
    tables of docs/scene.md: a "used by" column, or a meaning that opens with
    "name, name: ..." or holds "(used by `name` and `name`)"."""
    out, section, col = {}, None, None
    for line in open(docs, encoding="utf-8"):
        m = re.match(r"^## (\w+)", line)
        if m:
            section, col = m.group(1), None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| key"):
            col = cells.index("used by") if "used by" in cells else -1
            continue
        if col is None or not line.startswith("| `"):
            continue
        if col >= 0:
            # "wave (with `speed_map`)": applies to wave when the scene sets speed_map
            cond = re.search(r"\((with|without) `([a-z_]+)`\)", cells[col])
            names = set(re.findall(r"[a-z_0-9]+", re.sub(r"\(.*?\)", "", cells[col])))
            if cond:
                names = {(n, cond.group(1), cond.group(2)) for n in names}
        else:
            m = re.match(r"^((?:[a-z_]+, )*[a-z_]+): ", cells[-1]) or \
                re.search(r"\(used by ((?:`[a-z_]+`(?:, | and )?)+)\)", cells[-1])
            if not m:
                continue
            names = set(re.findall(r"[a-z_]+", m.group(1)))
        for key in re.findall(r"`([a-z_]+)`", cells[0]):
            out[(section, key)] = names
    return out


USED = used_by(docs_path)


def applies(section, key, ctx, scene):
    names = USED.get((section, key))
    if names is None or "all" in names:
        return True
    for n in names:
        if isinstance(n, tuple):
            name, how, other = n
            if name == ctx and (other in scene.get(section, {})) == (how == "with"):
                return True
        elif n == ctx:
            return True
    return False


def base_scene(solver, mode):
    sc = {
        "grid": {"width": 40, "height": 28, "cell_size": 0.0005},
        "time": {"fps": 30, "frames": 14, "steps_per_frame": "auto" if solver in ("wave", "spectral") else 2},
        "solver": {"type": solver},
        "boundary": "fixed",
        "drops": [{"x": 20, "y": 14, "radius": 3, "amplitude": -1},
                  {"time": 0.05, "x": 12, "y": 10, "radius": 2, "amplitude": 0.5}],
        "obstacles": [{"type": "rect", "x": 34, "y": 0, "width": 3, "height": 10}],
        "render": {"mode": mode},
    }
    return sc


def alternatives(node, default):
    """Values different from the default that the schema allows."""
    node = resolve(node)
    if "enum" in node:
        return [v for v in node["enum"] if v != default]
    if "oneOf" in node:
        vals = []
        for alt in node["oneOf"]:
            vals += alternatives(alt, default)
        return vals[:2]
    if "const" in node:
        return [node["const"]] if node["const"] != default else []
    t = node.get("type")
    if t in ("number", "integer"):
        lo = node.get("minimum", node.get("exclusiveMinimum"))
        hi = node.get("maximum", node.get("exclusiveMaximum"))
        d = default if isinstance(default, (int, float)) else (lo if lo is not None else 1)
        cand = [d * 2 if d else 1, d / 2 if d else 0.5, d + 1, d - 1]
        if t == "integer":
            cand = [int(round(c)) for c in cand]
        vals = []
        for c in cand:
            if c == default or (lo is not None and c < lo) or (hi is not None and c > hi):
                continue
            if "exclusiveMinimum" in node and c <= node["exclusiveMinimum"]:
                continue
            vals.append(c)
        return vals[:1]
    if t == "boolean":
        return [not default]
    if t == "array" and isinstance(default, list) and default and all(isinstance(v, (int, float)) for v in default):
        items = resolve(node.get("items", {})) if isinstance(node.get("items"), dict) else {}
        if items.get("type") == "integer" or all(isinstance(v, int) for v in default):
            return [[min(255, v + 60) if v < 196 else v - 60 for v in default]]
        return [[v * 1.5 + 0.1 for v in default]]
    return []


def leaves(node, path):
    node = resolve(node)
    if "properties" in node:
        for k, v in node["properties"].items():
            yield from leaves(v, path + [k])
    else:
        yield path, node


def run(scene, sets, out):
    f = os.path.join(work, "s.json")
    with open(f, "w") as fh:
        json.dump(scene, fh)
    cmd = [rr, f, "-o", out, "-y", "-q", "--hash", "-j1"]
    for s in sets:
        cmd += ["-s", s] if "=" in s and not s.startswith("-") else [s]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    data = b""
    probes = os.path.join(work, "p.csv")
    for o in (out.replace("%03d", "000"), probes) if "--probes" in sets else (out.replace("%03d", "000"),):
        if p.returncode == 0 and os.path.exists(o):
            with open(o, "rb") as fh:
                data += fh.read()
    return p.returncode, p.stdout, p.stderr.strip(), hashlib.md5(data).hexdigest()


npass = nfail = 0


def verdict(name, ok, why=""):
    global npass, nfail
    if ok:
        npass += 1
        print("ok keywalk " + name)
    else:
        nfail += 1
        print("FAIL keywalk %s: %s" % (name, why))


# The program's list of a key's names, from its refusal of another
# ("expected one of "a", "b", got ...): its table, in the table's order.
for dotted, names in (("solver.type", SOLVERS), ("render.mode", MODES)):
    rc, _, err, _ = run(base_scene("elias", "height"), [dotted + "=not-a-name"], os.path.join(work, "o.npy"))
    m = re.search(r"expected one of (.*?), got", err)
    listed = re.findall(r'"([^"]*)"', m.group(1)) if m else None
    verdict("%s-names-are-the-schema's" % dotted, rc == 2 and listed == names,
            "the program lists %s, the schema's enum %s" % (listed, names))

HERE = os.path.dirname(os.path.abspath(schema_path))
# Values for keys whose schema gives no alternative of its own (free strings,
# files), or whose first alternative could not show an effect on a small grid.
SPECIAL = {
    "solver.depth": [0.002],
    "rain.end": [0.05],
    "oscillators.0.end": [0.05],
    "solver.speed_map": [os.path.join(HERE, "lens.png")],
    "solver.depth_map": [os.path.join(HERE, "shoal.png")],
    "render.depth_map": [os.path.join(HERE, "shoal.png")],
    "render.colormap": ["cividis"],
    "render.background": [os.path.join(HERE, "pool.png")],
    "render.floor": [os.path.join(HERE, "pool.png")],
    "render.atlas": [[2, 1]],
    "output.codec": {"mp4": "mpeg4", "webm": "libaom-av1", "gif": "png", "png": "ffv1",
                     "npy": "libx264", "framemd5": "libx264"},
    "output.preset": {"mp4": "slow", "webm": "slow", "gif": "slow", "png": "slow", "npy": "slow",
                      "framemd5": "slow"},
    "output.pix_fmt": {"mp4": "yuv444p", "webm": "yuv444p", "gif": "rgb8", "png": "rgba",
                       "npy": "yuv444p", "framemd5": "yuv444p"},
}


def special(dotted, ctx):
    v = SPECIAL.get(dotted)
    if isinstance(v, dict):
        return [v[ctx]] if ctx in v else []
    return v


def check_key(section, key, dotted, alts, ctx, scene, out, extra):
    base = run(scene, extra, out)
    if base[0] != 0:
        verdict("%s[%s]" % (dotted, ctx), False, "the base scene fails: " + base[2])
        return
    val = json.dumps(alts[0])
    got = run(scene, extra + ["%s=%s" % (dotted, val)], out)
    name = "%s=%s[%s]" % (dotted, val, ctx)
    if got[0] == 2:
        verdict(name, key in got[2] or dotted in got[2], "refused without naming the key: " + got[2])
    elif got[0] != 0:
        verdict(name, False, "exit %d: %s" % (got[0], got[2]))
    elif got[1] != base[1] or got[3] != base[3]:
        verdict(name, True)
    elif not applies(section, key, ctx, scene):
        verdict(name, True)
    else:
        verdict(name, False, "accepted, changes nothing, not documented as not applying")


def walk(section, prefix, node, ctx_list, make_scene, out_of=None):
    for path, leaf in leaves(node, prefix):
        key = path[-1]
        dotted = ".".join(path)
        if path in (["solver", "type"], ["render", "mode"], ["output", "path"]) or key == "type":
            continue   # the contexts themselves
        for ctx in ctx_list:
            alts = special(dotted, ctx)
            if alts is None:
                alts = alternatives(leaf, leaf.get("default"))
            if not alts:
                continue
            out = out_of(ctx) if out_of else os.path.join(work, "h.npy")
            scene = make_scene(ctx)
            extra = ["--probes", os.path.join(work, "p.csv")] if scene.get("probes") else []
            check_key(section, key, dotted, alts, ctx, scene, out, extra)


def props(node):
    node = resolve(node)
    for alt in node.get("oneOf", []):
        alt = resolve(alt)
        if "properties" in alt:
            return alt
    return node


ONE = ["-"]
plain = lambda c: base_scene("elias", "height")
walk("solver", ["solver"], schema["properties"]["solver"], SOLVERS, lambda s: base_scene(s, "height"))
walk("render", ["render"], schema["properties"]["render"], MODES, lambda m: base_scene("elias", m))
walk("grid", ["grid"], schema["properties"]["grid"], ONE, plain)
# time.preroll and time.loop act on sources running from time 0 (the drops
# stay at their times): an oscillator, which a preroll starts at -preroll and
# a loop moves to whole cycles per period.
walk("time", ["time"], schema["properties"]["time"], ONE,
     lambda c: dict(plain(c), oscillators=[{"x": 30, "y": 20, "frequency": 1.3}]))
walk("boundary", ["boundary"], props(schema["properties"]["boundary"]), ONE,
     lambda c: dict(plain(c), boundary={"left": "absorb"}))
walk("boundary", ["absorb_width"], {"properties": {"": schema["properties"]["absorb_width"]}}, ONE,
     lambda c: dict(plain(c), boundary="absorb"))


def with_item(arr, item):
    def make(c):
        sc = plain(c)
        sc[arr] = sc.get(arr, [])[:1] + [item] if arr == "drops" else [item]
        return sc
    return make


walk("drops", ["drops", "1"], schema["properties"]["drops"]["items"], ONE,
     with_item("drops", {"frame": 2, "x": 20, "y": 14, "radius": 3}))
walk("rain", ["rain"], props(schema["properties"]["rain"]), ONE,
     lambda c: dict(plain(c), rain={"rate": 60, "seed": 3}))
walk("oscillators", ["oscillators", "0"], schema["properties"]["oscillators"]["items"], ONE,
     with_item("oscillators", {"x": 30, "y": 20}))
walk("movers", ["movers", "0"], schema["properties"]["movers"]["items"], ONE,
     with_item("movers", {"path": [[0, 10, 10], [0.2, 30, 20]]}))
walk("probes", ["probes", "0"], schema["properties"]["probes"]["items"], ONE,
     with_item("probes", {"name": "p", "x": 21, "y": 14}))
for d, item in (("initial_wave", {"type": "wave"}),
                ("initial_image", {"type": "image", "path": os.path.join(HERE, "lens.png")})):
    walk("initial", ["initial", "0"], defs[d], ONE, with_item("initial", item))
for d, item in (("obstacle_rect", {"type": "rect", "x": 30, "y": 0, "width": 3, "height": 10}),
                ("obstacle_circle", {"type": "circle", "x": 30, "y": 20, "radius": 4}),
                ("obstacle_polygon", {"type": "polygon", "points": [[30, 0], [40, 0], [35, 10]]}),
                ("obstacle_line", {"type": "line", "from": [30, 0], "to": [40, 20]}),
                ("obstacle_mask", {"type": "mask", "path": os.path.join(HERE, "harbour.png")})):
    walk("obstacles", ["obstacles", "0"], defs[d], ONE, with_item("obstacles", item))
# A moving wall: push acts (on a still one it is refused).
walk("obstacles", ["obstacles", "0"], {"properties": {"push": defs["obstacle_push"]}}, ONE,
     with_item("obstacles", {"type": "rect", "x": 10, "y": 5, "width": 3, "height": 10,
                             "motion": [[0, 0, 0], [0.2, 15, 0]]}))

KINDS = {"mp4": "o.mp4", "webm": "o.webm", "gif": "o.gif", "png": "f%03d.png", "npy": "o.npy",
         "framemd5": "o.framemd5", "exr": "f%03d.exr"}
walk("output", ["output"], schema["properties"]["output"], list(KINDS),
     lambda k: base_scene("elias", "height"), lambda k: os.path.join(work, KINDS[k]))
print("keywalk: %d passed, %d failed" % (npass, nfail))
