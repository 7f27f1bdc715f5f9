#!/usr/bin/env bash
# CLI test of dpsearch(1): the checked-in docs/dpsearch.1 is what the build
# generates from docs/dpsearch.1.in and dpsearch's own options (so it cannot
# go stale: after changing a flag, `ninja -C build man`); groff renders it
# without a warning; every command and option of `--help-all` is in it,
# under its command; its EXIT STATUS lists exactly the codes of
# cli/commands.h; and its example queries parse.
# Usage: man_page_test.sh path/to/dpsearch (with DPS_MAN_GENERATOR set to the
# dpsearch_man program, as tests/CMakeLists.txt does).
source "$(dirname "$0")/cli_test_helpers.sh" "$1"
page=$src/docs/dpsearch.1

generator=${DPS_MAN_GENERATOR:-}
if [ -z "$generator" ] || [ ! -x "$generator" ]; then
  flunk "DPS_MAN_GENERATOR ('$generator') is not the built dpsearch_man: ninja -C build dpsearch_man"
  exit 1
fi
if "$generator" "$src/docs/dpsearch.1.in" "$work/dpsearch.1"; then
  pass "dpsearch_man generates the page"
else
  flunk "dpsearch_man failed"
fi
if cmp -s "$work/dpsearch.1" "$page"; then
  pass "docs/dpsearch.1 is the generated page"
else
  flunk "docs/dpsearch.1 differs from the generated page; run 'ninja -C build man' and commit it:"
  diff -u "$page" "$work/dpsearch.1" | head -40
fi

# groff-base (scripts/install-deps.sh). -ww: every warning; -z: no output.
if ! command -v groff >/dev/null; then
  flunk "groff is missing: scripts/install-deps.sh installs groff-base"
else
  groff -man -Tutf8 -ww -z "$page" >"$work/groff.err" 2>&1
  status=$?
  if [ $status -eq 0 ] && [ ! -s "$work/groff.err" ]; then
    pass "groff -man -ww renders it without warnings"
  else
    flunk "groff -man -ww: exit $status"
    cat "$work/groff.err"
  fi
  groff -man -Tutf8 "$page" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g' >"$work/page.txt"
  grep -q "^EXIT STATUS" "$work/page.txt" && pass "rendered page has EXIT STATUS" || flunk "rendered page lacks EXIT STATUS"
fi

# Each "command option" pair of --help-all is in the page's section of that
# command (".SS "dpsearch COMMAND"" up to the next section).
"$bin" --help-all >"$work/help" 2>&1
python3 - "$work/help" "$page" <<'PY' || fail=1
import re, sys
help_text = open(sys.argv[1]).read().splitlines()
page = open(sys.argv[2]).read()
roff = lambda name: name.replace("-", "\\-")
sections = {}
for m in re.finditer(r'^\.SS "dpsearch ([^"]+)"\n(.*?)(?=^\.S[SH] |\Z)', page, re.S | re.M):
    sections[m.group(1)] = m.group(2)
commands, missing, command = [], [], None
in_subcommands = False
for line in help_text:
    if line.startswith("Subcommands:"):
        in_subcommands = True
    elif in_subcommands and re.match(r"^[a-z]", line):
        command = line.strip()
        commands.append(command)
    elif command:
        m = re.match(r"^    (-\w,)?(--[\w-]+)", line)
        if m and m.group(2) not in ("--help", "--help-all"):
            if "\\fB" + roff(m.group(2)) + "\\fR" not in sections.get(command, ""):
                missing.append(f"{command} {m.group(2)}")
        m = re.match(r"^    (\w+) [A-Z]", line)  # a positional: "    inputs TEXT ..."
        if m and "\\fI" + m.group(1) + "\\fR" not in sections.get(command, ""):
            missing.append(f"{command} {m.group(1)}")
if len(commands) < 9:
    print(f"FAIL: --help-all lists only {commands}"); sys.exit(1)
for c in commands:
    if c not in sections:
        missing.append(f"command {c}")
for c in sections:
    if c not in commands:
        missing.append(f"page documents '{c}', which --help-all does not list")
if missing:
    print("FAIL: not in the man page as in --help-all: " + "; ".join(missing)); sys.exit(1)
print(f"ok: every command ({len(commands)}) and option of --help-all is under its command")
PY
for opt in --help-all --version; do
  grep -qF "\\fB$(sed 's/-/\\-/g' <<<"$opt")\\fR" "$page" && pass "program option $opt documented" || flunk "$opt not in the page"
done

# EXIT STATUS: the .TP entries ".B N" between ".SH EXIT STATUS" and the next
# section are exactly the values of cli/commands.h's kExit* constants.
want=$(sed -n 's/^inline constexpr int kExit[A-Za-z]* = \([0-9]*\);$/\1/p' "$src/cli/commands.h" | sort -n | xargs)
got=$(awk '/^\.SH EXIT STATUS/ {on=1; next} /^\.SH/ {on=0} on && /^\.B [0-9]+$/ {print $2}' "$page" | sort -n | xargs)
if [ -n "$want" ] && [ "$want" == "$got" ]; then pass "EXIT STATUS lists the codes $want"; else flunk "EXIT STATUS lists [$got], cli/commands.h has [$want]"; fi

# The EXAMPLES' queries against --index parse and run (exit 0 or 1, never
# 2): each is the last '...' of a "dpsearch query --index idx" line.
printf '%s\n' '{"id":"1","text":"white house"}' '{"id":"2","text":"cat and fish"}' >"$work/c.jsonl"
"$bin" ingest --index "$work/idx" "$work/c.jsonl" >/dev/null 2>&1 || flunk "ingest for the examples"
n=0
while IFS= read -r query; do
  n=$((n + 1))
  "$bin" query --index "$work/idx" --count "$query" >/dev/null 2>"$work/err"
  status=$?
  if [ $status -le 1 ]; then pass "example query '$query' runs (exit $status)"; else flunk "example query '$query': exit $status: $(cat "$work/err")"; fi
done < <(sed -n "s/^dpsearch query \\\\-\\\\-index idx .*\\\\(aq\\(.*\\)\\\\(aq\$/\\1/p" "$page" | sed 's/\\-/-/g')
[ $n -ge 2 ] && pass "$n example queries found" || flunk "only $n example queries found in EXAMPLES"

finish man_page_test
