# Every solver renders from its defaults, and under every example scene:
# {"solver": {"type": T}} renders (exit 0) and --print-scene reads back to the
# same frames, for each T; `-s solver.type=T` on each scene in scenes/ either
# renders or is refused (exit 2, one line) naming a key that the scene itself
# gives (a key T does not use, or a step count too large for T). Three frames
# each, hashed, to stay fast.
# Run by tests/run.sh with RR set to the binary; ends in "cli: N passed, N failed".
. tests/cli/lib.sh

# The solvers are the program's (its refusal of an unknown solver.type lists
# the table's), so a solver added to src/solvers/registry.c is walked too.
echo '{}' > "$T/empty.json"
types=$("$RR" "$T/empty.json" -s solver.type=none --validate 2>&1 |
    sed -n 's/.* expected one of \(.*\), got "none"$/\1/p' | tr -d '",')
check solver-types-listed [ "$(echo $types | cut -d' ' -f1-5)" = "elias flow spring wave spectral" ]

for t in $types; do
    printf '{ "solver": { "type": "%s" } }\n' "$t" > "$T/$t.json"
    "$RR" "$T/$t.json" -f 3 --hash -q > "$T/$t.hash" 2> "$T/err"; s=$?
    check "default-$t-renders" [ $s -eq 0 ]
    [ $s -eq 0 ] || cat "$T/err"
    "$RR" "$T/$t.json" --print-scene > "$T/$t.resolved.json"
    "$RR" "$T/$t.resolved.json" -f 3 --hash -q > "$T/$t.again" 2> "$T/err"
    check "default-$t-print-scene-reads-back" cmp -s "$T/$t.hash" "$T/$t.again"
done

# The key path a one-line refusal names: "ripplerender: [FILE:L:C: ]KEY.PATH: ...".
named_key() {
    sed -e 's/^ripplerender: //' -e 's/^[^ ]*:[0-9][0-9]*:[0-9][0-9]*: //' -e 's/^--set //' -e 's/:.*//' "$1"
}

for sc in scenes/*.json; do
    case "$sc" in *.schema.json) continue ;; esac
    n=$(basename "$sc" .json)
    for t in $types; do
        "$RR" "$sc" -s solver.type="$t" -f 3 --hash -q > /dev/null 2> "$T/err"; s=$?
        if [ $s -eq 0 ]; then ok "$n-as-$t-renders"; continue; fi
        key=$(named_key "$T/err"); leaf=${key##*.}
        if [ $s -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ "$key" != solver.type ] \
            && grep -q "\"$leaf\"[[:space:]]*:" "$sc"; then
            ok "$n-as-$t-refused-for-its-own-$key"
        else
            fail "$n-as-$t" "status $s: $(cat "$T/err")"
        fi
    done
done

finish
