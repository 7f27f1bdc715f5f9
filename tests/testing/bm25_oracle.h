// The brute-force BM25 the ranked-retrieval tests compare with (issue 18):
// every matching document scored from the model corpus itself, nothing
// from the index. Statistics follow the index's rule: documents whose
// postings are still stored count (deleted or replaced versions included
// until compaction drops them).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "index/bm25.h"
#include "index/query_node.h"
#include "tests/testing/test_util.h"

namespace dps::testing {

// N and the token total of the stored documents (a document's length is
// the sum of its bare terms' tf: title and text tokens), and of each field
// of `fields` the documents with words in it and their words.
CollectionStats ModelStats(const std::vector<const ModelDoc*>& stored, const FieldSet& fields = FieldSet());

// Every live document matching `q`, by id, with its score: the sum over the
// query's distinct positive bare terms it holds (not those under NOT) of
// their BM25 contributions, then over its distinct positive phrases it
// holds (tf: occurrences in the token stream, idf: the words' summed), df
// counted over `stored`. A prefix counts as the OR of the stored terms
// starting with it, in term order. A field's term or phrase scores with the
// field's statistics and the document's length in the field.
std::map<std::string, double> BruteForceScores(const std::map<std::string, ModelDoc>& live,
                                               const std::vector<const ModelDoc*>& stored,
                                               const QueryNode& q, Bm25Params params = {},
                                               const FieldSet& fields = FieldSet());

}  // namespace dps::testing
