#!/usr/bin/env bash
# ZooKeeper cluster figures (issue 22, bench/RESULTS.md "ZooKeeper cluster"):
#  1. ZooKeeper off the query path: the same 4 servers (tablets 0-3 on A
#     and C, 4-7 on B and D, registered in ZooKeeper) benched through a
#     cluster file and through --zookeeper, alternately, ROUNDS rounds of
#     REPEAT passes over the queries; medians of p50 and p99.
#  2. Assignment: 4 servers `--assign --replicas 2`; KILLS times, kill -9
#     one (not the manager's successor chosen: the last started), then
#     time from the kill to every tablet back on 2 live replicas (`cluster
#     status` polled every 20 ms) and to the first complete answer of a
#     fresh `query --zookeeper` started after the kill (polled: each ends
#     exit 0 with the --index count of the first query that matches, or is
#     retried); a server is started in
#     its place and the cluster reassigned before the next kill.
#   bench/zookeeper.sh CORPUS.jsonl QUERIES.tsv [WORKDIR]
# Env: DPSEARCH (binary, default build/dpsearch), ROUNDS (5), REPEAT (3),
# KILLS (5), SESSION (ZooKeeper session timeout in ms, 2000), SKIP_LATENCY
# (1: part 2 only).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
corpus=$1 queries=$2 work=${3:-$(mktemp -d)}
rounds=${ROUNDS:-5} repeat=${REPEAT:-3} kills=${KILLS:-5} session=${SESSION:-2000}
zk_sh=$here/tests/testing/zookeeper.sh
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; bash "$zk_sh" stop "$work/zk"; }
trap cleanup EXIT
mkdir -p "$work"
port=$(bash "$zk_sh" start "$work/zk")
[ -d "$work/idx" ] || "$bin" ingest --index "$work/idx" --bins 32 --tablets 8 "$corpus" 2>/dev/null
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# serve NAME PATH ARGS...: a server on a free port; its address in $NAME.
serve() {
  local name=$1 path=$2 log="$work/$1.log" p=""
  shift 2
  "$bin" serve --index "$work/idx" --listen 127.0.0.1:0 --threads 1 --zookeeper "127.0.0.1:$port/$path" \
    --zookeeper-session "$session" "$@" 2>"$log" &
  pids+=($!)
  for _ in $(seq 100); do
    p=$(sed -n 's/^dpsearch serve: registered as .*\/servers\/127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")
    [ -n "$p" ] && break
    sleep 0.1
  done
  [ -n "$p" ] || { echo "server $name did not register" >&2; cat "$log" >&2; exit 1; }
  printf -v "$name" '127.0.0.1:%s' "$p"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

if [ "${SKIP_LATENCY:-0}" != 1 ]; then
echo "== 1. query latency: cluster file vs --zookeeper (same servers, $rounds rounds x $repeat passes)"
serve A latency --tablets 0-3; serve B latency --tablets 4-7; serve C latency --tablets 0-3; serve D latency --tablets 4-7
printf '0-3 %s %s\n4-7 %s %s\n' "$A" "$C" "$B" "$D" > "$work/cluster.txt"
for r in $(seq "$rounds"); do
  "$bin" bench --cluster "$work/cluster.txt" --queries "$queries" --repeat "$repeat" --json > "$work/file.$r.json"
  "$bin" bench --zookeeper "127.0.0.1:$port/latency" --queries "$queries" --repeat "$repeat" --json > "$work/zk.$r.json"
done
for mode in file zk; do
  for f in p50_us p99_us; do
    printf '%s %s median %s us (rounds: %s)\n' "$mode" "$f" \
      "$(for r in $(seq "$rounds"); do field "$work/$mode.$r.json" $f; done | median)" \
      "$(for r in $(seq "$rounds"); do field "$work/$mode.$r.json" $f; done | tr '\n' ' ')"
  done
done
for p in "${pids[@]}"; do kill "$p"; done
pids=()
fi

echo "== 2. --assign --replicas 2, 4 servers, session timeout $session ms, $kills kills"
azk=127.0.0.1:$port/assign
# The first query that matches something: its count is the complete answer.
while IFS=$'\t' read -r _ q1 _; do
  want=$("$bin" query --index "$work/idx" --count "$q1" 2>/dev/null) && break
done < "$queries"
assigned() {  # every tablet on 2 live replicas of $1 servers
  "$bin" cluster status --zookeeper "$azk" > "$work/status" 2>&1 &&
    grep -q "^$1 servers, .* 2 replicas wanted" "$work/status" && ! grep -q "under-replicated\|NO LIVE\|tablets none" "$work/status"
}
serve S1 assign --assign --replicas 2; serve S2 assign --assign; serve S3 assign --assign; serve S4 assign --assign
until assigned 4; do sleep 0.05; done
last=${pids[-1]}
: > "$work/reassigned.txt"; : > "$work/answered.txt"
for k in $(seq "$kills"); do
  kill -9 "$last"; t0=$(now_ms)
  # First complete answer from a coordinator started after the kill.
  while true; do
    got=$("$bin" query --zookeeper "$azk" --zookeeper-session "$session" --count --deadline 2000 "$q1" 2>/dev/null) && rc=0 || rc=$?
    [ "$rc" = 0 ] && [ "$got" = "$want" ] && break
  done
  echo $(( $(now_ms) - t0 )) >> "$work/answered.txt"
  until assigned 3; do sleep 0.02; done
  echo $(( $(now_ms) - t0 )) >> "$work/reassigned.txt"
  echo "kill $k: first complete answer $(tail -1 "$work/answered.txt") ms, reassigned $(tail -1 "$work/reassigned.txt") ms"
  serve N$k assign --assign
  last=${pids[-1]}
  until assigned 4; do sleep 0.05; done
done
echo "kill-to-first-complete-answer median $(median < "$work/answered.txt") ms; kill-to-reassigned median $(median < "$work/reassigned.txt") ms (session timeout $session ms)"
