#!/usr/bin/env bash
# Builds every libFuzzer target (tests/fuzz/*_fuzz.cc) with clang, ASan and
# UBSan in build-fuzz (only the targets and the libraries they link) and runs
# each for SECONDS_PER_TARGET (default $DPS_FUZZ_SECONDS, else 20) from its
# seed corpus tests/fuzz/corpus/<target>/, or only the TARGETs named. The
# default keeps CI's fuzz stage (scripts/test.sh) near its 8-minute budget:
# 19 targets x 20 s is 6.3 minutes of fuzzing, plus the build; a new target
# takes 20 s more, so past about 21 targets lower the default. Fails on any crash, leak,
# sanitizer report, timeout or out-of-memory; the input that caused it is
# left in build-fuzz/artifacts/<target>/. New inputs the fuzzer finds go to
# build-fuzz/corpus/<target>/ (kept between runs), never into the seeds.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]
# The compiler is $DPS_FUZZ_CXX, else clang++-16 (Debian 12's clang-16 and
# libclang-rt-16-dev, which scripts/install-deps.sh installs): Debian 12's
# default clang 14 cannot build index/, which captures structured bindings in
# lambdas (C++20; clang has it from 16).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${DPS_FUZZ_SECONDS:-20}}
shift || true
dir=build-fuzz

cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER="${DPS_FUZZ_CXX:-clang++-16}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DDPS_SANITIZE=ON -DDPS_FUZZ=ON -DDPS_BUILD_BENCH=OFF >/dev/null
if [ $# -eq 0 ]; then
  cmake --build "$dir" -j"$(nproc)" --target fuzz
else
  cmake --build "$dir" -j"$(nproc)" --target "$@"
fi

export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for source in tests/fuzz/*_fuzz.cc; do targets+=("$(basename "$source" .cc)"); done
fi
fail=0
for t in "${targets[@]}"; do
  seeds=tests/fuzz/corpus/$t
  [ -d "$seeds" ] || { echo "fuzz: $t has no seed corpus $seeds" >&2; fail=1; continue; }
  mkdir -p "$dir/corpus/$t" "$dir/artifacts/$t"
  echo "== fuzz $t: ${seconds}s ==" >&2
  # The first corpus directory receives new inputs; the seeds are only read.
  if ! "$dir/tests/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$dir/artifacts/$t/" "$dir/corpus/$t" "$seeds" 2>"$dir/$t.log"; then
    tail -n 60 "$dir/$t.log" >&2
    echo "fuzz: $t FAILED (log $dir/$t.log, input in $dir/artifacts/$t/)" >&2
    fail=1
    continue
  fi
  grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$dir/$t.log" >&2 || true
done
exit $fail
