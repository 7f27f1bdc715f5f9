# Shared by CLI tests that source it (not a test: the glob runs *_test.sh):
# $bin (the dpsearch under test, the script's $1), $src (the source tree),
# $work (a temporary directory, removed on exit), and the helpers below.
set -uo pipefail
export LC_ALL=C
bin=$(realpath "$1")
src=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../..")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
pass() { echo "ok: $1"; }
flunk() { echo "FAIL: $1"; fail=1; }
# same NAME EXPECTED ACTUAL
same() { if [ "$2" == "$3" ]; then pass "$1"; else flunk "$1: expected [$2], got [$3]"; fi; }
# finish NAME: the closing line and the exit status.
finish() {
  [ $fail -eq 0 ] && echo "$1: all passed" || echo "$1: FAILED"
  exit $fail
}
