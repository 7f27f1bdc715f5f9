#!/usr/bin/env bash
# CLI test of `dpsearch ingest`'s report: the exact summary line on stderr
# (1 document / N documents, the invalid UTF-8 sequences replaced, shown
# only when there were some), and a directory holding .gz and .zst files:
# their text searchable like the plain file's, a corrupt one a one-line
# error naming it (exit 2) or, with --skip-bad, skipped and counted.
# Usage: ingest_cli_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"
# summary NAME HEAD TAIL: stderr is exactly one line, HEAD then the measured
# figures (MB read, seconds, MB/s) then TAIL then the index size.
num='[0-9]+\.[0-9]'
summary() {
  local re="^$2, $num MB in [0-9]+\.[0-9]{2} s, $num MB/s, $3, index $num MB\$"
  if [ "$(wc -l <"$work/err")" = 1 ] && grep -qE -- "$re" "$work/err"; then
    pass "$1"
  else
    flunk "$1: stderr does not match /$re/:"
    cat "$work/err"
  fi
}

# One document: singular. "alpha beta" gives two postings.
printf '{"id":"d1","text":"alpha beta"}\n' >"$work/one.jsonl"
q "one document" 0 ingest --index "$work/idx1" "$work/one.jsonl"
summary "one document summary" 'ingested 1 document \(0 replaced, 0 skipped\)' '2 postings, 0 runs spilled'

# Three documents, one of them replacing the first ingest's d1: plural.
printf '{"id":"d1","text":"gamma"}\n{"id":"d2","text":"delta"}\n{"id":"d3","text":"delta"}\n' >"$work/three.jsonl"
q "three documents" 0 ingest --index "$work/idx1" "$work/three.jsonl"
summary "three documents summary" 'ingested 3 documents \(1 replaced, 0 skipped\)' '3 postings, 0 runs spilled'

# Invalid UTF-8: Latin-1 e-acute twice and a lone continuation byte (3
# sequences), then a single one (singular).
printf '{"id":"u1","text":"caf\xe9 cr\xe8me"}\n{"id":"u2","text":"x \x80 y"}\n' >"$work/bad-utf8.jsonl"
q "invalid UTF-8" 0 ingest --index "$work/idx2" "$work/bad-utf8.jsonl"
summary "3 replaced sequences counted" \
  'ingested 2 documents \(0 replaced, 0 skipped\), 3 invalid UTF-8 sequences replaced' \
  '[0-9]+ postings, 0 runs spilled'
printf '{"id":"u3","text":"na\xefve"}\n' >"$work/one-bad.jsonl"
q "one invalid sequence" 0 ingest --index "$work/idx2" "$work/one-bad.jsonl"
summary "1 replaced sequence, singular" \
  'ingested 1 document \(0 replaced, 0 skipped\), 1 invalid UTF-8 sequence replaced' \
  '[0-9]+ postings, 0 runs spilled'
q "replaced text is searchable" 0 query --index "$work/idx2" --format tsv "caf"
same "U+FFFD splits the word" "u1" "$(cut -f1 "$work/out")"

# A directory with the same text plain, gzipped and zstd-compressed, and a
# word only the compressed ones hold.
mkdir -p "$work/tree/sub"
printf 'the quick brown fox\n' >"$work/tree/plain.txt"
printf 'the quick brown fox\nonly in gzip: walrus\n' | gzip -c >"$work/tree/sub/notes.txt.gz"
printf 'the quick brown fox\nonly in zstd: narwhal\n' | zstd -q -c >"$work/tree/sub/notes.txt.zst"
printf 'a\0binary\0file' | gzip -c >"$work/tree/blob.bin.gz"
q "dir with .gz/.zst" 0 ingest --index "$work/idx3" --format dir "$work/tree"
summary "dir summary: the binary .gz is skipped" \
  'ingested 3 documents \(0 replaced, 1 skipped\)' '[0-9]+ postings, 0 runs spilled'
q "word in every file" 0 query --index "$work/idx3" --count "quick brown fox"
same "all three match" "3" "$(cat "$work/out")"
q "gzip-only word" 0 query --index "$work/idx3" --format tsv "walrus"
same "found in the .gz, id keeps the suffix" "sub/notes.txt.gz" "$(cut -f1 "$work/out")"
q "zstd-only word" 0 query --index "$work/idx3" --format tsv "narwhal"
same "found in the .zst" "sub/notes.txt.zst" "$(cut -f1 "$work/out")"

# A corrupt .gz: one line naming the file, exit 2.
printf 'not gzip data\n' >"$work/tree/sub/broken.gz"
q "corrupt .gz" 2 ingest --index "$work/idx4" --format dir "$work/tree"
same "one-line error naming the file" \
  "dpsearch: Invalid argument: $work/tree/sub/broken.gz: corrupt gzip stream at compressed byte 2: incorrect header check" \
  "$(cat "$work/err")"
# With --skip-bad: skipped, counted and named (and "0 replaced": the failed
# ingest committed nothing).
q "corrupt .gz with --skip-bad" 0 ingest --index "$work/idx4" --format dir --skip-bad "$work/tree"
same "skipped message" \
  "dpsearch: skipped: $work/tree/sub/broken.gz: corrupt gzip stream at compressed byte 2: incorrect header check" \
  "$(head -1 "$work/err")"
sed -i 1d "$work/err"
summary "skip-bad summary counts it" 'ingested 3 documents \(0 replaced, 2 skipped\)' \
  '[0-9]+ postings, 0 runs spilled'

# --memory below the floor (ingest/memory_plan.h): one line naming the
# smallest budget that holds for the threads given, exit 2, no index made.
q "memory below the floor" 2 ingest --index "$work/idx-floor" --threads 2 --memory 8M "$work/one.jsonl"
has "floor named" "$work/err" "--memory 8M: below 47M, the smallest budget that holds with 2 threads"
same "refusal is one line" 1 "$(wc -l <"$work/err")"
same "no index made" "" "$(ls "$work/idx-floor" 2>/dev/null)"
q "memory at the floor" 0 ingest --index "$work/idx-floor" --threads 2 --memory 47M "$work/one.jsonl"

# A document longer than the budget covers (budget/16: 3.1 MB at 47M) is
# indexed, with one warning naming the longest and the budget covering it.
python3 -c '
import json
print(json.dumps({"id": "small", "text": "tiny words"}))
print(json.dumps({"id": "huge", "text": "word " * 800000}))
' > "$work/huge.jsonl"
q "a document over the budget's cover" 0 ingest --index "$work/idx-huge" --threads 2 --memory 47M "$work/huge.jsonl"
has "oversized document named" "$work/err" \
  "dpsearch: warning: 1 document longer than the 3.1 MB --memory 47M covers (the longest, $work/huge.jsonl:2, 4.0 MB): the peak may pass the budget; --memory 62M covers it"
q "huge document searchable" 0 query --index "$work/idx-huge" --count word

exit $fail
