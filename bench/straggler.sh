#!/usr/bin/env bash
# The straggler experiment of issue 5: 8 tablets over 4 shard servers on
# loopback, 2 replicas each; server 1 delays 100 ms on a fraction of its
# requests. Runs `dpsearch bench` with no fault, with the fault and no
# mitigation, with --hedge-after p95, and with --deadline 50, and prints one
# JSON line per configuration.
#   bench/straggler.sh CORPUS.jsonl QUERIES.tsv [WORKDIR]
# Env: DPSEARCH (binary), PROB (per-tablet delay probability, default 0.025:
# each request to server 1 covers 2 tablets, so ~5% of its requests),
# REPEAT (passes over the queries, default 1), REPORT_DIR (HTML reports).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
corpus=${1:?usage: straggler.sh CORPUS QUERIES [WORKDIR]}
queries=${2:?usage: straggler.sh CORPUS QUERIES [WORKDIR]}
work=${3:-$(mktemp -d)}
prob=${PROB:-0.025}
repeat=${REPEAT:-1}
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
{
  echo "0-1 127.0.0.1:$((base + 1)) 127.0.0.1:$((base + 2))"
  echo "2-3 127.0.0.1:$((base + 2)) 127.0.0.1:$((base + 3))"
  echo "4-5 127.0.0.1:$((base + 3)) 127.0.0.1:$((base + 4))"
  echo "6-7 127.0.0.1:$((base + 4)) 127.0.0.1:$((base + 1))"
} > "$work/cluster.txt"
run() {  # run NAME ARGS...
  local name=$1; shift
  local report=()
  [ -n "${REPORT_DIR:-}" ] && report=(--report "$REPORT_DIR/straggler-$name.html")
  printf '{"config":"%s",' "$name"
  "$bin" bench --cluster "$work/cluster.txt" --queries "$queries" --repeat "$repeat" --json "${report[@]}" "$@" | sed 's/^{//'
}
start 0
run no-fault
start 1
run fault
run fault-hedge-p95 --hedge-after p95
run fault-deadline-50ms --deadline 50
