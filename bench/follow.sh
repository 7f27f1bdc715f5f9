#!/usr/bin/env bash
# Servers that follow the index (issue 22). Two figures, on loopback:
#  1. query latency with and without the follower: the same query through
#     4 servers with --follow-interval 0 and 4 with 250 ms (both at the
#     index's first generation), alternated (A B A B ...) in one run so that
#     the shared machine's noise falls on both.
#  2. commit to visible: the 4 following servers (2 ranges x 2 replicas);
#     COMMITS times, a small batch is ingested (each document with a word of
#     its own) and, from the moment the commit renames the MANIFEST, `query
#     --cluster --count` is polled until every server answers it (two
#     cluster files: the first replicas, the second ones); prints each time
#     and the median.
#   bench/follow.sh CORPUS.jsonl WORKDIR [QUERY]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
corpus=${1:?usage: follow.sh CORPUS WORKDIR [QUERY]}
work=${2:?usage: follow.sh CORPUS WORKDIR [QUERY]}
query=${3:-horse}
commits=${COMMITS:-7}
repeat=${REPEAT:-2000}
rounds=${ROUNDS:-3}
mkdir -p "$work"
rm -rf "$work/index"
"$bin" ingest --index "$work/index" --bins 16 --tablets 8 --no-store-text "$corpus" >&2 2>/dev/null

base=$((7800 + RANDOM % 100))
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; pids=(); }
trap stop EXIT
# Servers 0-3 follow (250 ms), 4-7 do not; each cluster: 0-3 and 4-7 on two replicas.
for i in 0 1 2 3 4 5 6 7; do
  follow=250
  [ "$i" -ge 4 ] && follow=0
  tablets=0-3
  [ $((i % 2)) = 1 ] && tablets=4-7
  "$bin" serve --index "$work/index" --tablets "$tablets" --listen "127.0.0.1:$((base + i))" --threads 1 \
    --follow-interval "$follow" 2>>"$work/servers.log" &
  pids+=($!)
done
sleep 1
printf '0-3 127.0.0.1:%d 127.0.0.1:%d\n4-7 127.0.0.1:%d 127.0.0.1:%d\n' \
  $base $((base + 2)) $((base + 1)) $((base + 3)) > "$work/following.txt"
printf '0-3 127.0.0.1:%d 127.0.0.1:%d\n4-7 127.0.0.1:%d 127.0.0.1:%d\n' \
  $((base + 4)) $((base + 6)) $((base + 5)) $((base + 7)) > "$work/static.txt"
# Every following server, each in one of two cluster files.
printf '0-3 127.0.0.1:%d\n4-7 127.0.0.1:%d\n' $base $((base + 1)) > "$work/first-replicas.txt"
printf '0-3 127.0.0.1:%d\n4-7 127.0.0.1:%d\n' $((base + 2)) $((base + 3)) > "$work/second-replicas.txt"

summary() {
  python3 -c 'import json,sys; d=json.load(sys.stdin); print("p50_us=%.1f p99_us=%.1f generations=%s" % (d["p50_us"], d["p99_us"], d["queries_by_generation"]))'
}
printf 'q\t%s\n' "$query" > "$work/one-query.tsv"
for r in $(seq 1 "$rounds"); do
  for setup in static following; do
    printf 'round %d %-10s ' "$r" "$setup"
    "$bin" bench --cluster "$work/$setup.txt" --queries "$work/one-query.tsv" --repeat "$repeat" --fetch --json | summary
  done
done

now_ms() { date +%s%3N; }
times=()
for c in $(seq 1 "$commits"); do
  word="zqfollow$c"
  for d in $(seq 1 20); do printf '{"id":"follow-%d-%d","text":"%s batch %d"}\n' "$c" "$d" "$word" "$c"; done \
    > "$work/batch.jsonl"
  # The commit is the MANIFEST's rename: its inode changes.
  inode=$(stat -c %i "$work/index/MANIFEST")
  "$bin" ingest --index "$work/index" "$work/batch.jsonl" 2>/dev/null &
  ingest=$!
  while [ "$(stat -c %i "$work/index/MANIFEST")" = "$inode" ]; do :; done
  t0=$(now_ms)
  until [ "$("$bin" query --cluster "$work/first-replicas.txt" --count "$word" 2>/dev/null)" = 20 ] &&
        [ "$("$bin" query --cluster "$work/second-replicas.txt" --count "$word" 2>/dev/null)" = 20 ]; do
    sleep 0.01
  done
  times+=($(( $(now_ms) - t0 )))
  wait "$ingest"
  echo "commit $c: visible after ${times[-1]} ms" >&2
done
printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "commit to visible: median %d ms, min %d, max %d (n=%d)\n", a[int((NR + 1) / 2)], a[1], a[NR], NR }'

