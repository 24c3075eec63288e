#!/bin/sh
# The library's man pages from Doxygen's: `doc/man-pages.sh DOXYGEN_MAN3 OUT`
# copies into OUT/man3 the page of each function group (cured_reduce.3, ...)
# and the pages and links of the public functions, types and structs
# (cured_*.3; not Doxygen's pages of enumerators, macros, struct members or
# the file), with the date taken out of .TH so that a page changes only when
# the header does, and writes OUT/man.am, the list that Makefile.am installs.
# Used by `make man-update` (OUT = doc/man in the source tree) and `make
# doc-check` (which compares a fresh OUT with doc/man).
set -eu
src=$1
out=$2
test -d "$src" || { echo "$0: $src is not a directory (run doxygen first)" >&2; exit 1; }
rm -rf "$out/man3"
mkdir -p "$out/man3"
for f in "$src"/cured_*.3; do
    b=$(basename "$f")
    sed -e 's/^\(\.TH "[^"]*" 3\) "[^"]*"/\1 ""/' -e 's/[ 	]*$//' "$f" >"$out/man3/$b"
done
{
    echo "# Made by doc/man-pages.sh (make man-update): the man pages that are installed."
    printf 'dist_man_MANS += doc/man/cured.1 doc/man/cured.3'
    for f in "$out"/man3/*.3; do
        printf ' \\\n\tdoc/man/man3/%s' "$(basename "$f")"
    done
    echo
} >"$out/man.am"
