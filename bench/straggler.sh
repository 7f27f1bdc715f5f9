#!/usr/bin/env bash
# The straggler experiment (issues 5 and 20): 8 tablets over 4 shard
# servers on loopback, every range on 2 of them; one server delays 100 ms
# on a fraction of its requests. Two fault shapes (SHAPE):
#   mild  (default) ranges 0-1, 2-3, 4-5, 6-7 on servers 1+2, 2+3, 3+4,
#         4+1; server 1 delays each tablet with probability PROB (default
#         0.025: each request covers 2 tablets, so ~5% of its requests)
#   harsh ranges 0-3 on servers A and C, 4-7 on B and D; A delays each
#         tablet with probability PROB (default 0.05: ~18.5% of its
#         4-tablet requests)
# Runs `dpsearch bench` with no fault, then with the fault under each
# replica policy (first, random, adaptive) with and without --hedge-after
# p95, with tied requests (--tied), and with --deadline 50, each counting and (unless TOP=0) ranked
# (--top TOP: the answer waits for every bin, the straggler case at its
# worst); one JSON line per configuration and round, the configurations
# interleaved over ROUNDS rounds so that a noisy spell on a shared machine
# does not land on one configuration only, and a last table gives the
# median over rounds of each figure, with where the requests went.
#   bench/straggler.sh CORPUS.jsonl QUERIES.tsv [WORKDIR]
# Env: DPSEARCH (binary), SHAPE, PROB, REPEAT (passes over the queries per
# round, default 1), ROUNDS (default 1), TOP (the ranked runs' K, default
# 10; 0: no ranked runs), REPORT_DIR (HTML reports, from the last round),
# POLICIES (replica policies run alone and with hedging, default "first
# random adaptive"), TIED_POLICIES (those also run with --tied, alone and
# with hedging, default "first adaptive").
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
corpus=${1:?usage: straggler.sh CORPUS QUERIES [WORKDIR]}
queries=${2:?usage: straggler.sh CORPUS QUERIES [WORKDIR]}
work=${3:-$(mktemp -d)}
shape=${SHAPE:-mild}
case "$shape" in
  mild) prob=${PROB:-0.025} ;;
  harsh) prob=${PROB:-0.05} ;;
  *) echo "straggler.sh: SHAPE=$shape: expected mild or harsh" >&2; exit 2 ;;
esac
repeat=${REPEAT:-1}
policies=${POLICIES:-first random adaptive}
tied_policies=${TIED_POLICIES:-first adaptive}
rounds=${ROUNDS:-1}
top=${TOP:-10}
mkdir -p "$work"
if [ ! -f "$work/index/MANIFEST" ]; then
  "$bin" ingest --index "$work/index" --bins 16 --tablets 8 --no-store-text "$corpus" >&2
fi
base=$((7800 + RANDOM % 100))
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }
trap stop EXIT
start() {  # start FAULT: 1 = server 1 injects delays
  stop
  for i in 1 2 3 4; do
    extra=()
    [ "$1" = 1 ] && [ "$i" = 1 ] && extra=(--inject-delay "*:$prob:100")
    "$bin" serve --index "$work/index" --listen "127.0.0.1:$((base + i))" --threads 1 "${extra[@]}" 2>>"$work/servers.log" &
    pids+=($!)
  done
  sleep 0.5
}
if [ "$shape" = mild ]; then
  echo "0-1 127.0.0.1:$((base + 1)) 127.0.0.1:$((base + 2))"
  echo "2-3 127.0.0.1:$((base + 2)) 127.0.0.1:$((base + 3))"
  echo "4-5 127.0.0.1:$((base + 3)) 127.0.0.1:$((base + 4))"
  echo "6-7 127.0.0.1:$((base + 4)) 127.0.0.1:$((base + 1))"
else  # A = server 1 (the slow one, listed first), B = 2, C = 3, D = 4
  echo "0-3 127.0.0.1:$((base + 1)) 127.0.0.1:$((base + 3))"
  echo "4-7 127.0.0.1:$((base + 2)) 127.0.0.1:$((base + 4))"
fi > "$work/cluster.txt"
run() {  # run NAME ARGS...
  local name=$1; shift
  local report=()
  [ -n "${REPORT_DIR:-}" ] && report=(--report "$REPORT_DIR/straggler-$name.html")
  printf '{"config":"%s","round":%d,' "$name" "$round"
  "$bin" bench --cluster "$work/cluster.txt" --queries "$queries" --repeat "$repeat" --json "${report[@]}" "$@" | sed 's/^{//'
}
# ranked NAME ARGS...: the same configuration ranked (named ranked-NAME).
ranked() {
  local name=$1; shift
  if [ "$top" != 0 ]; then run "ranked-$name" --top "$top" "$@"; fi
}
for round in $(seq "$rounds"); do
  start 0
  run no-fault
  ranked no-fault
  start 1
  for policy in $policies; do
    run "fault-$policy" --replica-policy "$policy"
    ranked "fault-$policy" --replica-policy "$policy"
    run "fault-$policy-hedge-p95" --replica-policy "$policy" --hedge-after p95
    ranked "fault-$policy-hedge-p95" --replica-policy "$policy" --hedge-after p95
  done
  for policy in $tied_policies; do
    run "fault-$policy-tied" --replica-policy "$policy" --tied
    ranked "fault-$policy-tied" --replica-policy "$policy" --tied
    run "fault-$policy-tied-hedge-p95" --replica-policy "$policy" --tied --hedge-after p95
    ranked "fault-$policy-tied-hedge-p95" --replica-policy "$policy" --tied --hedge-after p95
  done
  run fault-deadline-50ms --deadline 50
  ranked fault-deadline-50ms --deadline 50
done > "$work/straggler.jsonl"  # not a pipe: the servers would hold it open
stop
cat "$work/straggler.jsonl"
python3 - "$work/straggler.jsonl" <<'PY' >&2
import json, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    runs.setdefault(d["config"], []).append(d)
# Each configuration against its own family's no-fault run (counting or ranked).
family = lambda name: "ranked-no-fault" if name.startswith("ranked-") else "no-fault"
base = {f: statistics.median(d["p99_us"] for d in runs[f]) for f in {family(n) for n in runs}}
per_query = lambda ds: sum(d["requests"] for d in ds) / sum(d["queries"] for d in ds)
fanout = {f: per_query(runs[f]) for f in base}  # requests per query without hedging
# Work: requests that ran. A tied twin cancelled before it started did no
# work; one that started anyway did (tied_both_started).
worked = lambda ds: sum(d["requests"] - d.get("tied_cancelled", 0) + d.get("tied_both_started", 0)
                        for d in ds) / sum(d["queries"] for d in ds)
print("median over %d rounds:" % len(runs["no-fault"]))
print("%-34s %9s %9s %11s %8s %10s %8s %8s  %s" % ("config", "p50 us", "p95 us", "p99 us", "p99/nf", "+requests",
      "+work", "partial", "requests by server port"))
for name, ds in runs.items():
    med = lambda k: statistics.median(d[k] for d in ds)
    by = {}
    for d in ds:
        for server, n in d.get("requests_by_server", {}).items():
            port = server.rsplit(":", 1)[-1]
            by[port] = by.get(port, 0) + n
    print("%-34s %9.1f %9.1f %11.1f %8.2f %9.1f%% %7.1f%% %8.0f  %s" % (name, med("p50_us"), med("p95_us"),
          med("p99_us"), med("p99_us") / base[family(name)], 100 * (per_query(ds) / fanout[family(name)] - 1),
          100 * (worked(ds) / fanout[family(name)] - 1), med("partial_results"),
          " ".join("%s:%d" % kv for kv in sorted(by.items()))))
PY
