#!/usr/bin/env bash
# CLI test of servers that follow their index (issue 22, README "How an
# ingest reaches serving servers"): an ingest beside running servers is
# answered without a restart, within 2 s; answers name their generations
# (--stats, jsonl's stats line, bench --json); servers at different
# generations are one cluster; --consistent waits for the newest and, past
# the deadline, answers partial (exit 4); a damaged MANIFEST is logged in
# one line and the generation served stays; the flags are checked.
# Usage: follow_cli_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"

for i in $(seq 0 299); do printf '{"id":"d%d","title":"doc %d","text":"w%d common"}\n' "$i" "$i" $((i % 7)); done \
  > "$work/first.jsonl"
for i in $(seq 0 39); do printf '{"id":"n%d","title":"new %d","text":"fresh common"}\n' "$i" "$i"; done \
  > "$work/second.jsonl"
"$bin" ingest --index "$work/idx" --bins 8 --tablets 4 "$work/first.jsonl" 2>/dev/null || { echo "FAIL: ingest"; exit 1; }
gen() { awk '$1 == "generation" { print $2 }' "$work/idx/MANIFEST"; }
g1=$(gen)

serve low "$work/idx" 0-1
serve high "$work/idx" 2-3
serve frozen "$work/idx" 2-3 --follow-interval 0
printf '0-1 %s\n2-3 %s\n' "$low" "$high" > "$work/following.txt"
printf '0-1 %s\n2-3 %s\n' "$low" "$frozen" > "$work/mixed.txt"

q "before the ingest" 1 query --cluster "$work/following.txt" --count fresh
same "before the ingest: no match" "0" "$(cat "$work/out")"
"$bin" ingest --index "$work/idx" "$work/second.jsonl" 2>/dev/null || { echo "FAIL: second ingest"; exit 1; }
g2=$(gen)
[ "$g2" -gt "$g1" ] || { echo "FAIL: generation $g1 -> $g2"; exit 1; }
seen=""
for i in $(seq 40); do  # 2 s
  [ "$("$bin" query --cluster "$work/following.txt" --count fresh 2>/dev/null)" = 40 ] && { seen=yes; break; }
  sleep 0.05
done
same "the ingest is answered within 2 s, no restart" "yes" "$seen"
has "a server logs the generation it follows" "$work/low.log" "dpsearch serve: serving generation $g2 of $work/idx (was $g1)"

q "--stats names the generation" 0 query --cluster "$work/following.txt" --count --stats fresh
has "--stats: generations line" "$work/err" "cluster: answered by index generations $g2"
q "jsonl --stats" 0 query --cluster "$work/following.txt" --format jsonl --stats fresh
same "jsonl --stats: the last line" '"generations":['"$g2"']}}' "$(tail -1 "$work/out" | grep -o '"generations":.*')"
same "jsonl --stats: 40 results and the stats line" 41 "$(wc -l < "$work/out" | tr -d ' ')"
printf 'a\tfresh\nb\tcommon\n' > "$work/queries.tsv"
q "bench --json" 0 bench --cluster "$work/following.txt" --queries "$work/queries.tsv" --repeat 3 --json
has "bench --json: queries by generation" "$work/out" '"queries_by_generation":{"'"$g2"'":6}'

# One range at g2, the other on a server that does not follow (g1).
printf '0-1 %s\n' "$low" > "$work/low-only.txt"
q "the new documents of tablets 0-1" 4 query --cluster "$work/low-only.txt" --allow-partial --count fresh
fresh_low=$(cat "$work/out")
q "mixed generations are one cluster" 0 query --cluster "$work/mixed.txt" --count --stats common
same "mixed: the 300 first documents and the new ones of tablets 0-1" $((300 + fresh_low)) "$(cat "$work/out")"
has "mixed: both generations named" "$work/err" "cluster: answered by index generations $g1,$g2"
q "--consistent past the deadline" 4 query --cluster "$work/mixed.txt" --consistent --deadline 300 --count --stats common
has "--consistent: partial, the lagging range named" "$work/err" "tablets 2-3 missing"
has "--consistent: one generation, the newest" "$work/err" "cluster: answered by index generations $g2"
q "--consistent on servers that follow" 0 query --cluster "$work/following.txt" --consistent --count common
same "--consistent: every document" 340 "$(cat "$work/out")"

# A damaged MANIFEST: one line in each following server's log, the
# generation served stays.
cp "$work/idx/MANIFEST" "$work/manifest.good"
printf 'garbage\n' >> "$work/idx/MANIFEST"
sleep 1
same "a damaged MANIFEST: one line" 1 "$(grep -c "not following $work/idx" "$work/low.log")"
has "a damaged MANIFEST: why, and what is served" "$work/low.log" "; still serving generation $g2"
q "still answering" 0 query --cluster "$work/following.txt" --count fresh
same "still answering: the generation it had" 40 "$(cat "$work/out")"

q "--consistent with --index" 2 query --index "$work/idx.none" --consistent --count w1
has "--consistent with --index message" "$work/err" "--consistent need --cluster, or --index with --replicas"
q "--follow-interval above a second" 2 serve --index "$work/idx" --follow-interval 1001
q "--follow-interval not a number" 2 serve --index "$work/idx" --follow-interval soon
finish "follow cli test"
