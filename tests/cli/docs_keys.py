#!/usr/bin/python3
# docs_keys.py: every key of the scene schema is in docs/scene.md, with the
# same default.
#   docs_keys.py SCHEMA DOC    prints one line per difference; exit 1 if any
#
# Both files are parsed, nothing is listed here, so keys added to both pass.
# The schema's keys: the top level, the members of its object sections (grid,
# time, ... and the object forms of boundary and rain), of the elements of its
# lists (drops, ...) and, per type, of initial and obstacles elements.
# The page's: each "## name[, name]" section holds a key's documentation,
# either in a table with a key column (`a`, `b` or `a` / `b`) and a default
# column (values split the same way), or in prose, where the key's text runs
# from its `name` to the next key's and must say "default VALUE" or
# "VALUE (default". A default is compared as JSON: `"viridis"`, 0.99, [1, 3],
# `null`; "—" or words mean no default, which only a key without a schema
# default may have.
import json
import re
import sys


def load_schema(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def resolve(schema, node):
    ref = node.get("$ref")
    if ref and ref.startswith("#/$defs/"):
        merged = dict(resolve(schema, schema["$defs"][ref[len("#/$defs/"):]]))
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        return merged
    return node


NO_DEFAULT = object()


def members(schema, node):
    """(key, property schema) of an object schema, with its alternatives' objects."""
    node = resolve(schema, node)
    for k, v in node.get("properties", {}).items():
        yield k, resolve(schema, v)
    for alt in node.get("oneOf", []) + node.get("anyOf", []):
        alt = resolve(schema, alt)
        if alt.get("type") == "object":
            yield from members(schema, alt)


def schema_keys(schema):
    """Yields (section, type, key, default): section is the top-level key whose
    docs hold it, type the element type for typed lists (else None)."""
    for top, sub in schema["properties"].items():
        sub = resolve(schema, sub)
        yield top, None, top, sub.get("default", NO_DEFAULT)
        items = resolve(schema, sub.get("items", {}))
        typed = [resolve(schema, c["then"]) for c in items.get("allOf", []) if "then" in c]
        if typed:
            for t in typed:
                name = t["properties"]["type"]["const"]
                for k, v in members(schema, t):
                    if k != "type":
                        yield top, name, k, v.get("default", NO_DEFAULT)
            continue
        for k, v in members(schema, items if items else sub):
            yield top, None, k, v.get("default", NO_DEFAULT)


TICK = re.compile(r"`([^`]+)`")


def sections(doc):
    """{name: text} for each "## a, b" heading (both names share the text)."""
    out = {}
    parts = re.split(r"^## (.+)$", doc, flags=re.M)
    for i in range(1, len(parts), 2):
        for name in parts[i].split(","):
            out[name.strip()] = parts[i + 1]
    return out


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def split_list(text):
    """`a`, `b` / "1, 2" / "0 / —" -> parts, on ", " and " / " outside brackets."""
    parts, depth, cur = [], 0, ""
    i = 0
    while i < len(text):
        c = text[i]
        depth += c in "[(" and 1 or 0
        depth -= c in "])" and 1 or 0
        sep = text[i:i + 2] == ", " and 2 or text[i:i + 3] == " / " and 3 or 0
        if depth == 0 and sep:
            parts.append(cur.strip())
            cur = ""
            i += sep
            continue
        cur += c
        i += 1
    parts.append(cur.strip())
    return parts


def table_rows(text):
    """(type, keys, default text) of every table row with key and default columns."""
    rows, header, last_type = [], None, None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        c = cells(line)
        if header is None:
            header = c
            continue
        if set("".join(c)) <= set("-: "):
            continue
        if "key" not in header or "default" not in header:
            continue
        ki, di = header.index("key"), header.index("default")
        typ = None
        if header[0] == "type" and ki == 1:   # a table per element type
            typ = TICK.findall(c[0])[0] if TICK.findall(c[0]) else last_type
            last_type = typ
        keys = [TICK.findall(p)[0] for p in split_list(c[ki]) if TICK.findall(p)]
        defaults = split_list(c[di])
        if len(defaults) != len(keys):
            defaults = [c[di]] * len(keys)
        for k, d in zip(keys, defaults):
            rows.append((typ, k, d))
    return rows


def parse_default(text):
    """A default as documented, as JSON; NO_DEFAULT for words and dashes."""
    t = text.strip()
    if t.startswith("`") and t.endswith("`") and t.count("`") == 2:
        t = t[1:-1]
    try:
        return json.loads(t)
    except ValueError:
        return NO_DEFAULT


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def shown(v):
    """How the page writes a value: strings quoted, the rest as JSON."""
    return json.dumps(v, separators=(", ", ": "))


def prose_default(text, key, default, keys):
    """Whether the prose for `key` says its default: its text runs from `key`
    to the next mention of another key; keys listed together (`a`, `b` and
    `c` (...)) share the text after the last of them."""
    marks = [(m.start(), m.end(), m.group(1)) for m in TICK.finditer(text) if m.group(1) in keys]
    value = re.escape(shown(default))
    said = re.compile(r"default:?\s+`?" + value + r"`?(?![\w.])|`?" + value + r"`?\s*\(default")
    for i, (start, _, name) in enumerate(marks):
        if name != key:
            continue
        j = i
        # a list of keys: `left`, `right`, `top`, `bottom` (...)
        while j + 1 < len(marks) and re.fullmatch(r"[\s,]*(and|or)?\s*", text[marks[j][1]:marks[j + 1][0]]):
            j += 1
        stop = marks[j + 1][0] if j + 1 < len(marks) else len(text)
        if said.search(text[start:stop]):
            return True
    return False


def main(argv):
    if len(argv) != 3:
        print("usage: docs_keys.py SCHEMA DOC", file=sys.stderr)
        return 2
    schema = load_schema(argv[1])
    with open(argv[2], encoding="utf-8") as f:
        doc = f.read()
    secs = sections(doc)
    entries = list(schema_keys(schema))
    all_keys = {k for _, _, k, _ in entries}
    bad = 0

    def problem(msg):
        nonlocal bad
        bad += 1
        print(msg)

    for section, typ, key, default in entries:
        name = f"{section}.{typ}.{key}" if typ else (key if key == section else f"{section}.{key}")
        text = secs.get(section)
        if text is None:
            # a top-level key without a section of its own: the one naming it, else the page
            text = next((t for s, t in secs.items() if f"`{key}`" in t.split("\n\n")[0]), doc)
        if key == section:
            if default is NO_DEFAULT or section not in secs:
                if f"`{key}`" not in text and f'`"{key}"`' not in text and key not in secs:
                    problem(f"{name}: in the schema, not in {argv[2]}")
                continue
            intro = text.split("\n|", 1)[0]
            if not prose_default(intro, key, default, all_keys | {key}) and not re.search(
                    r"default:?\s+`?" + re.escape(shown(default)) + r"`?", intro):
                problem(f"{name}: the schema's default is {shown(default)}; the section does not say so")
            continue
        rows = [(t, k, d) for t, k, d in table_rows(text) if k == key and (t == typ or typ is None)]
        if rows:
            doc_default = parse_default(rows[0][2])
            if default is NO_DEFAULT:
                continue
            if doc_default is NO_DEFAULT or not same(doc_default, default):
                problem(f"{name}: schema default {shown(default)}, {argv[2]} says {rows[0][2]!r}")
            continue
        # prose (boundary, obstacles): the key named in its section, or its type's row
        if typ:
            row = next((line for line in text.splitlines()
                        if line.startswith("|") and f"`{typ}`" in cells(line)[0]), "")
            text = row
        if f"`{key}`" not in text:
            problem(f"{name}: in the schema, not in {argv[2]}")
            continue
        if default is not NO_DEFAULT and not prose_default(text, key, default, all_keys):
            problem(f"{name}: the schema's default is {shown(default)}; {argv[2]} does not say so")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
