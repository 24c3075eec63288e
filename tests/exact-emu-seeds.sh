#!/bin/sh
# test-exact-emu over many seeds, by hand (not part of make check):
#   tests/exact-emu-seeds.sh [COUNT [FIRST_SEED [JOBS]]]
# runs seeds FIRST_SEED .. FIRST_SEED + COUNT - 1 (default 300 from 1) on JOBS
# processes (default: the CPUs) and prints each failing seed with its rerun
# line. CK_RUN_CASE=whole (adversarial, whole, axes, segments) narrows it;
# PROG=path runs another build of the suite (one with a patched exact.cu).
# Run from the build tree (`make exact-emu-seeds` builds the program first).
count=${1:-300}
first=${2:-1}
jobs=${3:-$(nproc 2>/dev/null || echo 2)}
prog=${PROG:-./tests/test-exact-emu}
test -x "$prog" || { echo "$0: build $prog first (make tests/test-exact-emu)" >&2; exit 2; }
log=$(mktemp -d "${TMPDIR:-/tmp}/exact-emu-seeds.XXXXXX")
cp "$prog" "$log/test-exact-emu" # a rebuild meanwhile changes nothing here
prog=$log/test-exact-emu
seq "$first" $((first + count - 1)) | xargs -P "$jobs" -I{} sh -c \
    'CURED_TEST_SEED={} '"$prog"' > '"$log"'/{}.log 2>&1 || echo {} >> '"$log"'/failed' ||
    { echo "exact-emu-seeds: interrupted (logs in $log)"; exit 2; }
if [ -s "$log/failed" ]; then
    for s in $(sort -n "$log/failed"); do
        grep -h -E '^[^ ]+:[0-9]+:[FE]:' "$log/$s.log" | head -3
        echo "rerun: CURED_TEST_SEED=$s ./tests/test-exact-emu"
    done
    echo "exact-emu-seeds: $(wc -l < "$log/failed") of $count seeds failed (logs in $log)"
    exit 1
fi
rm -rf "$log"
echo "exact-emu-seeds: $count passed, 0 failed (seeds $first..$((first + count - 1)))"
