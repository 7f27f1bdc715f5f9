#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, indexes a
# real corpus every Debian machine has (/usr/share/doc, as a directory tree,
# its .gz files decompressed) and shows what the engine does so far, ending
# with the straggler benchmark: one tablet made slow, p50/p99 and the
# straggler ratio before and after, and the HTML report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build >/dev/null
bin=build/dpsearch
index=${DEMO_INDEX:-build/demo-index}
corpus=${DEMO_CORPUS:-/usr/share/doc}
queries=build/demo-queries.tsv
report=build/demo-bench.html

# Bold command lines on a terminal only, and not when NO_COLOR is set to
# anything (https://no-color.org): piped or logged output stays plain text.
bold='' plain=''
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
  bold=$'\033[1m' plain=$'\033[0m'
fi
step() { printf '\n%s$ %s%s\n' "$bold" "$*" "$plain"; "$@"; }

rm -rf "$index"
step "$bin" ingest --index "$index" --format dir --skip-bad "$corpus"
step "$bin" stats --index "$index" --top 10
echo
echo "Every posting of the term 'license' in bin 0 (bin, term, docid, weight):"
("$bin" scan --index "$index" --bin 0 --term license || true) | head -5
step "$bin" query --index "$index" --limit 5 --format text "license gpl"
step "$bin" query --index "$index" --top 5 --format text "license gpl"    # ranked: the 5 best by BM25
step "$bin" query --index "$index" --count "debian AND (policy OR manual) -perl"
step "$bin" query --index "$index" --top 3 --format tsv '"free software" licen*'   # a phrase and a prefix
step "$bin" query --index "$index" --limit 3 --stats --format tsv "copyright"
step "$bin" check --index "$index"
first=$( ("$bin" scan --index "$index" --docs --bin 0 || true) | head -1 | cut -f3)
step "$bin" delete --index "$index" --id "$first"
step "$bin" compact --index "$index"
step "$bin" check --index "$index"

# The straggler benchmark. Queries that all match in /usr/share/doc
# (changelogs, copyright files, READMEs); on another corpus some may count 0,
# which is still a query to time.
i=0
while IFS= read -r q; do
  i=$((i + 1))
  printf 'q%d\t%s\n' "$i" "$q"
done >"$queries" <<'EOF'
license
gpl
copyright
debian
upstream
changelog
bug fix
new upstream release
gnu general public license
security fix
python library
source code
mailing list
build system
debian AND (policy OR manual) -perl
license OR copyright
utf8 OR unicode
kernel module
memory leak
documentation -html
regression test
command line option
man page
configuration file
translation update
closes bug
systemd
openssl
zlib
segfault
ipv6
thread safety
deprecated
example usage
EOF

# Tablet 1 sleeps 20 ms before its bins on 3% of requests: too rare to move
# p50 or p95, frequent enough to set p99, as a straggler does.
delay=1:0.03:20
step "$bin" bench --index "$index" --queries "$queries" --repeat 20 | tee build/demo-bench-base.txt
step "$bin" bench --index "$index" --queries "$queries" --repeat 20 --inject-delay "$delay" \
  --report "$report" | tee build/demo-bench-delay.txt

# p50 and p99 of the total latency and p99 of the straggler ratio (slowest /
# median tablet), from bench's table: columns found by the header's names
# (a row is two words of label, then the values).
row() {
  awk -v label="$1" '
    $1 == "p50" && !seen { for (i = 1; i <= NF; ++i) col[$i] = i + 2; seen = 1 }
    $1 == "total" && $2 == "us" { p50 = $col["p50"]; p99 = $col["p99"] }
    $1 == "straggler" && $2 == "ratio" { ratio = $col["p99"] }
    END { printf "%-30s %10s %10s %14s\n", label, p50, p99, ratio }
  ' "$2"
}
echo
printf '%-30s %10s %10s %14s\n' "" "p50 us" "p99 us" "straggler p99"
row "no delay" build/demo-bench-base.txt
row "tablet ${delay%%:*} slow ($delay)" build/demo-bench-delay.txt
echo "HTML report (latency CDF per tablet, which tablet finished last): $(realpath "$report")"
