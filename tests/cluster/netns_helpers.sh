# Sourced by the multi-host tests with the dpsearch binary as $1 (not a
# test: the glob runs *_test.sh). Sets bin, work (a temporary directory),
# tag, pids (killed at exit) and nss; `hosts N` makes N network namespaces
# ${tag}n1..N with addresses 10.77.0.1..N on a bridge in a hub namespace,
# all removed at exit. Needs root and iproute2's `ip`; otherwise it says why
# and skips (exit 77, ctest's SKIP_RETURN_CODE), except in CI, which has
# both: there a skip is a failure.
set -euo pipefail
bin=${1:?usage: $0 path/to/dpsearch}
skip() {
  if [ "${CI:-}" = "true" ]; then echo "FAIL: cannot run in CI: $*"; exit 1; fi
  echo "SKIP: $*"; exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
command -v ip >/dev/null || skip "needs iproute2 (ip)"
tag="dps$$"
hub="${tag}hub"
nss=()
work=$(mktemp -d)
pids=()
at_exit=()  # more cleanup commands, run first
cleanup() {
  for c in "${at_exit[@]}"; do eval "$c" || true; done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for ns in "${nss[@]}" "$hub"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
hosts() {
  ip netns add "$hub" 2>/dev/null || skip "cannot create network namespaces here"
  ip -n "$hub" link add br0 type bridge
  ip -n "$hub" link set br0 up
  local i ns
  for i in $(seq "$1"); do
    ns="${tag}n$i"
    ip netns add "$ns"
    nss+=("$ns")
    ip -n "$ns" link add eth0 type veth peer name "p$i" netns "$hub"
    ip -n "$hub" link set "p$i" master br0 up
    ip -n "$ns" addr add "10.77.0.$i/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
  done
}
# corpus: $work/index (3,000 documents over a 300-word vocabulary,
# Zipf-like, 8 tablets) and 200 queries in $work/queries.tsv.
corpus() {
  # A corpus of 3000 documents over a 300-word vocabulary (Zipf-like).
  awk 'BEGIN { srand(7); for (d = 0; d < 3000; d++) { n = 5 + int(rand() * 40); t = "";
         for (k = 0; k < n; k++) { w = int(300 * rand() * rand()); t = t " w" w }
         printf "{\"id\":\"d%d\",\"title\":\"doc %d\",\"text\":\"%s\"}\n", d, d, t } }' > "$work/corpus.jsonl"
  awk 'BEGIN { srand(11); for (q = 0; q < 200; q++) { n = 1 + int(rand() * 3); s = "";
         for (k = 0; k < n; k++) s = s " w" int(300 * rand() * rand());
         if (q % 10 == 0) s = s " -w" int(50 * rand());
         printf "q%d\t%s\n", q, s } }' > "$work/queries.tsv"
  "$bin" ingest --index "$work/index" --bins 16 --tablets 8 "$work/corpus.jsonl" 2>/dev/null
}
# counts NAME ARGS...: `dpsearch query ARGS --queries` (which must succeed)
# into NAME.tsv (id<TAB>count), its stderr into NAME.err.
counts() {
  local name=$1 status=0
  shift
  "$@" --queries "$work/queries.tsv" > "$work/$name.out" 2> "$work/$name.err" || status=$?
  [ $status -eq 0 ] || { echo "FAIL: $name counts: exit $status"; cat "$work/$name.err"; exit 1; }
  cut -f1,2 "$work/$name.out" > "$work/$name.tsv"
}
# same_as_local FILE MESSAGE: local.FILE and FILE have the same lines.
same_as_local() {
  diff "$work/local.${1#*.}" "$work/$1" > "$work/diff.txt" || { echo "FAIL: $2"; head -20 "$work/diff.txt"; exit 1; }
}
