#!/usr/bin/env bash
# I/O errors no disk gives on demand, injected into the real binary with
# the DPS_FAULTS test hook (README "Testing failures"): a failed fsync of a
# tablet file, a term list, the global index, the MANIFEST or the index
# directory, and a failed rename, fail `ingest`, `delete` and `compact`
# (exit 3, one line naming the file, never reported as success); the index
# stays at its generation, `check` passes, the answers are as before, and
# the next writer leaves no stray; a first ingest that fails leaves no
# directory. A failed read is an error naming the file and offset for
# `query` and `check` (exit 3), never an answer.
# Usage: io_error_test.sh path/to/dpsearch
set -uo pipefail
bin=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/helpers.sh"
corpus 22 1000 a:0-2999 b:2000-4999

"$bin" ingest --index "$work/base" --bins 4 --tablets 2 "$work/a.jsonl" 2>/dev/null &&
  "$bin" ingest --index "$work/base" "$work/b.jsonl" 2>/dev/null || { echo "FAIL: base ingest"; exit 1; }
answers "$work/base" > "$work/base.ans"

# fails SPEC PATTERN CMD...: CMD on a copy of the base index (DIR in CMD)
# under the rules SPEC must fail as above, its one line matching PATTERN.
fails() {
  local spec=$1 pattern=$2
  shift 2
  rm -rf "$work/idx"
  cp -r "$work/base" "$work/idx"
  local gen=$(generation "$work/idx")
  DPS_INGEST_BELOW_FLOOR=1 DPS_FAULTS="$spec" "$bin" "${@//DIR/$work/idx}" > /dev/null 2> "$work/err" < /dev/null
  local status=$? what="$1 under '$spec'"
  [ $status -eq 3 ] || flunk "$what: exit $status, want 3: $(cat "$work/err")"
  [ "$(wc -l < "$work/err")" -eq 1 ] || flunk "$what: stderr is not one line: $(cat "$work/err")"
  grep -qE "^dpsearch: I/O error: $pattern\$" "$work/err" || flunk "$what: [$(cat "$work/err")] does not match [$pattern]"
  [ "$(generation "$work/idx")" == "$gen" ] || flunk "$what: the generation moved"
  "$bin" check --index "$work/idx" > "$work/check" 2>&1 || flunk "$what: check: $(cat "$work/check")"
  [ "$(answers "$work/idx")" == "$(cat "$work/base.ans")" ] || flunk "$what: the answers changed"
  "$bin" ingest --index "$work/idx" - < /dev/null 2>/dev/null || flunk "$what: the next writer failed"
  local left=$(strays "$work/idx")
  [ -z "$left" ] || flunk "$what: strays after the next writer: $left"
  ((++failures))
}
failures=0
eio="Input/output error"
for cmd in "ingest --index DIR $work/a.jsonl" "delete --index DIR --id d1 --id d2500" "compact --index DIR"; do
  read -ra argv <<< "$cmd"
  for spec in "sync,path=.tab" "sync,path=.gix" "sync,path=MANIFEST" "syncdir" "syncdir,skip=1" "rename" \
              "write,path=.gix,errno=EIO"; do
    fails "$spec" "$work/idx[^:]*: (fsync|rename|write at offset [0-9]+): ($eio|No space left on device)" "${argv[@]}"
  done
  fails "sync,path=.dic" "$work/idx/[0-9]+\.dic: fsync: $eio" "${argv[@]}"
done
# An ingest that spills: its runs and the documents' spill.
fails "write,path=.run.tmp,skip=2" "$work/idx/[0-9]+\.run\.tmp: write at offset [0-9]+: No space left on device" \
  ingest --index DIR --memory 1M "$work/a.jsonl"
fails "read,path=.run.tmp,skip=5" "$work/idx/[0-9]+\.run\.tmp: read at offset [0-9]+: $eio" \
  ingest --index DIR --memory 1M "$work/a.jsonl"
fails "read,path=.spill.tmp" "$work/idx/[0-9]+\.spill\.tmp: read at offset [0-9]+: $eio" \
  ingest --index DIR --memory 1M "$work/a.jsonl"

# A first ingest that fails, creating the index included, leaves nothing.
for spec in "write,path=LOCK" "syncdir" "write,path=MANIFEST" "sync,path=.tab" "write,path=.spill.tmp" \
            "syncdir,skip=2" "rename,skip=1"; do
  rm -rf "$work/new"
  DPS_FAULTS="$spec" "$bin" ingest --index "$work/new" "$work/a.jsonl" > /dev/null 2> "$work/err"
  status=$?
  [ $status -eq 3 ] && [ "$(wc -l < "$work/err")" -eq 1 ] || flunk "first ingest under '$spec': exit $status: $(cat "$work/err")"
  [ ! -e "$work/new" ] || flunk "first ingest under '$spec' left $(ls -A "$work/new" | tr '\n' ' ')"
done

# Reads: an error naming file and offset, never an answer.
for spec in "read,path=.tab" "read,path=.gix" "read,path=.tab,skip=20"; do
  DPS_FAULTS="$spec" "$bin" query --index "$work/base" --threads 1 --count w1 > "$work/out" 2> "$work/err"
  status=$?
  [ $status -eq 3 ] || flunk "query under '$spec': exit $status, want 3 (out: $(cat "$work/out"))"
  grep -qE "^dpsearch: I/O error: (bin [0-9]+: )?$work/base/[0-9]+\.(tab|gix): read at offset [0-9]+: $eio\$" "$work/err" ||
    flunk "query under '$spec': $(cat "$work/err")"
  DPS_FAULTS="$spec" "$bin" check --index "$work/base" > /dev/null 2> "$work/err"
  [ $? -eq 3 ] && grep -q "read at offset" "$work/err" || flunk "check under '$spec': $(cat "$work/err")"
done
DPS_FAULTS="read,path=MANIFEST" "$bin" query --index "$work/base" w1 > /dev/null 2> "$work/err"
[ $? -eq 3 ] && grep -qx "dpsearch: I/O error: $work/base/MANIFEST: read at offset 0: $eio" "$work/err" ||
  flunk "query with an unreadable MANIFEST: $(cat "$work/err")"

# A malformed rule is a usage error that runs nothing.
DPS_FAULTS="fsync" "$bin" check --index "$work/base" > /dev/null 2> "$work/err"
[ $? -eq 2 ] && grep -q "^dpsearch: DPS_FAULTS: fault rule 'fsync'" "$work/err" || flunk "bad DPS_FAULTS: $(cat "$work/err")"

echo "$failures injected failures of ingest, delete and compact"
[ $fail -eq 0 ] && echo "io error test passed" || { echo "io error test FAILED"; exit 1; }
