// Which analyzer made an index's terms: chosen at creation, recorded in the
// MANIFEST (`analyzer SPEC`, docs/FORMAT.md), sent in the shard servers'
// Welcome (docs/PROTOCOL.md), and used for every query on the index, so
// queries are analyzed as its documents were (docs/analyzer.md, "Analyzer
// choices"). This is only the description; ingest/analyzer.h builds the
// analyzer it names.
//
// Text form, options in pipeline order, each at most once:
//   icu [fold-accents] [stem=LANG]
//   whitespace
// e.g. "icu", "icu stem=english", "icu fold-accents stem=french".
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace dps {

struct AnalyzerSpec {
  enum class Tokenizer { kIcu, kWhitespace };
  // kIcu: NFKC_Casefold and UAX #29 words (today's analyzer, the default).
  // kWhitespace: the text is pre-tokenized; tokens are the runs between
  // ASCII spaces, tabs and line ends, kept byte for byte.
  Tokenizer tokenizer = Tokenizer::kIcu;
  // Accents removed after case folding (café = cafe). kIcu only.
  bool fold_accents = false;
  // A Snowball stemmer's name as libstemmer lists it ("english"), or empty
  // for none. kIcu only. Whether this build has it is the analyzer's check.
  std::string stem;

  bool operator==(const AnalyzerSpec&) const = default;

  // The canonical text form ("icu fold-accents stem=english").
  std::string ToString() const;
  // Parses the text form (options in any order, each once). InvalidArgument
  // naming what is wrong: an unknown tokenizer or option, a repeated one, a
  // malformed language, an option whitespace does not take.
  static Result<AnalyzerSpec> Parse(std::string_view text);
  // InvalidArgument when the options do not go together (Parse checks this
  // too; flags build a spec field by field).
  Status Validate() const;
};

}  // namespace dps
