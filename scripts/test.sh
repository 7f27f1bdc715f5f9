#!/usr/bin/env bash
# The README's test command: installs what is missing, builds (release and
# ASan+UBSan), runs the whole test suite in both trees, then fuzzes every
# libFuzzer target (scripts/fuzz.sh, $DPS_FUZZ_SECONDS each, default 20: 19
# targets, 6.3 minutes of fuzzing, so the stage stays within about 8 minutes
# with its build). Both ctest runs replay every target's seed corpus
# (fuzz_replay.*), so a crash a fuzzer once found fails them too.
# Prints each stage's time.
set -euo pipefail
cd "$(dirname "$0")/.."

timed() {  # timed NAME COMMAND...: runs it, then prints how long it took
  local name=$1 start=$SECONDS
  shift
  echo "== $name ==" >&2
  "$@"
  echo "== $name: $((SECONDS - start)) s ==" >&2
}

timed "dependencies" scripts/install-deps.sh

werror=OFF
if [ "${CI:-}" = "true" ]; then
  werror=ON
  # CI starts on a fresh machine with an empty cache and three trees with
  # different flags: ccache could only miss, and a miss costs an extra
  # preprocessor run per file.
  export CCACHE_DISABLE=1
fi

timed "release build" scripts/build.sh build -DDPS_WERROR=$werror
timed "release tests" ctest --test-dir build --output-on-failure -j"$(nproc)"

# Every test again under the sanitizers, the shell-driven ones too (cli,
# crash, cluster, soak, corpora): they run build-asan's dpsearch, which is
# sanitized. None is left out; the crash tests kill fewer times and sweep
# the full disk coarser there (tests/CMakeLists.txt: every process is 3-4x
# slower), each still asserting every phase and outcome.
# -g1 (line tables only) keeps file:line in every sanitizer report's stack
# and compiles about 30% faster than -g, the largest stage's largest part.
timed "sanitizer build (ASan + UBSan)" scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DDPS_SANITIZE=ON -DDPS_WERROR=$werror
# A sanitizer report must fail the run wherever it happens. Test scripts
# start dpsearch as a child (the variables are inherited) and do not look at
# every child's stderr or exit code (the crash test's clean-up ingests, the
# servers they stop), so ASan and LeakSanitizer reports go to files in
# $reports, which must stay empty. UBSan's do not (with gcc it runs as
# ASan's plugin, which ignores log_path): they stay on stderr, and exit code
# 86, none of dpsearch's own (1 is "no match"), fails the command instead.
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:exitcode=86:log_path=$reports/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86"
sanitized_tests() {
  local status=0
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" || status=$?
  # Every ASan/LSan finding has an "ERROR: ...Sanitizer" line and a
  # SUMMARY. Anything else in a log is the runtime talking about itself
  # (LeakSanitizer's "Unable to get registers from thread N" when a thread
  # exits during its stop-the-world): shown, not a failure.
  for r in "$reports"/*; do
    [ -e "$r" ] || continue
    if grep -q -e "ERROR: .*Sanitizer" -e "^SUMMARY: " "$r"; then
      echo "sanitizer report $r:" >&2
      status=1
    else
      echo "sanitizer runtime note (not a finding) $r:" >&2
    fi
    cat "$r" >&2
  done
  return $status
}
timed "sanitizer tests" sanitized_tests
unset ASAN_OPTIONS UBSAN_OPTIONS

timed "fuzzing" scripts/fuzz.sh
