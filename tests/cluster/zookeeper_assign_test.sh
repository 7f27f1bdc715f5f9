#!/usr/bin/env bash
# Tablet assignment (`serve --zookeeper ... --assign --replicas R`, the
# manager of cluster/assigner.h) with a real ZooKeeper: four servers and
# R=2 divide 8 tablets so that each has 2 live replicas and each server
# 4; a server killed -9 has its tablets taken over (every tablet back to 2
# replicas on the 3 left) while a long-lived `bench --zookeeper` with
# hedging keeps every answer complete; a server that joins is given its
# share; the manager killed -9, another takes over; discovered answers
# equal --index's throughout.
# Prints the kill-to-reassigned time (bench/zookeeper.sh measures it).
# Usage: zookeeper_assign_test.sh path/to/dpsearch
SEED=5 source "$(dirname "$0")/zookeeper_test_helpers.sh" "$1"

# assigned SERVERS: waits (at most 15 s) until SERVERS servers are listed
# and every tablet has exactly 2 live replicas. While a new plan spreads,
# each server advertises its share as it reads the plan, so a moved tablet
# is listed on 3 servers, or 1, for a moment (cluster/assigner.h): loads
# are only checked once that has settled.
assigned() {
  local i
  for i in $(seq 150); do
    "$bin" cluster status --zookeeper "$zk" > "$work/status" 2>&1
    if grep -q "^$1 servers, .* 2 replicas wanted" "$work/status" &&
       ! grep -q "under-replicated\|NO LIVE\|tablets none" "$work/status" &&
       awk '$1 == "tablets" && $3 != 2 { moving = 1 } END { exit moving }' "$work/status"; then return 0; fi
    sleep 0.1
  done
  return 1
}
# load ADDRESS: how many tablets the status gives the server.
load() { awk -v a="$1" '$1 == "server" && $2 == a { print $6 }' "$work/status" |
  tr ',' '\n' | awk -F- '{ n += ($2 == "" ? 1 : $2 - $1 + 1) } END { print n + 0 }'; }

serve s1 "$work/idx" "" "${zkflags[@]}" --assign --replicas 2; pid_s1=${pids[-1]}
serve s2 "$work/idx" "" "${zkflags[@]}" --assign
serve s3 "$work/idx" "" "${zkflags[@]}" --assign
serve s4 "$work/idx" "" "${zkflags[@]}" --assign; pid_s4=${pids[-1]}
assigned 4 && pass "4 servers: every tablet on 2" || { flunk "4 servers: not assigned"; cat "$work/status"; }
for s in "$s1" "$s2" "$s3" "$s4"; do same "load of $s" 4 "$(load "$s")"; done
for query in w1 "w10 -w1" "w5 OR w250"; do
  want=$("$bin" query --index "$work/idx" --count "$query" 2>/dev/null)
  q "assigned '$query'" 0 query "${zkflags[@]}" --count "$query"
  same "assigned '$query' = --index" "$want" "$(cat "$work/out")"
done

"$bin" bench "${zkflags[@]}" --queries "$work/queries.tsv" --duration 10 --hedge-after p90 --deadline 3000 \
  --json > "$work/bench.json" 2> "$work/bench.err" &
bench=$!
sleep 2
kill -9 "$pid_s4"; wait "$pid_s4" 2>/dev/null
start=$(date +%s%N)
if assigned 3; then
  echo "kill-to-reassigned: $(( ($(date +%s%N) - start) / 1000000 )) ms (session timeout $session ms)"
  pass "killed one: every tablet back on 2 of the 3 left"
else
  flunk "killed one: not reassigned"; cat "$work/status"
fi
grep -q "server $s4 " "$work/status" && flunk "the dead server is still listed" || pass "the dead server is gone"
loads="$(load "$s1") $(load "$s2") $(load "$s3")"
same "loads after the kill (16 replicas over 3)" "5 5 6" "$(echo $loads | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')"
wait $bench; rc=$?
same "bench through the kill: exit" 0 $rc
python3 - "$work/bench.json" <<'PY' && pass "bench through the kill: every answer complete" || flunk "bench: $(cat "$work/bench.json") $(head -3 "$work/bench.err")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["queries"] > 100 and j["partial_results"] == 0, j
PY

serve s5 "$work/idx" "" "${zkflags[@]}" --assign
assigned 4 && pass "a server joins: every tablet on 2" || { flunk "join: not assigned"; cat "$work/status"; }
same "the new server's share" 4 "$(load "$s5")"
want=$("$bin" query --index "$work/idx" --count w1 2>/dev/null)
q "after the join" 0 query "${zkflags[@]}" --count w1
same "after the join = --index" "$want" "$(cat "$work/out")"
# The manager itself dies (s1: the first candidate): another is elected
# and takes its tablets over.
kill -9 "$pid_s1"; wait "$pid_s1" 2>/dev/null
assigned 3 && pass "the manager killed: every tablet back on 2 of the 3 left" ||
  { flunk "the manager killed: not reassigned"; cat "$work/status"; }
grep -q "server $s1 " "$work/status" && flunk "the dead manager is still listed" || pass "the dead manager is gone"
q "after the manager's death" 0 query "${zkflags[@]}" --count w1
same "after the manager's death = --index" "$want" "$(cat "$work/out")"
q "--assign without --zookeeper" 2 serve --index "$work/idx" --assign
has "--assign without --zookeeper: one line" "$work/err" "--assign needs --zookeeper"
finish "zookeeper assign test"
