#!/usr/bin/env bash
# bench/peer.sh, dpsearch's side of ../shared/peers' "Contract for an
# external engine", on the Brown sample: the index it builds (one bin
# unless DPS_BINS says otherwise; the whitespace analyzer; positions only
# with PEERS_POSITIONS=1)
# and its five query columns (id, count, micros, top-10 micros, top 10 as
# 0-based ordinals of the corpus's non-empty lines), checked against
# `dpsearch query` on the same index.
source "$(dirname "$0")/cli_test_helpers.sh"
peer="$src/bench/peer.sh"
corpus="$src/../shared/corpora/samples/brown.jsonl"
[ -f "$corpus" ] || { echo "FAIL: $corpus not found"; exit 1; }
export DPSEARCH="$bin" PEERS_WARMUP=0 PEERS_WARMUP_SECONDS=0
unset DPS_BINS DPS_THREADS DPS_INGEST_ARGS PEERS_POSITIONS

bins_of() { "$bin" stats --index "$1" | sed -n 's/^bins *\([0-9]*\),.*/\1/p'; }

"$peer" index "$corpus" "$work/one" >"$work/index.out" 2>"$work/index.err" || flunk "index: exit $?"
has "index prints its time" "$work/index.out" "# index_seconds="
same "by default: one bin" 1 "$(bins_of "$work/one")"
# The harness's tokens as given, as every other peer indexes them.
same "the whitespace analyzer" "whitespace" "$("$bin" stats --index "$work/one" | sed -n 's/^analyzer *//p')"
DPS_BINS=4 "$peer" index "$corpus" "$work/four" >/dev/null 2>&1 || flunk "DPS_BINS=4 index: exit $?"
same "DPS_BINS=4: four bins" 4 "$(bins_of "$work/four")"

printf 'q1\tjury\nq2\tthe election\nq3\tcounty jury said\nq4\tzzzabsentzzz\n' >"$work/q.tsv"
docs=$(grep -c . "$corpus")
for idx in one four; do
  "$peer" query "$work/$idx" "$work/q.tsv" >"$work/$idx.tsv" 2>"$work/$idx.err" || flunk "$idx query: exit $?"
  same "$idx: a line a query" 4 "$(wc -l <"$work/$idx.tsv")"
  same "$idx: five columns" "5" "$(awk -F'\t' '{ print NF }' "$work/$idx.tsv" | sort -u)"
  while IFS=$'\t' read -r id query; do
    want=$("$bin" query --index "$work/$idx" --count "$query")
    same "$idx $id: count" "$want" "$(awk -F'\t' -v id="$id" '$1 == id { print $2 }' "$work/$idx.tsv")"
    top=$(awk -F'\t' -v id="$id" '$1 == id { print $5 }' "$work/$idx.tsv")
    n=$(tr ',' '\n' <<<"$top" | grep -c .)
    same "$idx $id: top 10 size" "$(( want < 10 ? want : 10 ))" "$n"
    bad=$(tr ',' '\n' <<<"$top" | awk -v d="$docs" 'NF && !($1 ~ /^[0-9]+$/ && $1 < d)' | head -1)
    same "$idx $id: ordinals within the corpus" "" "$bad"
    same "$idx $id: the top 10 of query --top 10" \
      "$("$bin" query --index "$work/$idx" --top 10 --format tsv "$query" | cut -f1 | paste -sd,)" "$top"
  done <"$work/q.tsv"
done
# The same counts from one bin and from four (top 10s may order equal
# scores differently: ties go by bin, then docid).
same "one bin and four: the same counts" "$(cut -f1,2 "$work/four.tsv")" "$(cut -f1,2 "$work/one.tsv")"

printf 'p1\t"grand jury"\n' >"$work/p.tsv"
"$peer" query "$work/one" "$work/p.tsv" >/dev/null 2>"$work/err"
same "a phrase without PEERS_POSITIONS=1: refused" 1 "$?"
has "the refusal says why" "$work/err" "PEERS_POSITIONS is not 1"
PEERS_POSITIONS=1 "$peer" index "$corpus" "$work/pos" >/dev/null 2>&1 || flunk "positions index: exit $?"
PEERS_POSITIONS=1 "$peer" query "$work/pos" "$work/p.tsv" >"$work/p.out" 2>"$work/p.err" || flunk "phrase query: exit $?"
same "phrase count" "$("$bin" query --index "$work/pos" --count '"grand jury"')" "$(cut -f2 "$work/p.out")"
exit $fail
