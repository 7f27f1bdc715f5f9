#!/usr/bin/env bash
# The README's test command: installs what is missing, builds (release and
# ASan+UBSan), and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

werror=OFF
[ "${CI:-}" = "true" ] && werror=ON

echo "== release build ==" >&2
scripts/build.sh build -DDPS_WERROR=$werror
(cd build && ctest --output-on-failure -j"$(nproc)")

echo "== sanitizer build (ASan + UBSan): library tests ==" >&2
scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDPS_SANITIZE=ON -DDPS_WERROR=$werror
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j"$(nproc)" -L 'index|common|ingest|query|shards|server')
