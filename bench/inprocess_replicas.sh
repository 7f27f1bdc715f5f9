#!/usr/bin/env bash
# The straggler experiment without servers (issue 20): `--index --replicas 2`
# in one process, replica 0 slow for 100 ms on each tablet of a request with
# probability 2.5% (about 18% of its requests over 8 tablets: the harsh
# shape of bench/straggler.sh), every policy, counting and top 10, three
# interleaved rounds; prints medians over the rounds.
# Usage: INDEX=DIR QUERIES=FILE [DPSEARCH=build/dpsearch] [OUT=inproc] bench/inprocess_replicas.sh
set -euo pipefail
D=${DPSEARCH:-build/dpsearch}
INDEX=${INDEX:?an index dir, e.g. gcide with 8 tablets}
QUERIES=${QUERIES:?a query file}
OUT=${OUT:-inproc}; mkdir -p "$OUT"

declare -A P=(
  [nofault]="--replicas 2"
  [first]="--replicas 2 --replica-policy first --inject-delay 0/*:0.025:100"
  [adaptive]="--replicas 2 --inject-delay 0/*:0.025:100"
  [adaptive_hedge]="--replicas 2 --inject-delay 0/*:0.025:100 --hedge-after p95"
  [adaptive_tied_hedge]="--replicas 2 --inject-delay 0/*:0.025:100 --tied --tied-delay p90 --hedge-after p95"
)
for round in 1 2 3; do
  for k in nofault first adaptive adaptive_hedge adaptive_tied_hedge; do
    for top in 0 10; do
      extra=""; [ $top -gt 0 ] && extra="--top 10"
      $D bench --index "$INDEX" ${P[$k]} $extra --queries "$QUERIES" --repeat 3 --json > "$OUT"/$k.$top.$round.json 2>/dev/null
    done
  done
done
python3 - "$OUT" <<'PY'
import glob, json, os, statistics, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    policy, top, _, _ = os.path.basename(f).split(".")
    rows.setdefault((top, policy), []).append(json.load(open(f)))
for (top, policy), runs in sorted(rows.items()):
    med = lambda key: statistics.median(r[key] for r in runs)
    extra = statistics.median((r["requests"] - r["queries"]) / r["queries"] * 100 for r in runs)
    print(f"{'top10' if top == '10' else 'count':6s} {policy:20s} p50 {med('p50_us'):9.1f}  p95 {med('p95_us'):9.1f}  "
          f"p99 {med('p99_us'):9.1f} us  +requests {extra:4.1f}%")
PY
