// The jsonl format: LineSource splits the input into lines in large blocks,
// JsonlParser turns each line into a document in place. Rules and errors:
// document_reader.h and jsonl_parser.h.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "ingest/byte_source.h"
#include "ingest/document_reader.h"

namespace dps {

// Reads JSONL from `source` (a file, stdin, a decompressor; see
// byte_source.h). Messages name the input as source->name().
std::unique_ptr<DocumentReader> NewJsonlReader(std::unique_ptr<ByteSource> source,
                                               const ReaderOptions& options);

// Reads a whole JSONL buffer (named "<buffer>" in messages), calling on_doc
// for every document; returns the first error, or OK with skip_bad. Fills
// *stats when not null. The entry point of the fuzz target and of tests that
// need no file.
Status ParseJsonlBuffer(std::string_view data, const ReaderOptions& options,
                        const std::function<void(const RawDocument&)>& on_doc, ReaderStats* stats);

}  // namespace dps
