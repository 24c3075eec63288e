#!/bin/sh
# Every function that include/cured.h exports has a doc comment with a
# \param for each parameter, a \return unless it returns void, and a
# "\par Thread safety" paragraph. (make doc-check has Doxygen check the
# first two as well; this runs without Doxygen.)
set -u
: "${top_srcdir:?run through make check (top_srcdir is not set)}"
header="$top_srcdir/include/cured.h"
awk '
/^\/\*\*/ { doc = ""; indoc = 1 }
indoc { doc = doc "\n" $0; if ($0 ~ /\*\//) { indoc = 0; lastdoc = doc } ; next }
/^CURED_EXPORT/ { decl = $0; indecl = 1 }
indecl && !/^CURED_EXPORT/ { decl = decl " " $0 }
indecl && /;/ {
    indecl = 0; n++
    name = decl; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
    args = decl; sub(/^[^(]*\(/, "", args); sub(/\)[ ]*;.*$/, "", args)
    # function-pointer parameters: keep their names only
    while (match(args, /\(\*[A-Za-z_0-9]+\)\([^)]*\)/)) {
        fp = substr(args, RSTART + 2, RLENGTH); sub(/\).*/, "", fp)
        args = substr(args, 1, RSTART - 1) fp substr(args, RSTART + RLENGTH)
    }
    bad = ""
    if (lastdoc !~ /\\par Thread safety/) bad = bad " no-thread-safety"
    if (decl !~ /CURED_EXPORT void / && lastdoc !~ /\\return/) bad = bad " no-return"
    if (args != "void") {
        k = split(args, a, ",")
        for (i = 1; i <= k; i++) {
            p = a[i]; gsub(/[ \t]+$/, "", p); sub(/.*[ *]/, "", p)
            if (lastdoc !~ ("\\\\param[ ]+" p "[ ,]")) bad = bad " param:" p
        }
    }
    if (bad != "") { print "FAIL: " name ":" bad; fails++ }
    lastdoc = ""
}
END {
    if (n < 30) { print "FAIL: only " n " exported functions found: the parsing is broken"; exit 1 }
    if (fails) exit 1
    print "PASS: " n " exported functions, each with every \\param, \\return and thread safety"
}' "$header"
