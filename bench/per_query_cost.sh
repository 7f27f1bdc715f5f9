#!/usr/bin/env bash
# Per-query instructions and mispredicted branches of one steady pass of a
# query file, counted by callgrind (one profile dump per query), and the
# comparison of two such runs. For a change of a few percent, which this
# shared machine's wall clock cannot show (bench/RESULTS.md, session 26:
# the same binary measured 0.91x and 1.06x in interleaved runs): the
# counts are exact and repeatable.
#
#   bench/per_query_cost.sh run BIN INDEX QUERIES OUT.tsv [query flags...]
#       OUT.tsv: id <TAB> instructions <TAB> mispredicted conditional branches
#       (of the count, plus the ranked run when the flags hold --top K)
#   bench/per_query_cost.sh compare A.tsv B.tsv [MISPREDICT_COST]
#       B against A: the totals, and the p50/p90/p99 queries of the cost
#       instructions + MISPREDICT_COST x mispredicts (default 40: a
#       mispredict costs 15-20 cycles, at about two instructions a cycle)
#
# Needs valgrind. Slow: about 50x the query file's own time.
set -euo pipefail

usage() {
  sed -n '2,18p' "$0" >&2
  exit 2
}

run() {
  [ $# -ge 4 ] || usage
  local bin=$1 index=$2 queries=$3 out=$4
  shift 4
  local dir
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' RETURN
  # One warm-up pass, then the measured one: a dump after each query's
  # count (and ranking), so the last half of the dumps are the steady pass.
  "$bin" query --index "$index" --queries "$queries" --threads 1 --warmup-passes 1 "$@" >"$dir/answers" 2>/dev/null || true
  valgrind --tool=callgrind --branch-sim=yes --toggle-collect='dps::RunBatch*' \
    --dump-after='dps::(anonymous namespace)::CountOne*' --dump-after='dps::(anonymous namespace)::RankOne*' \
    --callgrind-out-file="$dir/cg" "$bin" query --index "$index" --queries "$queries" --threads 1 \
    --warmup-passes 1 "$@" >/dev/null 2>"$dir/valgrind.log" || true
  python3 - "$dir" "$out" <<'PY'
import glob, sys
d, out = sys.argv[1], sys.argv[2]
dumps = {}
for f in glob.glob(d + "/cg.*"):
    suffix = f.rsplit(".", 1)[1]
    if not suffix.isdigit():
        continue
    events = None
    for line in open(f):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:") or line.startswith("totals:"):
            dumps[int(suffix)] = dict(zip(events, map(int, line.split()[1:])))
            break
# Queries that ran (a query that fails to parse is not searched): their
# answers have a count, not "error".
ran = [l.split("\t")[0] for l in open(d + "/answers") if not l.startswith("#") and l.split("\t")[1:2] != ["error"]]
order = sorted(dumps)
per_pass = len(order) // 2
if per_pass == 0 or per_pass % len(ran) != 0:
    sys.exit(f"per_query_cost: {len(order)} dumps for {len(ran)} queries")
calls = per_pass // len(ran)  # 1 (count) or 2 (count, then ranked)
steady = order[per_pass:]
with open(out, "w") as o:
    for i, qid in enumerate(ran):
        parts = [dumps[k] for k in steady[i * calls:(i + 1) * calls]]
        o.write(f"{qid}\t{sum(p['Ir'] for p in parts)}\t{sum(p['Bcm'] for p in parts)}\n")
PY
}

compare() {
  [ $# -ge 2 ] || usage
  python3 - "$1" "$2" "${3:-40}" <<'PY'
import sys
def load(f):
    return {l.split("\t")[0]: tuple(map(int, l.split("\t")[1:3])) for l in open(f)}
a, b, weight = load(sys.argv[1]), load(sys.argv[2]), float(sys.argv[3])
ids = [q for q in a if q in b]
cost = lambda v: v[0] + weight * v[1]
def total(m, i): return sum(m[q][i] for q in ids)
print(f"{len(ids)} queries; instructions {total(a,0):,} -> {total(b,0):,} ({total(b,0)/total(a,0):.3f}x); "
      f"mispredicts {total(a,1):,} -> {total(b,1):,} ({total(b,1)/max(1,total(a,1)):.3f}x)")
ca = sorted(cost(a[q]) for q in ids)
cb = sorted(cost(b[q]) for q in ids)
print(f"cost (instructions + {weight:g} x mispredicts): total {sum(cb)/sum(ca):.3f}x")
for p in (0.5, 0.9, 0.99):
    k = min(len(ids) - 1, int(p * len(ids)))
    print(f"  p{round(p*100)} query: {ca[k]:,.0f} -> {cb[k]:,.0f} ({cb[k]/ca[k]:.3f}x)")
worst = sorted(ids, key=lambda q: cost(b[q]) / cost(a[q]))
for q in worst[-3:][::-1]:
    print(f"  most costlier: {q} {cost(a[q]):,.0f} -> {cost(b[q]):,.0f} ({cost(b[q])/cost(a[q]):.3f}x)")
PY
}

case ${1:-} in
  run) shift; run "$@" ;;
  compare) shift; compare "$@" ;;
  *) usage ;;
esac
