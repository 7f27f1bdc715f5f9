// Several inputs read one after another as one DocumentReader, for
// `dpsearch ingest INPUT...`. Each input gets its own format (detected per
// input when ReaderOptions::format is kAuto) and is opened only when the one
// before it is finished, so a thousand inputs do not hold a thousand files
// open.
//
// Every input is checked to exist when the reader is created, so a typo in
// the last argument fails before hours of ingest rather than after.
// total_bytes() is the sum of the inputs' sizes when every one is a file
// (compressed files count their compressed size); any directory, pipe or
// terminal makes it nullopt. The counters of an input are added to stats()
// when it ends (documents are counted as they are returned).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ingest/document_reader.h"

namespace dps {

// REQUIRES: !inputs.empty(). With a single input this is OpenReader.
Result<std::unique_ptr<DocumentReader>> OpenReaders(const std::vector<std::string>& inputs,
                                                    const ReaderOptions& options);

}  // namespace dps
