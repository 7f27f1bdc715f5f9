#!/usr/bin/env bash
# Loopback overhead of remote shards (issue 5): the same queries through
# in-process shards and through `dpsearch serve` on 127.0.0.1 (one server
# holding all 8 tablets, and 4 servers holding 2 each), for an empty query
# (a term absent from the index) and a 1,000-result query with results
# fetched (ids and titles). Prints one line per (query, setup) with p50/p99.
#   bench/loopback.sh CORPUS.jsonl WORKDIR [EMPTY_QUERY] [THOUSAND_QUERY]
# WORKDIR/index is built (8 tablets) when missing; straggler.sh's can be shared.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
corpus=${1:?usage: loopback.sh CORPUS WORKDIR [EMPTY_QUERY] [THOUSAND_QUERY]}
work=${2:?usage: loopback.sh CORPUS WORKDIR [EMPTY_QUERY] [THOUSAND_QUERY]}
empty=${3:-qqzzxjv}
thousand=${4:-horse}
repeat=${REPEAT:-2000}
mkdir -p "$work"
if [ ! -f "$work/index/MANIFEST" ]; then
  "$bin" ingest --index "$work/index" --bins 16 --tablets 8 --no-store-text "$corpus" >&2
fi
echo "# '$thousand' matches $("$bin" query --index "$work/index" --count "$thousand") documents" >&2

base=$((7700 + RANDOM % 100))
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }
trap stop EXIT
# The single server gets as many threads as in-process shards use (all cores).
for i in 0 1 2 3 4; do
  threads=1
  [ "$i" = 0 ] && threads=$(nproc)
  "$bin" serve --index "$work/index" --listen "127.0.0.1:$((base + i))" --threads "$threads" 2>>"$work/servers.log" &
  pids+=($!)
done
sleep 0.5
echo "0-7 127.0.0.1:$base" > "$work/one-server.txt"
for i in 1 2 3 4; do echo "$((2 * i - 2))-$((2 * i - 1)) 127.0.0.1:$((base + i))"; done > "$work/four-servers.txt"

summary() {
  python3 -c 'import json,sys; d=json.load(sys.stdin); print("p50_us=%.1f p99_us=%.1f" % (d["p50_us"], d["p99_us"]))'
}
for q in "$empty" "$thousand"; do
  printf 'q\t%s\n' "$q" > "$work/one-query.tsv"
  for setup in in-process one-server four-servers; do
    case $setup in
      in-process) target=(--index "$work/index") ;;
      *) target=(--cluster "$work/$setup.txt") ;;
    esac
    printf '%-10s %-13s ' "$q" "$setup"
    "$bin" bench "${target[@]}" --queries "$work/one-query.tsv" --repeat "$repeat" --fetch --json | summary
  done
done
