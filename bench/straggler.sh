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
# Env: DPSEARCH (binary), SHAPE (mild, harsh, or both: the whole
# experiment, one after the other), PROB, REPEAT (passes over the queries per
# round, default 1), ROUNDS (default 1), TOP (the ranked runs' K, default
# 10; 0: no ranked runs), REPORT_DIR (HTML reports, from the last round),
# POLICIES (replica policies run alone and with hedging, default "first
# random adaptive"), TIED_POLICIES (those also run with --tied: both twins
# at once, the second after TIED_DELAY (pNN, the default p90, or ms)
# unless the first started, and that with hedging; default "first
# adaptive"), HEDGES (the --hedge-after values of the hedged runs, each
# its own configuration, default "p95"; e.g. "p95 p90"), SIMULATE (default 1: each
# configuration also simulated by `dpsearch simulate` from the no-fault
# runs' samples, measured and simulated p50 and p99 side by side; SIM_CORES
# passes --cores to those simulations, SIM_WARMTH --warmth, e.g. 1,1,2 as
# fitted on this machine: docs/SIMULATOR.md "Warmth"),
# OPEN_SECONDS (default 0: none; else open-loop runs of that many seconds,
# no fault and adaptive + hedge p95 with the fault, at the closed loop's
# own throughput and at 50% and 80% of the capacity measured with 8
# clients, p99.9 and the closed loop beside them), FANOUT (default
# "4,8,16,32,64,128,256,512,1000": widths `dpsearch simulate` predicts from
# the samples, every server holding a tablet back 100 ms with probability
# FANOUT_PROB, default 0.005: about 1 request in 100). With REPORT_DIR, the
# whole experiment on one page: REPORT_DIR/straggler.html (dpsearch report).
# SIMULATE_ONLY=1 measures nothing: it reads WORKDIR's straggler.jsonl,
# samples and cluster.txt from an earlier run and prints its tables and the
# comparison with `dpsearch simulate` again (to fit SIM_CORES or SIM_WARMTH
# to a machine without measuring anew).
# SERVERS (default 4; or 8, with DISCOVERY=file): at 8 servers mild puts
# tablet i on servers i+1 and i+2 (mod 8; server 1, the slow one, holds
# tablets 0 and 7, each request one tablet: PROB 0.05 is ~5% of its
# requests) and harsh puts 0-1, 2-3, 4-5, 6-7 on servers 1+5, 2+6, 3+7,
# 4+8 (server 1's 2-tablet requests: PROB 0.097 is ~18.5% of them).
# DISCOVERY (default file): zookeeper runs the same experiment on a
# ZooKeeper-discovered cluster (issue 22): a ZooKeeper on loopback
# (tests/testing/zookeeper.sh, in WORKDIR/zk), each server started with
# --tablets (its ranges: mild 0-1,6-7 / 0-3 / 2-5 / 4-7, harsh 0-3 / 4-7 /
# 0-3 / 4-7) and --zookeeper, and every bench with --zookeeper instead of
# --cluster; the rest is the same. Discovery lists each range's replicas
# sorted by address, which here is port order: harsh keeps the file's
# order, but mild's 6-7 becomes server 1 (the slow one) then 4, so
# --replica-policy first (and first + hedge / tied) sends server 1 two
# requests of each query instead of one, and WORKDIR/cluster.txt (what
# `simulate` models) is written in that order.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
corpus=${1:?usage: straggler.sh CORPUS QUERIES [WORKDIR]}
queries=${2:?usage: straggler.sh CORPUS QUERIES [WORKDIR]}
work=${3:-$(mktemp -d)}
shape=${SHAPE:-mild}
if [ "$shape" = both ]; then
  # The whole experiment: each shape in its own work directory (one
  # index, ingested once), its page REPORT_DIR/<shape>/straggler.html.
  mkdir -p "$work"
  if [ "${SIMULATE_ONLY:-0}" != 1 ] && [ ! -f "$work/index/MANIFEST" ]; then
    "$bin" ingest --index "$work/index" --bins 16 --tablets 8 --no-store-text "$corpus" >&2
  fi
  for s in mild harsh; do
    mkdir -p "$work/$s"
    [ -e "$work/$s/index" ] || ln -s ../index "$work/$s/index"
    SHAPE=$s REPORT_DIR=${REPORT_DIR:+$REPORT_DIR/$s} bash "$0" "$corpus" "$queries" "$work/$s"
  done
  exit 0
fi
[ -n "${REPORT_DIR:-}" ] && mkdir -p "$REPORT_DIR"
servers=${SERVERS:-4}
case "$servers" in
  4) case "$shape" in mild) prob=${PROB:-0.025} ;; harsh) prob=${PROB:-0.05} ;; esac ;;
  8) case "$shape" in mild) prob=${PROB:-0.05} ;; harsh) prob=${PROB:-0.097} ;; esac ;;
  *) echo "straggler.sh: SERVERS=$servers: expected 4 or 8" >&2; exit 2 ;;
esac
case "$shape" in
  mild | harsh) ;;
  *) echo "straggler.sh: SHAPE=$shape: expected mild, harsh or both" >&2; exit 2 ;;
esac
repeat=${REPEAT:-1}
policies=${POLICIES:-first random adaptive}
tied_policies=${TIED_POLICIES:-first adaptive}
tied_delay=${TIED_DELAY:-p90}
case "$tied_delay" in p*) tied_name=$tied_delay ;; *) tied_name=${tied_delay}ms ;; esac  # as simulate's +tied-...
hedges=${HEDGES:-p95}  # the closed-loop runs' --hedge-after values (pNN or ms), each a configuration
rounds=${ROUNDS:-1}
top=${TOP:-10}
discovery=${DISCOVERY:-file}
case "$discovery" in
  file | zookeeper) ;;
  *) echo "straggler.sh: DISCOVERY=$discovery: expected file or zookeeper" >&2; exit 2 ;;
esac
if [ "$discovery" = zookeeper ] && [ "$servers" != 4 ]; then
  echo "straggler.sh: DISCOVERY=zookeeper runs 4 servers only" >&2; exit 2
fi
mkdir -p "$work"
simulate_only=${SIMULATE_ONLY:-0}
if [ "$simulate_only" = 1 ] && { [ ! -s "$work/straggler.jsonl" ] || [ ! -s "$work/cluster.txt" ]; }; then
  echo "straggler.sh: SIMULATE_ONLY=1 needs $work/straggler.jsonl and cluster.txt from a measured run" >&2
  exit 2
fi
if [ "$simulate_only" != 1 ]; then  # the measurement (SIMULATE_ONLY=1: its files are reused)
if [ ! -f "$work/index/MANIFEST" ]; then
  "$bin" ingest --index "$work/index" --bins 16 --tablets 8 --no-store-text "$corpus" >&2
fi
base=$((7800 + RANDOM % 100))
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }
trap stop EXIT
source=(--cluster "$work/cluster.txt")  # where bench finds the servers
if [ "$discovery" = zookeeper ]; then
  zk_sh=$here/tests/testing/zookeeper.sh
  trap 'stop; bash "$zk_sh" stop "$work/zk"' EXIT
  zk=127.0.0.1:$(bash "$zk_sh" start "$work/zk")/straggler
  source=(--zookeeper "$zk")
  if [ "$shape" = mild ]; then hosted=(- 0-1,6-7 0-3 2-5 4-7); else hosted=(- 0-3 4-7 0-3 4-7); fi
fi
start() {  # start FAULT: 1 = server 1 injects delays
  stop
  for i in $(seq "$servers"); do
    extra=()
    [ "$1" = 1 ] && [ "$i" = 1 ] && extra=(--inject-delay "*:$prob:100")
    [ "$discovery" = zookeeper ] && extra+=(--tablets "${hosted[$i]}" --zookeeper "$zk")
    "$bin" serve --index "$work/index" --listen "127.0.0.1:$((base + i))" --threads 1 "${extra[@]}" 2>>"$work/servers.log" &
    pids+=($!)
  done
  sleep 0.5
  if [ "$discovery" = zookeeper ]; then  # until the 4 servers are registered, every range on 2
    local n=0
    until "$bin" cluster status --zookeeper "$zk" --timeout 2000 > "$work/status" 2>&1 &&
        grep -q '^4 servers' "$work/status" && ! grep -q '^tablets .*: \(1 replica \|NO LIVE\)' "$work/status"; do
      n=$((n + 1))
      [ "$n" -lt 100 ] || { echo "straggler.sh: the servers did not register" >&2; cat "$work/status" >&2; exit 1; }
      sleep 0.1
    done
  fi
}
if [ "$servers" = 8 ]; then
  if [ "$shape" = mild ]; then
    for t in 0 1 2 3 4 5 6 7; do echo "$t 127.0.0.1:$((base + 1 + t)) 127.0.0.1:$((base + 1 + (t + 1) % 8))"; done
  else
    for r in 0 1 2 3; do echo "$((2 * r))-$((2 * r + 1)) 127.0.0.1:$((base + 1 + r)) 127.0.0.1:$((base + 5 + r))"; done
  fi
elif [ "$shape" = mild ]; then
  echo "0-1 127.0.0.1:$((base + 1)) 127.0.0.1:$((base + 2))"
  echo "2-3 127.0.0.1:$((base + 2)) 127.0.0.1:$((base + 3))"
  echo "4-5 127.0.0.1:$((base + 3)) 127.0.0.1:$((base + 4))"
  echo "6-7 127.0.0.1:$((base + 4)) 127.0.0.1:$((base + 1))"
else  # A = server 1 (the slow one, listed first), B = 2, C = 3, D = 4
  echo "0-3 127.0.0.1:$((base + 1)) 127.0.0.1:$((base + 3))"
  echo "4-7 127.0.0.1:$((base + 2)) 127.0.0.1:$((base + 4))"
fi > "$work/cluster.txt"
if [ "$discovery" = zookeeper ]; then  # the replicas in discovery's order (sorted), for simulate
  while read -r tablets replicas; do
    echo "$tablets $(printf '%s\n' $replicas | sort | paste -sd ' ')"
  done < "$work/cluster.txt" > "$work/cluster.sorted" && mv "$work/cluster.sorted" "$work/cluster.txt"
fi
run() {  # run NAME ARGS...
  local name=$1; shift
  local report=()
  [ -n "${REPORT_DIR:-}" ] && report=(--report "$REPORT_DIR/straggler-$name.html")
  local passes=(--repeat "$repeat") a
  for a in "$@"; do [ "$a" = --duration ] && passes=(); done  # open-loop runs last --duration
  printf '{"config":"%s","round":%d,' "$name" "$round"
  "$bin" bench "${source[@]}" --queries "$queries" "${passes[@]}" --json "${report[@]}" "$@" | sed 's/^{//'
}
# ranked NAME ARGS...: the same configuration ranked (named ranked-NAME).
ranked() {
  local name=$1; shift
  if [ "$top" != 0 ]; then run "ranked-$name" --top "$top" "$@"; fi
}
for round in $(seq "$rounds"); do
  start 0
  run no-fault --samples "$work/samples-count-$round.tsv"
  ranked no-fault --samples "$work/samples-ranked-$round.tsv"
  start 1
  for policy in $policies; do
    run "fault-$policy" --replica-policy "$policy"
    ranked "fault-$policy" --replica-policy "$policy"
    for hedge in $hedges; do
      run "fault-$policy-hedge-$hedge" --replica-policy "$policy" --hedge-after "$hedge"
      ranked "fault-$policy-hedge-$hedge" --replica-policy "$policy" --hedge-after "$hedge"
    done
  done
  for policy in $tied_policies; do
    run "fault-$policy-tied" --replica-policy "$policy" --tied
    ranked "fault-$policy-tied" --replica-policy "$policy" --tied
    run "fault-$policy-tied-$tied_name" --replica-policy "$policy" --tied --tied-delay "$tied_delay"
    ranked "fault-$policy-tied-$tied_name" --replica-policy "$policy" --tied --tied-delay "$tied_delay"
    for hedge in $hedges; do
      run "fault-$policy-tied-$tied_name-hedge-$hedge" --replica-policy "$policy" --tied --tied-delay "$tied_delay" --hedge-after "$hedge"
      ranked "fault-$policy-tied-$tied_name-hedge-$hedge" --replica-policy "$policy" --tied --tied-delay "$tied_delay" --hedge-after "$hedge"
    done
  done
  run fault-deadline-50ms --deadline 50
  ranked fault-deadline-50ms --deadline 50
done > "$work/straggler.jsonl"  # not a pipe: the servers would hold it open
# Open loop (no coordinated omission): the same throughput as the closed
# loop of one client, then 50% and 80% of the capacity 8 clients reach.
open_seconds=${OPEN_SECONDS:-0}
if [ "$open_seconds" != 0 ]; then
  round=0
  start 0
  qps() { python3 -c 'import json,sys; print(json.loads("{" + sys.stdin.read().split(",",2)[2])["achieved_qps"])'; }
  # Capacity: the most any closed loop of 1 to 8 clients answers.
  cap=0
  for c in 1 2 4 8; do
    got=$(run "capacity-$c" --concurrency "$c" | qps)
    cap=$(python3 -c "print(max($cap, $got))")
  done
  closed=$(run closed-1 | qps)
  rates="$closed $(python3 -c "print($cap*0.5, $cap*0.8)")"
  {
    printf '{"config":"capacity","round":0,"achieved_qps":%s}\n' "$cap"
    run closed-1-client
    for r in $rates; do
      run "open-$(printf %.0f "$r")qps" --rate "$r" --duration "$open_seconds" --max-in-flight 32
    done
    start 1
    run fault-adaptive-hedge-p95-closed-1-client --hedge-after p95
    for r in $rates; do
      run "fault-adaptive-hedge-p95-open-$(printf %.0f "$r")qps" --hedge-after p95 --rate "$r" --duration "$open_seconds" --max-in-flight 32
    done
  } > "$work/open.jsonl"
fi
stop
fi  # the measurement
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
# Wasted bins: bins a replica ran to their end whose answer went unused,
# against the bins answered (bench's wasted_bins and bins; "-" from a
# binary without them).
def wasted(ds):
    if any("wasted_bins" not in d for d in ds): return "-"
    return "%.1f%%" % (100 * sum(d["wasted_bins"] for d in ds) / max(1, sum(d["bins"] for d in ds)))
print("median over %d rounds:" % len(runs["no-fault"]))
print("%-34s %9s %9s %11s %8s %10s %8s %8s %8s  %s" % ("config", "p50 us", "p95 us", "p99 us", "p99/nf", "+requests",
      "+work", "+bins", "partial", "requests by server port"))
for name, ds in runs.items():
    med = lambda k: statistics.median(d[k] for d in ds)
    by = {}
    for d in ds:
        for server, n in d.get("requests_by_server", {}).items():
            port = server.rsplit(":", 1)[-1]
            by[port] = by.get(port, 0) + n
    print("%-34s %9.1f %9.1f %11.1f %8.2f %9.1f%% %7.1f%% %8s %8.0f  %s" % (name, med("p50_us"), med("p95_us"),
          med("p99_us"), med("p99_us") / base[family(name)], 100 * (per_query(ds) / fanout[family(name)] - 1),
          100 * (worked(ds) / fanout[family(name)] - 1), wasted(ds), med("partial_results"),
          " ".join("%s:%d" % kv for kv in sorted(by.items()))))
PY
if [ -s "$work/open.jsonl" ]; then
  python3 - "$work/open.jsonl" <<'PY' >&2
import json, sys
print("\nopen loop (latency from each query's due time) beside the closed loop:")
print("%-46s %10s %9s %9s %10s %10s %11s" % ("config", "qps", "p50 us", "p99 us", "p99.9 us", "lag p99", "service p99"))
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "p50_us" not in d:
        print("%-46s %10.1f" % (d["config"], d["achieved_qps"]))
        continue
    print("%-46s %10.1f %9.1f %9.1f %10.1f %10.1f %11.1f" % (d["config"], d["achieved_qps"], d["p50_us"], d["p99_us"],
          d["p999_us"], d.get("start_lag_p99_us", 0), d.get("service_p99_us", 0)))
PY
fi
if [ "${SIMULATE:-1}" = 1 ]; then
  python3 - "$work/straggler.jsonl" "$bin" "$work" "$prob" <<'PY' >&2
import json, os, statistics, subprocess, sys
jsonl, binary, work, prob = sys.argv[1:5]
runs = {}
for line in open(jsonl):
    d = json.loads(line)
    runs.setdefault(d["config"], []).append(d)
wasted = lambda ds: ("-" if any("wasted_bins" not in d for d in ds) else  # as in the table above
                     "%.1f%%" % (100 * sum(d["wasted_bins"] for d in ds) / max(1, sum(d["bins"] for d in ds))))
def policy_of(name):
    name = name.replace("ranked-", "")
    if name == "no-fault":
        return "adaptive", False
    if name == "fault-deadline-50ms":
        return "adaptive+deadline-50", True
    rest = name[len("fault-"):]
    parts = rest.split("-")
    pol = parts[0]
    tied = ""
    if "tied" in parts:
        after = parts[parts.index("tied") + 1] if parts.index("tied") + 1 < len(parts) else ""
        tied = "+tied-" + after if after.endswith("ms") or after.startswith("p") else "+tied"
    hedge = ""
    if "hedge" in parts:  # HEDGES: pNN as it is, milliseconds as simulate's MSms
        after = parts[parts.index("hedge") + 1]
        hedge = "+hedge-" + (after if after.startswith("p") else after + "ms")
    return pol + tied + hedge, True
# Each round's runs are simulated from that round's own no-fault samples
# (measured minutes before them), so a noisy spell on this shared machine
# weighs on the measurement and on its simulation alike; the medians over
# rounds (and 3 seeds) are compared. The fan-out curves take the round
# whose no-fault p50 is the median.
def median_round(name):
    ds = sorted(runs[name], key=lambda d: d["p50_us"])
    return ds[(len(ds) - 1) // 2]["round"]
open("%s/sample-round" % work, "w").write("%d\n" % median_round("no-fault"))
print("\nmeasured against `dpsearch simulate` (medians over rounds; each round simulated from its own")
print("no-fault samples with 3 seeds; * more than 15% apart):")
print("%-40s %10s %10s %6s %10s %10s %6s %9s %9s" % ("config", "p50 meas", "p50 sim", "sim/m", "p99 meas", "p99 sim", "sim/m",
      "+work m", "+work sim"))
close = {"p50": 0, "p99": 0}
for name, ds in runs.items():
    policy, faulted = policy_of(name)
    family = "ranked" if name.startswith("ranked-") else "count"
    sims = []
    for d in ds:
        for seed in (1, 2, 3):
            cmd = [binary, "simulate", "--samples", "%s/samples-%s-%d.tsv" % (work, family, d["round"]),
                   "--cluster", "%s/cluster.txt" % work, "--policy", policy,
                   "--queries", str(d["queries"] + d["errors"]), "--seed", str(seed), "--json"]
            if faulted:
                cmd += ["--server-delay", "0:%s:100" % prob]
            if os.environ.get("SIM_CORES"):
                cmd += ["--cores", os.environ["SIM_CORES"]]
            if os.environ.get("SIM_WARMTH"):
                cmd += ["--warmth", os.environ["SIM_WARMTH"]]
            sims.append(json.loads(subprocess.check_output(cmd))["rows"][0])
    row = []
    for p in ("p50", "p99"):
        m = statistics.median(d[p + "_us"] for d in ds)
        sim = statistics.median(x[p + "_us"] for x in sims)
        near = abs(sim / m - 1) <= 0.15
        close[p] += near
        row += [m, sim, sim / m, " " if near else "*"]
    # Work beyond one run of each planned tablet: measured in bins (wasted
    # bins against bins answered: a lower bound, as bench sees no bin that
    # ends after its query, nor one cut short by the cancel), simulated in
    # tablets (extra_work: every run begun).
    work_sim = "%.1f%%" % (100 * statistics.median(x["extra_work"] for x in sims))
    print("%-40s %10.1f %10.1f %5.2f%s %10.1f %10.1f %5.2f%s %9s %9s" % (name, *row, wasted(ds), work_sim))
print("within 15%%: p50 %d of %d configurations, p99 %d of %d" % (close["p50"], len(runs), close["p99"], len(runs)))
PY
fi
if [ -n "${REPORT_DIR:-}" ]; then
  "$bin" simulate --samples "$work/samples-count-$(cat "$work/sample-round" 2>/dev/null || echo 1).tsv" --servers "${FANOUT:-4,8,16,32,64,128,256,512,1000}" \
    --server-delay "*:${FANOUT_PROB:-0.005}:100" --queries 2000 --json > "$work/fanout.json"
  inputs=("$work/straggler.jsonl" "$work/fanout.json")
  [ -s "$work/open.jsonl" ] && inputs+=("$work/open.jsonl")
  "$bin" report --title "dpsearch straggler experiment ($shape)" --out "$REPORT_DIR/straggler.html" "${inputs[@]}"
fi
