# Helpers of the CLI tests, sourced after setting $bin (the dpsearch
# binary) and $work (a scratch directory). Each check prints "ok: NAME" or
# "FAIL: ..." and a failure sets $fail to 1.
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
# has NAME FILE TEXT: FILE holds TEXT.
has() { if grep -qF -- "$3" "$2"; then pass "$1"; else flunk "$1: '$3' not in $(basename "$2"):"; cat "$2"; fi; }
