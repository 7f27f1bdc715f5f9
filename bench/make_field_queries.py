#!/usr/bin/env python3
"""Field and prefix query sets for bench/fields.sh (issue 19), from a
normalized corpus (../shared/corpora: lower-case words separated by spaces).

  make_field_queries.py CORPUS.norm.jsonl title OUT.tsv [--n 300] [--seed 1]
      `title:x y`: x a word of a random document's title, y another word of
      its text (so every query matches at least that document).
  make_field_queries.py CORPUS.norm.jsonl prefix OUT.tsv [--n 300] [--seed 1]
      `p* y`: p the first 2 to 6 characters of a word of a random document's
      text, y another word of it; a third column gives the number of the
      corpus's distinct words (title + text) starting with p: the prefix's
      expansions, for the latency curve.
"""
import argparse
import bisect
import json
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("kind", choices=["title", "prefix"])
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    docs = []
    vocab = set()
    with open(a.corpus, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            title, text = d.get("title", "").split(), d["text"].split()
            docs.append((title, text))
            if a.kind == "prefix":
                vocab.update(title)
                vocab.update(text)
    words = sorted(vocab)
    rng = random.Random(a.seed)
    out = []
    while len(out) < a.n:
        title, text = docs[rng.randrange(len(docs))]
        if len(set(text)) < 2 or (a.kind == "title" and not title):
            continue
        y = rng.choice(text)
        if a.kind == "title":
            x = rng.choice(title)
            if x == y or not x.isalnum() or not y.isalnum():
                continue
            out.append(f"title:{x} {y}")
        else:
            w = rng.choice(text)
            if len(w) < 3 or w == y or not w.isalnum() or not y.isalnum():
                continue
            p = w[: rng.randint(2, min(6, len(w) - 1))]
            if y.startswith(p):
                continue
            lo = bisect.bisect_left(words, p)
            hi = bisect.bisect_left(words, p + "\U0010ffff")
            out.append(f"{p}* {y}\t{hi - lo}")
    with open(a.out, "w", encoding="utf-8") as f:
        for i, q in enumerate(out):
            f.write(f"q{i}\t{q}\n")


if __name__ == "__main__":
    main()
