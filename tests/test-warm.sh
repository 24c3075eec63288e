#!/bin/sh
# `cured cache warm` against a cache someone tampered with (issue 13): a
# symlink planted at one entry's path and a FIFO at another's. Warm must
# return (the FIFO once made it wait forever), replace both, and exit 0
# (a replaced symlink once counted as a failed store). Needs NVRTC (exit 77
# without it). CURED_TEST_QUICK=1 skips it. Run by `make check` with
# top_srcdir and top_builddir exported, after test-compile: it starts from
# a copy of the cache test-compile filled (tests/compile-cache.path), so the
# first warm finds every sm_90 cubin there (a few seconds); without that
# cache the first warm compiles them all (about a minute on 2 cores).
set -u

: "${top_builddir:?run through make check (top_builddir is not set)}"
if [ "${CURED_TEST_QUICK:-}" = 1 ]; then
    echo "SKIP: CURED_TEST_QUICK=1"
    exit 77
fi
cured="$top_builddir/tools/cured"
[ -x "$cured" ] || { echo "FAIL: $cured not built"; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cured-warm.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
unset CURED_CACHE_DISABLE CURED_CACHE_MAX_BYTES CURED_LOG
CURED_CACHE_DIR="$tmp/cache"
export CURED_CACHE_DIR

shared=""
if [ -f "$top_builddir/tests/compile-cache.path" ]; then
    shared=$(cat "$top_builddir/tests/compile-cache.path")
    if [ -d "$shared/v1" ] && cp -Rp "$shared" "$CURED_CACHE_DIR"; then
        echo "starting from test-compile's cache $shared"
    else
        echo "no usable cache at $shared: the first warm compiles every kernel"
        rm -rf "$CURED_CACHE_DIR"
        shared=""
    fi
fi

"$cured" cache warm --arch sm_90 >"$tmp/first" 2>&1
rc=$?
if grep -q "NVRTC is not available" "$tmp/first"; then
    echo "SKIP: $(grep 'NVRTC is not available' "$tmp/first")"
    exit 77
fi
if [ $rc -ne 0 ]; then
    echo "FAIL: the first warm exited $rc"
    tail -20 "$tmp/first"
    exit 1
fi
grep -E "compiled, .* already on disk" "$tmp/first"
# Every sm_90 cubin test-compile made is an entry the warm accepts as it is.
if [ -n "$shared" ] && ! grep -q ": 0 compiled, " "$tmp/first"; then
    echo "FAIL: the first warm compiled kernels that test-compile's cache should hold"
    exit 1
fi

v1="$CURED_CACHE_DIR/v1"
# Two sm_90 entries (test-compile's cache holds other targets too).
set -- $("$cured" cache list --long 2>/dev/null | awk '$2 == "sm_90" && $1 ~ /^[0-9a-f]+$/ && length($1) == 64 { print $1 }' | head -2)
[ $# -eq 2 ] || { echo "FAIL: fewer than 2 entries in $v1"; exit 1; }
link=$1 fifo=$2
mkdir "$tmp/elsewhere"
rm -f "$v1/$link" "$v1/$fifo"
ln -s "$tmp/elsewhere/target" "$v1/$link"
mkfifo "$v1/$fifo"

# A warm that waits on the FIFO is killed by the timeout (status 124).
if command -v timeout >/dev/null 2>&1; then run="timeout 300"; else run=""; fi
$run "$cured" cache warm --arch sm_90 >"$tmp/second" 2>&1
rc=$?
fail=0
if [ $rc -ne 0 ]; then
    echo "FAIL: the second warm exited $rc (124: it hung)"
    fail=1
fi
grep -q ": 2 compiled, " "$tmp/second" || {
    echo "FAIL: the two planted entries were not recompiled"; fail=1; }
for name in "$link" "$fifo"; do
    [ -f "$v1/$name" ] && [ ! -L "$v1/$name" ] || { echo "FAIL: $v1/$name is not an entry again"; fail=1; }
done
[ ! -e "$tmp/elsewhere/target" ] || { echo "FAIL: the symlink was followed"; fail=1; }
if grep -q "could not store" "$tmp/second"; then
    echo "FAIL: warm reported a failed store"
    fail=1
fi
[ $fail -eq 0 ] || { tail -20 "$tmp/second"; exit 1; }
echo "PASS: warm replaced a planted symlink and a FIFO and exited 0"
exit 0
