#!/usr/bin/env bash
# A real full disk (issue 21): `dpsearch ingest` (whose small --memory makes
# it spill runs and merge them), `delete` and `compact` on a small tmpfs
# with B bytes free, for B from a few KB up to enough, so that the disk
# fills in every phase (the documents' spill, spill runs, tablet files and
# term lists, the global index, the MANIFEST, the compaction after an
# ingest). Each failure must exit 3 with one line on stderr naming the file
# ("No space left on device"), leave the MANIFEST's generation, `check`
# clean and the answers as before; once the space is freed the next writer
# must leave no file the MANIFEST does not name. An ingest whose commit fits
# but whose compaction does not succeeds (exit 0) with a warning, its
# documents committed. Skips (77) where a tmpfs cannot be mounted.
# Usage: disk_full_test.sh path/to/dpsearch [GROWTH_PERCENT [FINE_STEPS]]
# Each sweep grows the free space by GROWTH_PERCENT (default 125) until the
# operation goes through, then tries FINE_STEPS (default 23) amounts between
# the last two; the sanitized build, whose every process is 3-4x slower,
# sweeps coarser (tests/CMakeLists.txt) and must still fill every phase.
set -uo pipefail
bin=$(realpath "$1")
growth=${2:-125}
fine_steps=${3:-23}
work=$(mktemp -d)
mnt="$work/mnt"
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=96m tmpfs "$mnt" 2>/dev/null; then
  echo "SKIP: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)"
  rm -rf "$work"
  exit 77
fi
trap 'umount "$mnt"; rm -rf "$work"' EXIT
source "$(dirname "$0")/helpers.sh"
corpus 21 3000 part0:0-3999 part1:4000-7999 part2:0-999+8000-10999 part3:11000-14999  # part2 replaces d0..d999
seq 0 3 10999 | sed 's/^/d/' > "$work/doomed.txt"
# The kind of file an error names: its name without the number.
kind() { sed -E 's/^[0-9]+//' <<< "$1"; }

"$bin" ingest --index "$work/base" --bins 8 --tablets 4 "$work/part0.jsonl" 2>/dev/null &&
  "$bin" ingest --index "$work/base" "$work/part1.jsonl" 2>/dev/null || { echo "FAIL: base ingest"; exit 1; }
cp -r "$work/base" "$work/deleted"
"$bin" delete --index "$work/deleted" --ids-from "$work/doomed.txt" >/dev/null 2>&1 || { echo "FAIL: delete"; exit 1; }
answers "$work/base" > "$work/base.ans"
answers "$work/deleted" > "$work/deleted.ans"
cp -r "$work/base" "$work/ingested"
DPS_INGEST_BELOW_FLOOR=1 "$bin" ingest --index "$work/ingested" --memory 1M "$work/part2.jsonl" 2>/dev/null || { echo "FAIL: ingest"; exit 1; }
answers "$work/ingested" > "$work/ingested.ans"
# Without stored text the documents' spill is small, so an ingest's commit
# can fit where the compaction after it does not: a fourth file of about
# the size of the other three makes each tablet compact (ratio 3).
for part in 0 1 3; do
  "$bin" ingest --index "$work/bare" --bins 8 --tablets 4 --no-store-text "$work/part$part.jsonl" 2>/dev/null ||
    { echo "FAIL: bare ingest"; exit 1; }
done
cp -r "$work/bare" "$work/bare_after"
"$bin" ingest --index "$work/bare_after" "$work/part2.jsonl" 2>/dev/null || { echo "FAIL: bare ingest"; exit 1; }
[ "$(awk '$1 == "tablet" && NF == 3' "$work/bare_after/MANIFEST" | wc -l)" -eq 4 ] ||
  { echo "FAIL: the ingest compacted no tablet: the put-off phase cannot happen"; exit 1; }
answers "$work/bare" > "$work/bare.ans"
answers "$work/bare_after" > "$work/bare_after.ans"
idx="$mnt/idx"

# attempt OP FREE BEFORE AFTER: OP on a copy of BEFORE with FREE bytes left
# on the disk; prints "fail KIND", "putoff" or "done".
attempt() {
  local op=$1 free=$2 before=$3 after=$4
  rm -rf "$idx" "$mnt/filler"
  cp -r "$work/$before" "$idx"
  local avail=$(( $(stat -f -c '%a * %S' "$mnt") ))
  [ $avail -gt $free ] && fallocate -l $(( avail - free )) "$mnt/filler"
  local gen=$(generation "$idx")
  case $op in
    ingest) DPS_INGEST_BELOW_FLOOR=1 "$bin" ingest --index "$idx" --memory 1M --threads 2 "$work/part2.jsonl" > /dev/null 2> "$work/err" ;;
    ingest-in-memory) "$bin" ingest --index "$idx" --threads 2 "$work/part2.jsonl" > /dev/null 2> "$work/err" ;;
    delete) "$bin" delete --index "$idx" --ids-from "$work/doomed.txt" > /dev/null 2> "$work/err" ;;
    compact) "$bin" compact --index "$idx" > /dev/null 2> "$work/err" ;;
  esac
  local status=$?
  local what="$op with $free bytes free"
  if [ $status -eq 0 ]; then
    if grep -q "warning: documents committed, compaction put off: $idx/.*: No space left on device" "$work/err"; then
      [ "$(generation "$idx")" -gt "$gen" ] || flunk "$what: the commit before the put-off compaction is gone"
      "$bin" check --index "$idx" > /dev/null 2>&1 || flunk "$what: check after a put-off compaction"
      [ "$(answers "$idx")" == "$(cat "$work/$after.ans")" ] || flunk "$what: answers after a put-off compaction"
      echo putoff
    else
      [ "$(answers "$idx")" == "$(cat "$work/$after.ans")" ] || flunk "$what: answers after success"
      echo done
    fi
    return
  fi
  [ $status -eq 3 ] || flunk "$what: exit $status, want 3: $(cat "$work/err")"
  [ "$(wc -l < "$work/err")" -eq 1 ] || flunk "$what: stderr is not one line: $(cat "$work/err")"
  local file
  file=$(sed -nE "s|^dpsearch: I/O error: $idx/([^:/]+): .*No space left on device\$|\1|p" "$work/err")
  [ -n "$file" ] || flunk "$what: the error names no file of the index: $(cat "$work/err")"
  [ "$(generation "$idx")" == "$gen" ] || flunk "$what: generation $(generation "$idx"), was $gen"
  "$bin" check --index "$idx" > "$work/check" 2>&1 || flunk "$what: check: $(cat "$work/check")"
  [ "$(answers "$idx")" == "$(cat "$work/$before.ans")" ] || flunk "$what: the answers changed"
  rm -f "$mnt/filler"  # space freed: the next writer cleans up
  "$bin" ingest --index "$idx" - < /dev/null 2> "$work/err2" || flunk "$what: next writer: $(cat "$work/err2")"
  local left
  left=$(strays "$idx")
  [ -z "$left" ] || flunk "$what: strays after the next writer: $left"
  echo "fail $(kind "$file")"
}

# sweep OP BEFORE AFTER KIND...: free space from 4 KB up, x1.25 a step
# ($growth), until OP goes through, then 23 ($fine_steps) even steps
# between the step below and there (where the last phases fill: the merge,
# the commit, compaction);
# prints the outcomes; the disk must have filled while writing each KIND.
sweep() {
  local op=$1 before=$2 after=$3 free=4096 out
  declare -A kinds=()
  local failures=0 putoffs=0
  outcome() {
    out=$(attempt "$op" $1 "$before" "$after")
    grep '^FAIL' <<< "$out" && fail=1
    out=$(tail -n 1 <<< "$out")
    case "$out" in
      "fail "*) ((++failures)); kinds[${out#fail }]=1 ;;
      putoff) ((++putoffs)) ;;
    esac
  }
  while :; do
    outcome $free
    [ "$out" == done ] && break
    free=$(( free * growth / 100 ))
    [ $free -lt $((80 << 20)) ] || { flunk "$op never went through"; break; }
  done
  local low=$(( free * 100 / growth )) step
  for step in $(seq 1 "$fine_steps"); do outcome $(( low + (free - low) * step / (fine_steps + 1) )); done
  last_sweep="$op: $failures failures (files: ${!kinds[*]}), $putoffs compactions put off, through with $free bytes free"
  echo "$last_sweep"
  for k in "${@:4}"; do
    [ -n "${kinds[$k]:-}" ] || flunk "$op: the disk never filled while writing a $k file"
  done
  [ $fail -eq 0 ]
}

# A spilling ingest's disk peaks while its runs are merged (in groups when
# there are more than the memory plan's fan-in), so the disk fills in its
# runs before its tablets; the ingest without spills fills it in those.
sweep ingest base ingested .spill.tmp .run.tmp
sweep ingest-in-memory bare bare_after .tab .gix .dic
[ -n "$(grep -o '[1-9][0-9]* compactions put off' <<< "$last_sweep")" ] ||
  flunk "no ingest had its compaction put off: that phase was never full"
sweep delete base deleted .tab .gix
sweep compact deleted deleted .tab
[ $fail -eq 0 ] && echo "disk full test passed" || { echo "disk full test FAILED"; exit 1; }
