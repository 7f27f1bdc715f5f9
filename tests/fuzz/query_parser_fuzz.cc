// libFuzzer target for the query parser with the analyzer
// (query/parser.h, ingest/analyzer.h): ParseQuery of arbitrary text, under
// each kind of analyzer an index may name and with or without fields, must
// refuse it with InvalidArgument or give a tree ValidateQuery accepts,
// the same tree as the grammar alone gives (ParseQueryByGrammar, without
// the plain word list shortcut). Round trip: a tree within the wire's
// limits crosses a Query frame and decodes to the same tree. Input:
// selector (u8; bits 0-1: the analyzer, `icu`, `icu stem=english`,
// `icu fold-accents`, `whitespace`; bit 2: the fields title and author)
// | the query text. Seeds in tests/fuzz/corpus/query_parser_fuzz/ are
// queries of README.md's "Queries" and the golden expected answers
// (words, AND/OR/NOT, groups, phrases with slop, prefixes, fields, CJK),
// made by tests/fuzz/make_seeds.cc.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "index/query_node.h"
#include "query/parser.h"
#include "shards/protocol.h"

namespace {

dps::Analyzer* AnalyzerFor(int which) {
  static std::unique_ptr<dps::Analyzer> analyzers[4];
  static const char* const kSpecs[4] = {"icu", "icu stem=english", "icu fold-accents", "whitespace"};
  if (analyzers[which] == nullptr) {
    auto spec = dps::AnalyzerSpec::Parse(kSpecs[which]);
    if (!spec.ok()) abort();
    auto a = dps::Analyzer::Create(spec.value());
    if (!a.ok()) abort();
    analyzers[which] = std::move(a.value());
  }
  return analyzers[which].get();
}

// The tree's depth and node count, against the wire's limits.
void Measure(const dps::QueryNode& n, size_t depth, size_t* max_depth, size_t* nodes) {
  *max_depth = std::max(*max_depth, depth);
  ++*nodes;
  for (const auto& c : n.children) Measure(c, depth + 1, max_depth, nodes);
}

std::string Wire(const dps::QueryNode& root) {
  dps::QueryRequest request;
  request.root = root;
  std::string frame;
  dps::EncodeQuery(request, &frame);
  return frame;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const dps::FieldSet fields({"title", "author"});
  const dps::FieldSet* field_set = (data[0] & 4) ? &fields : nullptr;
  dps::Analyzer* analyzer = AnalyzerFor(data[0] & 3);
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto parsed = dps::ParseQuery(text, analyzer, field_set);
  auto by_grammar = dps::ParseQueryByGrammar(text, analyzer, field_set);
  if (parsed.ok() != by_grammar.ok()) abort();
  if (!parsed.ok()) {
    if (!parsed.status().IsInvalidArgument() || !by_grammar.status().IsInvalidArgument()) abort();
    return 0;
  }
  if (!dps::ValidateQuery(parsed.value()).ok()) abort();
  size_t depth = 0, nodes = 0;
  Measure(parsed.value(), 1, &depth, &nodes);
  if (depth > dps::kMaxQueryDepth || nodes > dps::kMaxQueryNodes) {
    if (parsed.value().ToString() != by_grammar.value().ToString()) abort();
    return 0;
  }
  const std::string frame = Wire(parsed.value());
  if (Wire(by_grammar.value()) != frame) abort();
  dps::QueryRequest back;
  if (!dps::DecodeQuery(std::string_view(frame).substr(dps::kFrameHeaderSize), &back).ok() || Wire(back.root) != frame) {
    abort();
  }
  return 0;
}
