#!/usr/bin/env bash
# CLI test of `dpsearch simulate` and `bench --samples`: samples written
# from a real bench, a cluster file's layout and a fan-out sweep simulated,
# one JSON object, a report whose SVGs parse and name every policy, and
# strict errors (one line, exit 2, the file and line named).
# Usage: simulate_cli_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"
err_is() { same "$1" "$2" "$(cat "$work/err")"; }

python3 - "$work/docs.jsonl" <<'PY'
import json, random, sys
r = random.Random(5)
with open(sys.argv[1], "w") as f:
    for i in range(800):
        f.write(json.dumps({"id": "d%d" % i, "text": " ".join("w%d" % r.randrange(60) for _ in range(20))}) + "\n")
PY
"$bin" ingest --index "$work/idx" --bins 8 --tablets 4 "$work/docs.jsonl" 2>/dev/null
printf 'a\tw1\nb\tw2 w3\nc\tw4 OR w5\nd\tw6 -w7\n' >"$work/q.tsv"

q "bench --samples" 0 bench --index "$work/idx" --queries "$work/q.tsv" --repeat 5 --samples "$work/s.tsv"
same "samples: a header and a line per query" 21 "$(wc -l <"$work/s.tsv" | tr -d ' ')"
same "samples: the header" "# dpsearch bench samples 2" "$(head -1 "$work/s.tsv")"
same "samples: id, overhead and 4 tablets a line" 6 "$(sed -n 2p "$work/s.tsv" | awk -F'\t' '{print NF}')"

printf '0-1 a:1 b:1\n2-3 b:1 a:1\n' >"$work/cluster.txt"
q "simulate a cluster file" 0 simulate --samples "$work/s.tsv" --cluster "$work/cluster.txt" \
  --server-delay '0:0.1:5' --policy first --policy adaptive+hedge-p95 --policy first+tied --queries 300 --json
python3 - "$work/out" <<'PY' && pass "simulate --json: every policy, 300 queries each" || flunk "simulate --json"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert [r["policy"] for r in rows] == ["first", "adaptive+hedge-p95", "first+tied"], rows
for r in rows:
    assert r["servers"] == 2 and r["queries"] == 300, r
    assert r["p50_us"] <= r["p99_us"] <= r["p999_us"] <= r["max_us"], r
assert rows[0]["requests"] == 600 and rows[0]["extra_work"] == 0, rows[0]
assert rows[2]["tied_pairs"] == 600, rows[2]
PY

q "simulate a fan-out sweep" 0 simulate --samples "$work/s.tsv" --servers 2,8,32 --server-delay '*:0.01:50' \
  --policy first --policy first+hedge-2ms --queries 200 --report "$work/sim.html"
same "sweep: a row per width and policy" 6 "$(grep -cE '^ +(2|8|32)  first' "$work/out")"
python3 - "$work/sim.html" <<'PY' && pass "simulate report: SVGs parse and name every policy" || flunk "simulate report"
import re, sys, xml.etree.ElementTree as ET
html = open(sys.argv[1]).read()
svgs = re.findall(r"<svg.*?</svg>", html, re.S)
assert len(svgs) == 4, len(svgs)
for s in svgs:
    root = ET.fromstring(s)
    names = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {"first", "first+hedge-2ms"} <= names, names
assert "p99 against fan-out" in html
PY

# --- dpsearch report: one page over bench runs, a sweep and a simulation ------
for round in 1 2; do
  for c in 1 2; do
    printf '{"config":"clients-%s","round":%s,' "$c" "$round"
    "$bin" bench --index "$work/idx" --queries "$work/q.tsv" --repeat 3 --concurrency "$c" --json | sed 's/^{//'
  done
done >"$work/runs.jsonl"
"$bin" bench --index "$work/idx" --queries "$work/q.tsv" --rate 200,400 --duration 0.2 --json >"$work/sweep.json"
"$bin" simulate --samples "$work/s.tsv" --servers 2,8 --policy first --policy first+tied --queries 100 --json >"$work/sim.json"
q "report" 0 report --out "$work/report.html" "$work/runs.jsonl" "$work/sweep.json" "$work/sim.json"
has "report: what it drew" "$work/err" "(2 runs, 1 sweeps, 4 simulated rows)"
python3 - "$work/report.html" <<'PY' && pass "report: CDFs, load and fan-out charts; SVGs parse and name every configuration" || flunk "report page"
import re, sys, xml.etree.ElementTree as ET
html = open(sys.argv[1]).read()
heads = re.findall(r"<h2>(.*?)</h2>", html)
assert heads == ["Latency CDF: count, closed loop", "Latency against offered load: sweep.json",
                 "Tail against fan-out (simulated): sim.json"], heads
texts = set()
for s in re.findall(r"<svg.*?</svg>", html, re.S):
    texts |= {t.text for t in ET.fromstring(s).iter("{http://www.w3.org/2000/svg}text")}
assert {"clients-1", "clients-2", "first", "first+tied", "p99", "p99.9", "knee"} <= texts, texts
# Two rounds of 12 queries each merged per configuration.
assert re.search(r"<td>clients-1</td><td>2</td><td>24</td>", html), html
PY
printf '{"config":"x"}\nnot json\n' >"$work/bad.jsonl"
q "report of a bad line" 2 report --out "$work/r.html" "$work/bad.jsonl"
has "bad line message" "$work/err" "$work/bad.jsonl:2: not a JSON object"
q "report of nothing drawable" 2 report --out "$work/r.html" "$work/q.tsv.none" 
printf '{"config":"capacity","achieved_qps":5}\n' >"$work/none.jsonl"
q "report without a histogram" 2 report --out "$work/r.html" "$work/none.jsonl"
err_is "nothing drawable message" "dpsearch: Invalid argument: no bench run, sweep or simulation in the inputs"

# --- errors ----------------------------------------------------------------
q "simulate without a layout" 2 simulate --samples "$work/s.tsv"
err_is "no layout message" "dpsearch: Invalid argument: give --cluster FILE or --servers N"
q "simulate --cluster and --servers" 2 simulate --samples "$work/s.tsv" --cluster "$work/cluster.txt" --servers 4
q "simulate bad policy" 2 simulate --samples "$work/s.tsv" --servers 4 --policy fastest+tied
err_is "bad policy message" "dpsearch: Invalid argument: policy 'fastest+tied': 'fastest' is not a replica policy (expected first|random|adaptive, then +hedge-pNN, +hedge-MSms, +tied, +tied-MSms, +tied-pNN, +deadline-MS, +siblings-X)"
q "simulate delay on a server not there" 2 simulate --samples "$work/s.tsv" --servers 4 --server-delay '4:0.1:5'
err_is "server out of range message" "dpsearch: Invalid argument: --server-delay: server 4 of 4 (numbered from 0)"
q "simulate bad delay" 2 simulate --samples "$work/s.tsv" --servers 4 --server-delay 'x:0.1:5'
printf '# dpsearch bench samples 2\na\t1\t2,2\t3,3\nb\t1\t2,2\n' >"$work/bad.tsv"
q "simulate bad samples" 2 simulate --samples "$work/bad.tsv" --servers 4
err_is "bad samples message" "dpsearch: Invalid argument: $work/bad.tsv:3: 1 tablets, the lines before have 2"
q "simulate missing samples" 2 simulate --samples "$work/nosuch.tsv" --servers 4
err_is "missing samples message" "dpsearch: Invalid argument: $work/nosuch.tsv: cannot open (No such file or directory)"
finish "simulate cli test"
