# A staged install (make install PREFIX=/usr DESTDIR=...): binary, man page,
# bash completion and scene schema land where they should, and make uninstall
# takes them away; --help, the man page and the completion list the same
# options; --version names our version and the libraries'.
. tests/cli/lib.sh

# The build directory of the binary under test (build/san under make sanitize),
# so that make finds it up to date and installs that very binary.
rel=${RR#"$PWD"/}; rel=${rel#./}
case "$rel" in ripplerender) build=build ;; */ripplerender) build=${rel%/ripplerender} ;;
    *) build=build; echo "note: $RR is not in this tree; installing ./ripplerender" ;; esac
stage=$T/stage
make --no-print-directory -s install BUILD="$build" PREFIX=/usr DESTDIR="$stage" > "$T/log" 2>&1
check install-exit-0 [ $? -eq 0 ]
check install-binary [ -x "$stage/usr/bin/ripplerender" ]
check install-binary-is-ours cmp -s "$RR" "$stage/usr/bin/ripplerender"
check install-man-page [ -f "$stage/usr/share/man/man1/ripplerender.1" ]
check install-completion [ -f "$stage/usr/share/bash-completion/completions/ripplerender" ]
check install-schema [ -f "$stage/usr/share/ripplerender/scene.schema.json" ]
"$stage/usr/bin/ripplerender" --version > /dev/null; check installed-binary-runs [ $? -eq 0 ]
# the man page renders without a groff warning
MANWIDTH=80 man --warnings -l "$stage/usr/share/man/man1/ripplerender.1" > "$T/man.txt" 2> "$T/man.err"
check man-renders [ $? -eq 0 ]
check man-not-empty [ -s "$T/man.txt" ]
check man-no-warnings [ ! -s "$T/man.err" ]
check man-has-sections sh -c "grep -q '^OPTIONS' '$T/man.txt' && grep -q '^EXIT STATUS' '$T/man.txt' \
    && grep -q '^EXAMPLES' '$T/man.txt' && grep -q '^SCENE' '$T/man.txt'"
make --no-print-directory -s uninstall PREFIX=/usr DESTDIR="$stage" > "$T/log" 2>&1
check uninstall-exit-0 [ $? -eq 0 ]
check uninstall-removes-all [ -z "$(find "$stage" -type f)" ]

# --- --help, the man page and the completion list the same options ------------------------------
# --help: the option words at the start of its lines; the man page: the .TP
# tags of its OPTIONS section; the completion: what it offers after "-".
"$RR" --help | sed -n 's/^ \{1,\}\(-[-a-zA-Z, ]*\).*/\1/p' | tr ', ' '\n\n' | grep '^-.' | sort -u > "$T/help.opts"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' man/ripplerender.1 | sed -n '/^\.TP/{n;p}' | sed 's/\\-/-/g' \
    | tr ' ",' '\n\n\n' | grep '^-.' | sort -u > "$T/man.opts"
bash -c '. completions/ripplerender.bash; COMP_WORDS=(ripplerender -); COMP_CWORD=1; _ripplerender
         printf "%s\n" "${COMPREPLY[@]}"' | sort -u > "$T/comp.opts"
check help-options-found [ "$(wc -l < "$T/help.opts")" -ge 20 ]
check man-lists-help-options diff "$T/help.opts" "$T/man.opts"
# ... and give each option's value the same name: "--set KEY=VALUE", "--check FILE"
arg='s/^ *\(-[a-zA-Z], \)\{0,1\}\(--[a-z-]*\)\( [A-Z][A-Za-z.=]*\)\{0,1\}.*/\2\3/p'
"$RR" --help | sed -n "$arg" | sort > "$T/help.args"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' man/ripplerender.1 | sed -n '/^\.TP/{n;p}' \
    | sed 's/\\-/-/g; s/^\.[A-Z]* //; s/"//g; s/  */ /g; s/ ,/,/' | sed -n "$arg" | sort > "$T/man.args"
check help-option-values-found [ "$(grep -c ' ' "$T/help.args")" -ge 8 ]
check man-names-option-values-as-help diff "$T/help.args" "$T/man.args"
check completion-lists-help-options diff "$T/help.opts" "$T/comp.opts"

# --- --version: ours, FFmpeg's, libpng's, libdeflate's and cJSON's ---------------------------------------------
"$RR" --version > "$T/ver"
check version-ours grep -qx "ripplerender $(sed -n 's/^#define RR_VERSION "\(.*\)"/\1/p' src/version.h)" "$T/ver"
check version-man-page grep -q "\"ripplerender $(sed -n 's/^#define RR_VERSION "\(.*\)"/\1/p' src/version.h)\"" \
    man/ripplerender.1
check version-ffmpeg grep -q '^FFmpeg [0-9]' "$T/ver"
check version-libpng grep -qx "libpng $(pkg-config --modversion libpng)" "$T/ver"
check version-cjson grep -qx "cJSON $(pkg-config --modversion libcjson)" "$T/ver"
check version-libdeflate grep -qx "libdeflate $(pkg-config --modversion libdeflate)" "$T/ver"

finish
