# The documentation holds together: docs/index.md lists every page in docs/,
# and every relative link of the README and of docs/*.md points at a file.
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
finish
