# The documentation holds together: docs/index.md lists every page in docs/,
# every relative link of the README and of docs/*.md points at a file, and
# every path they name exists.
. tests/cli/lib.sh
for f in docs/*.md; do
    n=$(basename "$f")
    [ "$n" = index.md ] && continue
    check "index-lists-$n" grep -q "($n)" docs/index.md
done
# [text](target) links that are not URLs or anchors, resolved from the page's folder
for page in README.md docs/*.md; do
    dir=$(dirname "$page")
    grep -o '](\([^)#]*\)' "$page" | sed 's/^](//' | grep -v '^[a-z]*:' | sort -u > "$T/links"
    while IFS= read -r target; do
        [ -n "$target" ] || continue
        check "link-$page-$target" [ -e "$dir/$target" ]
    done < "$T/links"
done
# Every repository path the README, docs/*.md and the man page name (src/...,
# tests/..., scenes/...) exists, so a moved or renamed file leaves no stale
# name behind; patterns (tests/golden/NAME.framemd5, src/render*.c) excepted.
grep -ohE '(^|[^A-Za-z0-9_./-])(src|tests|docs|scenes|examples|man|completions|tools)/[A-Za-z0-9_./*{}-]*[A-Za-z0-9_*}]' \
    README.md docs/*.md man/ripplerender.1 | sed -E 's/^[^a-z]//' | grep -vE '[A-Z]{3,}|[*{}]' | sort -u > "$T/paths"
while IFS= read -r path; do
    check "path-$path" [ -e "$path" ]
done < "$T/paths"
check paths-found [ "$(wc -l < "$T/paths")" -ge 50 ]
# Every key of the scene schema is in docs/scene.md with the same default
# (both files parsed: keys added to both pass, a key missing from the page or
# a differing default fails, naming it).
/usr/bin/python3 tests/cli/docs_keys.py scenes/scene.schema.json docs/scene.md > "$T/keys" 2>&1
check schema-keys-and-defaults-in-scene-md [ $? -eq 0 ]
[ -s "$T/keys" ] && cat "$T/keys"
# The man page's SCENE section names every output key and every key of the
# solver and render sections that has a word of its own (colours, the light
# and the glints are summed up as such).
/usr/bin/python3 - scenes/scene.schema.json man/ripplerender.1 > "$T/man-keys" 2>&1 <<'PY'
import json, re, sys
schema = json.load(open(sys.argv[1]))
man = open(sys.argv[2]).read().replace("\\-", "-")
summed_up = {"obstacle_color", "water_color", "sky_color", "floor_color", "light", "specular", "shininess",
             "reflectivity", "height_scale", "refraction", "width", "height"}
missing = [f"{sec}.{k}" for sec in ("solver", "render", "output")
           for k in schema["properties"][sec]["properties"]
           if k not in summed_up and not re.search(r"\b" + re.escape(k) + r"\b", man)]
print("not in man/ripplerender.1:", " ".join(missing)) if missing else None
sys.exit(1 if missing else 0)
PY
check man-names-scene-keys [ $? -eq 0 ]
[ -s "$T/man-keys" ] && cat "$T/man-keys"
# Every environment variable the program reads (a "RIPPLERENDER_..." string in
# src/) is named in --help and in the man page's ENVIRONMENT section.
"$RR" --help > "$T/help" 2>&1
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' man/ripplerender.1 > "$T/man-env"
for v in $(grep -rhoE '"RIPPLERENDER_[A-Z_]+"' src | tr -d '"' | sort -u); do
    check "help-names-$v" grep -q "$v" "$T/help"
    check "man-environment-names-$v" grep -q "^\.B $v\$" "$T/man-env"
done
finish
