#!/bin/bash
# An A/B of two revisions on a lent GPU: `cured bench axes --only CELL` in a
# build of each, the same cells one after the other on one warm machine, so
# that each share of the read ceiling is the same run's and the same card's.
#
# Here (after ../shared/gpu/bundle, which stages HEAD's working tree in .gpu/):
#   bench/device-ab.sh stage REV
#     adds .gpu/base/: REV's `make dist` tarball, remote.sh and Check's sysroot.
# On the device (the run tool, carry [".gpu"]):
#   bash bench/device-ab.sh run [--tests "tests/test-gpu-exact ..."] CELL...
#     builds both trees side by side (the base at low priority), runs the given
#     GPU suites in the new tree (make check TESTS=...), then for each CELL the
#     new tree's bench and the base's. Logs, CSVs and the suites' logs go to $OUT
#     (CELL's spaces as dashes: segments-new.csv, segments-base.csv). AB_BUDGET
#     (seconds, default 560) bounds the whole call: a step that would not fit
#     is skipped and says so.
set -u
mode=${1:-}; shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
case $mode in
stage)
  rev=${1:?usage: bench/device-ab.sh stage REV}
  [ -f "$root/.gpu/remote.sh" ] || { echo "device-ab: run ../shared/gpu/bundle first"; exit 2; }
  tmp=$(mktemp -d)
  git -C "$root" worktree add -q --detach "$tmp/tree" "$rev" || exit 2
  (cd "$tmp/tree" && autoreconf -fi && ./configure -q && make dist) >"$tmp/log" 2>&1 || { tail -30 "$tmp/log"; exit 2; }
  rm -rf "$root/.gpu/base"; mkdir -p "$root/.gpu/base"
  cp "$tmp"/tree/*.tar.gz "$root/.gpu/remote.sh" "$root/.gpu/base/" && cp -r "$root/.gpu/sysroot" "$root/.gpu/base/"
  git -C "$root" worktree remove --force "$tmp/tree"; rm -rf "$tmp"
  echo "device-ab: $(git -C "$root" rev-parse --short "$rev") staged in .gpu/base/"
  ;;
run)
  tests=""
  [ "${1:-}" = --tests ] && { tests=$2; shift 2; }
  export OUT=${OUT:-/tmp/gpu-out} T0=$(date +%s) AB_BUDGET=${AB_BUDGET:-560}
  mkdir -p "$OUT"
  W=$root/.ab; rm -rf "$W"; mkdir -p "$W/new" "$W/base"
  left() { echo $(( AB_BUDGET - ($(date +%s) - T0) )); }
  say() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
  nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "device-ab: no nvidia-smi"
  (TMPDIR=$W/base SKIP_CHECK=1 OUT=$OUT/base-build nice -n 19 bash "$root/.gpu/base/remote.sh" >"$OUT/base-build.txt" 2>&1
   echo $? >"$W/base.done") &
  TMPDIR=$W/new SKIP_CHECK=1 OUT=$OUT/new-build bash "$root/.gpu/remote.sh" >"$OUT/new-build.txt" 2>&1 || { tail -20 "$OUT/new-build.txt"; exit 2; }
  N=$(echo "$W"/new/gpu-build/*/); B=$(echo "$W"/base/gpu-build/*/)
  export LD_LIBRARY_PATH=$root/.gpu/sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  say "new tree built"
  if [ -n "$tests" ]; then
    t=$(( $(left) - 120 )); [ $t -gt 330 ] && t=330
    if [ $t -gt 60 ]; then
      (cd "$N" && timeout $t make -j"$(nproc)" check TESTS="$tests" check_PROGRAMS="$tests" >"$OUT/check.log" 2>&1); say "tests rc=$?"
      grep -E '^(PASS|FAIL|SKIP|ERROR):' "$OUT/check.log"
      for x in $tests; do cp "$N/$x.log" "$OUT/" 2>/dev/null; grep -h -E 'digest|%:' "$N/$x.log" | tail -3; done
    else say "tests skipped: $(left) s left"; fi
  fi
  bench() { # tree tag cell
    local f; f=$(echo "$3" | tr ' ' '-')
    [ "$(left)" -lt 60 ] && { say "skipped $3 ($2): $(left) s left"; return; }
    (cd "$1" && timeout $(( $(left) - 10 )) tools/cured bench axes --only "$3" --csv "$OUT/$f-$2.csv" >"$OUT/$f-$2.txt" 2>"$OUT/$f-$2.err")
    say "$3 ($2) rc=$?"; grep -E 'ceiling \(|EXACT|segments' "$OUT/$f-$2.txt" | head -40
  }
  for cell in "$@"; do bench "$N" new "$cell"; done
  while [ ! -f "$W/base.done" ] && [ "$(left)" -gt 60 ]; do sleep 2; done
  if [ "$(cat "$W/base.done" 2>/dev/null)" = 0 ]; then
    say "base tree built"
    for cell in "$@"; do bench "$B" base "$cell"; done
  else say "base tree not built: $(tail -3 "$OUT/base-build.txt" 2>/dev/null)"; fi
  ;;
*)
  sed -n '2,17p' "$0"; exit 2 ;;
esac
