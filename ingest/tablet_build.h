// Writing the final tablet files of an ingest: for each bin of the tablet,
// its posting lists (from the in-memory buffer, or merged from the runs
// spilled to disk), then its stored documents (from the DocSpill), then its
// tombstones (older copies of replaced documents).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/tablet_reader.h"
#include "index/tablet_writer.h"
#include "ingest/doc_spill.h"
#include "ingest/ingest_buffer.h"
#include "ingest/run_file.h"

namespace dps {

// Produces the posting lists of one bin in term order.
using ListSource = std::function<Status(uint32_t bin, const IngestBuffer::ListSink& emit)>;

// Posting lists of one bin, each whole, one after another: what the
// producer of a parallel tablet build hands its encoders.
struct ListBatch {
  std::vector<std::string> terms;
  std::vector<size_t> ends;           // list i's postings end at ends[i] in docs and weights
  std::vector<size_t> position_ends;  // and its positions at position_ends[i]
  std::vector<DocId> docs;
  std::vector<uint32_t> weights;
  std::vector<uint32_t> positions;
  void Add(std::string_view term, std::span<const DocId> list_docs, std::span<const uint32_t> list_weights,
           std::span<const uint32_t> list_positions);
  size_t lists() const { return terms.size(); }
};

// The runs one tablet spilled during an ingest, oldest first (so docids
// ascend across them). ForEachList and ReadLists merge their records of
// one bin; bins must be asked for in ascending order (each run is read
// once, front to back).
class RunSet {
 public:
  Status Add(const std::string& path);
  Status ForEachList(uint32_t bin, const IngestBuffer::ListSink& emit);
  // The bin's next lists into *batch until it holds at least
  // `min_postings` postings or the bin has no more (then none is added).
  Status ReadLists(uint32_t bin, size_t min_postings, ListBatch* batch);
  size_t size() const { return runs_.size(); }

 private:
  // Moves every run past the records of bins before `bin`.
  Status SkipTo(uint32_t bin);
  // The bin's next list into term_, docs_, weights_, positions_; *found
  // false when the bin has no more. REQUIRES: SkipTo(bin).
  Status NextList(uint32_t bin, bool* found);
  std::vector<std::unique_ptr<RunReader>> runs_;
  PostingCursor cursor_;  // reused: a cursor zeroes its block buffer when made
  std::string term_;
  std::vector<DocId> docs_;
  std::vector<uint32_t> weights_, positions_;
  std::vector<std::pair<RunReader*, size_t>> starts_;  // the term's runs, where their postings begin
};

// Writes one spill run: the lists of the tablet's bins [first_bin, last_bin]
// that have data; *written false (and no file) when none has.
Status WriteRunFile(const std::string& path, uint32_t first_bin, uint32_t last_bin,
                    const std::vector<uint8_t>& bin_has_data, const ListSource& lists,
                    bool* written);

// Writes one spill run of the bins [first_bin, last_bin] straight from the
// sealed buffer, consuming them (*written false, and no file, when none
// has data). A large bin's sorted log is cut into term ranges encoded by
// parallel tasks (RunBlockEncoder) whose blocks are written in order: one
// tablet's flush is no longer one thread's work.
// min_part_postings: the least postings worth a task (tests lower it).
inline constexpr size_t kMinRunPartPostings = size_t{1} << 18;
Status WriteBufferRun(const std::string& path, uint32_t first_bin, uint32_t last_bin, IngestBuffer* buffer,
                      bool* written, size_t min_part_postings = kMinRunPartPostings);

// Merges spill runs of one tablet (oldest first) into one run at `path`,
// which holds their lists in the same order.
Status MergeRunFiles(std::span<const std::string> runs, const std::string& path, uint32_t first_bin,
                     uint32_t last_bin);

// The lists come from a sealed buffer (its bins consumed) or from the
// tablet's spill runs. With list_threads > 1 a bin's lists are encoded in
// batches by that many parallel tasks and added in term order
// (TabletWriter::EncodeList, AddEncodedList): one tablet built alone is
// then not one thread's work. The bytes are the same either way.
struct TabletBuild {
  std::string path;
  uint32_t first_bin = 0;
  uint32_t last_bin = 0;
  TabletWriterOptions options;
  IngestBuffer* buffer = nullptr;  // one of these two
  RunSet* runs = nullptr;
  size_t list_threads = 1;  // memory_plan.h TabletListThreads
  const DocSpill* docs = nullptr;                         // may be null (runs)
  const std::vector<std::vector<DocId>>* tombstones = nullptr;  // by bin; may be null
};

struct TabletBuildResult {
  bool written = false;  // false when the tablet had nothing to write
  uint64_t bytes = 0;
  PostingSizes sizes;
  uint64_t inline_postings = 0;
  uint64_t postings = 0;
};

// Writes build.path; skips the file entirely when no bin has data.
Status BuildTabletFile(const TabletBuild& build, const std::vector<uint8_t>& bin_has_data,
                       TabletBuildResult* result);

}  // namespace dps
