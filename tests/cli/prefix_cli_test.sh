#!/usr/bin/env bash
# CLI test of prefix queries (`netw*`, README "Queries"): a prefix matches
# as the OR of the terms it starts, alone, under AND/OR/NOT and ranked,
# in-process and over `dpsearch serve`; one no term starts matches nothing
# (exit 1); past --max-expansions the query is refused (exit 2) with the
# number of terms it would need, in a single query, a batch, bench and over
# a cluster alike, never answered with fewer terms; the flag is checked as
# written.
# Usage: prefix_cli_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"

# 2000 documents over w0..w299 (so w1* is w1, w10-w19 and w100-w199: 111
# terms if all occur) and a few net* words.
awk 'BEGIN { srand(11); for (d = 0; d < 2000; d++) { n = 5 + int(rand() * 30); t = "";
       for (k = 0; k < n; k++) t = t " w" int(300 * rand());
       if (d % 7 == 0) t = t " network"; if (d % 11 == 0) t = t " Networks"; if (d % 13 == 0) t = t " netball";
       printf "{\"id\":\"d%d\",\"title\":\"doc %d\",\"text\":\"%s\"}\n", d, d, t } }' > "$work/corpus.jsonl"
"$bin" ingest --index "$work/idx" --bins 8 --tablets 4 "$work/corpus.jsonl" 2>/dev/null || { echo "FAIL: ingest"; exit 1; }
w1_terms=$(grep -o 'w1[0-9]*\b' "$work/corpus.jsonl" | sort -u | wc -l)
same "every w1* term occurs" 111 "$w1_terms"
w1_or="w1$(for i in $(seq 10 19) $(seq 100 199); do printf ' OR w%s' "$i"; done)"
w29_or="w29$(for i in $(seq 290 299); do printf ' OR w%s' "$i"; done)"

# count QUERY ARGS...: --count's output (exit 0 or 1).
count() { local query=$1; shift; "$bin" query --index "$work/idx" --count "$@" -- "$query" 2>/dev/null; }

# A prefix is the OR of its expansions, wherever it stands.
for pair in "netw*|network OR networks" "NETW*|network OR networks" "net*|network OR networks OR netball" \
            "w1*|$w1_or" "w2 w1*|w2 ($w1_or)" "w2 -w29*|w2 -($w29_or)" "w2 OR w1*|w2 OR $w1_or" \
            "(netw* OR netb*) -w5*|(network OR networks OR netball) -(w5 OR w50 OR w51 OR w52 OR w53 OR w54 OR w55 OR w56 OR w57 OR w58 OR w59)"; do
  query=${pair%%|*} spelled=${pair#*|}
  want=$(count "$spelled")
  got=$(count "$query")
  [ "$want" -gt 0 ] || flunk "'$spelled' matches nothing: a weak check"
  same "'$query' = '${spelled:0:40}...'" "$want" "$got"
done
q "network as a prefix of itself" 0 query --index "$work/idx" --format tsv "networks*"
same "networks* = networks" "$(count networks)" "$(wc -l < "$work/out")"

# A prefix no term starts with matches nothing; a required one empties its AND.
q "no term starts with zz" 1 query --index "$work/idx" --format tsv "zz*"
same "zz*: no output" "" "$(cat "$work/out")"
q "w2 zz*" 1 query --index "$work/idx" --count "w2 zz*"
same "w2 zz* counts 0" "0" "$(cat "$work/out")"
same "w2 -zz* = w2" "$(count w2)" "$(count 'w2 -zz*')"
same "w2 OR zz* = w2" "$(count w2)" "$(count 'w2 OR zz*')"

# Ranked: the OR of the expansions' scores, the same as spelling them out.
q "ranked prefix" 0 query --index "$work/idx" --format tsv --top 7 "w2 w1*"
cp "$work/out" "$work/ranked_prefix.tsv"
q "ranked spelled out" 0 query --index "$work/idx" --format tsv --top 7 "w2 ($w1_or)"
same "--top 7 'w2 w1*' = spelled out, scores included" "$(cat "$work/out")" "$(cat "$work/ranked_prefix.tsv")"
same "--top 7: seven results" 7 "$(wc -l < "$work/ranked_prefix.tsv")"

# The cap: exactly the terms needed runs; one fewer is refused with the count.
refusal="dpsearch: Invalid argument: prefix 'w1*' expands to 111 terms, more than --max-expansions 110; raise --max-expansions to 111 to run it"
q "cap = expansions" 0 query --index "$work/idx" --count --max-expansions 111 "w1*"
same "cap = expansions: the full count" "$(count "$w1_or")" "$(cat "$work/out")"
for args in "--count" "--format tsv" "--format jsonl --limit 3" "--top 5" "--format tsv --offset 2"; do
  q "over the cap ($args)" 2 query --index "$work/idx" $args --max-expansions 110 "w2 w1*"
  same "over the cap ($args): the count and the flag" "$refusal" "$(cat "$work/err")"
  same "over the cap ($args): nothing on stdout" "" "$(cat "$work/out")"
done
q "default cap holds 111" 0 query --index "$work/idx" --count "w1*"
several="dpsearch: Invalid argument: the query's prefixes expand to 113 terms (w1* 111, netw* 2), more than --max-expansions 112; raise --max-expansions to 113 to run it"
q "several prefixes over the cap" 2 query --index "$work/idx" --count --max-expansions 112 "w1* OR netw*"
same "several prefixes: each one's count" "$several" "$(cat "$work/err")"
q "several prefixes at the cap" 0 query --index "$work/idx" --count --max-expansions 113 "w1* OR netw*"

# The flag is checked as written.
for bad in 0 -1 10000001 abc 1e3 ""; do
  q "--max-expansions '$bad'" 2 query --index "$work/idx" --count --max-expansions "$bad" "w1*"
  has "--max-expansions '$bad' says why" "$work/err" "--max-expansions"
done

# Batch: the refused query gets an error line and is named; the others are answered.
printf 'ok\tnetw*\nbig\tw2 w1*\nnone\tzz*\n' > "$work/batch.tsv"
q "batch over the cap" 2 query --index "$work/idx" --queries "$work/batch.tsv" --max-expansions 110
same "batch: names the refused query" "${refusal/dpsearch: Invalid argument: /dpsearch: query big failed: }" \
  "$(grep '^dpsearch: query' "$work/err")"
same "batch: lines" "$(printf 'ok\t%s\nbig\terror\nnone\t0' "$(count 'netw*')")" "$(cut -f1,2 "$work/out")"
q "batch under the cap" 0 query --index "$work/idx" --queries "$work/batch.tsv" --top 3
same "batch --top: the big query's count" "$(count 'w2 w1*')" "$(awk -F'\t' '$1 == "big" { print $2 }' "$work/out")"

# bench: the refused query is named and the exit status says so.
q "bench over the cap" 2 bench --index "$work/idx" --queries "$work/batch.tsv" --max-expansions 110
has "bench names the refused query" "$work/err" "1 of 3 queries failed (big); big: prefix 'w1*' expands to 111 terms"
q "bench under the cap" 0 bench --index "$work/idx" --queries "$work/batch.tsv" --top 3 --json

# Over a cluster: the same answers, the same refusal (the servers expand).
serve low "$work/idx" 0-1
serve high "$work/idx" 2-3
printf '0-1 %s\n2-3 %s\n' "$low" "$high" > "$work/cluster.txt"
for query in "w1*" "w2 -w29*" "(netw* OR netb*) -w5*" "zz*"; do
  same "cluster '$query' = --index" "$(count "$query")" \
    "$("$bin" query --cluster "$work/cluster.txt" --count -- "$query" 2>/dev/null)"
done
q "cluster ranked prefix" 0 query --cluster "$work/cluster.txt" --format tsv --top 7 "w2 w1*"
same "cluster --top 7 'w2 w1*' = --index" "$(cat "$work/ranked_prefix.tsv")" "$(cat "$work/out")"
q "cluster over the cap" 2 query --cluster "$work/cluster.txt" --count --max-expansions 110 "w2 w1*"
same "cluster over the cap: the servers' message" "$refusal" "$(cat "$work/err")"
q "cluster batch over the cap" 2 query --cluster "$work/cluster.txt" --queries "$work/batch.tsv" --max-expansions 110
same "cluster batch: lines" "$(printf 'ok\t%s\nbig\terror\nnone\t0' "$(count 'netw*')")" "$(cut -f1,2 "$work/out")"

finish "prefix CLI test"
