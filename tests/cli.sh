#!/bin/sh
# The `cured` program's manners: every help text fits 80 columns and goes to
# stdout with exit 0; -V, --version and `version` print the version; usage
# errors go to stderr with exit 2; without a GPU (the fake driver, which has
# no device, stands in for one on any machine) the benchmarks say so on
# stderr within seconds, print nothing on stdout and exit 1 (bench, sweep,
# ops, allreduce; warmstart times a cold compile of every kernel, too slow
# for this suite); `cured bench --help` names every benchmark; cured(1) and
# README.md name every command that `cured --help` lists.
set -u
: "${top_builddir:?run through make check (top_builddir is not set)}"
: "${top_srcdir:?run through make check (top_srcdir is not set)}"
cured="$top_builddir/tools/cured"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cured-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

for c in "" info cache "cache warm" bench "bench warmstart" "bench sweep" "bench ops" "bench allreduce"; do
    # shellcheck disable=SC2086
    "$cured" $c --help >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc -eq 0 ] || fail "cured $c --help: exit $rc"
    [ -s "$tmp/out" ] || fail "cured $c --help: nothing on stdout"
    [ -s "$tmp/err" ] && fail "cured $c --help: wrote to stderr"
    wide=$(awk 'length > 80' "$tmp/out" | head -n 1)
    [ -z "$wide" ] || fail "cured $c --help: a line over 80 columns: $wide"
done

want="cured $PACKAGE_VERSION"
for v in -V --version version; do
    got=$("$cured" $v 2>&1)
    [ "$got" = "$want" ] || fail "cured $v printed '$got', not '$want'"
done

for args in "frobnicate" "cache frobnicate" "cache list --bad" "cache warm -j 0" "cache warm -j x" \
            "cache warm --arch sm_x" "bench --n 0" "info extra"; do
    # shellcheck disable=SC2086
    "$cured" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] || fail "cured $args: exit $rc, not 2"
    [ -s "$tmp/err" ] || fail "cured $args: no message on stderr"
done
"$cured" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ -s "$tmp/err" ] || fail "cured with no command: exit $rc"

if [ -f "${CURED_TEST_FAKE_DRIVER:-}" ]; then
    for b in "bench" "bench sweep" "bench ops" "bench allreduce"; do
        start=$(date +%s)
        # shellcheck disable=SC2086
        CURED_CUDA_DRIVER_LIBRARY=$CURED_TEST_FAKE_DRIVER CURED_CACHE_DIR="$tmp/cache" \
            "$cured" $b >"$tmp/out" 2>"$tmp/err"; rc=$?
        took=$(($(date +%s) - start))
        [ $took -le 5 ] || fail "cured $b without a GPU took $took s (it should say so at once)"
        [ $rc -eq 1 ] || fail "cured $b without a GPU: exit $rc, not 1"
        grep -q "no CUDA GPU here" "$tmp/err" ||
            fail "cured $b without a GPU: no 'no GPU' message on stderr: $(cat "$tmp/err")"
        [ -s "$tmp/out" ] && fail "cured $b without a GPU: wrote to stdout: $(head -n 2 "$tmp/out")"
    done
    # warmstart still times the cache lookup, which needs no GPU, but compiles nothing else.
    start=$(date +%s)
    CURED_CUDA_DRIVER_LIBRARY=$CURED_TEST_FAKE_DRIVER CURED_CACHE_DIR="$tmp/cache" \
        "$cured" bench warmstart --runs 2 >"$tmp/out" 2>"$tmp/err"; rc=$?
    took=$(($(date +%s) - start))
    [ $took -le 60 ] || fail "cured bench warmstart without a GPU took $took s"
    [ $rc -eq 1 ] || fail "cured bench warmstart without a GPU: exit $rc, not 1"
    grep -q "no CUDA GPU here" "$tmp/err" ||
        fail "cured bench warmstart without a GPU: no 'no GPU' message on stderr: $(cat "$tmp/err")"
else
    echo "note: no fake driver (CURED_TEST_FAKE_DRIVER): the no-GPU messages were not checked"
fi

# An empty cache lists as such, in 80 columns.
CURED_CACHE_DISABLE=0 CURED_CACHE_DIR="$tmp/empty" "$cured" cache list >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q "^0 entries" "$tmp/out" || fail "cache list of an empty cache: exit $rc: $(cat "$tmp/out" "$tmp/err")"

# The benchmarks' CUB comparator is a separate library that `cured` opens
# with dlopen: where it was built, `cured info` finds it beside the program;
# the program itself links neither the CUDA runtime nor libstdc++.
"$cured" info >"$tmp/info" 2>&1
if grep -q "^benchmark comparator: not built" "$tmp/info"; then
    echo "note: no CUB comparator in this build (no nvcc)"
else
    grep -q "^benchmark comparator: CUB .*cured-cub.so)$" "$tmp/info" ||
        fail "cured info does not show the comparator library: $(grep comparator "$tmp/info")"
fi
real="$top_builddir/tools/.libs/cured"
[ -x "$real" ] || real="$top_builddir/tools/cured"
if command -v ldd >/dev/null 2>&1 && [ -x "$real" ] && ! head -c 2 "$real" | grep -q '#!'; then
    if ldd "$real" | grep -E 'libstdc\+\+|libcudart'; then
        fail "tools/cured links the CUDA runtime or libstdc++ (above)"
    fi
fi

man1="$top_srcdir/doc/man/cured.1"
# "  cache dir|list|clear   ..." -> cache dir, cache list, cache clear
"$cured" --help | awk '/^  [a-z]/ {
    n = split($2, alt, "|")
    if ($1 == "cache" || $1 == "bench") { if ($2 ~ /^[a-z|]+$/) for (i = 1; i <= n; i++) print $1 " " alt[i]; else print $1 }
    else print $1 }' >"$tmp/commands"
[ "$(wc -l <"$tmp/commands")" -ge 8 ] || fail "could not read the commands from cured --help"
while read -r c; do
    grep -q "^\.B $c\([ \\]\|$\)" "$man1" || fail "cured(1) has no '.B $c' line"
    [ "$c" = help ] || grep -q "^| \`cured $c[\` ]" "$top_srcdir/README.md" ||
        fail "README.md's table of commands has no row for 'cured $c'"
done <"$tmp/commands"
"$cured" bench --help >"$tmp/out" 2>&1
for b in $(awk '$1 == "bench" && $2 ~ /^[a-z]+$/ { print $2 }' "$tmp/commands"); do
    grep -q "$b" "$tmp/out" || fail "cured bench --help does not name 'bench $b'"
done

[ $status -eq 0 ] && echo "PASS: help texts, version, usage errors, no-GPU messages, cured(1)"
exit $status
