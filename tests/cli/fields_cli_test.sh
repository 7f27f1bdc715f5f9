#!/usr/bin/env bash
# CLI test of fields (issue 19) as a user meets them: `ingest --field`
# declares title and JSONL fields (strings, arrays of strings, null) when
# the index is created, a later ingest must name the same ones or none,
# a malformed field value names its file and line, queries search a field
# alone (words, phrases, prefixes, groups, ranked), an unknown field is
# refused, `scan --term` and `stats` show fields, and a cluster answers
# field queries as the index does.
# Usage: fields_cli_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"

cat > "$work/a.jsonl" <<'JSONL'
{"id": "a1", "title": "Kernel panic", "text": "the system stops", "author": "Ann Lee", "tags": ["boot", "crash dump"]}
{"id": "a2", "title": "Panic attacks", "text": "kernel of truth", "author": ["Bob", "Ann"], "tags": null}
{"id": "a3", "title": "Boot loader", "text": "grub loads the kernel kernel", "tags": "boot"}
JSONL
q "ingest with fields" 0 ingest --index "$work/idx" --field title --field author --field tags "$work/a.jsonl"
has "MANIFEST records the fields in order" "$work/idx/MANIFEST" "fields title author tags"

ids() { cut -f1 "$work/out" | sort | tr '\n' ' ' | sed 's/ $//'; }
for spec in 'kernel=a1 a2 a3' 'title:kernel=a1' 'title:panic=a1 a2' 'author:ann=a1 a2' 'author:"ann lee"=a1' \
            'author:"lee ann"=' 'author:"bob ann"=' 'tags:"crash dump"=a1' 'tags:boot=a1 a3' 'title:pan*=a1 a2' \
            'title:(kernel OR boot) -tags:crash=a3' 'kernel -title:kernel=a2 a3' 'title:"kernel panic"~0=a1' \
            'title:"panic kernel"~2=a1'; do
  query=${spec%%=*} want=${spec#*=}
  q "query '$query'" "$([ -n "$want" ] && echo 0 || echo 1)" query --index "$work/idx" --format tsv -- "$query"
  same "query '$query' answer" "$want" "$(ids)"
done
# An array's values are apart: no phrase spans two ("bob ann" above), and
# a value's words are side by side ("crash dump").

# Ranked: a field's term scores with the field's statistics; a title hit
# in a short title beats a text hit.
q "ranked field query" 0 query --index "$work/idx" --format tsv --top 3 -- 'kernel OR title:kernel'
same "ranked: the title hit first" "a1" "$(head -1 "$work/out" | cut -f1)"

q "unknown field" 2 query --index "$work/idx" -- 'autor:ann'
same "unknown field message" "dpsearch: Invalid argument: query syntax error at position 0: unknown field 'autor': the index's fields are title, author, tags; a bare word searches title and text" "$(cat "$work/err")"

q "scan --term author:ann" 0 scan --index "$work/idx" --term author:Ann
same "scan shows the field's entries" "2" "$(cut -f2 "$work/out" | grep -c '^author:ann$')"
q "stats" 0 stats --index "$work/idx"
has "stats lists the fields" "$work/out" "field       documents       tokens        terms     postings"
same "stats: title" "title 3 6 5 6" "$(awk '$1 == "title" {print $1, $2, $3, $4, $5}' "$work/out")"
same "stats: author" "author 2 4 3 4" "$(awk '$1 == "author" {print $1, $2, $3, $4, $5}' "$work/out")"
same "stats: tags" "tags 2 4 3 4" "$(awk '$1 == "tags" {print $1, $2, $3, $4, $5}' "$work/out")"

# The fields are fixed at creation: the same ones or none on a later ingest.
printf '%s\n' '{"id": "a4", "title": "More", "text": "kernel", "author": "Cy"}' > "$work/b.jsonl"
q "another field list refused" 2 ingest --index "$work/idx" --field author "$work/b.jsonl"
has "refusal names the index's fields" "$work/err" "has the fields title, author, tags (fixed when the index was created)"
q "no --field uses the index's" 0 ingest --index "$work/idx" "$work/b.jsonl"
q "the new document's field" 0 query --index "$work/idx" --format tsv -- 'author:cy'
same "author:cy" "a4" "$(ids)"

# A malformed field value is an input error naming the file and line.
printf '%s\n' '{"id": "x1", "text": "a"}' '{"id": "x2", "text": "b", "author": 42}' > "$work/bad.jsonl"
q "a number as a field value" 2 ingest --index "$work/idx" "$work/bad.jsonl"
has "message names file, line and field" "$work/err" "bad.jsonl: line 2: field \"author\" must be a string, an array of strings or null"
printf '%s\n' '{"id": "x3", "text": "b", "tags": ["ok", 7]}' > "$work/bad2.jsonl"
q "a number in an array" 2 ingest --index "$work/idx" "$work/bad2.jsonl"
has "array message" "$work/err" "bad2.jsonl: line 1: field \"tags\" must be a string, an array of strings or null"
q "nothing of the bad inputs was committed" 1 query --index "$work/idx" -- 'x1 OR x2 OR x3'

# A bad field name, at creation.
q "bad field name" 2 ingest --index "$work/other" --field 'au-thor' "$work/a.jsonl"
has "bad name message" "$work/err" "field name 'au-thor'"
[ -e "$work/other" ] && flunk "a refused first ingest left an index" || pass "no index left by a refused ingest"

# Any order of fields checks clean (an array's gaps in a field before title).
printf '%s\n' '{"id": "o1", "title": "A b", "text": "x", "author": ["p", "q r"]}' > "$work/o.jsonl"
q "fields in another order" 0 ingest --index "$work/order" --field author --field title "$work/o.jsonl"
q "check with author before title" 0 check --index "$work/order"

# A cluster answers field queries as the index does (the Welcome carries the fields).
tablets=$(grep -c '^tablet ' "$work/idx/MANIFEST")
serve s1 "$work/idx" "0-$((tablets - 1))"
printf '0-%d %s\n' "$((tablets - 1))" "$s1" > "$work/cluster"
q "cluster field query" 0 query --cluster "$work/cluster" --format tsv -- 'title:(kernel OR boot) -tags:crash'
same "cluster answer" "a3" "$(ids)"
q "cluster unknown field" 2 query --cluster "$work/cluster" -- 'autor:ann'

finish "fields CLI test"
