#!/usr/bin/env bash
# Installs the Debian packages dpsearch needs, only those missing.
# Idempotent and non-interactive; needs root (or sudo) when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  libicu-dev          # analysis: NFKC case folding, word-break segmentation
  libstemmer-dev      # analysis: Snowball stemmers (ingest --stem LANG)
  libtbb-dev          # parallel ingest pipeline and in-process fan-out
  libboost-dev        # Boost.Asio shard servers (header-only)
  libzstd-dev         # doc store block compression, .zst input
  zlib1g-dev          # .gz input
  libxxhash-dev       # XXH3 page checksums and the stable bin hash
  libsimdjson-dev     # JSONL ingest
  libcli11-dev        # command-line parsing
  libzookeeper-mt-dev # serve/query/bench --zookeeper: ZooKeeper's C client (multi-threaded)
  zookeeper           # tests and demos: a real ZooKeeper server on loopback (pulls in default-jre)
  iproute2            # tests: network namespaces for the multi-host cluster test
  groff-base          # tests: dpsearch(1) renders without warnings (tests/cli/man_page_test.sh)
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-16 libclang-rt-16-dev  # scripts/fuzz.sh: libFuzzer, ASan, LeakSanitizer (see there for 16)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
