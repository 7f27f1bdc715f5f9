#!/usr/bin/env bash
# A shard server under hostile load (issue 21): a good client's latency with
# the server quiet, then with some 2,000 hostile connections held open
# (bench/hostile_clients.py: silent, idle, giant headers, slow readers that
# never read, and clients pipelining ANDs of 4,095 terms), and the server's
# RSS and open descriptors before, during and after.
# Usage: INDEX=DIR QUERIES=FILE WORD=TERM [DPSEARCH=build/dpsearch]
#        [SERVE_FLAGS='--max-connections 4096'] [SILENT=200 IDLE=800 GIANT=100 SLOW=800 HEAVY=2]
#        bench/hostile_server.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${DPSEARCH:-build/dpsearch}
index=${INDEX:?an index directory}
queries=${QUERIES:?a query file}
word=${WORD:?a common analyzed term of the index}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; cp "$work/serve.log" "${SERVE_LOG:-/dev/null}" 2>/dev/null; cp "$work/hostile.log" "${HOSTILE_LOG:-/dev/null}" 2>/dev/null; rm -rf "$work"' EXIT

# shellcheck disable=SC2086
"$bin" serve --index "$index" --listen 127.0.0.1:0 ${SERVE_FLAGS:---max-connections 4096} 2> "$work/serve.log" &
server=$!
for _ in $(seq 100); do grep -q ' on 127.0.0.1:' "$work/serve.log" && break; sleep 0.1; done
port=$(sed -n 's/.* on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/serve.log" | head -1)
tablets=$(awk '$1 == "tablet" { n++ } END { print n }' "$index/MANIFEST")
echo "0-$((tablets - 1)) 127.0.0.1:$port" > "$work/cluster"

sample() {  # label: the server's RSS (now, peak) and descriptors
  local rss hwm fds
  rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$server/status")
  hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$server/status")
  fds=$(ls "/proc/$server/fd" | wc -l)
  printf '%s %-28s RSS %7.1f MB (peak %7.1f MB), %5d descriptors\n' "$(date +%T)" "$1" "$(echo "$rss / 1024" | bc -l)" \
    "$(echo "$hwm / 1024" | bc -l)" "$fds"
}
p99() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['p50_us'], j['p99_us'], j['errors'])" "$1"; }
good() {
  "$bin" bench --cluster "$work/cluster" --queries "$queries" --repeat "${REPEAT:-3}" --allow-failures --json \
    > "$1" 2> "$1.err" || { echo "bench failed: $(tail -2 "$1.err")"; }
}

good "$work/warm.json"
sample "quiet"
good "$work/quiet.json"
python3 bench/hostile_clients.py "$port" --last-tablet $((tablets - 1)) --word "$word" --silent "${SILENT:-200}" \
  --idle "${IDLE:-800}" --giant "${GIANT:-100}" --slow "${SLOW:-800}" --heavy "${HEAVY:-2}" --hold "${HOLD:-90}" \
  > "$work/hostile.log" 2>&1 &
hostile=$!
sleep "${SETTLE:-15}"
sample "under attack"
good "$work/loaded.json"
sample "under attack, after bench"
kill "$hostile" 2>/dev/null || true; wait "$hostile" 2>/dev/null || true
sleep 2
sample "attack over"
read -r qp50 qp99 qerr < <(p99 "$work/quiet.json")
read -r lp50 lp99 lerr < <(p99 "$work/loaded.json")
echo "good client quiet:        p50 ${qp50} us, p99 ${qp99} us, ${qerr} errors"
echo "good client under attack: p50 ${lp50} us, p99 ${lp99} us, ${lerr} errors ($(echo "scale=2; $lp99 / $qp99" | bc)x the quiet p99)"
tail -1 "$work/hostile.log"
echo "server log: $(grep -c 'closing connection' "$work/serve.log") connections closed:"
sed -n 's/.*closing connection: \([a-z ]*\).*/\1/p' "$work/serve.log" | sed 's/ [0-9].*//' | sort | uniq -c
