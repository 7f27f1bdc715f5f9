// Shared helpers for the index tests: temporary directories, random corpora
// and a brute-force query evaluator (the reference every operator is
// compared against).
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "index/index_writer.h"
#include "index/query_node.h"

namespace dps::testing {

// A fresh empty directory under $TMPDIR, removed with its contents on
// destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A document in the reference model: id and the multiset of its terms.
struct ModelDoc {
  std::string id;
  std::map<std::string, uint32_t> terms;  // term -> tf (a field's terms as their keys)
  std::vector<std::string> tokens;        // the token stream terms counts (RandomCorpus's order)
  // Fields (index/field_key.h): each field's token stream, bare words at
  // positions 0, 1, ... (AddRandomFields); `terms` holds their keys.
  std::map<std::string, std::vector<std::string>> fields;
};

// Gives each document random `title` and `author` streams (0 to 4 and 0
// to 6 words of the corpus's Zipf vocabulary) and their keys' counts.
void AddRandomFields(std::mt19937_64& rng, size_t vocab, std::vector<ModelDoc>* docs);
// The fields AddRandomFields uses, as an index must declare them.
FieldSet ModelFields();
// The document's token stream holding `key`'s term: the default stream
// for a bare term, a field's stream as its keys for a field's.
std::vector<std::string> StreamOf(const ModelDoc& d, const std::string& key);

// Random documents over a vocabulary of `vocab` terms with Zipf-like
// frequencies (so AND has rare and common sides).
std::vector<ModelDoc> RandomCorpus(std::mt19937_64& rng, size_t docs, size_t vocab,
                                   size_t max_len);
std::string VocabTerm(size_t rank);

// with_positions: each term's positions in d.tokens (an index with
// positions needs them).
AnalyzedDocument ToAnalyzed(const ModelDoc& d, bool with_positions = false);
std::vector<AnalyzedDocument> ToAnalyzed(const std::vector<ModelDoc>& docs, bool with_positions = false);
// Each term's positions in the token stream.
std::map<std::string, std::vector<uint32_t>> PositionsOf(const ModelDoc& d);

// Every live entry's positions in the index at `dir`, keyed by (term,
// external id), read with the real cursors (EntryCursor with positions).
using PositionsByEntry = std::map<std::pair<std::string, std::string>, std::vector<uint32_t>>;
Status ReadAllPositions(const std::string& dir, PositionsByEntry* out);

// Does the document satisfy the query? The terms-only form takes no phrase;
// a prefix: does it hold a term starting with it.
bool Matches(const QueryNode& q, const std::map<std::string, uint32_t>& terms);
bool Matches(const QueryNode& q, const ModelDoc& d);
// Occurrences of `words` at consecutive positions of `tokens` (overlaps
// count); with a slop, by brute force: the positions p of the first word
// for which some choice of distinct positions q_i holding the other words
// has offsets (p, q_i - i) spanning at most `slop` (Lucene's sloppy match).
uint32_t PhraseOccurrences(const std::vector<std::string>& tokens, const std::vector<std::string>& words,
                           uint32_t slop = 0);

// A random valid query tree over the vocabulary: depth <= 3, AND nodes may
// have negated children (always one positive), OR nodes none. With
// prefix_percent > 0, that share of the leaves are prefixes of terms
// (VocabTerm's "t17" gives "t", "t1" or "t17"; "absent" gives prefixes of
// no term); 0 draws exactly the trees it always drew.
QueryNode RandomQuery(std::mt19937_64& rng, size_t vocab, int depth = 0, int prefix_percent = 0);
// The query with its terms, prefixes and phrases moved into fields of
// ModelFields(): all of them into one field (a third of the time), or each
// leaf into title or author or left bare.
QueryNode InRandomFields(std::mt19937_64& rng, QueryNode q);

// External ids of the documents of `index_dir` matching `q`, evaluated bin by
// bin with the real iterators.
std::set<std::string> RunQuery(const std::string& index_dir, const QueryNode& q);

}  // namespace dps::testing
