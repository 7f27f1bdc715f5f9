#!/usr/bin/env bash
# One writer at a time, and crash safety of delete and compact.
# 1. While a writer (ingest, delete, compact) runs, every other writer is
#    refused at once with "index is locked by pid N" (N the holder's pid,
#    exit 3) and loses nothing; queries and check run meanwhile (readers
#    never take the lock). SIGKILL the holder and the next writer gets the
#    lock at once (the kernel released it).
# 2. SIGKILL `dpsearch delete` and `dpsearch compact` at random moments:
#    `check` passes and the answers are exactly those before or after the
#    delete (a compaction changes no answer at all); the next writer removes
#    every file the MANIFEST does not name.
# Usage: kill_writer_test.sh path/to/dpsearch [kills]
set -uo pipefail
bin=$(realpath "$1")
kills=${2:-12}
work=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
source "$(dirname "$0")/helpers.sh"

python3 - "$work" <<'PY'
import json, random, sys
work = sys.argv[1]
rng = random.Random(11)
vocab = [f"w{i}" for i in range(2000)]
weights = [1.0 / (i + 1) for i in range(len(vocab))]
for part in range(4):  # four commits: tablets of several files to compact
    with open(f"{work}/part{part}.jsonl", "w") as f:
        for i in range(part * 8000, (part + 1) * 8000):
            words = rng.choices(vocab, weights, k=rng.randint(5, 100))
            f.write(json.dumps({"id": f"d{i}", "title": f"t{i % 7}", "text": " ".join(words)}) + "\n")
with open(f"{work}/doomed.txt", "w") as f:  # every third document
    for i in range(0, 32000, 3):
        f.write(f"d{i}\n")
with open(f"{work}/queries.tsv", "w") as f:
    for q in range(40):
        f.write(f"q{q}\t{' '.join(rng.sample(vocab[:300], rng.randint(1, 3)))}\n")
    f.write("t3\tt3\n")
PY

for part in 0 1 2 3; do
  "$bin" ingest --index "$work/base" --bins 8 --tablets 4 "$work/part$part.jsonl" 2>/dev/null || { echo "FAIL: ingest"; exit 1; }
done
answers "$work/base" > "$work/before.txt" || { echo "FAIL: queries"; exit 1; }
cp -r "$work/base" "$work/deleted"
"$bin" delete --index "$work/deleted" --ids-from "$work/doomed.txt" 2>/dev/null || { echo "FAIL: delete"; exit 1; }
answers "$work/deleted" > "$work/after.txt"
cmp -s "$work/before.txt" "$work/after.txt" && { echo "FAIL: the delete changes no answer"; exit 1; }

# 1. The lock. A slow ingest (stdin held open) holds it while others try.
cp -r "$work/base" "$work/locked"
mkfifo "$work/feed"
"$bin" ingest --index "$work/locked" - < "$work/feed" 2>/dev/null &
holder=$!
exec 7>"$work/feed"  # the ingest waits for documents until this closes
for _ in $(seq 100); do grep -qx "$holder" "$work/locked/LOCK" 2>/dev/null && break; sleep 0.05; done
grep -qx "$holder" "$work/locked/LOCK" || flunk "the holder's pid is not in LOCK: $(cat "$work/locked/LOCK")"
want="dpsearch: I/O error: $work/locked: index is locked by pid $holder (another process is writing to this index)"
for writer in "ingest --index $work/locked $work/part0.jsonl" "delete --index $work/locked --id d1" \
              "compact --index $work/locked"; do
  "$bin" $writer > /dev/null 2> "$work/err"
  status=$?
  [ $status -eq 3 ] || flunk "$writer while locked: exit $status, want 3"
  [ "$(cat "$work/err")" == "$want" ] || flunk "$writer while locked: [$(cat "$work/err")], want [$want]"
done
[ "$(answers "$work/locked")" == "$(cat "$work/before.txt")" ] || flunk "queries while locked: answers changed or blocked"
"$bin" check --index "$work/locked" > /dev/null 2>&1 || flunk "check while locked failed"
kill -9 "$holder"; wait "$holder" 2>/dev/null
exec 7>&-
"$bin" delete --index "$work/locked" --id d1 2> "$work/err" || flunk "the writer after a SIGKILLed holder: $(cat "$work/err")"

# 2. Kills. How long each takes, to spread the kills over it.
time_of() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000000 )); }
cp -r "$work/base" "$work/timed_delete"
cp -r "$work/deleted" "$work/timed_compact"
delete_ms=$(time_of "$bin" delete --index "$work/timed_delete" --ids-from "$work/doomed.txt")
compact_ms=$(time_of "$bin" compact --index "$work/timed_compact")
echo "delete takes ${delete_ms} ms, compact ${compact_ms} ms"
declare -A seen=()
for k in $(seq 1 "$kills"); do
  for op in delete compact; do
    rm -rf "$work/victim"
    # Computed before the writer starts: python's start-up is as long as a delete.
    ms_of="${op}_ms"
    pause=$(python3 -c "import random; print(max(0.0, ($k - 0.5) / $kills * ${!ms_of} * 1.3 + random.Random($k).uniform(-5, 5)) / 1000)")
    if [ $op = delete ]; then
      cp -r "$work/base" "$work/victim"
      "$bin" delete --index "$work/victim" --ids-from "$work/doomed.txt" 2>/dev/null &
    else
      cp -r "$work/deleted" "$work/victim"
      "$bin" compact --index "$work/victim" 2>/dev/null &
    fi
    pid=$!
    sleep "$pause"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    if ! "$bin" check --index "$work/victim" > "$work/check.txt" 2>&1; then
      flunk "$op kill $k: check failed: $(cat "$work/check.txt")"; continue
    fi
    answers "$work/victim" > "$work/got.txt"
    if [ $op = compact ]; then
      cmp -s "$work/got.txt" "$work/after.txt" || flunk "$op kill $k: a compaction changed the answers"
      seen[compact]=1
    elif cmp -s "$work/got.txt" "$work/before.txt"; then
      seen[delete_before]=1
    elif cmp -s "$work/got.txt" "$work/after.txt"; then
      seen[delete_after]=1
    else
      flunk "$op kill $k: answers are neither before nor after the delete"
    fi
    [ -n "$(strays "$work/victim")" ] && seen[${op}_strays]=1
    "$bin" ingest --index "$work/victim" - < /dev/null 2> "$work/err" || { flunk "$op kill $k: next writer: $(cat "$work/err")"; continue; }
    left=$(strays "$work/victim")
    [ -z "$left" ] || flunk "$op kill $k: files the MANIFEST does not name survive the next writer: $left"
    "$bin" check --index "$work/victim" > /dev/null 2>&1 || flunk "$op kill $k: check after the next writer"
  done
done
echo "outcomes seen: ${!seen[*]}"
# Each outcome must have been seen, or the kills missed a phase.
for o in delete_before delete_after compact_strays; do
  [ -n "${seen[$o]:-}" ] || flunk "no kill gave '$o': the kills proved less than they claim"
done
[ $fail -eq 0 ] && echo "kill writer test passed" || { echo "kill writer test FAILED"; exit 1; }
