# Shared by the crash and failing-disk tests (sourced after $bin and $work
# are set): the checks every test makes of an index after a writer died or
# failed, and a random corpus.
fail=0
flunk() { echo "FAIL: $1"; fail=1; }
# answers INDEX: each query of $work/queries.tsv with its count.
answers() { "$bin" query --index "$1" --queries "$work/queries.tsv" --threads 1 | cut -f1,2; }
# strays INDEX: the files of INDEX its MANIFEST does not name (besides LOCK).
strays() {
  comm -23 <(ls -A "$1" | sort) <({
    echo MANIFEST; echo LOCK
    awk '$1 == "global" && $2 != "-" { print $2 } $1 == "tablet" { for (i = 3; i <= NF; ++i) print $i }' "$1/MANIFEST"
  } | sort)
}
generation() { awk '$1 == "generation" { print $2 }' "$1/MANIFEST"; }
# corpus SEED VOCAB NAME:FIRST-LAST[+FIRST-LAST]...: $work/NAME.jsonl with
# documents d<FIRST>..d<LAST> (title t<i % 5>, 5 to 80 words of a Zipf
# vocabulary of VOCAB), and $work/queries.tsv: 30 queries of 1 to 3 of the
# 300 commonest words, and one title word.
corpus() {
  python3 - "$work" "$@" <<'PY'
import json, random, sys
work, seed, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
vocab = [f"w{i}" for i in range(size)]
weights = [1.0 / (i + 1) for i in range(len(vocab))]
for spec in sys.argv[4:]:
    name, ranges = spec.split(":")
    with open(f"{work}/{name}.jsonl", "w") as f:
        for r in ranges.split("+"):
            first, last = map(int, r.split("-"))
            for i in range(first, last + 1):
                words = rng.choices(vocab, weights, k=rng.randint(5, 80))
                f.write(json.dumps({"id": f"d{i}", "title": f"t{i % 5}", "text": " ".join(words)}) + "\n")
with open(f"{work}/queries.tsv", "w") as f:
    for q in range(30):
        f.write(f"q{q}\t{' '.join(rng.sample(vocab[:300], rng.randint(1, 3)))}\n")
    f.write("t3\tt3\n")
PY
}
