#!/bin/sh
# The README's example is examples/sum.c, verbatim: the C block that follows
# the "## Example" heading must be the file, byte for byte.
set -u
: "${top_srcdir:?run through make check (top_srcdir is not set)}"
readme="$top_srcdir/README.md"
example="$top_srcdir/examples/sum.c"
tmp=$(mktemp "${TMPDIR:-/tmp}/cured-readme.XXXXXX") || exit 99
trap 'rm -f "$tmp"' EXIT
awk '/^## Example/ { s = 1; next }
     s == 1 && /^```c$/ { s = 2; next }
     s == 2 && /^```$/ { exit }
     s == 2 { print }' "$readme" >"$tmp"
if [ ! -s "$tmp" ]; then
    echo "FAIL: no \`\`\`c block after \"## Example\" in $readme"
    exit 1
fi
if ! diff -u "$example" "$tmp"; then
    echo "FAIL: README.md's example differs from examples/sum.c (lines with '+' are the README's)"
    exit 1
fi
echo "PASS: README.md's example is examples/sum.c ($(wc -l <"$example") lines)"
