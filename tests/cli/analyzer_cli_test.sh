#!/usr/bin/env bash
# CLI test of the analyzer choices (docs/analyzer.md "Analyzer choices"):
# `ingest --stem/--fold-accents/--analyzer whitespace` record the analyzer
# in the MANIFEST, and every query on the index (one query, batch, scan
# --term, a cluster of servers) is analyzed with it; `stats` and
# `--version` show it; an ingest asking for another analyzer is refused
# (exit 2, both named, the index unchanged), one without analyzer flags
# uses the index's; bad combinations are refused before any index exists;
# a MANIFEST of version 1 is refused asking for a re-ingest (exit 3).
# Usage: analyzer_cli_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"

cat >"$work/docs.jsonl" <<'EOF'
{"id":"a","title":"Running","text":"the dog was running home"}
{"id":"b","title":"b","text":"she runs every day"}
{"id":"c","title":"c","text":"we run; they ran"}
{"id":"d","title":"Café","text":"a small café in Zürich"}
{"id":"e","title":"e","text":"cafe culture and CAFES"}
{"id":"f","title":"f","text":"Foo-Bar baz. QUX"}
EOF
# ids QUERY ARGS...: the sorted ids `query --format tsv` prints.
ids() { "$bin" query --format tsv "$@" 2>/dev/null | cut -f1 | sort | tr '\n' ' '; }

# Default (icu): no stemming, accents kept.
q "default ingest" 0 ingest --index "$work/plain" "$work/docs.jsonl"
same "default: running finds only running" "a " "$(ids --index "$work/plain" running)"
same "default: cafe is not café" "e " "$(ids --index "$work/plain" cafe)"
has "MANIFEST records icu" "$work/plain/MANIFEST" "analyzer icu"

# --stem english: documents and queries stemmed alike.
q "stemmed ingest" 0 ingest --index "$work/stem" --stem english "$work/docs.jsonl"
same "MANIFEST records the stemmer" "analyzer icu stem=english" "$(grep '^analyzer' "$work/stem/MANIFEST")"
same "running finds run, runs, running" "a b c " "$(ids --index "$work/stem" running)"
same "the query is case-folded then stemmed" "a b c " "$(ids --index "$work/stem" RUNS)"
q "stemmed count" 0 query --index "$work/stem" --count "running OR cafes"
same "count of running OR cafes" "4" "$(cat "$work/out")"
printf 'q1\trunning\nq2\tRunning -dog\n' >"$work/queries.tsv"
q "batch on the stemmed index" 0 query --index "$work/stem" --queries "$work/queries.tsv"
same "batch counts stemmed queries" "q1 3|q2 2" "$(cut -f1,2 "$work/out" | tr '\t\n' ' |' | sed 's/|$//')"
q "scan --term stems the word" 0 scan --index "$work/stem" --term Running
same "scan --term Running lists the stem's postings" "run run run" "$(cut -f2 "$work/out" | tr '\n' ' ' | sed 's/ $//')"
q "stats" 0 stats --index "$work/stem"
has "stats shows the analyzer" "$work/out" "analyzer    icu stem=english"

# Re-ingest: other flags refused, none or the same accepted.
gen() { awk '$1 == "generation" { print $2 }' "$1/MANIFEST"; }
before=$(gen "$work/stem")
q "other analyzer flags refused" 2 ingest --index "$work/stem" --fold-accents "$work/docs.jsonl"
same "refusal names both analyzers" "dpsearch: Invalid argument: analyzer 'icu fold-accents': the index at $work/stem uses analyzer 'icu stem=english' (fixed when the index was created); without analyzer flags ingest uses it" "$(cat "$work/err")"
q "--analyzer icu alone means plain icu: refused" 2 ingest --index "$work/stem" --analyzer icu "$work/docs.jsonl"
same "refused ingests changed nothing" "$before" "$(gen "$work/stem")"
printf '{"id":"g","text":"jumping and running"}\n' >"$work/more.jsonl"
q "no analyzer flags: the index's" 0 ingest --index "$work/stem" "$work/more.jsonl"
same "appended document stemmed" "a b c g " "$(ids --index "$work/stem" run)"
q "the same flags again" 0 ingest --index "$work/stem" --stem english "$work/more.jsonl"
same "analyzer unchanged" "analyzer icu stem=english" "$(grep '^analyzer' "$work/stem/MANIFEST")"

# --fold-accents: café = cafe, after case folding.
q "folded ingest" 0 ingest --index "$work/fold" --fold-accents "$work/docs.jsonl"
same "cafe finds café and cafe" "d e " "$(ids --index "$work/fold" cafe)"
same "CAFÉ finds them too" "d e " "$(ids --index "$work/fold" CAFÉ)"
same "zurich finds Zürich" "d " "$(ids --index "$work/fold" zurich)"
q "folded and stemmed" 0 ingest --index "$work/both" --fold-accents --stem english "$work/docs.jsonl"
same "MANIFEST order: fold, then stem" "analyzer icu fold-accents stem=english" "$(grep '^analyzer' "$work/both/MANIFEST")"
same "cafés finds café, cafe, CAFES" "d e " "$(ids --index "$work/both" cafés)"

# --analyzer whitespace: tokens as given, case and punctuation included.
q "whitespace ingest" 0 ingest --index "$work/ws" --analyzer whitespace "$work/docs.jsonl"
same "a token with punctuation" "f " "$(ids --index "$work/ws" Foo-Bar)"
same "case matters" "" "$(ids --index "$work/ws" foo-bar)"
q "no lower-cased token" 1 query --index "$work/ws" --count qux
same "QUX as given" "f " "$(ids --index "$work/ws" QUX)"
same "punctuation stays on the token" "c " "$(ids --index "$work/ws" "run;")"

# Refused before any index exists.
q "whitespace with --stem" 2 ingest --index "$work/bad1" --analyzer whitespace --stem english "$work/docs.jsonl"
same "message" "dpsearch: Invalid argument: stem applies to the icu analyzer only: whitespace keeps tokens exactly as given" "$(cat "$work/err")"
q "whitespace with --fold-accents" 2 ingest --index "$work/bad2" --analyzer whitespace --fold-accents "$work/docs.jsonl"
q "unknown stemmer" 2 ingest --index "$work/bad3" --stem klingon "$work/docs.jsonl"
has "the languages are listed" "$work/err" "stemmer 'klingon': not one of libstemmer's (arabic, "
q "unknown analyzer" 2 ingest --index "$work/bad4" --analyzer snowball "$work/docs.jsonl"
same "no index was made" "" "$(ls "$work" | grep '^bad')"

# --version lists the analyzers and this build's stemmers.
q "--version" 0 --version
has "--version: analyzers" "$work/out" "analyzers: icu (options fold-accents, stem=LANG), whitespace"
grep -qE '^stemmers \(libstemmer\):( [a-z_]+)+$' "$work/out" && grep '^stemmers' "$work/out" | grep -qw english &&
  pass "--version: stemmer languages" || flunk "--version: no stemmer line with english"

# A MANIFEST of version 1 (before the analyzer was recorded): the golden
# index's MANIFEST as the build that made it wrote it. Re-ingest.
cp -r "$src/tests/golden/v11/index" "$work/v1"
cat >"$work/v1/MANIFEST" <<'EOF'
dpsearch-manifest 1
index-id 4c4aad61df14f21e79e918c066332c45
generation 3
bins 4
store-text 1
next-file 11
global 000010.gix
tablet 0-1 000002.tab 000006.tab
tablet 2-3 000003.tab 000007.tab 000009.tab
checksum 2cefd5a726130a11
EOF
q "version 1 MANIFEST" 3 query --index "$work/v1" apple
same "version 1 refused asking for a re-ingest" "dpsearch: Unsupported: $work/v1/MANIFEST: MANIFEST version 1 (this build reads 3); re-ingest the documents" "$(cat "$work/err")"

# A cluster answers as the index does: the coordinator analyzes with the
# analyzer the servers' Welcome names.
serve stemmed "$work/stem" 0-3
printf '0-3 %s\n' "$stemmed" >"$work/cluster.txt"
same "cluster: running finds the stems" "a b c g " "$(ids --cluster "$work/cluster.txt" running)"
q "cluster batch" 0 query --cluster "$work/cluster.txt" --queries "$work/queries.tsv"
same "cluster batch = index batch" "q1 4|q2 3" "$(cut -f1,2 "$work/out" | tr '\t\n' ' |' | sed 's/|$//')"

finish analyzer_cli_test
