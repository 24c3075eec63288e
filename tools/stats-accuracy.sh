#!/bin/sh
# The accuracy table of issue 15 from the rows that test-gpu-stats (on the
# GPU) or test-stats-emu (the kernels' arithmetic on the CPU) print with
# CURED_STATS_TABLE=1 (tests/stats_table.c): per input and statistic, at
# ddof 0 and n >= 1000, the worst ratio of cured's error to twice the
# float64 two-pass error rounded to the result type (<= 1 meets the issue;
# inf: the two-pass rounds to the exact value and cured is off by the
# rounding), the worst error relative to the exact value, and whether every
# row is within cured.h's bound.
#   CURED_STATS_TABLE=1 make check TESTS=tests/test-stats-emu
#   sh tools/stats-accuracy.sh [-s] tests/test-stats-emu.log
# -s: one row per input (the worst over its statistics and types).
set -eu
by_input=0
[ "${1:-}" = -s ] && { by_input=1; shift; }
log=${1:?usage: stats-accuracy.sh [-s] TEST.log}
grep '^| ' "$log" | awk -v by_input=$by_input -F' [|] ' '
$3 == 0 && $4 + 0 >= 1000 {
    input = substr($1, 3); sub(/, offset [0-9]+$/, "", input); sub(/ at [0-9]+ and [0-9]+$/, "", input)
    split($2, st, " "); key = input " | " (by_input ? "all" : st[1] " " st[2])
    if (!(key in n)) { order[++count] = key; worst[key] = 0; rel[key] = 0; ok[key] = "yes" }
    n[key]++
    r = $8; if (r == "inf") r = 1e300; else if (r == "-") r = 0
    if (r + 0 > worst[key]) worst[key] = r + 0
    ex = $5 + 0; if (ex < 0) ex = -ex
    if (ex > 0 && $6 != "nan" && ($6 + 0) / ex > rel[key]) rel[key] = ($6 + 0) / ex
    if ($9 !~ /^yes/) ok[key] = "NO"
}
END {
    print "| input | statistic | rows | worst cured / (2 x two-pass) | worst relative error | within bound |"
    print "|---|---|---|---|---|---|"
    for (i = 1; i <= count; i++) {
        k = order[i]; split(k, p, " [|] ")
        w = worst[k] >= 1e300 ? "inf" : sprintf("%.3g", worst[k])
        printf "| %s | %s | %d | %s | %.2g | %s |\n", p[1], p[2], n[k], w, rel[k], ok[k]
    }
}'
