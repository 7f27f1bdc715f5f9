#!/usr/bin/env bash
# CLI test of `dpsearch query|bench --cluster` against real `dpsearch serve`
# processes on loopback (free ports): a cluster file leaving tablets out is
# refused before any query (exit 2, the tablets named) or, with
# --allow-partial, answers exactly the covered tablets' matches flagged
# partial (exit 4); a replica of another index, or one not hosting its
# range, is skipped with one warning (exit 0, the full answer); a range
# whose replicas are all of another index is refused (exit 2).
# Usage: cluster_cli_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"

# Two indexes of 8 tablets: the cluster's (3000 documents over w0..w299,
# Zipf-like) and a stranger (another index id, other documents).
awk 'BEGIN { srand(7); for (d = 0; d < 3000; d++) { n = 5 + int(rand() * 40); t = "";
       for (k = 0; k < n; k++) t = t " w" int(300 * rand() * rand());
       printf "{\"id\":\"d%d\",\"title\":\"doc %d\",\"text\":\"%s\"}\n", d, d, t } }' > "$work/corpus.jsonl"
awk 'BEGIN { for (d = 0; d < 500; d++) printf "{\"id\":\"s%d\",\"title\":\"s\",\"text\":\"w1 w2 w%d\"}\n", d, d }' \
  > "$work/stranger.jsonl"
"$bin" ingest --index "$work/idx" --bins 16 --tablets 8 "$work/corpus.jsonl" 2>/dev/null || { echo "FAIL: ingest"; exit 1; }
"$bin" ingest --index "$work/other" --bins 16 --tablets 8 "$work/stranger.jsonl" 2>/dev/null || { echo "FAIL: ingest other"; exit 1; }
id=$(awk '$1 == "index-id" { print $2 }' "$work/idx/MANIFEST")
other_id=$(awk '$1 == "index-id" { print $2 }' "$work/other/MANIFEST")
[ -n "$id" ] && [ -n "$other_id" ] && [ "$id" != "$other_id" ] || { echo "FAIL: index ids '$id' '$other_id'"; exit 1; }
stranger_identity="index $other_id (16 bins, 8 tablets, analyzer icu)"

serve low "$work/idx" 0-3
serve high "$work/idx" 4-7
serve all "$work/idx" 0-7
serve stranger "$work/other" 0-7
serve stalled "$work/idx" 0-3 --inject-delay 0:1:3000  # tablet 0 answers after 3 s

queries="w1 w7 w2_w3 w10_-w1 w150 w5_OR_w250 nosuchword"
printf '%s\n' $queries | tr '_' ' ' | awk '{ printf "q%d\t%s\n", NR, $0 }' > "$work/queries.tsv"
# count ARGS... QUERY: the match count `dpsearch query --count` prints (exit 0 or 1).
count() { "$bin" query "$@" --count 2>/dev/null; }
# low_count QUERY: matches in tablets 0-3 by --index, from the --stats rows
# (bin tablet wait service results path).
low_count() {
  "$bin" query --index "$work/idx" --count --stats "$1" 2>&1 >/dev/null |
    awk '$1 ~ /^[0-9]+$/ && NF == 6 && $2 <= 3 { n += $5 } END { print n + 0 }'
}

# The whole cluster answers as --index does, silently.
printf '0-3 %s\n4-7 %s\n' "$low" "$high" > "$work/full.txt"
for query in w1 w150 "w10 -w1"; do
  want=$(count --index "$work/idx" "$query")
  q "full cluster '$query'" 0 query --cluster "$work/full.txt" --count "$query"
  same "full cluster '$query' count" "$want" "$(cat "$work/out")"
  same "full cluster '$query' says nothing" "" "$(cat "$work/err")"
done
# Results carry the same snippets (made by the servers) as --index, and a
# page (--offset) is the same page.
"$bin" query --index "$work/idx" --format jsonl "w3 w4" | sort > "$work/index.jsonl"
q "cluster jsonl" 0 query --cluster "$work/full.txt" --format jsonl "w3 w4"
same "cluster jsonl records and snippets = --index's" "$(cat "$work/index.jsonl")" "$(sort "$work/out")"
grep -q '"snippet":"[^"]' "$work/index.jsonl" && pass "snippets are not empty" || flunk "snippets are empty"
"$bin" query --index "$work/idx" --format tsv --offset 5 --limit 7 w2 > "$work/index_page.tsv"
q "cluster page" 0 query --cluster "$work/full.txt" --format tsv --offset 5 --limit 7 w2
same "cluster page = --index page" "$(cat "$work/index_page.tsv")" "$(cat "$work/out")"

# Ranked (--top, protocol 4): the same ids, scores (the shortest text of
# the same double), order and snippets as --index, in tsv (a fifth column)
# and jsonl ("score"), with --offset and BM25's flags.
for args in "--top 10" "--top 7 --offset 4" "--top 5 --bm25-k1 0.4 --bm25-b 0.2" "--top 100000"; do
  for fmt in tsv jsonl; do
    # shellcheck disable=SC2086
    "$bin" query --index "$work/idx" --format $fmt $args "w3 OR w40 -w1" > "$work/index_top"
    # shellcheck disable=SC2086
    q "cluster $fmt $args" 0 query --cluster "$work/full.txt" --format $fmt $args "w3 OR w40 -w1"
    same "cluster $fmt $args = --index" "$(cat "$work/index_top")" "$(cat "$work/out")"
  done
done
"$bin" query --cluster "$work/full.txt" --format tsv --top 10 "w3 OR w40 -w1" > "$work/top10.tsv"
same "cluster --top 10: 10 lines of five columns" "10 5" \
  "$(wc -l < "$work/top10.tsv" | tr -d ' ') $(awk -F'\t' '{ print NF }' "$work/top10.tsv" | sort -u)"
same "cluster --top 10: best first" "$(sort -t$'\t' -k5,5gr -k3,3n -k4,4n -s "$work/top10.tsv")" "$(cat "$work/top10.tsv")"
"$bin" query --cluster "$work/full.txt" --format jsonl --top 2 "w3 OR w40 -w1" > "$work/top2.jsonl"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert [list(x) for x in r]==[["id","title","bin","docid","score","snippet"]]*2 and r[0]["score"]>=r[1]["score"], r' \
  "$work/top2.jsonl" && pass "cluster --top jsonl fields and order" || flunk "cluster --top jsonl fields"
# Batch mode and bench rank over the cluster too.
"$bin" query --index "$work/idx" --queries "$work/queries.tsv" --top 3 --bm25-b 0.5 | cut -f1,2,5 > "$work/local_top.tsv"
q "cluster batch --top" 0 query --cluster "$work/full.txt" --queries "$work/queries.tsv" --top 3 --bm25-b 0.5
same "cluster batch --top: counts and the 3 best ids = --index's" "$(cat "$work/local_top.tsv")" "$(cut -f1,2,5 "$work/out")"
q "cluster bench --top" 0 bench --cluster "$work/full.txt" --queries "$work/queries.tsv" --top 10 --json
has "cluster bench --top: a ranked run" "$work/out" '{"mode":"ranked","top_k":10,"bm25_k1":1.2,"bm25_b":0.75,'
has "cluster bench --top: no error" "$work/out" '"errors":0,'
# A deadline: the 10 best of the tablets that answered, flagged partial.
printf '0-3 %s\n4-7 %s\n' "$stalled" "$high" > "$work/stalled.txt"
"$bin" query --index "$work/idx" --format tsv --top 100000 w3 | cut -f1,5 > "$work/w3_all.tsv"
q "ranked deadline" 4 query --cluster "$work/stalled.txt" --deadline 300 --format jsonl --top 10 w3
same "ranked deadline: 10 results and the marker" 11 "$(wc -l < "$work/out" | tr -d ' ')"
has "ranked deadline: the marker" "$work/out" '{"partial":true,"missing_tablets":"0-3"}'
has "ranked deadline: stderr names the tablets" "$work/err" "dpsearch: partial result: tablets 0-3 missing"
python3 - "$work/out" "$work/w3_all.tsv" <<'PY' && pass "ranked deadline: the best of what came, scores as --index" || flunk "ranked deadline answer"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])][:-1]
ref = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[2]))
assert all(float(ref[r["id"]]) == r["score"] for r in rows), rows
assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True), rows
PY

# A cluster file leaving tablets 4-7 out: refused before any query runs.
printf '0-3 %s\n' "$low" > "$work/incomplete.txt"
missing="dpsearch: Invalid argument: $work/incomplete.txt: tablets 4-7 of index $id (8 tablets) are not covered by any range"
q "incomplete" 2 query --cluster "$work/incomplete.txt" --count w1
same "incomplete message" "$missing" "$(cat "$work/err")"
same "incomplete prints nothing" "" "$(cat "$work/out")"
q "incomplete, results" 2 query --cluster "$work/incomplete.txt" --format tsv w1
same "incomplete, results message" "$missing" "$(cat "$work/err")"
same "incomplete, results print nothing" "" "$(cat "$work/out")"
q "incomplete batch" 2 query --cluster "$work/incomplete.txt" --queries "$work/queries.tsv"
same "incomplete batch message" "$missing" "$(cat "$work/err")"
same "incomplete batch prints nothing" "" "$(cat "$work/out")"
q "incomplete bench" 2 bench --cluster "$work/incomplete.txt" --queries "$work/queries.tsv"
has "incomplete bench message" "$work/err" "$missing"

# Ranges beyond the index's tablets are refused, --allow-partial or not.
printf '0-3 %s\n4-9 %s\n' "$low" "$high" > "$work/beyond.txt"
for partial in "" --allow-partial; do
  q "beyond $partial" 2 query --cluster "$work/beyond.txt" $partial --count w1
  same "beyond $partial message" \
    "dpsearch: Invalid argument: $work/beyond.txt: tablets 4-9 are beyond the 8 tablets of index $id" "$(cat "$work/err")"
done

# --allow-partial: tablets 0-3's matches exactly, every answer flagged.
for query in w1 w7 "w5 OR w250" "w10 -w1"; do
  want=$(low_count "$query")
  q "partial '$query'" 4 query --cluster "$work/incomplete.txt" --allow-partial --count "$query"
  same "partial '$query' count = tablets 0-3 of --index" "$want" "$(cat "$work/out")"
  same "partial '$query' marker" "dpsearch: partial count: tablets 4-7 missing (not answered or not in the cluster file)" "$(cat "$work/err")"
done
[ "$(low_count w1)" -gt 0 ] && [ "$(low_count w1)" -lt "$(count --index "$work/idx" w1)" ] ||
  flunk "w1 should match in tablets 0-3 and beyond"
q "partial without a match" 4 query --cluster "$work/incomplete.txt" --allow-partial --count nosuchword
same "partial without a match counts 0" "0" "$(cat "$work/out")"
q "partial results" 4 query --cluster "$work/incomplete.txt" --allow-partial --format jsonl w7
same "partial results: one line per match and the marker" "$(( $(low_count w7) + 1 ))" "$(wc -l < "$work/out" | tr -d ' ')"
same "partial results end with the marker" '{"partial":true,"missing_tablets":"4-7"}' "$(tail -1 "$work/out")"
q "partial batch" 4 query --cluster "$work/incomplete.txt" --allow-partial --queries "$work/queries.tsv"
# A partial count never sits in the count column: id, "partial", the count
# of the tablets that answered, the missing tablets.
want=$(while IFS=$'\t' read -r qid query; do printf '%s partial %s 4-7\n' "$qid" "$(low_count "$query")"; done < "$work/queries.tsv")
same "partial batch counts" "$want" "$(tr '\t' ' ' < "$work/out")"
same "partial batch: every query flagged" "$(wc -l < "$work/queries.tsv")" \
  "$(grep -c '^dpsearch: query q[0-9]*: partial answer, tablets 4-7 missing$' "$work/err")"
q "partial bench" 0 bench --cluster "$work/incomplete.txt" --allow-partial --queries "$work/queries.tsv" --json
has "partial bench: every query partial" "$work/out" "\"partial_results\":$(wc -l < "$work/queries.tsv")"
q "--allow-partial with --index" 2 query --index "$work/idx" --allow-partial --count w1
same "--allow-partial with --index message" \
  "dpsearch: Invalid argument: --token-file and --allow-partial need --cluster or --zookeeper" "$(cat "$work/err")"
q "--replica-policy with --index" 2 query --index "$work/idx" --replica-policy first --count w1
same "--replica-policy with --index message" \
  "dpsearch: Invalid argument: --deadline, --hedge-after, --replica-policy, --tied and --consistent need --cluster, or --index with --replicas" \
  "$(cat "$work/err")"
q "--hedge-siblings without --hedge-after" 2 query --cluster "$work/incomplete.txt" --hedge-siblings 3 --count w1
same "--hedge-siblings without --hedge-after message" \
  "dpsearch: Invalid argument: --hedge-siblings applies to hedging: give --hedge-after" "$(cat "$work/err")"
q "--tied with --index" 2 bench --index "$work/idx" --tied --queries "$work/queries.tsv"
has "--tied with --index message" "$work/err" "--tied and --consistent need --cluster, or --index with --replicas"
q "--replicas with --cluster" 2 query --cluster "$work/incomplete.txt" --replicas 2 --count w1
has "--replicas with --cluster message" "$work/err" "--replicas applies to --index; a cluster file lists its replicas"
# In-process replicas (--index --replicas R): the cluster's fan-out over
# copies of the index in this process; answers equal plain --index ones.
for flags in "--replicas 1" "--replicas 2 --hedge-after 1 --inject-delay 0/*:0.5:5" \
             "--replicas 3 --tied --replica-policy random --inject-delay 1/2:1:20"; do
  q "replicas '$flags' batch" 0 query --index "$work/idx" $flags --queries "$work/queries.tsv"
  cut -f1,2 "$work/out" > "$work/replicas.tsv"
  "$bin" query --index "$work/idx" --queries "$work/queries.tsv" | cut -f1,2 > "$work/plain.tsv"
  same "replicas '$flags' counts = --index" "$(cat "$work/plain.tsv")" "$(cat "$work/replicas.tsv")"
  q "replicas '$flags' top 5" 0 query --index "$work/idx" $flags --top 5 --format tsv "w2 OR w7"
  same "replicas '$flags' top 5 = --index" "$("$bin" query --index "$work/idx" --top 5 --format tsv "w2 OR w7")" \
    "$(cat "$work/out")"
done
q "replicas stalled under a deadline" 4 query --index "$work/idx" --replicas 1 --inject-delay '0/3:1:5000' \
  --deadline 200 --count w1
has "replicas stalled under a deadline: tablet 3 named" "$work/err" "tablets 0-7 missing"
q "replicas: a delay for a replica not there" 2 query --index "$work/idx" --replicas 2 --inject-delay '2/*:1:5' --count w1
same "replicas: a delay for a replica not there message" \
  "dpsearch: Invalid argument: --inject-delay 2/*:1:5: no replica 2 (replicas are 0-1)" "$(cat "$work/err")"
q "a replica's delay without --replicas" 2 query --index "$work/idx" --inject-delay '0/*:1:5' --count w1
same "a replica's delay without --replicas message" \
  "dpsearch: Invalid argument: --inject-delay 0/*:1:5: REPLICA/ needs --replicas" "$(cat "$work/err")"
q "bench over in-process replicas" 0 bench --index "$work/idx" --replicas 2 --inject-delay '0/*:0.3:20' \
  --hedge-after p90 --queries "$work/queries.tsv" --repeat 3
has "bench over in-process replicas: requests by replica" "$work/out" "requests by server: local/"
q "--tied-delay without --tied" 2 query --cluster "$work/incomplete.txt" --allow-partial --tied-delay 1 --count w1
has "--tied-delay without --tied message" "$work/err" "dpsearch: Invalid argument: --tied-delay applies to tied requests: give --tied"
q "--tied-delay negative" 2 query --cluster "$work/incomplete.txt" --allow-partial --tied --tied-delay -1 --count w1
q "--tied-delay p100" 2 query --cluster "$work/incomplete.txt" --allow-partial --tied --tied-delay p100 --count w1
has "--tied-delay p100 message" "$work/err" "dpsearch: Invalid argument: --tied-delay p100: expected pNN (a percentile) or milliseconds"
q "--tied-delay p90" 4 query --cluster "$work/incomplete.txt" --allow-partial --tied --tied-delay p90 --count w1
q "--replica-policy unknown" 2 query --cluster "$work/incomplete.txt" --replica-policy fastest --count w1
has "--replica-policy unknown message" "$work/err" "fastest"

# A replica of another index first in a list: skipped, one warning.
printf '0-3 %s %s\n4-7 %s\n' "$stranger" "$low" "$high" > "$work/stranger_first.txt"
warning="dpsearch: server $stranger (replica of tablets 0-3) is of another index ($stranger_identity); using the other replicas"
for query in w1 "w2 w3" "w5 OR w250"; do
  want=$(count --index "$work/idx" "$query")
  q "stranger first '$query'" 0 query --cluster "$work/stranger_first.txt" --count "$query"
  same "stranger first '$query' count = --index" "$want" "$(cat "$work/out")"
  same "stranger first '$query': one warning" "$warning" "$(cat "$work/err")"
done
q "stranger first, batch" 0 query --cluster "$work/stranger_first.txt" --queries "$work/queries.tsv"
cut -f1,2 "$work/out" > "$work/remote.tsv"
"$bin" query --index "$work/idx" --queries "$work/queries.tsv" | cut -f1,2 > "$work/local.tsv"
same "stranger first, batch counts = --index" "$(cat "$work/local.tsv")" "$(cat "$work/remote.tsv")"
same "stranger first, batch: one warning" "$warning" "$(cat "$work/err")"
q "stranger first, bench of 3 clients" 0 bench --cluster "$work/stranger_first.txt" --queries "$work/queries.tsv" \
  --concurrency 3 --json
has "stranger first, bench: no partial answer" "$work/out" '"partial_results":0'
same "stranger first, bench: one warning for all clients" "$warning" "$(cat "$work/err")"

# A replica that does not host its range: skipped, one warning.
printf '0-3 %s %s\n4-7 %s\n' "$high" "$low" "$high" > "$work/misrouted.txt"
q "misrouted replica" 0 query --cluster "$work/misrouted.txt" --count w1
same "misrouted replica count = --index" "$(count --index "$work/idx" w1)" "$(cat "$work/out")"
same "misrouted replica: one warning" \
  "dpsearch: server $high (replica of tablets 0-3) hosts tablets 4-7 only; using the other replicas" "$(cat "$work/err")"

# Tablets whose only replica is of another index: refused.
printf '0-3 %s %s\n4-7 %s\n' "$low" "$all" "$stranger" > "$work/stranger_only.txt"
q "stranger only" 2 query --cluster "$work/stranger_only.txt" --count w1
same "stranger only message" \
  "dpsearch: Invalid argument: $work/stranger_only.txt: tablets 4-7 have no usable replica: $stranger is of another index ($stranger_identity)" \
  "$(cat "$work/err")"
same "stranger only prints nothing" "" "$(cat "$work/out")"

if [ $fail -ne 0 ]; then echo "cluster cli test FAILED"; exit 1; fi
echo "cluster cli test passed"
