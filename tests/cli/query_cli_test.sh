#!/usr/bin/env bash
# CLI test of `dpsearch query --index`: exact answer sets of AND / OR / NOT /
# -term / parentheses on a hand-made corpus, the fields of the tsv, jsonl
# and text formats, snippets, --limit, --count, --stats, batch mode
# (--queries) and the exit codes (0 match, 1 no match, 2 usage or syntax
# error, 3 missing or broken index).
# Usage: query_cli_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"
words() { printf '%s\n' "$@" | sort | tr '\n' ' ' | sed 's/ $//'; }  # sorted, one line
ids() { cut -f1 "${1:-$work/out}" | sort | tr '\n' ' ' | sed 's/ $//'; }
lines() { wc -l < "${1:-$work/out}" | tr -d ' '; }

# A hand-made corpus whose answers are known. Texts use the fruit words;
# titles ("Doc one"...) are searchable too but share no word with the texts.
#   apple: a1 a4 a6 a8 a11    banana: a1 a2 a6 a9    cherry: a1 a3 a9 a11
#   date: a2 a4 a9            elder: a3 a5 a9        fig: a3 a4 a6
#   grape: a5 a6 a10          kiwi: a7 a10           lemon: a10 a11
#   mango: a12                needle: a13 a14
python3 - "$work/fruit.jsonl" <<'PY'
import json, sys
texts = ["apple banana cherry", "banana date", "cherry elder fig", "apple date fig",
         "elder grape", "fig grape apple banana", "kiwi", "apple",
         "banana cherry date elder", "grape kiwi lemon", "lemon apple cherry"]
names = "one two three four five six seven eight nine ten eleven".split()
with open(sys.argv[1], "w") as f:
    for i, (text, name) in enumerate(zip(texts, names), 1):
        f.write(json.dumps({"id": f"a{i}", "title": f"Doc {name}", "text": text}) + "\n")
    f.write(json.dumps({"id": "a12", "title": 'Say "hi"\tthere', "text": "mango"}) + "\n")
    f.write(json.dumps({"id": "a13", "title": "Long", "text": "lorem " * 40 + "needle" + " ipsum" * 40}) + "\n")
    f.write(json.dumps({"id": "a14", "title": "Lines", "text": "first line\nsecond needle\tline"}) + "\n")
PY
"$bin" ingest --index "$work/idx" --bins 8 --tablets 4 "$work/fruit.jsonl" 2>/dev/null || { echo "FAIL: ingest"; exit 1; }
"$bin" scan --index "$work/idx" --docs > "$work/docs.tsv" || { echo "FAIL: scan --docs"; exit 1; }

# answer QUERY IDS...: the query's tsv ids are exactly IDS (exit 0, or 1 when
# none), and --count prints their number.
answer() {
  local query=$1
  shift
  local want=0
  [ $# -eq 0 ] && want=1
  q "'$query'" $want query --index "$work/idx" --format tsv "$query"
  same "'$query' ids" "$(words "$@")" "$(ids)"
  q "'$query' --count" $want query --index "$work/idx" --count "$query"
  same "'$query' --count" "$#" "$(cat "$work/out")"
}
answer "apple" a1 a4 a6 a8 a11
answer "APPLE" a1 a4 a6 a8 a11
answer "apple banana" a1 a6
answer "apple AND banana" a1 a6
answer "Apple-Banana" a1 a6
answer "apple OR kiwi" a1 a4 a6 a7 a8 a10 a11
answer "apple -banana" a4 a8 a11
answer "apple NOT banana" a4 a8 a11
answer "(apple OR date) -fig" a1 a2 a8 a9 a11
answer "cherry (elder OR lemon)" a3 a9 a11
answer "elder (date OR grape)" a5 a9
answer "elder date OR grape" a5 a6 a9 a10
answer "grape OR elder date" a5 a6 a9 a10
answer "cherry -(apple OR banana)" a3
answer "NOT (apple OR banana) cherry" a3
answer "apple -(fig -banana)" a1 a6 a8 a11
answer "kiwi OR lemon OR mango" a7 a10 a11 a12
answer "(fig OR kiwi) (grape OR date) -apple" a10
answer "apple OR zzz" a1 a4 a6 a8 a11
answer "eleven" a11
answer "lemon eleven" a11
answer "zzz"
answer "apple zzz"
answer "apple -apple"
answer "mango -mango OR kiwi -kiwi"
q "no match" 1 query --index "$work/idx" --format text "apple zzz"
same "no match prints nothing" "" "$(cat "$work/out" "$work/err")"

# tsv: id<TAB>title<TAB>bin<TAB>docid, the stored record `scan --docs` shows
# (bin<TAB>docid<TAB>id<TAB>title); tabs, line breaks, control characters
# and backslashes in fields are backslash-escaped (\t, \n, \xHH, \\).
q "tsv" 0 query --index "$work/idx" --format tsv "apple OR mango"
same "tsv has four fields" "4" "$(awk -F'\t' '{ print NF }' "$work/out" | sort -u)"
awk -F'\t' '$3 ~ /^a(1|4|6|8|11|12)$/ { print $3 "\t" $4 "\t" $1 "\t" $2 }' \
  "$work/docs.tsv" | sort > "$work/expected.tsv"
sort "$work/out" > "$work/got.tsv"
if cmp -s "$work/expected.tsv" "$work/got.tsv"; then pass "tsv lines are the stored records"; else
  flunk "tsv lines differ from scan --docs"; diff "$work/expected.tsv" "$work/got.tsv"; fi
has "tsv title tab" "$work/out" $'a12\tSay "hi"\\tthere\t'
cp "$work/out" "$work/apple_mango.tsv"
q "default format off a terminal" 0 query --index "$work/idx" "apple OR mango"
same "the default off a terminal is tsv" "$(cat "$work/apple_mango.tsv")" "$(cat "$work/out")"

# jsonl: id, title, bin, docid, snippet in that order; the same records as
# tsv; snippets hold the matched terms and no terminal escapes.
q "jsonl" 0 query --index "$work/idx" --format jsonl "apple OR mango"
if python3 - "$work/out" "$work/apple_mango.tsv" <<'PY'; then pass "jsonl fields and records"; else flunk "jsonl fields and records"; fi
import json, sys
raw = open(sys.argv[1], "rb").read()
assert b"\x1b" not in raw, "escape codes in jsonl"
recs = [json.loads(l) for l in raw.decode().splitlines()]
assert all(list(r) == ["id", "title", "bin", "docid", "snippet"] for r in recs), recs
assert all(isinstance(r["bin"], int) and isinstance(r["docid"], int) for r in recs), recs
tsv = sorted(tuple(l.split("\t")) for l in open(sys.argv[2]).read().splitlines())
got = sorted((r["id"], r["title"].replace("\t", "\\t"), str(r["bin"]), str(r["docid"])) for r in recs)
assert got == tsv, (got, tsv)
by_id = {r["id"]: r for r in recs}
assert by_id["a12"]["title"] == 'Say "hi"\tthere', by_id["a12"]
assert by_id["a12"]["snippet"] == "mango", by_id["a12"]
for i in ("a1", "a4", "a6", "a8", "a11"):
    assert " apple " in f" {by_id[i]['snippet']} ", by_id[i]
PY
q "jsonl two terms" 0 query --index "$work/idx" --format jsonl "apple banana -cherry"
if python3 - "$work/out" <<'PY'; then pass "jsonl snippet of a6"; else flunk "jsonl snippet of a6"; cat "$work/out"; fi
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert [r["id"] for r in recs] == ["a6"] and recs[0]["snippet"] == "fig grape apple banana", recs
PY
# Snippets: a window around the first match, on one line.
q "jsonl snippets" 0 query --index "$work/idx" --format jsonl needle
if python3 - "$work/out" <<'PY'; then pass "snippet windows"; else flunk "snippet windows"; cat "$work/out"; fi
import json, sys
by_id = {r["id"]: r["snippet"] for r in map(json.loads, open(sys.argv[1]))}
assert sorted(by_id) == ["a13", "a14"], by_id
assert by_id["a14"] == "first line second needle line", by_id
long = by_id["a13"]
text = "lorem " * 40 + "needle" + " ipsum" * 40
assert long.startswith("…") and long.endswith("…"), long
inner = long[1:-1]
assert "needle" in inner and inner in text and len(inner.encode()) <= 160, long
PY

# text: "id  title", then the snippet indented by four spaces; no escape
# codes off a terminal.
q "text" 0 query --index "$work/idx" --format text "apple banana"
printf 'a1  Doc one\n    apple banana cherry\na6  Doc six\n    fig grape apple banana\n' > "$work/expected.txt"
paste - - < "$work/out" | sort | tr '\t' '\n' > "$work/got.txt"
if cmp -s "$work/expected.txt" "$work/got.txt"; then pass "text lines"; else flunk "text lines"; cat "$work/out"; fi
q "text snippet on one line" 0 query --index "$work/idx" --format text "second needle"
same "text of a14" $'a14  Lines\n    first line second needle line' "$(cat "$work/out")"
# On a terminal (script(1) gives one) text is the default, with the
# matches marked in colour; jsonl and tsv stay plain.
tty_run() { script -qec "$(printf '%q ' "$bin" "$@")" /dev/null < /dev/null | tr -d '\r'; }
tty_run query --index "$work/idx" "apple banana" > "$work/tty.txt"
has "terminal default is text" "$work/tty.txt" "a6  Doc six"
has "terminal marks matches" "$work/tty.txt" $'    fig grape \e[1;31mapple\e[0m \e[1;31mbanana\e[0m'
tty_run query --index "$work/idx" --format jsonl "apple banana" > "$work/tty.txt"
same "jsonl on a terminal: two records" 2 "$(grep -c '"snippet":"' "$work/tty.txt")"
same "jsonl on a terminal has no escape codes" 0 "$(grep -c $'\e' "$work/tty.txt")"

# --limit N: exactly N results when more match, all of them when fewer.
q "--limit 3" 0 query --index "$work/idx" --format tsv --limit 3 apple
same "--limit 3 lines" 3 "$(lines)"
same "--limit 3 ids are matches" "" "$(cut -f1 "$work/out" | grep -vxE 'a(1|4|6|8|11)')"
same "--limit 3 ids are distinct" 3 "$(cut -f1 "$work/out" | sort -u | wc -l)"
q "--limit 5" 0 query --index "$work/idx" --format tsv --limit 5 apple
same "--limit 5 ids" "a1 a11 a4 a6 a8" "$(ids)"
q "--limit 9" 0 query --index "$work/idx" --format tsv --limit 9 apple
same "--limit 9 ids" "a1 a11 a4 a6 a8" "$(ids)"
q "--limit 1 jsonl" 0 query --index "$work/idx" --format jsonl --limit 1 "apple OR banana"
same "--limit 1 jsonl lines" 1 "$(lines)"
q "--limit 2 text" 0 query --index "$work/idx" --format text --limit 2 apple
same "--limit 2 text lines" 4 "$(lines)"
q "--limit no match" 1 query --index "$work/idx" --limit 2 zzz
same "--limit no match prints nothing" 0 "$(lines)"

# A bigger corpus, so that queries fan out over threads: g0..g29999 with
# text "common m(i%3) n(i%5)".
awk 'BEGIN { for (i = 0; i < 30000; i++)
  printf "{\"id\":\"g%d\",\"title\":\"gen %d\",\"text\":\"common m%d n%d\"}\n", i, i, i % 3, i % 5 }' > "$work/gen.jsonl"
"$bin" ingest --index "$work/gen" --bins 8 --tablets 4 "$work/gen.jsonl" 2>/dev/null || { echo "FAIL: ingest gen"; exit 1; }
for spec in "common:30000" "m0 n0:2000" "m1 OR n1:14000" "common -m0:20000" "(m0 OR m1) -(n0 OR n1 OR n2):8000"; do
  query=${spec%:*} n=${spec##*:}
  q "gen '$query' --count" 0 query --index "$work/gen" --count "$query"
  same "gen '$query' --count" "$n" "$(cat "$work/out")"
  q "gen '$query' tsv" 0 query --index "$work/gen" --format tsv "$query"
  same "gen '$query' tsv lines = --count" "$n" "$(lines)"
  same "gen '$query' distinct ids" "$n" "$(cut -f1 "$work/out" | sort -u | wc -l)"
done
q "gen 'm0 n0'" 0 query --index "$work/gen" --format tsv "m0 n0"
seq 0 15 29999 | sed 's/^/g/' | sort > "$work/expected.ids"
cut -f1 "$work/out" | sort > "$work/got.ids"
cmp -s "$work/expected.ids" "$work/got.ids" && pass "gen 'm0 n0' ids are g(15k)" || flunk "gen 'm0 n0' ids"
# Within a bin, results come in docid order.
q "gen common" 0 query --index "$work/gen" --format tsv common
same "docids ascend within each bin" "" "$(awk -F'\t' '$3 in last && $4 <= last[$3] { print } { last[$3] = $4 }' "$work/out" | head -3)"
for n in 1 7 2999 29999 30000 40000; do
  want=$(( n < 30000 ? n : 30000 ))
  q "gen --limit $n" 0 query --index "$work/gen" --format tsv --limit "$n" common
  same "gen --limit $n lines" "$want" "$(lines)"
  same "gen --limit $n distinct" "$want" "$(cut -f1 "$work/out" | sort -u | wc -l)"
done

# --stats: the per-bin table on stderr, stdout as without it.
q "--stats" 0 query --index "$work/idx" --format tsv --stats apple
cp "$work/out" "$work/stats.out"
has "--stats header" "$work/err" "bin    tablet      wait_us   service_us    results path"
has "--stats summary" "$work/err" "query: 5 results from 4 bins"
q "without --stats" 0 query --index "$work/idx" --format tsv apple
same "--stats leaves stdout alone" "$(sort "$work/out")" "$(sort "$work/stats.out")"
same "nothing on stderr without --stats" "" "$(cat "$work/err")"
# One row per bin holding apple: bin, its tablet (8 bins in 4 tablets),
# and that bin's result count.
per_bin=$(cut -f3 "$work/out" | sort -n | uniq -c | awk '{ print $2, int($2 / 2), $1 }')
q "--stats rows" 0 query --index "$work/idx" --stats apple
rows=$(awk '$1 ~ /^[0-9]+$/ && NF == 6 { print $1, $2, $5 }' "$work/err" | sort -n)
same "--stats rows: bin tablet results" "$per_bin" "$rows"
same "--stats rows: path" "" "$(awk '$1 ~ /^[0-9]+$/ && NF == 6 && $6 != "fast" && $6 != "iterators"' "$work/err")"

# Batch: id<TAB>query lines (comments, blank lines and columns after the
# query ignored) -> id<TAB>matches<TAB>micros in file order.
printf '# counts\nb1\tapple\t99\n\nb2\tapple -banana\nb3\tzzz\nb4\t(apple\nb5\tkiwi OR mango\nb6\t-apple\nb7\t(apple OR date) -fig\n' > "$work/batch.tsv"
# A failed query is never a count: its line is id<TAB>error<TAB>reason, it
# is named on stderr, and the batch answers the rest and exits 2.
q "batch" 2 query --index "$work/idx" --queries "$work/batch.tsv"
same "batch ids and counts" "b1 5 b2 3 b3 0 b4 error b5 3 b6 error b7 5" "$(cut -f1,2 "$work/out" | tr '\t\n' '  ' | sed 's/ $//')"
same "batch micros" "" "$(awk -F'\t' '$2 != "error" && (NF != 3 || $3 !~ /^[0-9]+\.[0-9]$/)' "$work/out")"
has "batch error line" "$work/out" $'b4\terror\tquery syntax error at position 6: missing \')\''
has "batch syntax error named" "$work/err" "dpsearch: query b4 failed: query syntax error at position 6: missing ')'"
has "batch negation error named" "$work/err" "dpsearch: query b6 failed: query syntax error at position 0: a query of only negations"
has "batch failures counted" "$work/err" "dpsearch: 2 of 7 queries failed"
q "batch jsonl" 2 query --index "$work/idx" --queries "$work/batch.tsv" --format jsonl
if python3 - "$work/out" <<'PY'; then pass "batch jsonl objects"; else flunk "batch jsonl objects"; cat "$work/out"; fi
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert [r["id"] for r in recs] == ["b1", "b2", "b3", "b4", "b5", "b6", "b7"], recs
assert [r.get("matches") for r in recs] == [5, 3, 0, None, 3, None, 5], recs
assert all(list(r) == ["id", "matches", "micros"] for r in recs if "matches" in r), recs
assert recs[3] == {"id": "b4", "error": "query syntax error at position 6: missing ')'"}, recs[3]
assert recs[5]["error"].startswith("query syntax error at position 0: a query of only negations"), recs[5]
PY
q "batch --limit refused" 2 query --index "$work/idx" --queries "$work/batch.tsv" --limit 3
has "batch --limit message" "$work/err" "dpsearch: Invalid argument: --limit does not apply to --queries (batch mode counts every query)"
same "batch --limit prints nothing" "" "$(cat "$work/out")"
q "batch --format text refused" 2 query --index "$work/idx" --queries "$work/batch.tsv" --format text
q "batch --count accepted" 2 query --index "$work/idx" --queries "$work/batch.tsv" --count
same "batch --count is batch output" "b1 5 b2 3 b3 0 b4 error b5 3 b6 error b7 5" "$(cut -f1,2 "$work/out" | tr '\t\n' '  ' | sed 's/ $//')"
printf 'z1\tzzz\nz2\tapple -apple\n' > "$work/none.tsv"
q "batch without matches" 1 query --index "$work/idx" --queries "$work/none.tsv"
same "batch without matches counts" "z1 0 z2 0" "$(cut -f1,2 "$work/out" | tr '\t\n' '  ' | sed 's/ $//')"
printf 'c1\tapple\nc2 apple\n' > "$work/bad.tsv"
q "batch line without a tab" 2 query --index "$work/idx" --queries "$work/bad.tsv"
has "batch bad line named" "$work/err" "bad.tsv: line 2: expected id<TAB>query"
q "batch file missing" 2 query --index "$work/idx" --queries "$work/nosuch.tsv"
has "batch missing file named" "$work/err" "nosuch.tsv: cannot open"

# Usage and syntax errors: exit 2 with one line on stderr (query_syntax_test.sh
# has the exact messages, and those of negations elsewhere than the whole query).
for query in "-apple" "NOT apple" "-apple -banana" "NOT (apple OR kiwi)"; do
  q "only negations '$query'" 2 query --index "$work/idx" -- "$query"
  has "only negations '$query' message" "$work/err" "a query of only negations"
done
for spec in "(apple:6:missing ')'" "apple AND:9:AND needs a term after it" "apple OR:8:OR needs a term after it" \
            "apple ):6:unexpected ')'" "apple ( kiwi:12:missing ')'"; do
  query=${spec%%:*} rest=${spec#*:}
  q "syntax error '$query'" 2 query --index "$work/idx" -- "$query"
  same "syntax error '$query' message" "dpsearch: Invalid argument: query syntax error at position ${rest%%:*}: ${rest#*:}" "$(cat "$work/err")"
done
q "no searchable words" 2 query --index "$work/idx" "... ,,,"
has "no searchable words message" "$work/err" "the query has no searchable words"
q "missing QUERY" 2 query --index "$work/idx"
has "missing QUERY message" "$work/err" "give a QUERY or --queries FILE"
q "QUERY and --queries" 2 query --index "$work/idx" --queries "$work/batch.tsv" apple
q "no --index" 2 query apple
has "no --index message" "$work/err" "give one of --index DIR, --cluster FILE or --zookeeper HOST:PORT/PATH"
q "two QUERY arguments" 2 query --index "$work/idx" apple banana
for f in xml TSV "" csv; do
  q "--format '$f' rejected" 2 query --index "$work/idx" --format "$f" apple
  same "--format '$f' prints no result" "" "$(cat "$work/out")"
done
has "--format message" "$work/err" "--format"

# Index errors: exit 3.
q "missing index" 3 query --index "$work/nothing" apple
has "missing index message" "$work/err" "no index here"
cp -r "$work/idx" "$work/broken"
printf 'garbage' > "$work/broken/MANIFEST"
q "corrupt MANIFEST" 3 query --index "$work/broken" apple
has "corrupt MANIFEST named" "$work/err" "MANIFEST"
q "batch on a missing index" 3 query --index "$work/nothing" --queries "$work/batch.tsv"

if [ $fail -ne 0 ]; then echo "query cli test FAILED"; exit 1; fi
echo "query cli test passed"
