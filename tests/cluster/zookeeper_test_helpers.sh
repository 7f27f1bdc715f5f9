# Sourced by the ZooKeeper cluster tests with the dpsearch binary as $1
# (not a test: the glob runs *_test.sh). On top of tests/cli/
# cli_test_helpers.sh: a real ZooKeeper (tests/testing/zookeeper.sh, exit
# 77 when it is not installed, stopped at exit) and the variables zk_sh,
# zk_port, zk (HOST:PORT/dps), session (2,000 ms) and zkflags; an index
# $work/idx of 3,000 random documents in 8 tablets (SEED, default 11) and
# six queries in $work/queries.tsv.
source "$(dirname "${BASH_SOURCE[0]}")/../cli/cli_test_helpers.sh" "$1"
zk_sh="$src/tests/testing/zookeeper.sh"
zk_port=$(bash "$zk_sh" start "$work/zk")
rc=$?
[ $rc = 77 ] && { echo "skip: ZooKeeper is not installed"; exit 77; }
[ $rc = 0 ] || { echo "FAIL: ZooKeeper did not start"; cat "$work/zk/zookeeper.log"; exit 1; }
trap 'bash "$zk_sh" stop "$work/zk"; cleanup' EXIT
zk="127.0.0.1:$zk_port/dps"
session=2000  # ms: a dead server's node goes about 2 s after its death
zkflags=(--zookeeper "$zk" --zookeeper-session $session)

awk -v seed="${SEED:-11}" 'BEGIN { srand(seed); for (d = 0; d < 3000; d++) { n = 5 + int(rand() * 40); t = "";
       for (k = 0; k < n; k++) t = t " w" int(300 * rand() * rand());
       printf "{\"id\":\"d%d\",\"title\":\"doc %d\",\"text\":\"%s\"}\n", d, d, t } }' > "$work/corpus.jsonl"
"$bin" ingest --index "$work/idx" --bins 16 --tablets 8 "$work/corpus.jsonl" 2>/dev/null || { echo "FAIL: ingest"; exit 1; }
printf 'q%d\t%s\n' 1 w1 2 "w2 w3" 3 "w10 -w1" 4 "w5 OR w250" 5 w150 6 "w7 w8 w9" > "$work/queries.tsv"
