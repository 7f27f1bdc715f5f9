// Fields (issue 19): `title:kernel` is its own term, as DESIGN.md fixes it
// (the seed's Twitter TermIndex keeps the field in the key's column). A
// field's term is stored under the key
//
//   0xFF | field name | ':' | term
//
// 0xFF never occurs in UTF-8, and every reader replaces invalid UTF-8
// with U+FFFD before analysis, so no analyzer (ICU, whose UAX #29 words
// may hold ':', or whitespace, which keeps tokens byte for byte) can make
// a bare term that looks like a field's. Field keys sort after every bare
// term, and a field's keys are one contiguous range (a prefix walk serves
// `title:netw*`). Field names are ASCII letters, digits and '_', starting
// with a letter or '_', so the first ':' ends the name.
//
// An index's fields are fixed at creation (MANIFEST `fields`): those
// `ingest --field` declares, in order, none by default. `title` is the
// documents' titles (their first words of the default stream, at the same
// positions); any other name a JSONL field. A bare word searches title +
// text as one stream (the default field, column 0); each field has its
// own document lengths (column 1 + its index in the list) for BM25
// (docs/design/ranking.md, "Fields"). Fields are opt-in because they cost
// bytes: gcide's unique headwords make a title field 7.9% of its index.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dps {

inline constexpr char kFieldKeyMarker = '\xff';
inline constexpr std::string_view kTitleField = "title";
// More would make documents' length columns a large share of small bins.
inline constexpr size_t kMaxFields = 32;
inline constexpr size_t kMaxFieldNameBytes = 64;

inline bool IsFieldKey(std::string_view key) { return !key.empty() && key[0] == kFieldKeyMarker; }

// The key of `term` in `field`. REQUIRES: ValidFieldName(field).
std::string FieldKey(std::string_view field, std::string_view term);
// "\xFFtitle:" (the start of the field's key range).
std::string FieldKeyPrefix(std::string_view field);

// A key's field ("" for a bare term) and its term (the key itself for a
// bare term). A field key without ':' has an empty term.
std::string_view FieldOfKey(std::string_view key);
std::string_view TermOfKey(std::string_view key);
// `title:kernel` for a field key, the term itself otherwise: how scan,
// messages and QueryNode::ToString show it.
std::string DisplayKey(std::string_view key);

bool ValidFieldName(std::string_view name);

// The fields of an index, in column order (the declared ones; none by
// default). Columns: 0 is the default field (title + text), field i is
// column i + 1.
class FieldSet {
 public:
  FieldSet() = default;
  // REQUIRES: Validate(names).ok().
  explicit FieldSet(std::vector<std::string> names) : names_(std::move(names)) {}
  // InvalidArgument unless `names` names each field once and every name is
  // valid; at most kMaxFields.
  static Status Validate(const std::vector<std::string>& names);

  const std::vector<std::string>& names() const { return names_; }
  size_t columns() const { return names_.size() + 1; }
  // The column of a key: 0 for a bare term, -1 for a field key naming no
  // field of this set (or malformed).
  int ColumnOf(std::string_view key) const;
  // The column of a field name, -1 when the set lacks it.
  int ColumnOfField(std::string_view name) const;
  // "title, author" for messages ("none" for no field).
  std::string List() const;
  bool empty() const { return names_.empty(); }
  bool operator==(const FieldSet&) const = default;

 private:
  std::vector<std::string> names_;
};

}  // namespace dps
