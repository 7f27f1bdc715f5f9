#!/usr/bin/env bash
# CLI smoke test of the documented command-line contract (DESIGN.md):
# ingest, scan, stats, check, delete, compact, exit codes and error lines.
# Usage: cli_smoke_test.sh path/to/dpsearch
set -uo pipefail
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # check NAME EXPECTED_EXIT ACTUAL_EXIT
  if [ "$2" != "$3" ]; then echo "FAIL: $1: exit $3, expected $2"; fail=1; else echo "ok: $1"; fi
}
contains() {  # contains NAME FILE TEXT
  if grep -qF -- "$3" "$2"; then echo "ok: $1"; else echo "FAIL: $1: '$3' not in:"; cat "$2"; fail=1; fi
}

cat > "$work/a.jsonl" <<'JSON'
{"id": "d1", "title": "White House", "text": "The white house is in Washington."}
{"id": 2, "text": "A red house by the sea."}
{"id": "d3", "title": "Ça va", "text": "Straße und Café, 2024."}
JSON

"$bin" ingest --index "$work/idx" --bins 4 --tablets 2 "$work/a.jsonl" 2>"$work/err"; check "ingest" 0 $?
contains "ingest summary" "$work/err" "ingested 3 documents"
"$bin" scan --index "$work/idx" --term house >"$work/out"; check "scan" 0 $?
[ "$(wc -l <"$work/out")" = 2 ] && echo "ok: two postings of house" || { echo "FAIL: house postings"; cat "$work/out"; fail=1; }
"$bin" scan --index "$work/idx" --term strasse >"$work/out"; check "scan folded" 0 $?
[ "$(wc -l <"$work/out")" = 1 ] && echo "ok: ß folds to ss" || { echo "FAIL: strasse"; fail=1; }
"$bin" stats --index "$work/idx" >"$work/out"; check "stats" 0 $?
contains "stats documents" "$work/out" "documents   3 live"
"$bin" check --index "$work/idx" >"$work/out"; check "check" 0 $?

# Replacing an id and deleting one.
echo '{"id": "d1", "text": "gone green"}' | "$bin" ingest --index "$work/idx" - 2>"$work/err"; check "ingest stdin" 0 $?
contains "replace counted" "$work/err" "1 replaced"
"$bin" scan --index "$work/idx" --term white >"$work/out"; check "scan after replace" 0 $?
[ ! -s "$work/out" ] && echo "ok: replaced document's terms are gone" || { echo "FAIL: white still indexed"; fail=1; }
"$bin" delete --index "$work/idx" --id 2 2>"$work/err"; check "delete" 0 $?
"$bin" delete --index "$work/idx" --id nosuch 2>"$work/err"; check "delete unknown id" 1 $?
"$bin" compact --index "$work/idx" 2>"$work/err"; check "compact" 0 $?
"$bin" scan --index "$work/idx" --term red >"$work/out"; check "scan after delete" 0 $?
[ ! -s "$work/out" ] && echo "ok: deleted document is gone" || { echo "FAIL: red still indexed"; fail=1; }
"$bin" check --index "$work/idx" >/dev/null; check "check after compact" 0 $?

# Bad input: one clear line naming file and line; nothing committed.
printf '{"id": "x", "text": "fine"}\n{"id": "y", "text": \n' > "$work/bad.jsonl"
"$bin" ingest --index "$work/idx" "$work/bad.jsonl" 2>"$work/err"; check "bad json exit" 2 $?
contains "bad json names line" "$work/err" "bad.jsonl: line 2"
[ "$(wc -l <"$work/err")" = 1 ] && echo "ok: one error line" || { echo "FAIL: error lines"; cat "$work/err"; fail=1; }
"$bin" scan --index "$work/idx" --term fine >"$work/out"
[ ! -s "$work/out" ] && echo "ok: nothing of the failed ingest committed" || { echo "FAIL: partial commit"; fail=1; }
"$bin" ingest --index "$work/idx" --skip-bad "$work/bad.jsonl" 2>"$work/err"; check "skip-bad" 0 $?
contains "skip-bad counted" "$work/err" "1 skipped"

# Usage and index errors.
"$bin" scan 2>/dev/null; check "missing --index is usage" 2 $?
"$bin" frobnicate 2>/dev/null; check "unknown command is usage" 2 $?
"$bin" scan --index "$work/nothing" 2>"$work/err"; check "missing index" 3 $?
contains "missing index message" "$work/err" "no index here"
printf 'garbage' > "$work/idx/MANIFEST"
"$bin" check --index "$work/idx" 2>"$work/err"; check "corrupt manifest" 3 $?
contains "corrupt manifest names file" "$work/err" "MANIFEST"

if [ $fail -ne 0 ]; then echo "cli smoke test FAILED"; exit 1; fi
echo "cli smoke test passed"
