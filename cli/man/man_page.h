// dpsearch(1) from the command line's own definition: the parts of the man
// page that describe commands and options are made by walking the CLI::App
// that dpsearch parses with (cli/app.h), so `--help` and the man page cannot
// disagree. The prose (query syntax, cluster file, exit status...) is a
// roff template, docs/dpsearch.1.in, with placeholders filled here.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dps::cli {

// `text` as roff text lines: backslashes and minus signs escaped, control
// characters at a line's start neutralised, non-ASCII as \[uXXXX].
std::string RoffEscape(std::string_view text);

// One line per subcommand (required options, "[options]", positionals) and
// one per program-level flag other than --help.
std::string RoffSynopsis(const CLI::App& app);
// The program-level options (--help, --help-all, --version) as .TP entries.
std::string RoffOptions(const CLI::App& app);
// One .SS per subcommand (nested ones too): its description, then its
// positionals and options as .TP entries with placeholder, required,
// default, allowed values, environment variable, needs and excludes.
// Hidden options (empty group) and the per-command help flags are left out.
std::string RoffCommands(const CLI::App& app);

// The template with the lines "@SYNOPSIS@", "@OPTIONS@" and "@COMMANDS@"
// replaced by the above and every "@VERSION@" by `version`. A missing or
// unknown placeholder line is an InvalidArgument naming the line.
Result<std::string> FillManTemplate(std::string_view tmpl, const CLI::App& app,
                                    std::string_view version);

}  // namespace dps::cli
