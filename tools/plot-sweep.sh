#!/bin/sh
# Draw what `cured bench sweep --csv FILE` wrote: GB/s against the element
# count (log2) for cured AUTO, CUB DeviceReduce::Sum, thrust::reduce and the
# read ceiling, one panel per element type, into one PNG. Needs gnuplot
# (Debian: gnuplot-nox).
#
#   tools/plot-sweep.sh sweep.csv sweep.png
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 SWEEP.csv OUT.png" >&2
    exit 2
fi
csv=$1
png=$2
if [ ! -r "$csv" ]; then
    echo "$0: cannot read $csv" >&2
    exit 1
fi
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "$0: gnuplot is not installed (Debian: apt-get install gnuplot-nox)" >&2
    exit 1
fi
if ! head -n 1 "$csv" | grep -q '^type,n,log2,bytes,buffers,iters,cured_us,cured_gbps,cub_us,cub_gbps,'; then
    echo "$0: $csv does not look like the CSV of cured bench sweep" >&2
    exit 1
fi
# The element types in the order of their first row.
types=$(awk -F, 'NR > 1 && $1 != "" && !seen[$1]++ { printf "%s ", $1 }' "$csv")
if [ -z "$types" ]; then
    echo "$0: $csv has no rows" >&2
    exit 1
fi
count=$(echo $types | wc -w)
# gnuplot reads file names inside double quotes: refuse what would break out.
case "$csv$png" in
*'"'* | *'\'*)
    echo "$0: file names with double quotes or backslashes are not supported" >&2
    exit 1
    ;;
esac
if gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo; then
    term="pngcairo enhanced size 1100,$((430 * count)) font 'Sans,10'"
else
    term="png enhanced size 1100,$((430 * count))"
fi

gnuplot <<EOF
set terminal $term
set output "$png"
set datafile separator ","
set datafile missing ""
set multiplot layout $count,1
set grid xtics ytics mytics
set logscale y 10
set format y "%g"
set xlabel "n (elements)"
set ylabel "GB/s (bytes read / median time)"
set xtics 2 format "2^{%g}"
set key left top
# Empty cells (nothing measured) are skipped.
gbps(t, c) = (strcol(1) eq t && strlen(strcol(c)) > 0) ? column(c) : NaN
do for [t in "$types"] {
    set title sprintf("sum of %s (cured AUTO: %s; CUB and Thrust with the same result type)", t, t eq "int32" ? "int32 -> int64" : t . " -> " . t)
    plot "$csv" skip 1 using 3:(gbps(t, 8)) with linespoints lw 2 pt 7 ps 0.8 title "cured AUTO", \
         "" skip 1 using 3:(gbps(t, 10)) with linespoints lw 2 pt 5 ps 0.7 title "CUB DeviceReduce::Sum", \
         "" skip 1 using 3:(gbps(t, 13)) with linespoints lw 1 pt 9 ps 0.7 title "thrust::reduce (returns to the host)", \
         "" skip 1 using 3:(gbps(t, 15)) with lines lw 1 dt 2 lc rgb "black" title "read ceiling (nvcc kernel)"
}
unset multiplot
EOF
echo "$0: wrote $png"
