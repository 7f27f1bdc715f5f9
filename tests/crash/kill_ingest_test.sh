#!/usr/bin/env bash
# Crash safety: SIGKILL `dpsearch ingest` at >= 20 random moments (reading,
# spilling runs, writing tablet files, rebuilding the global index, swapping
# the MANIFEST, compacting). After each kill `dpsearch check` must pass and
# every query must answer exactly as before the ingest or exactly as after it
# (its count, and for a few queries the fetched ids); both must be seen. The
# next writer must succeed, leave the answers alone and delete every file the
# MANIFEST does not name (temp files, spill runs and spills, term lists,
# unreferenced tablet files and global indexes).
# Usage: kill_ingest_test.sh path/to/dpsearch [kills]
set -uo pipefail
bin=$(realpath "$1")
kills=${2:-24}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/helpers.sh"  # strays; answers is this test's own

python3 - "$work" <<'PY'
import json, random, sys
work = sys.argv[1]
rng = random.Random(7)
vocab = [f"w{i}" for i in range(3000)]
weights = [1.0 / (i + 1) for i in range(len(vocab))]
def doc(i, tag):
    words = rng.choices(vocab, weights, k=rng.randint(5, 120))
    return {"id": f"d{i}", "title": f"{tag} {i}", "text": " ".join(words)}
with open(f"{work}/a.jsonl", "w") as f:
    for i in range(20000):
        f.write(json.dumps(doc(i, "first")) + "\n")
with open(f"{work}/b.jsonl", "w") as f:   # replaces d0..d4999, adds d20000..d39999
    for i in list(range(5000)) + list(range(20000, 40000)):
        f.write(json.dumps(doc(i, "second")) + "\n")
with open(f"{work}/queries.tsv", "w") as f:
    for q in range(60):
        terms = rng.sample(vocab[:400], rng.randint(1, 3))
        f.write(f"q{q}\t{' '.join(terms)}\n")
    f.write("first\tfirst\nsecond\tsecond\nboth\tfirst OR second\n")
PY

# answers INDEX: every query's count, then the sorted ids a few queries fetch.
id_queries=("first" "second" "w3 w7" "w5 -w1" "w20 OR w2999")
answers() {
  "$bin" query --index "$1" --queries "$work/queries.tsv" --threads 1 > "$work/batch.out" || return 1
  cut -f1,2 "$work/batch.out"
  for q in "${id_queries[@]}"; do
    echo "ids of '$q':"
    "$bin" query --index "$1" --threads 1 --format tsv "$q" > "$work/ids.out"
    [ $? -le 1 ] || return 1  # 1: no match
    cut -f1 "$work/ids.out" | sort
  done
}

# The smallest memory budget (2 threads: the floor is theirs) makes the
# ingest spill runs, so kills land there too.
"$bin" ingest --index "$work/base" --tablets 3 --bins 6 "$work/a.jsonl" 2>/dev/null || { echo "FAIL: base ingest"; exit 1; }
answers "$work/base" > "$work/before.txt" || { echo "FAIL: queries on the base index"; exit 1; }
cp -r "$work/base" "$work/full"
start=$(date +%s%N)
"$bin" ingest --index "$work/full" --threads 2 --memory 47M "$work/b.jsonl" 2>/dev/null || { echo "FAIL: full ingest"; exit 1; }
ms=$(( ($(date +%s%N) - start) / 1000000 ))
answers "$work/full" > "$work/after.txt" || { echo "FAIL: queries on the full index"; exit 1; }
cmp -s "$work/before.txt" "$work/after.txt" && { echo "FAIL: the second ingest changes no answer"; exit 1; }
echo "full second ingest takes ${ms} ms; killing at random moments within it"

fail=0 before=0 after=0 littered=0
: > "$work/stray_kinds.txt"
for k in $(seq 1 "$kills"); do
  rm -rf "$work/victim"
  cp -r "$work/base" "$work/victim"
  # Spread over the whole run (and past it) with jitter, so that kills
  # land in every phase: reading, spilling, merging, committing, compacting.
  delay=$(python3 -c "import random; print(max(0.0, ($k - 0.5) / $kills * $ms * 1.5 + random.Random($k).uniform(-40, 40)) / 1000)")
  "$bin" ingest --index "$work/victim" --threads 2 --memory 47M "$work/b.jsonl" 2>/dev/null &
  pid=$!
  if [ "$k" = "$kills" ]; then
    # The last kill comes well past the end, whatever this ingest's speed:
    # it waits for the ingest to finish (60 s at most), so the new index is
    # seen at least once even on a loaded machine; the first kills land in
    # the first tenths of the run, long before its commit at the end, so
    # the old index is seen too.
    for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    delay="past the end"
  else
    sleep "$delay"
  fi
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if ! "$bin" check --index "$work/victim" > "$work/check.txt" 2>&1; then
    echo "FAIL: kill $k at ${delay}s: check failed: $(cat "$work/check.txt")"; fail=1; continue
  fi
  if ! answers "$work/victim" > "$work/got.txt"; then
    echo "FAIL: kill $k at ${delay}s: a query failed"; fail=1; continue
  fi
  if cmp -s "$work/got.txt" "$work/before.txt"; then
    before=$((before + 1))
  elif cmp -s "$work/got.txt" "$work/after.txt"; then
    after=$((after + 1))
  else
    echo "FAIL: kill $k at ${delay}s: answers are neither before nor after"; diff "$work/before.txt" "$work/got.txt" | head -5; fail=1
  fi
  # The next writer cleans up what the killed one left behind: afterwards
  # only the MANIFEST, LOCK and the files the MANIFEST names remain, and the
  # answers are those the killed ingest left.
  left=$(strays "$work/victim")
  if [ -n "$left" ]; then
    littered=$((littered + 1))
    echo "$left" | sed -E 's/^[0-9]+//' >> "$work/stray_kinds.txt"
  fi
  if ! "$bin" ingest --index "$work/victim" --threads 2 --memory 47M - < /dev/null 2>"$work/cleanup.err"; then
    echo "FAIL: kill $k: the next ingest failed: $(cat "$work/cleanup.err")"; fail=1; continue
  fi
  left=$(strays "$work/victim")
  [ -z "$left" ] || { echo "FAIL: kill $k: files the MANIFEST does not name survive the next writer:" $left; fail=1; }
  if ! "$bin" check --index "$work/victim" > "$work/check.txt" 2>&1; then
    echo "FAIL: kill $k: check failed after the next writer: $(cat "$work/check.txt")"; fail=1; continue
  fi
  answers "$work/victim" > "$work/cleaned.txt" && cmp -s "$work/got.txt" "$work/cleaned.txt" ||
    { echo "FAIL: kill $k: the next writer changed the answers"; fail=1; }
done
echo "$kills kills: $before left the old index, $after the new one;" \
  "$littered left files the next writer removed ($(sort -u "$work/stray_kinds.txt" | tr '\n' ' '))"
# Each outcome must have been seen: otherwise the kills missed a phase and
# the comparison above proved less than it claims.
[ "$before" -gt 0 ] || { echo "FAIL: no kill left the old index"; fail=1; }
[ "$after" -gt 0 ] || { echo "FAIL: no kill left the new index"; fail=1; }
[ "$littered" -gt 0 ] || { echo "FAIL: no kill left stray files, so their removal went untested"; fail=1; }
[ $fail -eq 0 ] && echo "kill test passed" || { echo "kill test FAILED"; exit 1; }
