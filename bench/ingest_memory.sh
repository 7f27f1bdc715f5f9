#!/usr/bin/env bash
# The ingest memory bound (issue 21): every CORPUS at every --memory budget
# (BUDGETS overrides, default "32M 64M 200M 1G"), 2 threads (THREADS), one
# run each, into a fresh index with the default layout (stored text and
# positions on). Prints one markdown row per (corpus, budget): peak RSS
# (/usr/bin/time -v), its ratio to the budget, wall seconds and runs spilled.
#   bench/ingest_memory.sh WORKDIR CORPUS.jsonl...
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
work=$1
shift
budgets=${BUDGETS:-32M 64M 200M 1G}
threads=${THREADS:-2}
mkdir -p "$work"
mib() {  # SIZE (K, M or G suffix) -> MiB
  local n=${1%[KMG]}
  case $1 in *K) echo "$n / 1024" | bc -l ;; *M) echo "$n" ;; *G) echo "$n * 1024" | bc ;; *) echo "$n / 1048576" | bc -l ;; esac
}
echo "| corpus | --memory | peak RSS MiB | ratio | seconds | runs spilled |"
echo "|---|---:|---:|---:|---:|---:|"
for corpus in "$@"; do
  for m in $budgets; do
    idx="$work/idx"
    rm -rf "$idx"
    log="$work/time.log"
    if ! /usr/bin/time -v "$bin" ingest --index "$idx" --threads "$threads" --memory "$m" "$corpus" 2> "$log" > /dev/null; then
      echo "| $(basename "$corpus") | $m | refused: $(grep -m1 dpsearch "$log") | | | |"
      continue
    fi
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$log")
    runs=$(grep -o '[0-9]* runs spilled' "$log" | awk '{ print $1 }')
    ratio=$(echo "$rss / $(mib "$m")" | bc -l)
    printf '| %s | %s | %s | %.2f | %.1f | %s |\n' "$(basename "$corpus")" "$m" "$rss" "$ratio" "$secs" "$runs"
  done
done
rm -rf "$work/idx"
