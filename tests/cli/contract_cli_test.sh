#!/usr/bin/env bash
# CLI test of the user contract (issue 17), run as a user would: strict
# flags (one line, exit 2), shape flags refused on an existing index, no
# index left by a failed first ingest, input files missing -> exit 2 in
# every command, --count exact or refused, answers cut short by a corrupt
# page flagged incomplete (exit 3), paging (--offset; a terminal shows the
# total, a page and "showing A-B of N"), scan --term analyzed, bench naming
# failed queries.
# Usage: contract_cli_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"
one_line() { same "$1: one line on stderr" 1 "$(wc -l <"$work/err" | tr -d ' ')"; }
# err_is NAME TEXT: stderr is exactly TEXT.
err_is() { same "$1" "$2" "$(cat "$work/err")"; }

# 3,000 documents, 60 words each from 400 (and "common" in every one): a
# one-bin index spans about 15 pages, so a corrupt page lands inside an
# answer.
python3 - "$work/docs.jsonl" <<'PY'
import json, random, sys
r = random.Random(17)
words = [f"w{i}" for i in range(400)]
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        text = " ".join(r.choice(words) for _ in range(60)) + " common"
        f.write(json.dumps({"id": f"d{i:04d}", "title": f"Title {i}", "text": text}) + "\n")
PY
docs=$work/docs.jsonl

# --- Strict arguments -------------------------------------------------------
q "ingest --bins 0" 2 ingest --index "$work/i0" --bins 0 "$docs"
err_is "--bins 0 message" "dpsearch: --bins: '0' is not a whole number from 1 to 65536 (see dpsearch --help)"
q "ingest --tablets -1" 2 ingest --index "$work/i0" --tablets -1 "$docs"
one_line "--tablets -1"
q "ingest --bins 2 --tablets 4" 2 ingest --index "$work/i0" --bins 2 --tablets 4 "$docs"
err_is "--bins 2 --tablets 4 message" "dpsearch: Invalid argument: --tablets 4: must be 1 to the number of bins (2); a tablet holds whole bins"
q "ingest missing input" 2 ingest --index "$work/i0" "$work/nosuch.jsonl"
err_is "missing input message" "dpsearch: Invalid argument: $work/nosuch.jsonl: No such file or directory"
q "ingest --memory 1k" 2 ingest --index "$work/i0" --threads 2 --memory 1k "$docs"
err_is "--memory 1k message" "dpsearch: Invalid argument: --memory 1k: below 47M, the smallest budget that holds with 2 threads"
printf '{"id":"x1","text":"fine"}\n{"id":"x2","text":\n' >"$work/bad.jsonl"
q "ingest of a malformed file" 2 ingest --index "$work/i0" "$work/bad.jsonl"
has "malformed line named" "$work/err" "bad.jsonl: line 2"
same "no index directory left by failed first ingests" "absent" "$([ -e "$work/i0" ] && echo present || echo absent)"
mkdir "$work/empty"
q "failed first ingest into an existing empty directory" 2 ingest --index "$work/empty" "$work/bad.jsonl"
same "the directory stays, empty (no MANIFEST, no LOCK)" "" "$(ls -A "$work/empty")"

# A directory holding other files but no index is refused, untouched.
mkdir "$work/busy"; touch "$work/busy/notes.tmp" "$work/busy/table.tab" "$work/busy/LOCK"
q "ingest into a non-empty directory without an index" 2 ingest --index "$work/busy" "$docs"
err_is "non-empty directory message" "dpsearch: Invalid argument: $work/busy: not empty and no index (no MANIFEST, but notes.tmp): an index is created only in a new or empty directory"
same "its files stay" "LOCK notes.tmp table.tab" "$(ls "$work/busy" | tr '\n' ' ' | sed 's/ $//')"
# Two first ingests into one new directory: the one that loses the lock
# must not undo the other's index (it once removed the winner's files).
for round in 1 2 3; do
  rm -rf "$work/race"
  "$bin" ingest --index "$work/race" "$docs" 2>"$work/race1.err" & racer=$!
  "$bin" ingest --index "$work/race" "$docs" 2>"$work/race2.err"; rc2=$?
  wait $racer; rc1=$?
  # Usually one is refused ("another process is writing"); on a busy
  # machine the second may start after the first committed, and append.
  [ $(( (rc1 != 0) + (rc2 != 0) )) -le 1 ] && pass "race $round: at most one refused" || flunk "race $round: both failed"
  cat "$work/race1.err" "$work/race2.err" | grep '^dpsearch:' | grep -v 'another process is writing' >"$work/race.other"
  same "race $round: a refusal names the lock" "" "$(cat "$work/race.other")"
  q "race $round: the index is whole" 0 query --index "$work/race" --count common
  same "race $round: every document" 3000 "$(cat "$work/out")"
done
# Commands that change an index do not create one.
q "delete on a missing index" 3 delete --index "$work/none" --id d1
err_is "delete on a missing index message" "dpsearch: Not found: $work/none: no index here (no MANIFEST)"
q "compact on a missing index" 3 compact --index "$work/none"
same "no directory made by delete or compact" "absent" "$([ -e "$work/none" ] && echo present || echo absent)"

q "ingest --bins 1 --tablets 1" 0 ingest --index "$work/idx" --bins 1 --tablets 1 "$docs"
q "--bins 2 on an existing index" 2 ingest --index "$work/idx" --bins 2 "$docs"
err_is "--bins on existing message" "dpsearch: Invalid argument: --bins 2: the index at $work/idx has 1 bin (fixed when the index was created)"
q "--tablets 1 on an existing index (the same: honoured)" 0 ingest --index "$work/idx" --tablets 1 "$docs"
q "--no-store-text on an index that stores text" 2 ingest --index "$work/idx" --no-store-text "$docs"
err_is "--no-store-text message" "dpsearch: Invalid argument: --no-store-text: the index at $work/idx stores document text (fixed when the index was created)"
q "--limit -3" 2 query --index "$work/idx" --limit -3 common
err_is "--limit -3 message" "dpsearch: --limit: '-3' is not a whole number from 1 to 9223372036854775807 (see dpsearch --help)"
same "--limit -3 prints nothing" "" "$(cat "$work/out")"
q "--limit 0" 2 query --index "$work/idx" --limit 0 common
q "--threads 0" 2 query --index "$work/idx" --threads 0 common
q "bench --repeat 0" 2 bench --index "$work/idx" --queries "$docs" --repeat 0
q "--top with --count" 2 query --index "$work/idx" --top 3 --count common
err_is "--top --count message" "dpsearch: Invalid argument: --count prints the exact total; --top ranks: give one"
q "--top with --limit" 2 query --index "$work/idx" --top 3 --limit 2 common
err_is "--top --limit message" "dpsearch: Invalid argument: --top K is the number of results; --limit does not apply"
q "--top 0" 2 query --index "$work/idx" --top 0 common
# BM25's parameters: checked as written, and only with --top (else ignored).
q "--bm25-k1 without --top" 2 query --index "$work/idx" --bm25-k1 2 common
err_is "--bm25-k1 without --top message" "dpsearch: Invalid argument: --bm25-k1 applies to ranked queries: give --top K"
q "bench --bm25-b without --top" 2 bench --index "$work/idx" --queries "$docs" --bm25-b 0.5
err_is "bench --bm25-b without --top message" "dpsearch: Invalid argument: --bm25-b applies to ranked queries: give --top K"
for bad in -1 inf nan 1e400 0x2 ""; do
  q "--bm25-k1 '$bad'" 2 query --index "$work/idx" --top 3 --bm25-k1 "$bad" common
done
err_is "--bm25-k1 message" "dpsearch: --bm25-k1: '' is not a finite number >= 0 (see dpsearch --help)"
for bad in -0.1 1.5 nan; do
  q "--bm25-b '$bad'" 2 query --index "$work/idx" --top 3 --bm25-b "$bad" common
done
err_is "--bm25-b message" "dpsearch: --bm25-b: 'nan' is not a finite number from 0 to 1 (see dpsearch --help)"

# --- Missing input files are usage errors (2) in every command ---------------
for cmd in "query --index $work/idx --queries $work/nosuch.tsv" "bench --index $work/idx --queries $work/nosuch.tsv" \
           "query --cluster $work/nosuch.cluster common" "bench --cluster $work/nosuch.cluster --queries $docs" \
           "delete --index $work/idx --ids-from $work/nosuch.ids" \
           "query --cluster $work/nosuch.cluster --token-file $work/nosuch.token common"; do
  # shellcheck disable=SC2086
  q "missing file: $cmd" 2 $cmd
  one_line "missing file: $cmd"
  has "missing file named: $cmd" "$work/err" "$work/nosuch"
done

# A token longer than a Hello may carry is refused where it is read.
head -c 1025 /dev/zero | tr '\0' 'k' > "$work/long.token"
q "a 1,025-byte token" 2 serve --index "$work/idx" --token-file "$work/long.token"
err_is "a 1,025-byte token message" "dpsearch: Invalid argument: $work/long.token: a token of 1025 bytes (at most 1024)"

# --- --count is the exact total, or refused ----------------------------------
q "--count" 0 query --index "$work/idx" --count common
same "--count is every match" 3000 "$(cat "$work/out")"
q "--count --limit" 2 query --index "$work/idx" --count --limit 5 common
err_is "--count --limit message" "dpsearch: Invalid argument: --count prints the exact total; --limit does not apply to it"
q "--count --offset" 2 query --index "$work/idx" --count --offset 5 common
q "--count --format jsonl" 0 query --index "$work/idx" --count --format jsonl common
same "--count jsonl" '{"matches":3000}' "$(cat "$work/out")"

# --- Paging (8 bins over 2 threads: bins finish in any order) -----------------
"$bin" ingest --index "$work/idx8" --bins 8 --tablets 4 "$docs" 2>/dev/null || flunk "ingest idx8"
q "whole answer" 0 query --index "$work/idx8" --format tsv "w1 w2"
sort -t$'\t' -k3,3n -k4,4n "$work/out" >"$work/whole.tsv"
total=$(wc -l <"$work/whole.tsv" | tr -d ' ')
: >"$work/paged.tsv"
for offset in 0 7 14 21 28 35 42 49 56 63 70; do
  "$bin" query --index "$work/idx8" --threads 2 --format tsv --offset $offset --limit 7 "w1 w2" >>"$work/paged.tsv"
done
same "pages of 7 concatenated are the whole answer in (bin, docid) order" "$(cat "$work/whole.tsv")" "$(cat "$work/paged.tsv")"
# Past the end: nothing printed, but the query matched (exit 0, not 1).
q "--offset past the end" 0 query --index "$work/idx8" --format tsv --offset 100000 "w1 w2"
same "--offset past the end prints nothing" "" "$(cat "$work/out")"
q "--offset without --limit, piped: every result from there" 0 query --index "$work/idx8" --format tsv --offset 5 "w1 w2"
same "--offset 5: the rest of the answer" "$(tail -n +6 "$work/whole.tsv")" "$(cat "$work/out")"
q "no match at all is still exit 1 with --offset" 1 query --index "$work/idx8" --format tsv --offset 3 "w1 nosuchword"
# On a terminal: the total first, ten results, then "showing 1-10 of N".
script -qec "NO_COLOR=1 $bin query --index $work/idx8 'w1 w2'" /dev/null | tr -d '\r' >"$work/tty.txt"
same "terminal: total first" "$total matches" "$(head -1 "$work/tty.txt" | sed 's/ (.*//')"
same "terminal: last line" "showing 1-10 of $total" "$(tail -1 "$work/tty.txt")"
same "terminal: ten results with snippets" 10 "$(grep -c '^d[0-9]\{4\}  Title ' "$work/tty.txt")"
if grep -q $'\033' "$work/tty.txt"; then flunk "NO_COLOR: escapes in terminal output"; else pass "NO_COLOR: no escapes"; fi
script -qec "env -u NO_COLOR $bin query --index $work/idx8 --offset 20 --limit 5 'w1 w2'" /dev/null | tr -d '\r' >"$work/tty2.txt"
same "terminal page 2: last line" "showing 21-25 of $total" "$(tail -1 "$work/tty2.txt")"
same "terminal page 2: the ids of the tsv page" "$(sed -n 21,25p "$work/whole.tsv" | cut -f1)" \
  "$(grep -o '^d[0-9]\{4\}' "$work/tty2.txt")"
if grep -q $'\033\[1;31m' "$work/tty2.txt"; then pass "terminal: matches highlighted"; else flunk "terminal: no highlight"; fi

# --- Ranked: --top K, best first, a score per result ---------------------------
# Scores descend (ties by bin, then docid); pages of the ranking concatenate
# to the ranking; tsv gains a score column, jsonl a "score" field; batch
# adds the ranked time and the K best ids; the brute-force comparison is
# tests/server/ranked_property_test.cc.
q "--top 30" 0 query --index "$work/idx8" --format tsv --top 30 "w1 OR w2"
cp "$work/out" "$work/top30.tsv"
same "--top 30: 30 results, five columns" "30 5" "$(wc -l <"$work/top30.tsv" | tr -d ' ') $(awk -F'\t' '{ print NF }' "$work/top30.tsv" | sort -u)"
sort -t$'\t' -k5,5gr -k3,3n -k4,4n -s "$work/top30.tsv" >"$work/top30.sorted"
same "--top: best first, ties by (bin, docid)" "$(cat "$work/top30.tsv")" "$(cat "$work/top30.sorted")"
: >"$work/toppages.tsv"
for offset in 0 10 20; do
  "$bin" query --index "$work/idx8" --threads 2 --format tsv --top 10 --offset $offset "w1 OR w2" >>"$work/toppages.tsv"
done
same "--top pages concatenate to the ranking" "$(cat "$work/top30.tsv")" "$(cat "$work/toppages.tsv")"
q "--top jsonl" 0 query --index "$work/idx8" --format jsonl --top 2 "w1 OR w2"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert [list(x) for x in r]==[["id","title","bin","docid","score","snippet"]]*2 and r[0]["score"]>=r[1]["score"], r' \
  "$work/out" && pass "--top jsonl fields and order" || flunk "--top jsonl fields"
printf 'r1\tw1 OR w2\nr2\tnosuchword\n' >"$work/ranked.tsv"
or_total=$("$bin" query --index "$work/idx8" --count "w1 OR w2")
q "batch --top" 0 query --index "$work/idx8" --queries "$work/ranked.tsv" --top 3
same "batch --top: id, count, micros, ranked micros, the 3 best ids" \
  "r1 $or_total $(head -3 "$work/top30.tsv" | cut -f1 | tr '\n' ',' | sed 's/,$//')|r2 0 " \
  "$(awk -F'\t' '{ printf "%s %s %s|", $1, $2, $5 }' "$work/out" | sed 's/|$//')"

# k1 = 0 scores a document by its terms' idf alone: one term, one score for
# all, so the ranking is (bin, docid); the default separates them.
q "--bm25-k1 0" 0 query --index "$work/idx8" --format tsv --top 5 --bm25-k1 0 --bm25-b 1 w1
same "--bm25-k1 0: one score" 1 "$(cut -f5 "$work/out" | sort -u | wc -l | tr -d ' ')"
same "--bm25-k1 0: (bin, docid) order" "$(sort -t$'\t' -k3,3n -k4,4n "$work/out")" "$(cat "$work/out")"
q "default k1" 0 query --index "$work/idx8" --format tsv --top 5 w1
[ "$(cut -f5 "$work/out" | sort -u | wc -l)" -gt 1 ] && pass "default k1: scores differ" || flunk "default k1: one score"
q "batch --top --bm25-b 0" 0 query --index "$work/idx8" --queries "$work/ranked.tsv" --top 5 --bm25-b 0
"$bin" query --index "$work/idx8" --format tsv --top 5 --bm25-b 0 "w1 OR w2" | cut -f1 | tr '\n' ',' | sed 's/,$//' >"$work/b0.ids"
same "batch --top --bm25-b 0 ranks as the single query" "$(cat "$work/b0.ids")" "$(head -1 "$work/out" | cut -f5)"

# --- scan --term goes through the analyzer ------------------------------------
q "scan --term COMMON" 0 scan --index "$work/idx" --term COMMON
same "scan --term COMMON finds common" 3000 "$(cut -f2 "$work/out" | grep -c '^common$')"
q "scan --term of two words" 2 scan --index "$work/idx" --term "w1-w2"
err_is "scan --term message" "dpsearch: Invalid argument: --term 'w1-w2' analyzes to 2 terms (w1 w2); scan takes one"

# --- bench names failed queries ------------------------------------------------
printf 'g1\tw1\nb1\t(w2\ng2\tw3\nb2\tOR w4\n' >"$work/mixed.tsv"
q "bench with failing queries" 2 bench --index "$work/idx" --queries "$work/mixed.tsv"
has "bench names them" "$work/err" "dpsearch: 2 of 4 queries failed (b1, b2); b1: query syntax error at position 3: missing ')'"
q "bench --allow-failures" 0 bench --index "$work/idx" --queries "$work/mixed.tsv" --allow-failures --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [f["id"] for f in d["failed_queries"]] == ["b1","b2"], d' \
  "$work/out" && pass "bench --json lists failed queries" || flunk "bench --json failed_queries"

# --- bench load: open loop (--rate), sweeps, --duration ----------------------
printf 'a\tw1\nb\tw2 w3\n' >"$work/load.tsv"
q "bench --rate with --concurrency" 2 bench --index "$work/idx" --queries "$work/load.tsv" --rate 100 --concurrency 2
err_is "--rate --concurrency message" "dpsearch: --concurrency excludes --rate (see dpsearch --help)"
q "bench --duration with --repeat" 2 bench --index "$work/idx" --queries "$work/load.tsv" --duration 1 --repeat 2
q "bench --rate 0" 2 bench --index "$work/idx" --queries "$work/load.tsv" --rate 0
err_is "--rate 0 message" "dpsearch: --rate: '0' is not a finite number from 0.001 to 1e+09 (see dpsearch --help)"
q "bench --max-in-flight without --rate" 2 bench --index "$work/idx" --queries "$work/load.tsv" --max-in-flight 4
q "bench open loop" 0 bench --index "$work/idx" --queries "$work/load.tsv" --rate 400 --repeat 20 --json
python3 - "$work/out" <<'PY' && pass "bench --rate --json: open loop, every query, the percentiles" || flunk "bench --rate --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["load"] == "open" and d["offered_qps"] == 400 and d["queries"] == 40, d
assert d["p50_us"] <= d["p90_us"] <= d["p99_us"] <= d["p999_us"] <= d["max_us"], d
assert sum(n for _, n in d["latency_histogram"]) == 40, d["latency_histogram"]
assert d["achieved_qps"] > 0 and "start_lag_p99_us" in d and "service_p99_us" in d
PY
q "bench --duration (closed loop)" 0 bench --index "$work/idx" --queries "$work/load.tsv" --duration 0.3 --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["load"]=="closed" and d["duration_seconds"]==0.3 and d["queries"]>2, d' \
  "$work/out" && pass "bench --duration runs past one pass" || flunk "bench --duration"
q "bench --rate sweep" 0 bench --index "$work/idx" --queries "$work/load.tsv" --rate 300,100 --duration 0.2 --json --report "$work/sweep.html"
python3 - "$work/out" "$work/sweep.html" <<'PY' && pass "bench sweep: one object, rates ascending, a knee, a report" || flunk "bench sweep"
import json, sys, re
d = json.load(open(sys.argv[1]))
assert [p["offered_qps"] for p in d["sweep"]] == [100, 300], d
assert all("saturated" in p for p in d["sweep"]) and "knee_qps" in d, d
html = open(sys.argv[2]).read()
assert "Latency against offered load" in html and "100.0 qps offered" in html and "300.0 qps offered" in html
assert html.count("<svg") == html.count("</svg>") >= 2
PY

# --- An answer cut short by a corrupt page: exit 3, flagged incomplete ---------
# Each of the index's pages is corrupted in turn. A query that never reads
# the bad page answers in full (exit 0, the intact answer); one that does
# exits 3, and if it had printed results, says the answer is incomplete
# (stderr for tsv, a last {"incomplete":true} line for jsonl).
"$bin" query --index "$work/idx" --format tsv common >"$work/intact.tsv"
file=$(ls "$work/idx"/*.tab)
pages=$(( $(stat -c %s "$file") / 32768 ))
saw_mid=0 saw_jsonl_mid=0 saw_count=0
for ((page = 0; page <= pages; ++page)); do
  rm -rf "$work/c"; cp -r "$work/idx" "$work/c"
  printf '\377\377\377\377' | dd of="$work/c/$(basename "$file")" bs=1 seek=$((page * 32768 + 100)) conv=notrunc 2>/dev/null
  "$bin" query --index "$work/c" --format tsv common >"$work/out" 2>"$work/err"
  rc=$?
  lines=$(wc -l <"$work/out" | tr -d ' ')
  if [ $rc = 0 ]; then
    cmp -s "$work/out" "$work/intact.tsv" || flunk "page $page: exit 0 but not the intact answer"
  elif [ $rc = 3 ] && [ "$lines" -gt 0 ]; then
    saw_mid=1
    grep -qF "dpsearch: incomplete answer: $lines results printed before an error" "$work/err" ||
      flunk "page $page: $lines lines printed, no incomplete line"
    grep -q "checksum mismatch" "$work/err" || flunk "page $page: the corruption is not named"
    # jsonl fetches snippets (stored text), so it may meet the bad page
    # before its first result: then it prints nothing; else it ends flagged.
    "$bin" query --index "$work/c" --format jsonl common >"$work/out" 2>/dev/null
    jrc=$?
    [ $jrc = 3 ] || flunk "page $page: jsonl exit $jrc"
    if [ -s "$work/out" ]; then
      saw_jsonl_mid=1
      tail -1 "$work/out" | grep -q '^{"incomplete":true,"results_printed":[0-9]*,"error":"Corruption: ' ||
        flunk "page $page: jsonl has no final incomplete line"
    fi
  elif [ $rc != 3 ]; then
    flunk "page $page: exit $rc"
  fi
  "$bin" query --index "$work/c" --count "w1 w2" >"$work/out" 2>"$work/err"
  rc=$?
  if [ $rc = 3 ]; then
    saw_count=1
    same "page $page: --count prints no number when it cannot read" "" "$(cat "$work/out")"
  elif [ $rc != 0 ] || [ "$(cat "$work/out")" != "$total" ]; then
    flunk "page $page: --count exit $rc, '$(cat "$work/out")'"
  fi
done
same "some corrupt page cut a streamed answer short" 1 $saw_mid
same "some corrupt page cut a jsonl answer short" 1 $saw_jsonl_mid
same "some corrupt page made --count fail" 1 $saw_count

[ $fail = 0 ] && echo "contract cli test passed" || echo "contract cli test FAILED"
exit $fail
