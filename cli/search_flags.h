// Flag groups shared by the commands that search (`query`, `bench`): where
// the queries go (--index or --cluster and their options) and the output
// format. Parsing only; the library opens the backend (query/search_backend.h).
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "common/status.h"
#include "query/search_backend.h"

namespace dps::cli {

struct SearchFlags {
  SearchTarget target;
  std::string token_file;
};

// --index, --cluster, --threads, --inject-delay, --token-file, --deadline,
// --hedge-after, --allow-partial.
void AddSearchFlags(CLI::App* cmd, SearchFlags* flags);
// Reads the token file, routes library warnings to stderr, and opens.
Result<std::unique_ptr<SearchBackend>> OpenBackend(SearchFlags flags);

// --format text|jsonl|tsv.
void AddFormatFlag(CLI::App* cmd, std::string* format);
// Colour on a terminal unless NO_COLOR is set (https://no-color.org).
bool ColorAllowed();

// The format to print: the flag's, else text on a terminal and tsv otherwise.
std::string ResolveFormat(const std::string& flag);

}  // namespace dps::cli
