// A document's distinct terms, their frequencies and positions, counted
// from tokens given a piece at a time: a long document is analyzed in
// pieces (Analyzer::PieceEnd), so that it costs 8 bytes a token here
// rather than a string a token (bench/RESULTS.md "Ingest memory bound":
// linuxsrc's 24 MB headers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dps {

class TermCounter {
 public:
  // Starts a document; `positions` says whether Finish must give them.
  // `expected_terms` sizes the table (it grows past it).
  void Reset(bool positions, size_t expected_terms);
  // Counts `tokens` (consumed: their strings are moved), the next ones of
  // the document. Their positions are `token_positions` when given (one a
  // token), else they continue the count of tokens added so far.
  // REQUIRES: a document's calls all give positions or none does.
  void Add(std::vector<std::string>* tokens, const std::vector<uint32_t>* token_positions = nullptr);
  // Tokens added since Reset.
  uint64_t tokens() const { return tokens_; }
  // Distinct terms in order of first occurrence with their frequencies, in
  // *out; with positions, each term's (ascending when they were added in
  // ascending order), grouped by term in that order.
  void Finish(std::vector<std::pair<std::string, uint32_t>>* out, std::vector<uint32_t>* positions);

 private:
  void Grow();

  bool positions_ = false;
  uint64_t tokens_ = 0;
  // Open addressing: a slot holds the upper half of the term's hash and
  // its index in terms_ (sorting tokens instead spent a third of a
  // one-thread ingest of long documents in string compares).
  std::vector<uint64_t> slots_;
  std::vector<std::pair<std::string, uint32_t>> terms_;
  std::vector<uint32_t> term_of_;      // with positions: each token's term
  std::vector<uint32_t> position_of_;  // and, when given, its position
};

}  // namespace dps
