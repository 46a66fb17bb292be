#!/bin/sh
# embed-presets.sh OUT.c PRESET.json...: the presets as C (struct
# scene_preset, src/scene.h), so that the program carries them: each file's
# name without .json, its "$comment" (on one line, without escapes) as the
# line --preset list prints, and its text as bytes. Needs only sh, od and sed.
set -e
out=$1; shift
tmp=$out.tmp
{
    echo "/* Generated from the files of scenes/presets by tools/embed-presets.sh: do not edit. */"
    echo "#include \"scene.h\""
    echo
    i=0
    for f in "$@"; do
        echo "static const char text_$i[] = {"
        od -An -v -tx1 "$f" | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g; s/^/    /'
        echo "    0"
        echo "};"
        i=$((i + 1))
    done
    echo
    echo "const struct scene_preset scene_presets[] = {"
    i=0
    for f in "$@"; do
        name=$(basename "$f" .json)
        about=$(sed -n 's/^ *"\$comment": *"\([^"\\]*\)",\{0,1\} *$/\1/p' "$f")
        if [ -z "$about" ]; then
            echo "embed-presets.sh: $f: no \"\$comment\" line (a one-line description of the preset)" >&2
            exit 1
        fi
        echo "    { \"$name\", \"$about\", text_$i },"
        i=$((i + 1))
    done
    echo "    { NULL, NULL, NULL },"
    echo "};"
} > "$tmp"
mv "$tmp" "$out"
