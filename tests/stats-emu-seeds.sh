#!/bin/sh
# test-stats-emu over many seeds, by hand (not part of make check):
#   tests/stats-emu-seeds.sh [COUNT [FIRST_SEED [JOBS]]]
# runs seeds FIRST_SEED .. FIRST_SEED + COUNT - 1 (default 2000 from 1) on JOBS
# processes (default: the CPUs) and prints each failing seed with its rerun line.
# CURED_TEST_ONLY=integers,normal,... narrows the suite to those tests
# (default: the randomized accuracy tests). Run from the build tree
# (`make stats-emu-seeds` builds the program first).
count=${1:-2000}
first=${2:-1}
jobs=${3:-$(nproc 2>/dev/null || echo 2)}
prog=./tests/test-stats-emu
test -x "$prog" || { echo "$0: build $prog first (make tests/test-stats-emu)" >&2; exit 2; }
: "${CURED_TEST_ONLY:=normal,magnitudes,constant,sorted_outliers,integers,logsumexp,small,nan_sprinkled}"
export CURED_TEST_ONLY
log=$(mktemp -d "${TMPDIR:-/tmp}/stats-emu-seeds.XXXXXX")
cp "$prog" "$log/test-stats-emu" # a rebuild meanwhile changes nothing here
prog=$log/test-stats-emu
seq "$first" $((first + count - 1)) | xargs -P "$jobs" -I{} sh -c \
    'CURED_TEST_SEED={} '"$prog"' > '"$log"'/{}.log 2>&1 || echo {} >> '"$log"'/failed'
if [ -s "$log/failed" ]; then
    for s in $(sort -n "$log/failed"); do
        grep -h -E '^[^ ]+:[0-9]+:[FE]:' "$log/$s.log" | head -3
        echo "rerun: CURED_TEST_SEED=$s CURED_TEST_ONLY=$CURED_TEST_ONLY ./tests/test-stats-emu"
    done
    echo "stats-emu-seeds: $(wc -l < "$log/failed") of $count seeds failed (logs in $log)"
    exit 1
fi
rm -rf "$log"
echo "stats-emu-seeds: $count passed, 0 failed (seeds $first..$((first + count - 1)), tests $CURED_TEST_ONLY)"
