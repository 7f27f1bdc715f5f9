#!/usr/bin/env bash
# dpsearch as a peer of ../shared/peers (its "Contract for an external
# engine"):  peer.sh index CORPUS.jsonl INDEXDIR | peer.sh query INDEXDIR QUERIES.tsv
# Index: the whitespace analyzer (the harness's corpora are pre-tokenized
# and every peer indexes their space-separated tokens as given: Lucene's
# WhitespaceAnalyzer, Xapian's add_term per token, FTS5's ascii; the ICU
# default would segment the Chinese runs linuxdoc keeps whole, and answer 27
# of its AND queries differently), no stored text (the peers store none), title
# + text as one field (dpsearch always searches both), word positions only
# when the harness sets PEERS_POSITIONS=1 (phrase runs), else --no-positions. Query: one thread by
# default (the harness's rule; DPS_THREADS overrides), warm-up from
# PEERS_WARMUP / PEERS_WARMUP_SECONDS; each query counted, then ranked
# (--top 10, BM25), the top 10 printed as corpus ordinals: the index is
# built from a copy of the corpus whose ids are the ordinals (0-based
# non-empty lines), made before the timer starts.
# Bins: one, unless DPS_BINS says otherwise (the product's default is 4,
# for queries on several cores). The harness runs one query thread, and
# one bin gives its queries p50s 10-40% lower than four (each bin adds its
# own term opens and cold cache lines, as segments do to Lucene, whose
# peer force-merges to one): bench/RESULTS.md, session 23. Since session
# 24 one tablet is built on every thread, so one bin ingests as fast as
# four.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
case "${1:-}" in
  index)
    [ "${PEERS_FIELDS:-all}" = "all" ] || { echo "peer.sh: PEERS_FIELDS=${PEERS_FIELDS} unsupported (title and text are one field)" >&2; exit 2; }
    ordinal="$3.ordinal.jsonl"
    python3 -c '
import json, sys
n = 0
with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as f, open(sys.argv[2], "w", encoding="utf-8", errors="surrogateescape") as out:
    for line in f:
        if not line.strip():
            continue
        doc = json.loads(line)
        doc["id"] = str(n)
        n += 1
        out.write(json.dumps(doc, ensure_ascii=False) + "\n")
' "$2" "$ordinal"
    start=$(date +%s.%N)
    positions=--no-positions
    [ "${PEERS_POSITIONS:-0}" = 1 ] && positions=
    bins=${DPS_BINS:-1}
    "$bin" ingest --index "$3" --bins "$bins" --tablets "$bins" --analyzer whitespace --no-store-text $positions ${DPS_INGEST_ARGS:-} "$ordinal" >&2
    end=$(date +%s.%N)
    rm -f "$ordinal"
    awk -v s="$start" -v e="$end" 'BEGIN { printf "# index_seconds=%.3f\n", e - s }'
    ;;
  query)
    # The harness's rule: a phrase query file without PEERS_POSITIONS=1 is
    # refused, not answered as an AND of the words (dpsearch would refuse
    # each query on a --no-positions index anyway; this says why up front).
    if [ "${PEERS_POSITIONS:-0}" != 1 ] && cut -f2 "$3" | grep -q '"'; then
      echo "peer.sh: $3 has a phrase clause but PEERS_POSITIONS is not 1 (the index has no positions)" >&2
      exit 1
    fi
    "$bin" query --index "$2" --queries "$3" --threads "${DPS_THREADS:-1}" --top 10 \
      --warmup-passes "${PEERS_WARMUP:-1}" --warmup-seconds "${PEERS_WARMUP_SECONDS:-20}" \
      | awk -F'\t' '{ printf "%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5 }'
    ;;
  *) echo "usage: peer.sh index CORPUS INDEXDIR | peer.sh query INDEXDIR QUERIES" >&2; exit 2 ;;
esac
