#!/usr/bin/env bash
# dpsearch as a peer of ../shared/peers (its "Contract for an external
# engine"):  peer.sh index CORPUS.jsonl INDEXDIR | peer.sh query INDEXDIR QUERIES.tsv
# Index: the default analyzer, no stored text (the peers store none), title
# + text as one field (dpsearch always searches both). Query: one thread by
# default (the harness's rule; DPS_THREADS overrides), warm-up from
# PEERS_WARMUP / PEERS_WARMUP_SECONDS, count only (no ranking yet: top10 "-").
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${DPSEARCH:-$here/build/dpsearch}
case "${1:-}" in
  index)
    [ "${PEERS_FIELDS:-all}" = "all" ] || { echo "peer.sh: PEERS_FIELDS=${PEERS_FIELDS} unsupported (title and text are one field)" >&2; exit 2; }
    start=$(date +%s.%N)
    "$bin" ingest --index "$3" --no-store-text ${DPS_INGEST_ARGS:-} "$2" >&2
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "# index_seconds=%.3f\n", e - s }'
    ;;
  query)
    "$bin" query --index "$2" --queries "$3" --threads "${DPS_THREADS:-1}" \
      --warmup-passes "${PEERS_WARMUP:-1}" --warmup-seconds "${PEERS_WARMUP_SECONDS:-20}" \
      | awk -F'\t' '{ printf "%s\t%s\t%s\t-\n", $1, $2, $3 }'
    ;;
  *) echo "usage: peer.sh index CORPUS INDEXDIR | peer.sh query INDEXDIR QUERIES" >&2; exit 2 ;;
esac
