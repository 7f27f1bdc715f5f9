#!/usr/bin/env bash
# README and --help agree: every flag a command's --help lists appears in
# that command's synopsis in the README's Commands block, every flag that
# synopsis names exists in --help, and --help never defers a default to
# the README.
# Usage: help_readme_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"
readme=$(dirname "$0")/../../README.md
# The Commands block: from "## Commands" to the first code fence's end.
awk '/^## Commands/ { on = 1 } on && /^```/ { if (++fence == 2) exit } on && fence == 1' "$readme" >"$work/block"
[ -s "$work/block" ] || { echo "FAIL: no Commands block in README"; exit 1; }
# synopsis CMD: the block's lines from "dpsearch CMD" to the next "dpsearch ".
synopsis() {
  awk -v cmd="$1" '/^dpsearch / { on = ($2 == cmd) } on' "$work/block"
}
for cmd in ingest query serve bench scan stats check compact delete; do
  "$bin" "$cmd" --help >"$work/help" 2>&1 || { flunk "$cmd --help"; continue; }
  synopsis "$cmd" >"$work/syn"
  [ -s "$work/syn" ] || { flunk "$cmd: no synopsis in README"; continue; }
  grep -oE -- '--[a-z][a-z-]+' "$work/help" | grep -vx -- '--help\|--help-all' | sort -u >"$work/help_flags"
  grep -oE -- '--[a-z][a-z-]+' "$work/syn" | sort -u >"$work/readme_flags"
  missing=$(comm -23 "$work/help_flags" "$work/readme_flags" | tr '\n' ' ')
  extra=$(comm -13 "$work/help_flags" "$work/readme_flags" | tr '\n' ' ')
  same "$cmd: every --help flag is in the README synopsis" "" "$missing"
  same "$cmd: every README flag is in --help" "" "$extra"
  if grep -qi "see README" "$work/help"; then flunk "$cmd --help defers to the README"; else pass "$cmd: --help gives its own defaults"; fi
done
[ $fail = 0 ] && echo "help/README test passed" || echo "help/README test FAILED"
exit $fail
