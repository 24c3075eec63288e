#!/bin/sh
# tests/fuzz/fuzz.am compiles the library's sources into each fuzzer, so its
# list must name exactly the .c files of libcured_core_la_SOURCES in
# Makefile.am (automake's -Werror forbids deriving one from the other).
# A source added to one list only broke CI's fuzz build twice: this fails first.
set -u
: "${top_srcdir:?run through make check (top_srcdir is not set)}"

# The words of a make variable's (backslash-continued) definition, one per line.
words() {
    sed -n "/^$2 *=/,/[^\\\\]\$/p" "$1" | sed -e "s/^$2 *=//" -e 's/\\$//' | tr ' \t' '\n\n' | grep '\.c$' | sort
}
lib=$(words "$top_srcdir/Makefile.am" libcured_core_la_SOURCES)
fuzz=$(words "$top_srcdir/tests/fuzz/fuzz.am" fuzz_lib_sources)
if [ -z "$lib" ] || [ -z "$fuzz" ]; then
    echo "FAIL: could not read the source lists (Makefile.am: $(echo "$lib" | wc -w) files, fuzz.am: $(echo "$fuzz" | wc -w))"
    exit 99
fi
if [ "$lib" != "$fuzz" ]; then
    echo "FAIL: tests/fuzz/fuzz.am's fuzz_lib_sources differs from Makefile.am's libcured_core_la_SOURCES:"
    diff -u "$(printf '%s\n' "$lib" >/tmp/fs-lib.$$; echo /tmp/fs-lib.$$)" \
            "$(printf '%s\n' "$fuzz" >/tmp/fs-fuzz.$$; echo /tmp/fs-fuzz.$$)" | sed -n '3,$p'
    rm -f /tmp/fs-lib.$$ /tmp/fs-fuzz.$$
    exit 1
fi
echo "PASS: the fuzzers compile the library's $(echo "$lib" | wc -l) sources"
