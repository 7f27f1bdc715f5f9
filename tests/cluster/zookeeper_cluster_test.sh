#!/usr/bin/env bash
# A ZooKeeper cluster end to end: a real ZooKeeper (tests/testing/
# zookeeper.sh) and `dpsearch serve --zookeeper` processes on loopback.
# Discovery answers as the cluster file and --index do; `cluster status`
# shows servers, tablets and replicas and exits 4 when a tablet has no live
# replica; one long-lived `bench --zookeeper` keeps complete answers while
# a server is killed -9 (failover, then its node goes after the session
# timeout), a new server joins (and is asked, with no restart) and another
# is killed; coordinators keep answering while ZooKeeper restarts and
# after it loses every session, and the servers register again.
# Usage: zookeeper_cluster_test.sh path/to/dpsearch
SEED=11 source "$(dirname "$0")/zookeeper_test_helpers.sh" "$1"

# servers N: waits (at most 10 s) until `cluster status` lists N servers.
servers() {
  local i
  for i in $(seq 100); do
    "$bin" cluster status --zookeeper "$zk" > "$work/status" 2>&1
    grep -q "^$1 servers\?," "$work/status" && return 0
    sleep 0.1
  done
  flunk "expected $1 servers registered:"; cat "$work/status"; return 1
}
serve a "$work/idx" 0-3 "${zkflags[@]}"; pid_a=${pids[-1]}
serve b "$work/idx" 4-7 "${zkflags[@]}"; pid_b=${pids[-1]}
serve c "$work/idx" 0-7 "${zkflags[@]}"; pid_c=${pids[-1]}
servers 3

# Status: every server, its tablets and generation, each tablet's replicas.
q "status" 0 cluster status --zookeeper "$zk"
has "status: three servers" "$work/out" "3 servers, index "
has "status: a's tablets" "$work/out" "server $a generation 1 tablets 0-3"
has "status: c's tablets" "$work/out" "server $c generation 1 tablets 0-7"
has "status: 0-3 replicas" "$work/out" "tablets 0-3: 2 replicas $(printf '%s\n' "$a" "$c" | sort | tr '\n' ' ' | sed 's/ $//')"
has "status: 4-7 replicas" "$work/out" "tablets 4-7: 2 replicas $(printf '%s\n' "$b" "$c" | sort | tr '\n' ' ' | sed 's/ $//')"
q "status of an empty path" 4 cluster status --zookeeper "127.0.0.1:$zk_port/nothing"
has "status of an empty path: none" "$work/out" "0 servers"
q "status of no ZooKeeper" 3 cluster status --zookeeper 127.0.0.1:1/dps --timeout 300
has "status of no ZooKeeper: one line" "$work/err" "dpsearch: I/O error: --zookeeper 127.0.0.1:1/dps: ZooKeeper did not answer within 300 ms"
q "bad --zookeeper" 2 query --zookeeper 127.0.0.1/dps w1
has "bad --zookeeper: one line" "$work/err" "--zookeeper 127.0.0.1/dps: host '127.0.0.1' has no :PORT"

# Discovery answers as the cluster file and the index do.
printf '0-3 %s %s\n4-7 %s %s\n' "$a" "$c" "$b" "$c" > "$work/cluster.txt"
for query in w1 "w2 w3" "w10 -w1" "w5 OR w250"; do
  want=$("$bin" query --index "$work/idx" --count "$query" 2>/dev/null)
  q "discovered '$query'" 0 query "${zkflags[@]}" --count "$query"
  same "discovered '$query' = --index" "$want" "$(cat "$work/out")"
  same "discovered '$query' says nothing" "" "$(cat "$work/err")"
done
"$bin" query --cluster "$work/cluster.txt" --format jsonl "w3 w4" | sort > "$work/file.jsonl"
q "discovered jsonl" 0 query "${zkflags[@]}" --format jsonl "w3 w4"
same "discovered jsonl = cluster file's" "$(cat "$work/file.jsonl")" "$(sort "$work/out")"
"$bin" query --cluster "$work/cluster.txt" --format tsv --top 10 "w3 OR w40 -w1" > "$work/file_top.tsv"
q "discovered --top" 0 query "${zkflags[@]}" --format tsv --top 10 "w3 OR w40 -w1"
same "discovered --top = cluster file's" "$(cat "$work/file_top.tsv")" "$(cat "$work/out")"
"$bin" query --cluster "$work/cluster.txt" --queries "$work/queries.tsv" --format tsv | cut -f1,2 > "$work/file_batch"
q "discovered batch" 0 query "${zkflags[@]}" --queries "$work/queries.tsv" --format tsv
same "discovered batch = cluster file's" "$(cat "$work/file_batch")" "$(cut -f1,2 "$work/out")"

# --tablets as spans (bench/straggler.sh's ring): the node advertises the
# spans only, discovery cuts the ranges at them, answers are unchanged;
# the server leaves at SIGTERM (its node at once).
serve e "$work/idx" 0-1,6-7 "${zkflags[@]}"; pid_e=${pids[-1]}
servers 4
q "status with spans" 0 cluster status --zookeeper "$zk"
has "status: e's spans" "$work/out" "server $e generation 1 tablets 0-1,6-7"
has "status: 6-7 replicas" "$work/out" "tablets 6-7: 3 replicas $(printf '%s\n' "$b" "$c" "$e" | sort | tr '\n' ' ' | sed 's/ $//')"
has "status: 4-5 replicas" "$work/out" "tablets 4-5: 2 replicas $(printf '%s\n' "$b" "$c" | sort | tr '\n' ' ' | sed 's/ $//')"
want=$("$bin" query --index "$work/idx" --count w1 2>/dev/null)
q "discovered with spans" 0 query "${zkflags[@]}" --count w1
same "discovered with spans = --index" "$want" "$(cat "$work/out")"
for bad in 6-7,0-1 0-1,1-2 0-1, 0-1,,6 1-0 0-8 x 0-1x; do
  q "serve --tablets $bad" 2 serve --index "$work/idx" --tablets "$bad" --listen 127.0.0.1:0
  has "serve --tablets $bad: says why" "$work/err" "dpsearch: Invalid argument: --tablets $bad: "
done
kill "$pid_e"; wait "$pid_e" 2>/dev/null
servers 3

# An ingest reaches the serving servers (they follow the index) and their
# nodes: every server's registration shows the new generation, and a
# discovered query finds the new document, within 2 s of the commit.
echo '{"id":"fresh1","text":"zzfresh w1"}' | "$bin" ingest --index "$work/idx" - 2>/dev/null || flunk "ingest under the servers"
new_gen=$(awk '$1 == "generation" {print $2}' "$work/idx/MANIFEST")
followed=""
for i in $(seq 40); do
  "$bin" cluster status --zookeeper "$zk" > "$work/status" 2>&1
  if [ "$(grep -c "^server .* generation $new_gen tablets" "$work/status")" -eq 3 ] &&
     [ "$("$bin" query "${zkflags[@]}" --count zzfresh 2>/dev/null)" = 1 ]; then
    followed=yes; break
  fi
  sleep 0.05
done
if [ -n "$followed" ]; then pass "nodes and answers at generation $new_gen within 2 s"
else flunk "after the ingest, not every node says generation $new_gen or zzfresh is not found:"; cat "$work/status"; fi

# One coordinator for the whole scene: kill -9 c, start d, kill -9 a.
"$bin" bench "${zkflags[@]}" --queries "$work/queries.tsv" --duration 14 --hedge-after 50 --deadline 3000 \
  --json > "$work/bench.json" 2> "$work/bench.err" &
bench=$!
sleep 1
kill -9 "$pid_c"; wait "$pid_c" 2>/dev/null
start=$(date +%s%N)
servers 2 && pass "killed c: its node gone"
gone_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$gone_ms" -lt $((session + 3000)) ] && pass "c's node gone within the session timeout + 3 s ($gone_ms ms)" ||
  flunk "c's node gone after $gone_ms ms"
has "status after the kill: no c" "$work/status" "server $a"
grep -q "server $c " "$work/status" && flunk "c still listed" || pass "c not listed"
# The coordinator no longer asks c: a listener in c's place, once its node
# is gone (and the watch has had half a second), is never connected to.
sleep 0.5
python3 - "${c##*:}" > "$work/listener.out" <<'PY' &
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64); s.settimeout(0.1)
n, end = 0, time.time() + 2
while time.time() < end:
    try:
        c, _ = s.accept(); c.close(); n += 1
    except socket.timeout:
        pass
print(n)
PY
wait $!
same "no connection to the dead server's address once its node is gone" 0 "$(cat "$work/listener.out")"
serve d "$work/idx" 0-7 "${zkflags[@]}"; pid_d=${pids[-1]}
servers 3
sleep 1
kill -9 "$pid_a"; wait "$pid_a" 2>/dev/null
servers 2
wait $bench; rc=$?
same "bench through the kills: exit" 0 $rc
sed 's/^/  bench stderr: /' "$work/bench.err" | head -5
python3 - "$work/bench.json" <<'PY' && pass "bench: every answer complete" || flunk "bench: $(cat "$work/bench.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["queries"] > 100 and j["partial_results"] == 0, j
PY
kill -TERM "$pid_d"; wait "$pid_d" 2>/dev/null
queries_d=$(sed -n 's/.*stopped after [0-9]* connections, \([0-9]*\) queries.*/\1/p' "$work/d.log")
[ "${queries_d:-0}" -gt 0 ] && pass "the server that joined was asked ($queries_d queries), no restart" ||
  flunk "the server that joined was never asked: $(cat "$work/d.log")"
servers 1

# Tablets 0-3 now have no live server.
q "status with a gap" 4 cluster status --zookeeper "$zk"
has "status with a gap: named" "$work/out" "tablets 0-3: NO LIVE REPLICA"
q "query with a gap" 2 query "${zkflags[@]}" --count w1
has "query with a gap: tablets named" "$work/err" "tablets 0-3"
q "query with a gap, --allow-partial" 4 query "${zkflags[@]}" --allow-partial --count w1

# ZooKeeper restarts (sessions kept), then loses every session: a
# coordinator keeps answering from its last view throughout, the servers
# register again.
serve e "$work/idx" 0-3 "${zkflags[@]}"
servers 2
"$bin" bench "${zkflags[@]}" --queries "$work/queries.tsv" --duration 8 --json > "$work/bench2.json" 2> "$work/bench2.err" &
bench=$!
sleep 1
bash "$zk_sh" stop "$work/zk"
sleep 2
bash "$zk_sh" restart "$work/zk" > /dev/null || flunk "ZooKeeper restart"
servers 2 && pass "servers registered after the restart"
bash "$zk_sh" wipe "$work/zk" > /dev/null || flunk "ZooKeeper wipe"
servers 2 && pass "servers registered again after every session was lost"
wait $bench; rc=$?
same "bench through the restarts: exit" 0 $rc
python3 - "$work/bench2.json" <<'PY' && pass "bench through the restarts: every answer complete" || flunk "bench2: $(cat "$work/bench2.json") $(cat "$work/bench2.err")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["queries"] > 100 and j["partial_results"] == 0, j
PY
want=$("$bin" query --index "$work/idx" --count w1 2>/dev/null)
q "new coordinator after the restarts" 0 query "${zkflags[@]}" --count w1
same "new coordinator after the restarts: count" "$want" "$(cat "$work/out")"
finish "zookeeper cluster test"
