#!/bin/sh
# Every ```c block of doc/guide.md compiles against include/cured.h. A block
# with main() is compiled as it is; any other block is the body of a
# function whose parameters are the names the guide's fragments assume (a
# handle h, a stream, device buffers d_x, d_y, d_out, d_offsets, sizes n,
# nrows, rows, cols, an NCCL communicator nccl_comm).
set -u
: "${top_srcdir:?run through make check (top_srcdir is not set)}"
: "${top_builddir:?run through make check (top_builddir is not set)}"
guide="$top_srcdir/doc/guide.md"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cured-guide.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
    /^```c$/ { n++; f = sprintf("%s/block%02d.txt", dir, n); printf "" >f; line[n] = NR + 1; inside = 1; next }
    inside && /^```$/ { inside = 0; close(f); next }
    inside { print >>f }
    END { for (i = 1; i <= n; i++) print i, line[i] >(dir "/lines") }' "$guide"
[ -s "$tmp/lines" ] || { echo "FAIL: no \`\`\`c blocks in $guide"; exit 1; }
cuda_include=$(printf '%s\n' ${CUDA_CPPFLAGS:-} | sed -n 's/^-I//p' | head -n 1)
cflags="-std=c11 -Wall -Wextra -Werror -Wno-unused-variable -Wno-unused-but-set-variable -Wno-unused-parameter
        -I$top_srcdir/include -I$top_builddir/include -I${cuda_include:-/usr/local/cuda/include}"
status=0
count=0
while read -r i first; do
    b=$(printf '%s/block%02d' "$tmp" "$i")
    if grep -q 'main(' "$b.txt"; then
        cp "$b.txt" "$b.c"
    else
        {
            printf '#include <cured.h>\n#include <stdint.h>\n#include <stdio.h>\n'
            printf 'struct ncclComm;\n'
            printf 'void block(cured_handle h, struct CUstream_st *stream, const void *d_x, const void *d_y,\n'
            printf '           void *d_out, const int64_t *d_offsets, size_t n, size_t nrows, int64_t rows,\n'
            printf '           int64_t cols, struct ncclComm *nccl_comm);\n'
            printf 'void block(cured_handle h, struct CUstream_st *stream, const void *d_x, const void *d_y,\n'
            printf '           void *d_out, const int64_t *d_offsets, size_t n, size_t nrows, int64_t rows,\n'
            printf '           int64_t cols, struct ncclComm *nccl_comm)\n{\n'
            printf '#line %s "doc/guide.md"\n' "$first"
            cat "$b.txt"
            printf '}\n'
        } >"$b.c"
    fi
    # shellcheck disable=SC2086
    if ${CC:-cc} $cflags -c "$b.c" -o "$b.o" 2>"$b.err"; then
        count=$((count + 1))
    else
        echo "FAIL: doc/guide.md's C block at line $first does not compile:"
        cat "$b.err"
        status=1
    fi
done <"$tmp/lines"
[ $status -eq 0 ] && echo "PASS: doc/guide.md's $count C blocks compile"
exit $status
