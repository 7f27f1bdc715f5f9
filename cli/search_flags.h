// Flag groups shared by the commands that search (`query`, `bench`): where
// the queries go (--index or --cluster and their options) and the output
// format. Parsing only; the library opens the backend (query/search_backend.h).
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "common/status.h"
#include "index/bm25.h"
#include "query/search_backend.h"

namespace dps::cli {

struct SearchFlags {
  SearchTarget target;
  std::string token_file;
  uint64_t max_expansions = kDefaultMaxExpansions;  // SearchOptions'
};

// --index, --cluster, --threads, --inject-delay, --token-file, --deadline,
// --hedge-after, --allow-partial, --max-expansions.
void AddSearchFlags(CLI::App* cmd, SearchFlags* flags);
// Reads the token file, routes library warnings to stderr, and opens.
Result<std::unique_ptr<SearchBackend>> OpenBackend(SearchFlags flags);

// --bm25-k1 and --bm25-b: BM25's parameters for ranked (--top) queries.
struct Bm25Flags {
  Bm25Params params;
  const CLI::Option *k1_opt = nullptr, *b_opt = nullptr;
};
void AddBm25Flags(CLI::App* cmd, Bm25Flags* flags);
// InvalidArgument when either flag is given to an unranked command: it
// would be ignored.
Status CheckBm25Flags(const Bm25Flags& flags, bool ranked);

// --format text|jsonl|tsv.
void AddFormatFlag(CLI::App* cmd, std::string* format);
// Colour on a terminal unless NO_COLOR is set (https://no-color.org).
bool ColorAllowed();

// The format to print: the flag's, else text on a terminal and tsv otherwise.
std::string ResolveFormat(const std::string& flag);

}  // namespace dps::cli
