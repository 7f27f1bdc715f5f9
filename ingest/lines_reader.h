// The lines format: every non-blank line of the input is a document with
// id = its 1-based line number, no title, text = the line (without "\n" or
// "\r\n"). Line numbers count blank lines too, so ids stay the numbers an
// editor shows. Invalid UTF-8 is replaced and counted.
#pragma once

#include <memory>

#include "ingest/byte_source.h"
#include "ingest/document_reader.h"

namespace dps {

std::unique_ptr<DocumentReader> NewLinesReader(std::unique_ptr<ByteSource> source,
                                               const ReaderOptions& options);

}  // namespace dps
