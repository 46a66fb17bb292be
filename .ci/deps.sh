#!/bin/sh
# Installs the Debian 12 packages ripplerender needs to build and test, when
# they are missing. As root it runs apt-get; otherwise it prints the exact
# command and fails, so `make demo` never half-works.
PKGS="gcc make pkg-config libavcodec-dev libavformat-dev libavutil-dev libswscale-dev
libavfilter-dev libpng-dev libcjson-dev libcmocka-dev ffmpeg
libfftw3-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
        echo "deps: apt-get install failed" >&2; exit 1; }
else
    echo "deps: missing Debian packages; run:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi
