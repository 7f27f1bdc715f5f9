#!/usr/bin/env bash
# Multi-host test: 4 shard servers, each in its own network namespace, and a
# coordinator in a fifth, joined by veth pairs to a bridge in a hub
# namespace. 8 tablets over the 4 servers with 2 replicas each; every query's
# answer through the cluster must equal the in-process one, also after one
# server is killed (failover). Needs root and iproute2's `ip`; otherwise it
# says why and skips (exit 77, ctest's SKIP_RETURN_CODE).
set -euo pipefail
bin=${1:?usage: netns_cluster_test.sh path/to/dpsearch}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "needs iproute2 (ip)"
tag="dps$$"
hub="${tag}hub"
nss=()
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for ns in "${nss[@]}" "$hub"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$hub" 2>/dev/null || skip "cannot create network namespaces here"
ip -n "$hub" link add br0 type bridge
ip -n "$hub" link set br0 up
for i in 1 2 3 4 5; do
  ns="${tag}n$i"
  ip netns add "$ns"
  nss+=("$ns")
  ip -n "$ns" link add eth0 type veth peer name "p$i" netns "$hub"
  ip -n "$hub" link set "p$i" master br0 up
  ip -n "$ns" addr add "10.77.0.$i/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
done

# A corpus of 3000 documents over a 300-word vocabulary (Zipf-like).
awk 'BEGIN { srand(7); for (d = 0; d < 3000; d++) { n = 5 + int(rand() * 40); t = "";
       for (k = 0; k < n; k++) { w = int(300 * rand() * rand()); t = t " w" w }
       printf "{\"id\":\"d%d\",\"title\":\"doc %d\",\"text\":\"%s\"}\n", d, d, t } }' > "$work/corpus.jsonl"
awk 'BEGIN { srand(11); for (q = 0; q < 200; q++) { n = 1 + int(rand() * 3); s = "";
       for (k = 0; k < n; k++) s = s " w" int(300 * rand() * rand());
       if (q % 10 == 0) s = s " -w" int(50 * rand());
       printf "q%d\t%s\n", q, s } }' > "$work/queries.tsv"
"$bin" ingest --index "$work/index" --bins 16 --tablets 8 "$work/corpus.jsonl" 2>/dev/null

# Server i (10.77.0.i) hosts tablets 2(i-1)..2i-1 and, as a replica, those of
# server i+1; the coordinator is 10.77.0.5.
for i in 1 2 3 4; do
  ip netns exec "${tag}n$i" "$bin" serve --index "$work/index" --listen "10.77.0.$i:7700" 2>"$work/server$i.log" &
  pids+=($!)
done
{
  for i in 1 2 3 4; do
    next=$(( i % 4 + 1 )); prev=$(( (i + 2) % 4 + 1 ))
    echo "$(( 2 * (i - 1) ))-$(( 2 * i - 1 )) 10.77.0.$i:7700 10.77.0.$prev:7700"
  done
} > "$work/cluster.txt"
for i in $(seq 50); do  # wait until every server listens
  ok=1
  for s in 1 2 3 4; do
    ip netns exec "${tag}n5" bash -c "exec 3<>/dev/tcp/10.77.0.$s/7700" 2>/dev/null || ok=0
  done
  [ $ok = 1 ] && break
  [ "$i" = 50 ] && { echo "FAIL: servers did not start"; cat "$work"/server*.log; exit 1; }
  sleep 0.1
done

coord() { ip netns exec "${tag}n5" "$bin" "$@"; }
"$bin" query --index "$work/index" --queries "$work/queries.tsv" | cut -f1,2 > "$work/local.tsv" || true
coord query --cluster "$work/cluster.txt" --queries "$work/queries.tsv" | cut -f1,2 > "$work/remote.tsv" || true
diff "$work/local.tsv" "$work/remote.tsv" || { echo "FAIL: cluster counts differ from in-process ones"; exit 1; }
[ "$(wc -l < "$work/local.tsv")" -eq 200 ] || { echo "FAIL: expected 200 answers"; exit 1; }
# Fetched results (ids) too, for a few queries.
for q in "w1 w2" "w3" "w0 -w1"; do
  "$bin" query --index "$work/index" --format tsv "$q" | cut -f1 | sort > "$work/l.ids" || true
  coord query --cluster "$work/cluster.txt" --format tsv "$q" | cut -f1 | sort > "$work/r.ids" || true
  diff -q "$work/l.ids" "$work/r.ids" >/dev/null || { echo "FAIL: ids differ for '$q'"; exit 1; }
done
# Kill server 2: its tablets fail over to their replica.
kill "${pids[1]}"
wait "${pids[1]}" 2>/dev/null || true
coord query --cluster "$work/cluster.txt" --queries "$work/queries.tsv" 2>"$work/failover.err" | cut -f1,2 > "$work/failover.tsv" || true
diff "$work/local.tsv" "$work/failover.tsv" || { echo "FAIL: answers differ after a server died"; exit 1; }
grep -q "10.77.0.2" "$work/failover.err" || { echo "FAIL: no failover was reported"; cat "$work/failover.err"; exit 1; }
echo "PASS: 4 servers in 4 namespaces, 200 queries equal in-process, failover after a kill"
