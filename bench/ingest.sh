#!/usr/bin/env bash
# Ingest throughput and peak RSS: every CORPUS with 1 and 2 threads (THREADS
# overrides), REPEAT runs each (default 3, configurations interleaved),
# the median run reported. Indexes without stored text, as the peers store
# none.  Extra ingest flags come from DPS_INGEST_ARGS (e.g. --memory 200M).
#   bench/ingest.sh WORKDIR CORPUS.jsonl...
# Prints one markdown row per (corpus, threads): seconds, MB/s, docs/s,
# peak RSS (MiB, /usr/bin/time -v), index MB.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
work=$1
shift
threads=${THREADS:-1 2}
repeat=${REPEAT:-3}
mkdir -p "$work"
rows="$work/ingest-rows.tsv"
: > "$rows"
for r in $(seq "$repeat"); do
  for corpus in "$@"; do
    for t in $threads; do
      idx="$work/idx-$t"
      rm -rf "$idx"
      log="$work/time.log"
      /usr/bin/time -v "$bin" ingest --index "$idx" --no-store-text --threads "$t" \
        ${DPS_INGEST_ARGS:-} "$corpus" 2> "$log" > /dev/null
      secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log")
      rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$log")
      docs=$(grep -o 'ingested [0-9]* document' "$log" | awk '{ print $2 }')
      bytes=$(stat -c %s "$corpus")
      index=$(du -sb "$idx" | awk '{ print $1 }')
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$corpus")" "$t" "$secs" "$rss" "$docs" "$bytes" "$index" >> "$rows"
    done
  done
done
echo "| corpus | threads | seconds (median of $repeat) | MB/s | docs/s | peak RSS MiB | index MB |"
echo "|---|---:|---:|---:|---:|---:|---:|"
sort -t$'\t' -k1,1 -k2,2n -k3,3g "$rows" | awk -F'\t' -v rep="$repeat" '
  { key = $1 "\t" $2; n[key]++; if (n[key] == int((rep + 1) / 2)) row[key] = $0; if (!(key in order)) { order[key] = ++k; keys[k] = key } }
  END { for (i = 1; i <= k; i++) { split(row[keys[i]], f, "\t");
    printf "| %s | %s | %.2f | %.1f | %.0f | %s | %.1f |\n", f[1], f[2], f[3], f[6] / 1e6 / f[3], f[5] / f[3], f[4], f[7] / 1e6 } }'
