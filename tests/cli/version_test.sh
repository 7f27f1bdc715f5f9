#!/usr/bin/env bash
# CLI test of `dpsearch --version` / `-V`: answered without a subcommand,
# exit 0; the first line is CMake's project(VERSION); the file kinds and
# versions are exactly docs/FORMAT.md's "Compatibility" table and the wire
# protocol version is docs/PROTOCOL.md's; each library's build version is
# the one pkg-config reports for the installed headers.
# Usage: version_test.sh path/to/dpsearch
source "$(dirname "$0")/cli_test_helpers.sh" "$1"

"$bin" --version >"$work/version" 2>"$work/err"
same "--version exits 0" 0 $?
same "--version: nothing on stderr" "" "$(cat "$work/err")"
"$bin" -V >"$work/v" 2>&1
same "-V exits 0" 0 $?
same "-V prints what --version prints" "$(cat "$work/version")" "$(cat "$work/v")"
"$bin" >/dev/null 2>&1
same "no subcommand and no --version is still a usage error" 2 $?
"$bin" --help >"$work/help" 2>&1
grep -q -- "-V,--version" "$work/help" && pass "--help lists -V,--version" || flunk "--help lacks -V,--version"

project=$(sed -n 's/^project(dpsearch VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
same "first line: project(VERSION)" "dpsearch $project" "$(head -1 "$work/version")"

# FORMAT.md's table rows "| file | name | kind | version |" with a numeric
# version, as "file version", in the table's order.
want_formats=$(awk -F'|' '/^### Compatibility/ {on=1} on && /^## / {on=0}
  on && NF >= 6 { v=$5; f=$2; gsub(/ /, "", v); sub(/^ +/, "", f); sub(/ +$/, "", f);
                  if (v ~ /^[0-9]+$/) printf "%s%s %s", (n++ ? ", " : ""), f, v }' "$src/docs/FORMAT.md")
[ -n "$want_formats" ] || flunk "no versions found in docs/FORMAT.md's Compatibility table"
same "index file versions = docs/FORMAT.md" "index files: $want_formats" "$(grep '^index files:' "$work/version")"

wire=$(sed -n '1s/^# dpsearch wire protocol, version \([0-9]*\)$/\1/p' "$src/docs/PROTOCOL.md")
same "wire protocol version = docs/PROTOCOL.md" "wire protocol: $wire" "$(grep '^wire protocol:' "$work/version")"

# library NAME PKG-CONFIG-MODULE: a dotted version is printed for NAME and,
# where pkg-config knows the module, it is the installed one.
library() {
  local name=$1 module=$2 got
  got=$(sed -n "s/^  $name \([0-9][0-9.]*\)\( (running .*)\)\{0,1\}$/\1/p" "$work/version")
  if [ -z "$got" ]; then flunk "$name: no version line"; cat "$work/version"; return; fi
  if [ -n "$module" ] && pkg-config --exists "$module" 2>/dev/null; then
    same "$name built with $module $(pkg-config --modversion "$module")" "$(pkg-config --modversion "$module")" "$got"
  else
    pass "$name $got"
  fi
}
library ICU icu-uc
library zstd libzstd
library oneTBB tbb
library Boost ""
library simdjson simdjson
library CLI11 CLI11
library xxHash libxxhash
library zlib zlib

finish version_test
