# The table of sink kinds (src/sinks/registry.c, printed by the hidden
# --list-outputs as NAME<TAB>EXTS<TAB>SHOWN<TAB>HELP) against every list of
# output kinds a user reads: --help, the unknown-kind error, the man page's
# list under "The kind of output comes from the name", and the names the bash
# completion offers after -o. A kind added to the table and not to the man
# page or the completion fails here.
. tests/cli/lib.sh
repo=$PWD
"$RR" --list-outputs > "$T/kinds" 2> "$T/err"
check list-outputs-runs [ -s "$T/kinds" ] && [ ! -s "$T/err" ]
check list-outputs-has-video grep -q "^video	mp4 mkv mov webm	" "$T/kinds"
cut -f3 "$T/kinds" > "$T/shown"

# --help: a line per kind, in the table's order, with its help text
"$RR" --help > "$T/help"
cut -f3,4 "$T/kinds" | while IFS='	' read -r shown help; do
    printf '%29s%-21s %s\n' "" "$shown" "$help"
done > "$T/help-want"
check help-lists-the-table grep -qxFf "$T/help-want" "$T/help"
check help-lists-every-kind [ "$(grep -cxFf "$T/help-want" "$T/help")" -eq "$(wc -l < "$T/kinds")" ]

# the unknown-kind error names every kind
"$RR" "$repo/scenes/demo.json" -o "$T/x.xyz" 2> "$T/unknown"
missing=$(while read -r shown; do grep -qF -- "$shown" "$T/unknown" || echo "$shown"; done < "$T/shown")
check unknown-kind-lists-every-kind [ -z "$missing" ]

# the man page: the .TP tags of the output list, fonts taken off
# (".B .mp4 .mkv" -> ".mp4 .mkv"; ".IB NAME %05d.png" -> "NAME%05d.png")
awk '/^The kind of output comes from the name/ { on = 1 } on && /^\.PP/ { exit }
     on && tag { tag = 0; if ($1 == ".B") { $1 = ""; sub(/^ /, ""); gsub(/\\-/, "-"); print }
                 else if ($1 == ".IB" || $1 == ".BI") { $1 = ""; gsub(/ /, ""); print } }
     on && /^\.TP/ { tag = 1 }' "$repo/man/ripplerender.1" > "$T/man"
if diff "$T/shown" "$T/man" > "$T/man.diff"; then ok man-page-lists-the-table
else fail man-page-lists-the-table "man/ripplerender.1 differs from the table: $(tr '\n' ' ' < "$T/man.diff")"; fi

# the completion after -o: exactly the files whose extension is in the table
mkdir -p "$T/w" && cd "$T/w" || exit 1
for x in $(cut -f2 "$T/kinds"); do touch "k.$x"; done
touch other.zzz scene.json noext
want=$(for x in $(cut -f2 "$T/kinds"); do echo "k.$x"; done | LC_ALL=C sort | tr '\n' ' ')
got=$(bash -c '. "$1"; COMP_WORDS=(ripplerender scene.json -o ""); COMP_CWORD=3; _ripplerender
               for w in "${COMPREPLY[@]}"; do echo "$w"; done | LC_ALL=C sort | tr "\n" " "' _ \
               "$repo/completions/ripplerender.bash")
if [ "$got" = "$want" ]; then ok completion-offers-the-table
else fail completion-offers-the-table "got [$got], want [$want]"; fi
finish
