#!/usr/bin/env bash
# CLI test of the query syntax dpsearch refuses (README "Queries"): each
# form of other engines' syntax, and each misplaced negation, exits 2 with
# one exact line on stderr naming the position, and prints nothing on
# stdout, alone and in a --queries batch; look-alike punctuation is text.
# Usage: query_syntax_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"

printf '%s\n' '{"id":"d1","title":"One","text":"file system kernel module printk"}' \
  '{"id":"d2","title":"Two","text":"r d wow c yahoo mail i o"}' > "$work/c.jsonl"
"$bin" ingest --index "$work/idx" --field title "$work/c.jsonl" 2>/dev/null || { echo "FAIL: ingest"; exit 1; }

# query<TAB>position<TAB>what the message says after "position N: ".
cat > "$work/refused.tsv" <<'TSV'
"file system	0	the phrase "file system has no closing quote
file"system	4	a quote inside a word (file"system): a phrase is words in quotes, "a b"
"file system"~	13	proximity is a phrase then ~N, N a whole number from 0 to 64 ("file system"~2)
-"module printk"	0	a query of only negations matches nothing to subtract from ('-"module printk"'); add a positive term
author:kernel	0	unknown field 'author': the index's fields are title; a bare word searches title and text
title: kernel	0	the field 'title:' needs a word, a phrase or a group right after its ':'
12:30	2	':' inside a word (12:30): a field query is NAME:word, NAME a field of the index
http://example.com	0	unknown field 'http': the index's fields are title; a bare word searches title and text
ne*w	2	wildcards inside a word (ne*w) are not supported; only a final * makes a prefix query (netw*)
kern?l	4	single-character wildcards (kern?l) are not supported
kernel^2	6	boosts (kernel^2) are not supported
kernel~2	6	fuzzy queries (kernel~2) are not supported; proximity is a phrase then ~N ("a b"~2)
file || kernel	5	'||' is not an operator: use OR
file | kernel	5	'|' is not an operator: use OR
file && kernel	5	'&&' is not an operator: use AND
file !kernel	5	'!' is not an operator: use NOT or -
+file kernel	0	'+' is not an operator: every word is required already
[file TO kernel]	0	'[' is not supported: there are no ranges; group with ( )
{file TO kernel}	0	'{' is not supported: there are no ranges; group with ( )
-file	0	a query of only negations matches nothing to subtract from ('-file'); add a positive term
NOT (file OR kernel)	0	a query of only negations matches nothing to subtract from ('NOT (file OR kernel)'); add a positive term
file OR -kernel	8	an OR branch cannot be only a negation ('-kernel'); combine it with a positive term
file -(kernel OR -module)	17	an OR branch cannot be only a negation ('-module'); combine it with a positive term
file -(-kernel)	5	a double negation ('-(-kernel)') is not supported; write the terms positively
TSV
n=0
while IFS=$'\t' read -r query pos what; do
  n=$((n + 1))
  q "refused '$query'" 2 query --index "$work/idx" -- "$query"
  same "refused '$query' message" "dpsearch: Invalid argument: query syntax error at position $pos: $what" "$(cat "$work/err")"
  same "refused '$query' stdout" "" "$(cat "$work/out")"
  printf 'r%d\t%s\n' "$n" "$query" >> "$work/batch.tsv"
  echo "dpsearch: query r$n failed: query syntax error at position $pos: $what" >> "$work/batch.expected"
done < "$work/refused.tsv"
same "every refused form was tried" 24 "$n"

# In a batch each refused query is named on stderr and gets an error line,
# never a count; the batch goes on to answer the others and exits 2.
printf 'ok\tfile kernel\n' >> "$work/batch.tsv"
q "batch of refused queries" 2 query --index "$work/idx" --queries "$work/batch.tsv"
same "batch names each refused query" "$(cat "$work/batch.expected")" "$(grep '^dpsearch: query r' "$work/err")"
same "batch error lines" "$(seq 1 24 | sed 's/^/r/; s/$/\terror/'; printf 'ok\t1')" "$(cut -f1,2 "$work/out")"

# Phrases: quoted words side by side.
for spec in '"file system":d1' '“file system”:d1' 'kernel "module printk":d1' '"system file":' 'kernel -"module printk":' \
            '"file kernel"~1:d1' '"file kernel"~0:' '"kernel file"~2:' '"kernel file"~3:d1'; do
  query=${spec%:*} id=${spec##*:}
  q "phrase '$query'" "$([ -n "$id" ] && echo 0 || echo 1)" query --index "$work/idx" --format tsv -- "$query"
  same "phrase '$query' answer" "$id" "$(cut -f1 "$work/out")"
done

# Fields: the title field searches titles alone; a phrase stays in it.
for spec in 'title:one:d1' 'title:One kernel:d1' 'title:two file:' 'one:d1' 'title:"one file":' '"one file":d1'; do
  query=${spec%:*} id=${spec##*:}
  q "field '$query'" "$([ -n "$id" ] && echo 0 || echo 1)" query --index "$work/idx" --format tsv -- "$query"
  same "field '$query' answer" "$id" "$(cut -f1 "$work/out")"
done

# Punctuation of no query language stays text, analyzed like documents.
for spec in "R&D:d2" "wow!:d2" "c++:d2" "Yahoo! mail:d2" "I/O:d2" "file-system:d1" "(-wow) file:d1"; do
  query=${spec%:*} id=${spec##*:}
  q "text '$query'" 0 query --index "$work/idx" --format tsv -- "$query"
  same "text '$query' answer" "$id" "$(cut -f1 "$work/out")"
done

if [ $fail -ne 0 ]; then echo "query syntax test FAILED"; exit 1; fi
echo "query syntax test passed"
