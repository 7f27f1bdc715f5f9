#!/usr/bin/env bash
# CLI test of `cmake --install`: the binary goes to bin/ and the man page to
# share/man/man1/ under the prefix (GNUInstallDirs), so --prefix /usr puts
# them where Debian does; the installed binary runs and the installed page
# is the checked-in docs/dpsearch.1.
# Usage: install_test.sh path/to/dpsearch (with DPS_BUILD_DIR and DPS_CMAKE
# set, as tests/CMakeLists.txt does).
source "$(dirname "$0")/cli_test_helpers.sh" "$1"
build=${DPS_BUILD_DIR:-}
cmake=${DPS_CMAKE:-cmake}

if [ -z "$build" ] || [ ! -f "$build/cmake_install.cmake" ]; then
  flunk "DPS_BUILD_DIR ('$build') is not a configured build tree"
  exit 1
fi
if [ ! -f "$build/dpsearch.1" ]; then
  flunk "$build/dpsearch.1 is not built: ninja -C $build man_page"
  exit 1
fi

# installed ROOT NAME: ROOT/bin/dpsearch runs --version like the built one,
# ROOT/share/man/man1/dpsearch.1 is docs/dpsearch.1, and nothing else is
# installed.
installed() {
  local root=$1 name=$2
  if [ -x "$root/bin/dpsearch" ]; then
    same "$name: bin/dpsearch --version" "$("$bin" --version)" "$("$root/bin/dpsearch" --version 2>&1)"
  else
    flunk "$name: no executable bin/dpsearch"
  fi
  if cmp -s "$root/share/man/man1/dpsearch.1" "$src/docs/dpsearch.1"; then
    pass "$name: share/man/man1/dpsearch.1 is docs/dpsearch.1"
  else
    flunk "$name: share/man/man1/dpsearch.1 missing or not docs/dpsearch.1"
  fi
  same "$name: the files installed" "bin/dpsearch share/man/man1/dpsearch.1" \
    "$(cd "$root" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ' | sed 's/ $//')"
}

# Any prefix, given at install time.
"$cmake" --install "$build" --prefix "$work/prefix" >"$work/log" 2>&1 || { flunk "cmake --install --prefix"; cat "$work/log"; }
installed "$work/prefix" "--prefix DIR"

# Debian's layout: prefix /usr, staged under DESTDIR as a package build does.
DESTDIR="$work/stage" "$cmake" --install "$build" --prefix /usr >"$work/log" 2>&1 || { flunk "DESTDIR cmake --install --prefix /usr"; cat "$work/log"; }
installed "$work/stage/usr" "DESTDIR + --prefix /usr"
[ -x "$work/stage/usr/bin/dpsearch" ] && [ -f "$work/stage/usr/share/man/man1/dpsearch.1" ] &&
  pass "Debian paths: /usr/bin/dpsearch, /usr/share/man/man1/dpsearch.1" || flunk "Debian paths"

# man(1) finds the installed page by name in the prefix's man tree.
if command -v man >/dev/null; then
  MANPAGER=cat MANWIDTH=80 man -M "$work/prefix/share/man" dpsearch >"$work/man.txt" 2>"$work/man.err"
  if grep -q "dpsearch - a document-partitioned full-text search engine" "$work/man.txt"; then
    pass "man -M PREFIX/share/man dpsearch shows the page"
  else
    flunk "man -M PREFIX/share/man dpsearch: $(head -3 "$work/man.err")"
  fi
fi

finish install_test
