# Sourced by the CLI tests with the dpsearch binary as $1 (not a test: the
# glob runs *_test.sh): sets bin, src (the source tree), work (a temporary
# directory removed at exit) and fail (the exit status to end with), and
# defines the helpers below.
set -uo pipefail
export LC_ALL=C
bin=$(realpath "$1")
src=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../..")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
# finish NAME: the closing line and the exit status.
finish() {
  [ $fail -eq 0 ] && echo "$1: all passed" || echo "$1: FAILED"
  exit $fail
}
