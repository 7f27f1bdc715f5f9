// Entry and document listings behind `dpsearch scan`: the index in Accumulo
// key order (bin, term, docid -> weight), optionally restricted to one bin
// and/or one term, and the stored documents of each bin.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "index/doc_store.h"
#include "index/index_reader.h"

namespace dps {

struct ScanOptions {
  std::optional<uint32_t> bin;
  std::optional<std::string> term;
};

// Calls `emit` for every live entry in key order; stops early when it
// returns false.
using EntrySink = std::function<bool(uint32_t bin, std::string_view term, DocId docid,
                                     uint32_t weight)>;
Status ScanEntries(const IndexReader& index, const ScanOptions& options, const EntrySink& emit);

// Calls `emit` for every live stored document (bin, then docid order).
using DocSink = std::function<bool(uint32_t bin, const StoredDoc& doc)>;
Status ScanDocuments(const IndexReader& index, std::optional<uint32_t> bin, const DocSink& emit);

}  // namespace dps
