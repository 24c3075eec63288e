#!/bin/sh
# Runs the example programs. With a GPU each must exit 0 and print its
# result. Without one (the first example, run as a child process, is the
# probe) each must still start and fail cleanly: exit status 1 and cured's
# status and message on stderr (CURED_ERROR_NO_DRIVER or _NO_DEVICE), not a
# loader error; then the suite is SKIPPED (77), having checked that much.
set -u
: "${top_builddir:?run through make check (top_builddir is not set)}"
examples="sum graph custom allreduce"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cured-examples.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

"$top_builddir/examples/sum" >"$tmp/probe.out" 2>"$tmp/probe.err"
probe=$?
nogpu=0
if [ $probe -ne 0 ] && grep -q -E 'CURED_ERROR_NO_(DRIVER|DEVICE)' "$tmp/probe.err"; then
    nogpu=1
fi

status=0
for e in $examples; do
    args=
    [ "$e" = allreduce ] && args="0 1 $tmp/nccl-id 100000" # one rank
    "$top_builddir/examples/$e" $args >"$tmp/$e.out" 2>"$tmp/$e.err"
    rc=$?
    if [ "$e" = allreduce ] && [ $rc -eq 3 ]; then # a GPU but no NCCL
        echo "no NCCL: examples/allreduce says so: $(head -n 1 "$tmp/$e.err")"
        continue
    fi
    if [ $nogpu -eq 1 ]; then
        if [ $rc -eq 1 ] && [ ! -s "$tmp/$e.out" ] &&
           grep -q -E '^cured_create: CURED_ERROR_NO_(DRIVER|DEVICE): .+' "$tmp/$e.err"; then
            echo "no GPU: examples/$e says so: $(head -n 1 "$tmp/$e.err")"
        else
            echo "FAIL: examples/$e without a GPU: exit $rc, stdout:"; cat "$tmp/$e.out"
            echo "stderr:"; cat "$tmp/$e.err"
            status=1
        fi
    elif [ $rc -eq 0 ] && [ -s "$tmp/$e.out" ]; then
        echo "PASS: examples/$e: $(cat "$tmp/$e.out")"
    else
        echo "FAIL: examples/$e: exit $rc"; cat "$tmp/$e.out" "$tmp/$e.err"
        status=1
    fi
done
if [ $status -eq 0 ] && [ $nogpu -eq 1 ]; then
    echo "SKIP: no GPU here; every example started and gave cured's clear status"
    exit 77
fi
exit $status
