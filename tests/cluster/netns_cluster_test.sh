#!/usr/bin/env bash
# Multi-host test: 4 shard servers, each in its own network namespace, and a
# coordinator in a fifth, joined by veth pairs to a bridge in a hub
# namespace. 8 tablets in 4 ranges with 2 replicas each; every server hosts
# only the tablets the cluster file gives it, so a request sent to the wrong
# server fails. Every query's answer through the cluster (exit status, count
# and fetched results) must equal the in-process one, also after one server
# is killed (failover). Needs root and iproute2's `ip`; otherwise it says
# why and skips (exit 77, ctest's SKIP_RETURN_CODE).
source "$(dirname "$0")/netns_helpers.sh" "$@"
hosts 5

corpus

# Ranges of two tablets; range i's primary is server i (10.77.0.i), its
# replica server i+1 (range 4's is server 3). Each server hosts exactly the
# tablets it is listed for, one contiguous range, and no two servers host
# the same tablets:
#   server 1: 0-1   server 2: 0-3   server 3: 2-7   server 4: 4-7
# The coordinator is 10.77.0.5.
hosted=("" 0-1 0-3 2-7 4-7)
cat > "$work/cluster.txt" <<'CLUSTER'
0-1 10.77.0.1:7700 10.77.0.2:7700
2-3 10.77.0.2:7700 10.77.0.3:7700
4-5 10.77.0.3:7700 10.77.0.4:7700
6-7 10.77.0.4:7700 10.77.0.3:7700
CLUSTER
for i in 1 2 3 4; do
  ip netns exec "${tag}n$i" "$bin" serve --index "$work/index" --tablets "${hosted[$i]}" \
    --listen "10.77.0.$i:7700" 2>"$work/server$i.log" &
  pids+=($!)
done
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
# The hosting is disjoint: a cluster file sending tablets 6-7 to server 1
# (which hosts 0-1) must fail, not answer.
sed 's/^6-7 .*/6-7 10.77.0.1:7700/' "$work/cluster.txt" > "$work/wrong.txt"
status=0
coord query --cluster "$work/wrong.txt" --count w1 > /dev/null 2> "$work/wrong.err" || status=$?
[ $status -ge 2 ] || { echo "FAIL: asking server 1 for tablets 6-7 gives exit $status"; exit 1; }

# results NAME ARGS...: every query's exit status (0, or 1 for no match)
# and its results as sorted tsv lines (id, title, bin, docid) into NAME.txt.
results() {
  local name=$1 id query status
  shift
  : > "$work/$name.txt"
  while IFS=$'\t' read -r id query; do
    status=0
    "$@" --format tsv -- "$query" > "$work/one.tsv" 2> "$work/one.err" || status=$?
    [ $status -le 1 ] || { echo "FAIL: $name: query $id '$query': exit $status"; cat "$work/one.err"; exit 1; }
    { echo "$id exit $status"; sort "$work/one.tsv"; } >> "$work/$name.txt"
  done < "$work/queries.tsv"
}
counts local "$bin" query --index "$work/index"
[ "$(wc -l < "$work/local.tsv")" -eq 200 ] || { echo "FAIL: expected 200 answers"; exit 1; }
results local "$bin" query --index "$work/index"
[ "$(grep -c ' exit 0$' "$work/local.txt")" -ge 100 ] || { echo "FAIL: too few queries match"; exit 1; }
counts remote coord query --cluster "$work/cluster.txt"
same_as_local remote.tsv "cluster counts differ from in-process ones"
[ ! -s "$work/remote.err" ] || { echo "FAIL: the cluster complained:"; cat "$work/remote.err"; exit 1; }
results remote coord query --cluster "$work/cluster.txt"
same_as_local remote.txt "cluster results differ from in-process ones"

# Kill server 2: tablets 2-3 fail over to their replica, server 3.
kill "${pids[1]}"
wait "${pids[1]}" 2>/dev/null || true
counts failover coord query --cluster "$work/cluster.txt"
same_as_local failover.tsv "counts differ after a server died"
grep -q "10.77.0.2" "$work/failover.err" || { echo "FAIL: no failover was reported"; cat "$work/failover.err"; exit 1; }
results failover coord query --cluster "$work/cluster.txt"
same_as_local failover.txt "results differ after a server died"
echo "PASS: 4 servers in 4 namespaces hosting disjoint tablet ranges;" \
  "200 queries' counts and results equal in-process ones, also after a kill (failover)"
