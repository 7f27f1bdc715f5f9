// Commits batches of analyzed documents to an index directory: creates the
// index on first use, places each document in bin = StableHash64(id) % bins,
// replaces documents whose external id already exists (tombstoning the old
// docid in its bin), writes one new tablet file per touched tablet, rebuilds
// the global index, and swaps the MANIFEST atomically. A crash at any point
// leaves the previous or the new index; stray files of an interrupted commit
// are removed when the next writer opens the index. A commit that fails (a
// full disk, a failed write or fsync) returns the error and leaves the
// previous index, whose MANIFEST the writer still holds; its files are
// removed when the writer goes.
//
// Whole-batch in memory: the bounded-memory spilling pipeline of ingest/
// feeds the same tablet and global-index writers. One writer per index at a
// time (an flock on DIR/LOCK enforces it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "index/index_reader.h"
#include "index/manifest.h"
#include "index/posting_list.h"

namespace dps {

struct IndexOptions {
  // Bins partition the documents; a bin's whole index is one unit of work.
  // More bins = finer parallelism, but every bin repeats the dictionary
  // lookups of a query and the terms in its dictionary (gcide, 1,000 AND
  // queries, one thread: p50 19.5 us with 4 bins, 26.5 with 8, 44.9 with
  // 16; index 15.2 / 16.4 / 17.9 MB). Fixed at creation.
  uint32_t bins = 4;
  // Tablets group contiguous bins into files and placement units; 4 keep a
  // 2-core machine busy at ingest and query. Fixed at creation.
  uint32_t tablets = 4;
  // Store document text for snippets (ids and titles are always stored).
  bool store_text = true;
  // The analyzer the documents' terms come from (recorded in the MANIFEST;
  // the writer only records it: callers analyze). Fixed at creation.
  AnalyzerSpec analyzer;
  // Index word positions (phrase queries; docs/FORMAT.md "Positions"). Off:
  // a smaller index that refuses phrases. The command line turns it on
  // unless --no-positions; library callers (tests) ask for it.
  bool positions = false;
  // title, then the fields `ingest --field` declares (index/field_key.h):
  // their terms are field keys. Fixed at creation.
  FieldSet fields;
  int zstd_level = 3;
  // False for commands that change an existing index (delete, compact): a
  // missing index is then an error, not a new empty one.
  bool create_if_missing = true;
};

// A document after analysis: its distinct terms with their frequencies.
struct AnalyzedDocument {
  std::string id;
  std::string title;
  std::string text;
  std::vector<std::pair<std::string, uint32_t>> terms;  // distinct terms, tf >= 1, any order
  // An index with positions: each term's positions (tf of them, ascending),
  // the terms' one after another in `terms` order; else empty.
  std::vector<uint32_t> positions;
};

struct CommitStats {
  uint64_t documents = 0;
  uint64_t replaced = 0;
  uint64_t deleted = 0;
  uint64_t postings = 0;
  uint64_t files_written = 0;
  uint64_t bytes_written = 0;
  PostingSizes posting_sizes;    // lists written to tablet files
  uint64_t inline_postings = 0;  // postings kept in the dictionary (lists of df <= kMaxInlineDf)
};

class IndexWriter {
 public:
  // Opens (creating if missing, with `options`) the index in `dir`. A new
  // index is made only in a missing or empty directory: one holding other
  // files but no MANIFEST is refused (its files are not ours to clean up).
  static Result<std::unique_ptr<IndexWriter>> Open(const std::string& dir,
                                                   const IndexOptions& options);
  ~IndexWriter();

  // True when Open created the index (and wrote its first MANIFEST).
  bool created_index() const { return created_index_; }
  // Undoes a created index that never committed (a failed first ingest):
  // removes every file of the directory now, while the lock is held, and
  // the LOCK file and the directory (if Open made it) when the writer goes.
  // REQUIRES: created_index() and no commit (manifest().global_index empty).
  void AbandonNewIndex();

  // Adds or replaces documents; a later duplicate id in the batch wins.
  Status Commit(std::vector<AnalyzedDocument> docs, CommitStats* stats = nullptr);
  // Tombstones documents by external id; unknown ids are counted, not errors.
  Status Delete(const std::vector<std::string>& ids, CommitStats* stats = nullptr);

  const Manifest& manifest() const { return manifest_; }
  const std::string& dir() const { return dir_; }

  // ---- building blocks for the ingest pipeline, which writes tablet files
  // itself and then commits them here ----

  // Calls fn(docid, external id) for every live document of `bin` in the
  // committed index, reading only the doc stores' id columns. Replacement
  // and deletion join their ids against this scan: there is no id index on
  // disk (docs/FORMAT.md, "Finding a document by id").
  Status ForEachLiveId(uint32_t bin,
                       const std::function<void(DocId, std::string_view)>& fn) const;
  // The first docid a new file may use in `bin`.
  DocId NextDocId(uint32_t bin) const;
  // Reserves a fresh file name ("000042.tab"); names never repeat, even if
  // the commit that reserved them never happens.
  std::string AllocateFileName(const char* ext);
  // Adds finished (fsynced) files to their tablets, rebuilds the global
  // index and swaps the MANIFEST. `files`: (tablet index, file name).
  Status CommitFiles(const std::vector<std::pair<size_t, std::string>>& files,
                     uint64_t* bytes_written = nullptr);
  // Replaces files [first, end) of `tablet` with `file` (a compaction's
  // output) in one MANIFEST swap, then deletes the replaced files.
  Status ReplaceTabletFiles(size_t tablet, size_t first, const std::string& file);
  // The committed index (valid until the next commit).
  const IndexReader& current() const { return *current_; }

 private:
  IndexWriter() = default;
  Status OpenDir(const std::string& dir, const IndexOptions& options);
  void RemoveAllButLock();
  // Deletes the files of `dir` an interrupted or failed commit left: ours
  // by their names (*.tab, *.gix, *.dic, *.tmp), not named by `manifest`.
  static Status RemoveStrays(const std::string& dir, const Manifest& manifest);
  Status Reopen();
  struct AddedFile {
    size_t tablet;
    std::string name;  // its term list is TermListPathFor(name)
  };
  struct ReplacedFiles {
    size_t tablet;
    size_t first;  // files [first, end) of the committed tablet are gone
  };
  // Writes the global index of `next`: the committed one's refs (minus those
  // to replaced files) merged with the added files' term lists.
  Status RebuildGlobalIndex(Manifest* next, const std::vector<AddedFile>& added,
                            const ReplacedFiles* replaced, uint64_t* bytes);
  Status RemoveTermLists(const std::vector<AddedFile>& added);
  Status SwapManifest(Manifest next);

  std::string dir_;
  int lock_fd_ = -1;
  bool created_dir_ = false, created_index_ = false, abandoned_ = false;
  bool locked_ = false;    // this writer holds the lock
  bool creating_ = false;  // Open found no index and is making one
  Manifest manifest_;
  std::unique_ptr<IndexReader> current_;  // the committed index, for lookups
};

}  // namespace dps
