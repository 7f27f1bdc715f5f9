# Sourced by the CLI tests with the dpsearch binary as $1 (not a test: the
# glob runs *_test.sh): sets bin, src (the source tree), work (a temporary
# directory removed at exit, with the servers `serve` started) and fail
# (the exit status to end with), and defines the helpers below.
set -uo pipefail
export LC_ALL=C
bin=$(realpath "$1")
src=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../..")
work=$(mktemp -d)
pids=()  # servers started by `serve`, stopped at exit
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
fail=0
pass() { echo "ok: $1"; }
flunk() { echo "FAIL: $1"; fail=1; }
# q NAME WANT_EXIT ARGS...: runs `dpsearch ARGS`, stdout in $work/out, stderr in $work/err.
q() {
  local name=$1 want=$2
  shift 2
  "$bin" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" = "$want" ]; then pass "$name: exit $got"; else flunk "$name: exit $got, expected $want"; sed 's/^/  stderr: /' "$work/err"; fi
}
# same NAME EXPECTED ACTUAL
same() { if [ "$2" == "$3" ]; then pass "$1"; else flunk "$1: expected [$2], got [$3]"; fi; }
# has NAME FILE TEXT: FILE contains TEXT.
has() { if grep -qF -- "$3" "$2"; then pass "$1"; else flunk "$1: '$3' not in $(basename "$2"):"; cat "$2"; fi; }
# serve NAME INDEX TABLETS [ARGS...]: starts `dpsearch serve` on a free
# loopback port; its address in the variable NAME once it listens.
serve() {
  local name=$1 log="$work/$1.log"
  "$bin" serve --index "$2" --tablets "$3" --listen 127.0.0.1:0 --threads 1 "${@:4}" 2> "$log" &
  pids+=($!)
  local i port=""
  for i in $(seq 100); do
    port=$(sed -n 's/^dpsearch serve: .* on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "FAIL: server $name did not start"; cat "$log"; exit 1; }
  printf -v "$name" '127.0.0.1:%s' "$port"
}
# finish NAME: the closing line and the exit status.
finish() {
  [ $fail -eq 0 ] && echo "$1: all passed" || echo "$1: FAILED"
  exit $fail
}
