#!/bin/sh
# The shared library exports exactly the functions that include/cured.h
# declares with CURED_EXPORT: nothing internal leaks, nothing declared is
# missing. Run by `make check` with top_srcdir and top_builddir exported.
set -u

: "${top_srcdir:?run through make check (top_srcdir is not set)}"
: "${top_builddir:?run through make check (top_builddir is not set)}"

lib="$top_builddir/.libs/libcured.so"
header="$top_srcdir/include/cured.h"

if [ ! -f "$lib" ]; then
    echo "SKIP: $lib does not exist (static-only build?)"
    exit 77
fi
if [ ! -f "$header" ]; then
    echo "FAIL: $header not found"
    exit 99
fi
NM=${NM:-nm}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cured-symbols.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# Declarations start a line with CURED_EXPORT; the name is the identifier
# right before the first '('.
sed -n 's/^CURED_EXPORT[^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "$header" | sort -u >"$tmp/declared"

# Every defined dynamic symbol: functions (T, W, i) are compared with the
# header; anything else (data) must not be exported at all.
if ! "$NM" -D --defined-only "$lib" >"$tmp/nm"; then
    echo "FAIL: $NM -D --defined-only $lib failed"
    exit 99
fi
awk 'NF >= 3 && ($2 == "T" || $2 == "W" || $2 == "i") { print $3 }' "$tmp/nm" | sed 's/@.*//' | sort -u >"$tmp/exported"
awk 'NF >= 3 && !($2 == "T" || $2 == "W" || $2 == "i") { print }' "$tmp/nm" >"$tmp/other"

status=0
ndeclared=$(wc -l <"$tmp/declared")
if [ "$ndeclared" -lt 10 ] || ! grep -qx cured_reduce_async "$tmp/declared"; then
    echo "FAIL: only $ndeclared CURED_EXPORT declarations found in $header: the extraction is broken"
    status=1
fi
if ! cmp -s "$tmp/declared" "$tmp/exported"; then
    echo "FAIL: exported functions differ from the CURED_EXPORT declarations"
    echo "(lines with '-': declared in cured.h only; '+': exported by libcured.so only)"
    diff -u "$tmp/declared" "$tmp/exported" | sed -n '3,$p'
    status=1
fi
if [ -s "$tmp/other" ]; then
    echo "FAIL: libcured.so exports symbols that are not functions:"
    cat "$tmp/other"
    status=1
fi
if [ "$status" -eq 0 ]; then
    echo "PASS: $ndeclared exported functions match include/cured.h"
fi
exit "$status"
