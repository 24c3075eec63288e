#!/bin/sh
# The README's first example (the ```c block after "## First example")
# compiles against include/cured.h and the CUDA runtime's header and links
# with the build tree's libcured and libcudart (compiled only where the
# toolkit has no libcudart); where a GPU exists (examples/sum succeeds) it
# runs and prints "sum = -500".
set -u
: "${top_srcdir:?run through make check (top_srcdir is not set)}"
: "${top_builddir:?run through make check (top_builddir is not set)}"
readme="$top_srcdir/README.md"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cured-readme.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
awk '/^## First example/ { s = 1; next }
     s == 1 && /^```c$/ { s = 2; next }
     s == 2 && /^```$/ { exit }
     s == 2 { print }' "$readme" >"$tmp/first.c"
if [ ! -s "$tmp/first.c" ]; then
    echo "FAIL: no \`\`\`c block after \"## First example\" in $readme"
    exit 1
fi
lines=$(wc -l <"$tmp/first.c")
cuda_include=$(printf '%s\n' ${CUDA_CPPFLAGS:-} | sed -n 's/^-I//p' | head -n 1)
cuda_include=${cuda_include:-/usr/local/cuda/include}
cudart_dir=
for d in "$cuda_include/../lib64" "$cuda_include/../lib"; do
    [ -e "$d/libcudart.so" ] && { cudart_dir=$d; break; }
done
libdir=$(cd "$top_builddir/.libs" && pwd) || exit 99
cflags="-std=c11 -Wall -Wextra -Werror -I$top_srcdir/include -I$top_builddir/include -I$cuda_include"
if [ -z "$cudart_dir" ]; then
    # shellcheck disable=SC2086
    ${CC:-cc} $cflags -c "$tmp/first.c" -o "$tmp/first.o" ||
        { echo "FAIL: README.md's first example does not compile"; exit 1; }
    echo "PASS: README.md's first example ($lines lines) compiles (no libcudart in the toolkit: not linked)"
    exit 0
fi
# shellcheck disable=SC2086
# CFLAGS and LDFLAGS: the build's own (a sanitizer build's libcured needs its runtime).
${CC:-cc} $cflags ${CFLAGS:-} "$tmp/first.c" -o "$tmp/first" ${LDFLAGS:-} -L"$libdir" -Wl,-rpath,"$libdir" -lcured \
    -L"$cudart_dir" -Wl,-rpath,"$cudart_dir" -lcudart ||
    { echo "FAIL: README.md's first example does not compile or link"; exit 1; }
if ! "$top_builddir/examples/sum" >/dev/null 2>&1; then
    echo "PASS: README.md's first example ($lines lines) compiles and links (no GPU: not run)"
    exit 0
fi
out=$("$tmp/first" 2>&1)
if [ "$out" != "sum = -500" ]; then
    echo "FAIL: README.md's first example printed: $out"
    exit 1
fi
echo "PASS: README.md's first example ($lines lines) prints $out"
