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

// The runs one tablet spilled during an ingest, oldest first (so docids
// ascend across them). ForEachList merges their records of one bin; bins
// must be asked for in ascending order (each run is read once, front to
// back).
class RunSet {
 public:
  Status Add(const std::string& path);
  Status ForEachList(uint32_t bin, const IngestBuffer::ListSink& emit);
  size_t size() const { return runs_.size(); }

 private:
  std::vector<std::unique_ptr<RunReader>> runs_;
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

struct TabletBuild {
  std::string path;
  uint32_t first_bin = 0;
  uint32_t last_bin = 0;
  TabletWriterOptions options;
  ListSource lists;
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
