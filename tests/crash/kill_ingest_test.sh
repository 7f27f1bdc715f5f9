#!/usr/bin/env bash
# Crash safety: SIGKILL `dpsearch ingest` at >= 20 random moments (reading,
# spilling runs, writing tablet files, rebuilding the global index, swapping
# the MANIFEST, compacting). After each kill `dpsearch check` must pass and
# every query must answer exactly as before the ingest or exactly as after it.
# Usage: kill_ingest_test.sh path/to/dpsearch [kills]
set -uo pipefail
bin=$(realpath "$1")
kills=${2:-24}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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

answers() { "$bin" query --index "$1" --queries "$work/queries.tsv" --threads 1 | cut -f1,2; }

# A small memory budget makes the ingest spill runs, so kills land there too.
"$bin" ingest --index "$work/base" --tablets 3 --bins 6 "$work/a.jsonl" 2>/dev/null || { echo "FAIL: base ingest"; exit 1; }
answers "$work/base" > "$work/before.txt"
cp -r "$work/base" "$work/full"
start=$(date +%s%N)
"$bin" ingest --index "$work/full" --memory 8M "$work/b.jsonl" 2>/dev/null || { echo "FAIL: full ingest"; exit 1; }
ms=$(( ($(date +%s%N) - start) / 1000000 ))
answers "$work/full" > "$work/after.txt"
cmp -s "$work/before.txt" "$work/after.txt" && { echo "FAIL: the second ingest changes no answer"; exit 1; }
echo "full second ingest takes ${ms} ms; killing at random moments within it"

fail=0 before=0 after=0
for k in $(seq 1 "$kills"); do
  rm -rf "$work/victim"
  cp -r "$work/base" "$work/victim"
  # Spread over the whole run (and past it) with jitter, so that kills
  # land in every phase: reading, spilling, merging, committing, compacting.
  delay=$(python3 -c "import random; print(max(0.0, ($k - 0.5) / $kills * $ms * 1.5 + random.Random($k).uniform(-40, 40)) / 1000)")
  "$bin" ingest --index "$work/victim" --memory 8M "$work/b.jsonl" 2>/dev/null &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if ! "$bin" check --index "$work/victim" > "$work/check.txt" 2>&1; then
    echo "FAIL: kill $k at ${delay}s: check failed: $(cat "$work/check.txt")"; fail=1; continue
  fi
  answers "$work/victim" > "$work/got.txt"
  if cmp -s "$work/got.txt" "$work/before.txt"; then
    before=$((before + 1))
  elif cmp -s "$work/got.txt" "$work/after.txt"; then
    after=$((after + 1))
  else
    echo "FAIL: kill $k at ${delay}s: answers are neither before nor after"; diff "$work/before.txt" "$work/got.txt" | head -5; fail=1
  fi
  # The next writer cleans up what the killed one left behind.
  strays=$(ls "$work/victim" | grep -c '\.tmp$' || true)
  "$bin" ingest --index "$work/victim" --memory 8M - < /dev/null 2>/dev/null
  left=$(ls "$work/victim" | grep -c '\.tmp$' || true)
  [ "$left" = 0 ] || { echo "FAIL: kill $k: $left temp files survive the next writer"; fail=1; }
done
echo "$kills kills: $before left the old index, $after the new one"
[ $fail -eq 0 ] && echo "kill test passed" || { echo "kill test FAILED"; exit 1; }
