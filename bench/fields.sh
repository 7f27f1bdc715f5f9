#!/usr/bin/env bash
# Field and prefix queries against Lucene 8.8 (issue 19): `title:x y` and
# `p* y` on one corpus, one thread each, count and top 10, p50 / p99 in
# microseconds, and the prefix latency by number of expansions (the curve).
#   bench/fields.sh CORPUS.norm.jsonl OUTDIR [N_QUERIES=300]
# Needs a Release build (build/dpsearch); installs liblucene8-java and a JDK
# if missing. dpsearch: default analyzer with positions (the command line's
# default) and a title field (--field title), no stored text; Lucene: bench/lucene_fields/LuceneFields.java
# (fields "text" = title + text and "title", no positions, one segment).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:?usage: fields.sh CORPUS.norm.jsonl OUTDIR [N]}
out=${2:?usage: fields.sh CORPUS.norm.jsonl OUTDIR [N]}
n=${3:-300}
bin=${DPSEARCH:-$here/build/dpsearch}
mkdir -p "$out"
jars=$(ls /usr/share/java/lucene-core-8*.jar 2>/dev/null | head -1):$(ls /usr/share/java/lucene-analyzers-common-8*.jar 2>/dev/null | head -1)
if [ "$jars" = ":" ] || ! command -v javac >/dev/null; then
  apt-get install -y -q liblucene8-java default-jdk-headless >/dev/null
  jars=$(ls /usr/share/java/lucene-core-8*.jar | head -1):$(ls /usr/share/java/lucene-analyzers-common-8*.jar | head -1)
fi
mkdir -p "$out/classes"
javac -nowarn -d "$out/classes" -cp "$jars" "$here/bench/lucene_fields/LuceneFields.java"
lucene() { java -Xmx2g -cp "$out/classes:$jars" LuceneFields "$@"; }

python3 "$here/bench/make_field_queries.py" "$corpus" title "$out/title.tsv" --n "$n"
python3 "$here/bench/make_field_queries.py" "$corpus" prefix "$out/prefix.tsv" --n "$n"

[ -d "$out/dps" ] || "$bin" ingest --index "$out/dps" --no-store-text --field title "$corpus" 2>"$out/dps.ingest"
[ -d "$out/lucene" ] || lucene index "$corpus" "$out/lucene" >"$out/lucene.ingest"

for kind in title prefix; do
  # dpsearch batch: id, matches, micros, top micros, top ids; warm-up passes first.
  "$bin" query --index "$out/dps" --queries "$out/$kind.tsv" --threads 1 --top 10 --max-expansions 100000 \
    --warmup-passes 5 | cut -f1-4 >"$out/$kind.dps"
  lucene query "$out/lucene" "$out/$kind.tsv" 5 >"$out/$kind.lucene"
done

python3 - "$out" <<'PY'
import sys, statistics
out = sys.argv[1]
def load(path):
    rows = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        rows[f[0]] = (int(f[1]), float(f[2]), float(f[3]))
    return rows
def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p / 100 * len(v)))]
for kind in ("title", "prefix"):
    d, l = load(f"{out}/{kind}.dps"), load(f"{out}/{kind}.lucene")
    wrong = [q for q in d if d[q][0] != l[q][0]]
    print(f"{kind}: {len(d)} queries, counts differing from Lucene's: {len(wrong)} {wrong[:5]}")
    for col, name in ((1, "count"), (2, "top10")):
        dv, lv = [r[col] for r in d.values()], [r[col] for r in l.values()]
        print(f"  {name:5}  p50 {pct(dv,50):9.1f} vs {pct(lv,50):9.1f} us ({pct(dv,50)/pct(lv,50):.2f}x)"
              f"   p99 {pct(dv,99):9.1f} vs {pct(lv,99):9.1f} us ({pct(dv,99)/pct(lv,99):.2f}x)")
# Prefix latency by expansions (third column of prefix.tsv).
exp = {}
for line in open(f"{out}/prefix.tsv"):
    f = line.rstrip("\n").split("\t")
    exp[f[0]] = int(f[2])
d, l = load(f"{out}/prefix.dps"), load(f"{out}/prefix.lucene")
print("  expansions   queries   count p50 dps/lucene us   top10 p50 dps/lucene us")
for lo, hi in ((1, 10), (10, 100), (100, 1000), (1000, 10000), (10000, 10**9)):
    qs = [q for q in d if lo <= exp[q] < hi]
    if not qs:
        continue
    print(f"  {lo:>6}-{hi if hi < 10**9 else '':<6} {len(qs):6}   "
          f"{statistics.median(d[q][1] for q in qs):9.1f} / {statistics.median(l[q][1] for q in qs):9.1f}   "
          f"{statistics.median(d[q][2] for q in qs):9.1f} / {statistics.median(l[q][2] for q in qs):9.1f}")
PY
