#!/usr/bin/env bash
# Interleaved A/B of dpsearch binaries on one index and query file, with
# the peers harness's statistic: each round runs RUNS query processes per
# binary (alternating), takes each query's median over them, then the p50
# and p99 of the count and top-10 columns. On a shared VM a single pass
# moves by 10% between runs (bench/RESULTS.md, sessions 26-27); this is
# the comparison that held.
#   bench/ab_runs.sh ROUNDS RUNS INDEX QUERIES "NAME=[ENV=VALUE ...] BINARY" ...
# Env: WARM (warm-up seconds per process, default 5), TOP (K, default 10).
set -euo pipefail
[ $# -ge 5 ] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ "${TOP:-10}" -gt 0 ] || { echo "ab_runs.sh: TOP must be at least 1 (the top-10 column is compared)" >&2; exit 2; }
rounds=$1 runs=$2 index=$3 queries=$4
shift 4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq 1 "$rounds"); do
  for k in $(seq 1 "$runs"); do
    for spec in "$@"; do
      # shellcheck disable=SC2086  # the spec's words: environment, then the binary
      env ${spec#*=} query --index "$index" --queries "$queries" --threads 1 --top "${TOP:-10}" \
        --warmup-passes 1 --warmup-seconds "${WARM:-5}" >"$out/${spec%%=*}.$r.$k"
    done
  done
  for spec in "$@"; do
    python3 - "${spec%%=*}" "$r" "$out/${spec%%=*}.$r".* <<'PY'
import statistics, sys
name, rnd, files = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = []
for f in files:
    rows = {}
    for line in open(f):
        p = line.rstrip("\n").split("\t")
        if len(p) > 3 and p[2] and p[3]:
            rows[p[0]] = (float(p[2]), float(p[3]))
    runs.append(rows)
ids = [i for i in runs[0] if all(i in r for r in runs)]
pct = lambda a, f: a[min(len(a) - 1, int(f * len(a)))]
count = sorted(statistics.median(r[i][0] for r in runs) for i in ids)
top = sorted(statistics.median(r[i][1] for r in runs) for i in ids)
print("%s\tround %s\tcount p50 %.2f p99 %.1f\ttop p50 %.2f p99 %.1f" %
      (name, rnd, pct(count, .5), pct(count, .99), pct(top, .5), pct(top, .99)))
PY
  done
done
