#!/usr/bin/env bash
# Integration test against real corpora: builds the normalized corpora of
# ../shared/corpora/queries/*.tsv into a cache outside the repository (once),
# ingests each, and checks every query's match count against the expected
# count. Each corpus of an AND query set (NAME.tsv) is indexed twice, with
# word positions, and each index answers that set and its phrase set
# (NAME.phrases.tsv) when there is one:
# - with the default ICU analyzer, skipping (and counting) the queries the
#   normalized corpora cannot answer like it: runs of Chinese/Japanese/Thai
#   (kept whole by the normalizer, segmented by ICU) and characters whose
#   case folding differs from lowercasing;
# - with `--analyzer whitespace`, the corpora's own tokens as given (as
#   bench/peer.sh indexes them for ../shared/peers): every query, none
#   skipped. Skips
# (exit 77, ctest's SKIP_RETURN_CODE, with a message) when the query sets or
# the corpora cannot be had.
# Usage: corpora_test.sh path/to/dpsearch
set -uo pipefail
bin=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=${DPS_SHARED:-$repo/../shared}
cache=${DPS_CORPORA_CACHE:-$HOME/.cache/dpsearch/corpora}
# CI has ../shared, root and the package archive: there a skip is a failure.
skip() {
  if [ "${CI:-}" = "true" ]; then echo "FAIL: cannot run in CI: $*"; exit 1; fi
  echo "SKIP: $*"; exit 77
}
[ -d "$shared/corpora/queries" ] || skip "$shared/corpora not found"
mkdir -p "$cache"
names=()
for q in "$shared"/corpora/queries/*.tsv; do
  n=$(basename "$q" .tsv)
  [[ $n == *.* ]] || names+=("$n")  # brown.phrases: phrase queries
done
[ ${#names[@]} -gt 0 ] || skip "no AND query sets in $shared/corpora/queries"
missing=()
for n in "${names[@]}"; do [ -s "$cache/$n.norm.jsonl" ] || missing+=("$n"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "building corpora ${missing[*]} into $cache"
  if ! (cd "$shared/corpora" && ./build_all.sh "$cache" "${missing[@]}") > "$cache/build.log" 2>&1; then
    tail -3 "$cache/build.log"; skip "could not fetch/build the corpora (see $cache/build.log)"
  fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for analyzer in icu whitespace; do
  for n in "${names[@]}"; do
    started=$(date +%s%N)
    index="$work/$n.$analyzer"
    "$bin" ingest --index "$index" --analyzer "$analyzer" --no-store-text "$cache/$n.norm.jsonl" 2>"$work/$n.err" || { cat "$work/$n.err"; fail=1; continue; }
    for set in "$n" "$n.phrases"; do
      [ -s "$shared/corpora/queries/$set.tsv" ] || continue
      # ICU: keep the queries every engine answers alike; count the others.
      # Whitespace: keep them all.
      python3 - "$shared/corpora/queries/$set.tsv" "$work/$set.q" "$analyzer" <<'PY'
import sys, unicodedata
keep = skip = 0
with open(sys.argv[1], encoding='utf-8') as f, open(sys.argv[2], 'w', encoding='utf-8') as out:
    for line in f:
        qid, terms, expected = line.rstrip('\n').split('\t')
        def unsegmented(ch):
            name = unicodedata.name(ch, '')
            return any(s in name for s in ('CJK', 'HIRAGANA', 'KATAKANA', 'THAI', 'LAO', 'KHMER', 'MYANMAR', 'HANGUL'))
        odd = any(unsegmented(c) for c in terms) or unicodedata.normalize('NFKC', terms.casefold()) != terms
        if odd and sys.argv[3] == 'icu':
            skip += 1
            continue
        keep += 1
        out.write(f"{qid}\t{terms}\t{expected}\n")
print(f"{sys.argv[3]}: {keep} queries kept, {skip} skipped" + (" (CJK/Thai runs or case folding differs)" if skip else ""))
PY
      "$bin" query --index "$index" --queries "$work/$set.q" > "$work/$set.out" 2>"$work/$set.qerr"
      status=$?
      # A query that fails prints its error and counts 0: no error may pass.
      if [ $status -ne 0 ] || [ -s "$work/$set.qerr" ]; then
        echo "FAIL: $set ($analyzer): batch query exit $status, $(wc -l < "$work/$set.qerr") lines on stderr:"; head -5 "$work/$set.qerr"; fail=1; continue
      fi
      total=$(wc -l < "$work/$set.q")
      if [ "$total" -eq 0 ] || [ "$(wc -l < "$work/$set.out")" -ne "$total" ]; then
        echo "FAIL: $set ($analyzer): $(wc -l < "$work/$set.out") answers to $total queries"; fail=1; continue
      fi
      bad=$(paste "$work/$set.out" "$work/$set.q" | awk -F'\t' '$1 != $4 || $2 != $6' | tee "$work/$set.bad" | wc -l)
      if [ "$bad" -ne 0 ]; then
        echo "FAIL: $set ($analyzer): $bad of $total queries have wrong counts:"; head -5 "$work/$set.bad"; fail=1
      else
        echo "ok: $set ($analyzer): $total queries, every count as expected ($(( ($(date +%s%N) - started) / 1000000 )) ms)"
      fi
    done
    rm -rf "$index"
  done
done
[ $fail -eq 0 ] && echo "corpora test passed" || { echo "corpora test FAILED"; exit 1; }
