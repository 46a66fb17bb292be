#!/usr/bin/python3
# schema_check.py: validates JSON files against scenes/scene.schema.json with
# Debian's python3-jsonschema (Draft 2020-12), and compares the schema's
# keys and defaults with the loader's (the --print-scene output of "{}", and
# of "{"solver": {"type": T}}" for the keys of the other solvers).
#   schema_check.py validate SCHEMA FILE...   exit 0 when every file is valid
#   schema_check.py invalid SCHEMA FILE...    exit 0 when every file is invalid
#   schema_check.py defaults SCHEMA RESOLVED...  exit 0 when every default agrees
#                                             (each key taken from the first file that has it)
# Run with /usr/bin/python3: the Debian package installs into its dist-packages.
import json
import sys

from jsonschema import Draft202012Validator


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def validator(schema_path):
    schema = load(schema_path)
    Draft202012Validator.check_schema(schema)   # the schema itself is valid 2020-12
    return Draft202012Validator(schema), schema


def errors(v, path):
    return sorted(v.iter_errors(load(path)), key=lambda e: list(e.absolute_path))


def cmd_validate(v, files):
    bad = 0
    for path in files:
        errs = errors(v, path)
        for e in errs[:3]:
            where = ".".join(str(p) for p in e.absolute_path) or "(top)"
            print(f"{path}: {where}: {e.message}")
        bad += bool(errs)
    return 1 if bad else 0


def cmd_invalid(v, files):
    bad = 0
    for path in files:
        if not errors(v, path):
            print(f"{path}: valid, but it should not be")
            bad += 1
    return 1 if bad else 0


def resolve(schema, node):
    ref = node.get("$ref")
    if ref and ref.startswith("#/$defs/"):
        merged = dict(schema["$defs"][ref[len("#/$defs/"):]])
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        return merged
    return node


def section_keys(schema):
    """Yields (dotted path, property schema) for the keys of the top level and
    of the object sections (grid, time, solver, render, output), whose values
    --print-scene of {} shows in full."""
    for key, sub in schema["properties"].items():
        sub = resolve(schema, sub)
        yield key, sub
        if sub.get("type") == "object":
            for k2, s2 in sub.get("properties", {}).items():
                yield f"{key}.{k2}", resolve(schema, s2)


# Keys the schema names that "{}" --print-scene leaves out, and why.
NOT_PRINTED = {
    "$schema": "not kept by the loader",
    "$comment": "not kept by the loader",
    "solver.damping_shift": "printed instead of damping only when given",
    "solver.half_life": "printed instead of damping only when given",
    "solver.depth_map": "printed for wave only when given (then instead of speed)",
    "solver.speed_range": "printed for wave only with a speed_map (then instead of speed)",
    "solver.depth_range": "printed for wave only with a PNG depth_map",
    "solver.wavelength": "printed for wave only when given",
    "solver.frequency": "printed for wave only when given",
    "render.depth_map": "printed only when given (then instead of depth)",
    "render.depth_range": "printed only with a PNG depth_map",
}


def lookup(resolved, path):
    node = resolved
    for part in path.split("."):
        if not (isinstance(node, dict) and part in node):
            return False, None
        node = node[part]
    return True, node


def cmd_defaults(schema, resolved_paths):
    files = [load(p) for p in resolved_paths]
    bad = 0
    for path, sub in section_keys(schema):
        found, node = False, None
        for resolved in files:
            found, node = lookup(resolved, path)
            if found:
                break
        if not found:
            if path not in NOT_PRINTED:
                print(f"{path}: in the schema, but --print-scene has no such key")
                bad += 1
            continue
        if "default" in sub and node != sub["default"]:
            print(f"{path}: schema default {json.dumps(sub['default'])}, "
                  f"loader default {json.dumps(node)}")
            bad += 1
    return 1 if bad else 0


def main(argv):
    if len(argv) < 3:
        print(__doc__ or "usage: schema_check.py validate|invalid|defaults SCHEMA FILE...", file=sys.stderr)
        return 2
    v, schema = validator(argv[2])
    if argv[1] == "validate":
        return cmd_validate(v, argv[3:])
    if argv[1] == "invalid":
        return cmd_invalid(v, argv[3:])
    if argv[1] == "defaults":
        return cmd_defaults(schema, argv[3:])
    print(f"unknown command {argv[1]}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
