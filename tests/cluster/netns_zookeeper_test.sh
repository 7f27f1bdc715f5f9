#!/usr/bin/env bash
# Multi-host test with ZooKeeper: ZooKeeper in one network namespace
# (10.77.0.6), 4 shard servers in four others registering with it
# (`serve --zookeeper`, hosting the same disjoint ranges as
# netns_cluster_test.sh: 0-1, 0-3, 2-7, 4-7), and a coordinator in a fifth
# that knows only ZooKeeper's address. Every query's count through the
# discovered cluster equals the in-process one; after server 2 is killed
# -9 they still do (failover), and once its node is gone (the session
# timeout, 2 s) a new coordinator neither asks nor mentions it.
# Needs root and iproute2's `ip` (else exit 77), and ZooKeeper.
source "$(dirname "$0")/netns_helpers.sh" "$@"
zk_sh="$(cd "$(dirname "$0")/../testing" && pwd)/zookeeper.sh"
hosts 6
corpus
zk_port=$(ZK_ADDRESS=10.77.0.6 ip netns exec "${tag}n6" bash "$zk_sh" start "$work/zk") || {
  rc=$?; [ $rc = 77 ] && skip "ZooKeeper is not installed"; echo "FAIL: ZooKeeper did not start"; exit 1; }
at_exit+=("bash '$zk_sh' stop '$work/zk'")
zk="10.77.0.6:$zk_port/dps"
hosted=("" 0-1 0-3 2-7 4-7)
for i in 1 2 3 4; do
  ip netns exec "${tag}n$i" "$bin" serve --index "$work/index" --tablets "${hosted[$i]}" \
    --listen "10.77.0.$i:7700" --zookeeper "$zk" --zookeeper-session 2000 2>"$work/server$i.log" &
  pids+=($!)
done
coord() { ip netns exec "${tag}n5" "$bin" "$@"; }
# registered N: waits (at most 15 s) until the coordinator's host sees N servers.
registered() {
  local i
  for i in $(seq 150); do
    coord cluster status --zookeeper "$zk" > "$work/status" 2>&1 || true
    grep -q "^$1 servers," "$work/status" && return 0
    sleep 0.1
  done
  echo "FAIL: expected $1 servers:"; cat "$work/status" "$work"/server*.log; exit 1
}
registered 4
grep -q "^tablets 0-1: 2 replicas 10.77.0.1:7700 10.77.0.2:7700$" "$work/status" ||
  { echo "FAIL: status:"; cat "$work/status"; exit 1; }

counts local "$bin" query --index "$work/index"
counts remote coord query --zookeeper "$zk"
same_as_local remote.tsv "discovered cluster counts differ from in-process ones"
[ ! -s "$work/remote.err" ] || { echo "FAIL: the cluster complained:"; cat "$work/remote.err"; exit 1; }

kill -9 "${pids[1]}"
wait "${pids[1]}" 2>/dev/null || true
counts failover coord query --zookeeper "$zk"
same_as_local failover.tsv "counts differ after a server died"
registered 3
grep -q "10.77.0.2" "$work/status" && { echo "FAIL: the dead server is listed:"; cat "$work/status"; exit 1; }
counts after coord query --zookeeper "$zk"
same_as_local after.tsv "counts differ once the dead server's node is gone"
[ ! -s "$work/after.err" ] || { echo "FAIL: the dead server is still asked:"; cat "$work/after.err"; exit 1; }
echo "PASS: ZooKeeper and 4 servers in 5 namespaces; 200 discovered counts equal in-process ones," \
  "after a kill -9 (failover) and once its node is gone (not asked)"
