#include "index/index_writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <unordered_set>

#include "common/checksum.h"
#include "common/file.h"
#include "index/global_index.h"
#include "index/tablet.h"
#include "index/tablet_writer.h"
#include "index/term_list.h"

namespace dps {

namespace {

std::string RandomIndexId() {
  std::random_device rd;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return buf;
}

struct Posting {
  std::string_view term;
  DocId doc;
  uint32_t tf;
  const uint32_t* positions;  // tf of them, or null (an index without positions)
  bool operator<(const Posting& o) const { return term != o.term ? term < o.term : doc < o.doc; }
};

}  // namespace

IndexWriter::~IndexWriter() {
  // A failed commit's files go now, not at the next writer's Open: on a
  // full disk they hold the space the user is about to free. The MANIFEST
  // on disk, not ours, says what is live (best effort: Open does it again).
  // Only the lock's holder: a refused writer must not touch the files of
  // the commit the holder is writing.
  if (locked_ && !abandoned_) {
    auto on_disk = ReadManifest(dir_);
    if (on_disk.ok()) (void)RemoveStrays(dir_, *on_disk);
  }
  // An abandoned index loses its LOCK before the lock is released: no other
  // writer can have taken it meanwhile (flock is tried, never waited for).
  if (abandoned_ && locked_) (void)RemoveFile(dir_ + "/LOCK");
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (abandoned_ && created_dir_) ::rmdir(dir_.c_str());  // fails harmlessly if anything is left
}

void IndexWriter::AbandonNewIndex() {
  if (!created_index_ || !manifest_.global_index.empty()) return;
  current_.reset();
  RemoveAllButLock();
  abandoned_ = true;
}

void IndexWriter::RemoveAllButLock() {
  auto names = ListDir(dir_);
  if (names.ok()) {
    for (const auto& name : *names) {
      if (name != "LOCK") (void)RemoveFile(dir_ + "/" + name);
    }
  }
}

Result<std::unique_ptr<IndexWriter>> IndexWriter::Open(const std::string& dir,
                                                       const IndexOptions& options) {
  std::unique_ptr<IndexWriter> w(new IndexWriter());
  const Status s = w->OpenDir(dir, options);
  if (!s.ok()) {
    // An index that failed to come to be (a full disk, a failed fsync)
    // leaves nothing: not what it wrote, nor its LOCK, nor the directory
    // made for it (README: a failed first ingest leaves no index behind).
    if (w->creating_) w->RemoveAllButLock();
    w->abandoned_ = w->creating_ || w->created_dir_;
    return s;
  }
  return w;
}

Status IndexWriter::OpenDir(const std::string& dir, const IndexOptions& options) {
  dir_ = dir;
  if (!options.create_if_missing && !FileExists(dir + "/" + kManifestName)) {
    return Status::NotFound(dir + ": no index here (no MANIFEST)");
  }
  if (::mkdir(dir.c_str(), 0755) == 0) {
    created_dir_ = true;
    DPS_RETURN_IF_ERROR(SyncDir(ParentDir(dir)));  // the new index's own name
  } else if (errno != EEXIST) {
    return ErrnoError(dir, "mkdir");
  }
  const std::string lock = dir + "/LOCK";
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) return Status::IOError(lock + ": cannot open lock file");
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    // The holder wrote its pid once it had the lock (it may not have yet).
    char pid[24] = {};
    const ssize_t n = ::pread(lock_fd_, pid, sizeof(pid) - 1, 0);
    const long holder = n > 0 ? std::strtol(pid, nullptr, 10) : 0;
    return Status::IOError(dir + ": index is locked by " +
                           (holder > 0 ? "pid " + std::to_string(holder) : std::string("another process")) +
                           " (another process is writing to this index)");
  }
  locked_ = true;
  // Who holds it, for the next writer's message. The kernel drops the lock
  // when this process ends, however it ends: a stale pid in the file never
  // locks anyone out.
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) != 0) {
    return Status::IOError(lock + ": cannot write the lock holder's pid: " + std::strerror(errno));
  }
  DPS_RETURN_IF_ERROR(WriteAt(lock_fd_, lock, 0, me));
  auto manifest = ReadManifest(dir);
  if (manifest.ok()) {
    manifest_ = std::move(manifest).value();
  } else if (manifest.status().IsNotFound()) {
    DPS_ASSIGN_OR_RETURN(auto names, ListDir(dir));
    for (const auto& name : names) {
      if (name != "LOCK") {
        return Status::InvalidArgument(dir + ": not empty and no index (no MANIFEST, but " + name +
                                       "): an index is created only in a new or empty directory");
      }
    }
    creating_ = true;  // the directory holds nothing but our LOCK
    if (options.bins == 0 || options.tablets == 0 || options.tablets > options.bins) {
      return Status::InvalidArgument("need bins >= tablets >= 1 (bins " +
                                     std::to_string(options.bins) + ", tablets " +
                                     std::to_string(options.tablets) + ")");
    }
    Manifest& m = manifest_;
    m.index_id = RandomIndexId();
    m.bins = options.bins;
    m.store_text = options.store_text;
    DPS_RETURN_IF_ERROR(options.analyzer.Validate());
    m.analyzer = options.analyzer;
    m.positions = options.positions;
    DPS_RETURN_IF_ERROR(FieldSet::Validate(options.fields.names()));
    m.fields = options.fields;
    m.tablets = SplitBins(options.bins, options.tablets);
    DPS_RETURN_IF_ERROR(WriteManifest(dir, m));
    created_index_ = true;
  } else {
    return manifest.status();
  }
  DPS_RETURN_IF_ERROR(RemoveStrays(dir, manifest_));
  return Reopen();
}

Status IndexWriter::Reopen() {
  DPS_ASSIGN_OR_RETURN(current_, IndexReader::Open(dir_));
  return Status::OK();
}

Status IndexWriter::RemoveStrays(const std::string& dir, const Manifest& manifest) {
  std::set<std::string> live = {kManifestName, "LOCK"};
  if (!manifest.global_index.empty()) live.insert(manifest.global_index);
  for (const auto& t : manifest.tablets) live.insert(t.files.begin(), t.files.end());
  DPS_ASSIGN_OR_RETURN(auto names, ListDir(dir));
  for (const auto& name : names) {
    const bool ours = name.ends_with(".tab") || name.ends_with(".gix") || name.ends_with(".tmp") ||
                      name.ends_with(".dic");
    if (ours && !live.count(name)) DPS_RETURN_IF_ERROR(RemoveFile(dir + "/" + name));
  }
  return Status::OK();
}

std::string IndexWriter::AllocateFileName(const char* ext) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06" PRIu64 "%s", manifest_.next_file_number++, ext);
  return buf;
}

Status IndexWriter::ForEachLiveId(uint32_t bin,
                                  const std::function<void(DocId, std::string_view)>& fn) const {
  const Tablet& tablet = current_->TabletOf(BinId{bin});
  for (const auto& file : tablet.files()) {
    const int i = file->FindBin(BinId{bin});
    if (i < 0) continue;
    DPS_RETURN_IF_ERROR(file->docs(static_cast<size_t>(i)).ForEachId([&](DocId d, std::string_view id) {
      if (!tablet.IsDeleted(BinId{bin}, d)) fn(d, id);
    }));
  }
  return Status::OK();
}

DocId IndexWriter::NextDocId(uint32_t bin) const {
  uint64_t next = 0;
  for (const auto& file : current_->TabletOf(BinId{bin}).files()) {
    int i = file->FindBin(BinId{bin});
    if (i >= 0 && file->bin(static_cast<size_t>(i)).num_docs > 0) {
      next = std::max<uint64_t>(next, file->bin(static_cast<size_t>(i)).max_docid + uint64_t{1});
    }
  }
  return static_cast<DocId>(std::min<uint64_t>(next, kEndDoc));
}

Status IndexWriter::Commit(std::vector<AnalyzedDocument> docs, CommitStats* stats) {
  CommitStats local;
  if (stats == nullptr) stats = &local;
  *stats = CommitStats();

  // Later duplicates of an id win.
  std::map<std::string_view, size_t> last_of_id;
  for (size_t i = 0; i < docs.size(); ++i) last_of_id[docs[i].id] = i;
  std::map<uint32_t, std::vector<const AnalyzedDocument*>> by_bin;
  for (const auto& [id, i] : last_of_id) {
    by_bin[BinOfId(id, manifest_.bins).value].push_back(&docs[i]);
  }
  std::map<size_t, std::vector<uint32_t>> bins_of_tablet;
  for (const auto& [bin, list] : by_bin) bins_of_tablet[manifest_.TabletOf(bin)].push_back(bin);

  std::vector<std::pair<size_t, std::string>> files;
  for (const auto& [t, bins] : bins_of_tablet) {
    const std::string file_name = AllocateFileName(".tab");
    TabletWriterOptions wopt;
    wopt.store_text = manifest_.store_text;
    wopt.positions = manifest_.positions;
    wopt.fields = manifest_.fields;
    DPS_ASSIGN_OR_RETURN(auto writer, TabletWriter::Create(dir_ + "/" + file_name, wopt));
    for (uint32_t bin : bins) {
      const auto& list = by_bin[bin];
      const uint64_t first = NextDocId(bin);
      if (first + list.size() > kMaxDocId) {
        return Status::InvalidArgument("bin " + std::to_string(bin) +
                                       " would exceed 2^32-2 docids; compact first");
      }
      std::vector<DocId> tombstones;
      std::unordered_set<std::string_view> incoming;
      for (const AnalyzedDocument* doc : list) incoming.insert(doc->id);
      DPS_RETURN_IF_ERROR(ForEachLiveId(bin, [&](DocId d, std::string_view id) {
        if (incoming.count(id) != 0) {
          tombstones.push_back(d);
          ++stats->replaced;
        }
      }));
      std::vector<Posting> postings;
      for (size_t k = 0; k < list.size(); ++k) {
        const AnalyzedDocument* doc = list[k];
        uint64_t at = 0;
        for (const auto& [term, tf] : doc->terms) {
          if (term.empty() || tf == 0) {
            return Status::InvalidArgument("document '" + doc->id + "': empty term or zero tf");
          }
          const uint32_t* pos = manifest_.positions && at + tf <= doc->positions.size() ? doc->positions.data() + at : nullptr;
          postings.push_back(Posting{term, static_cast<DocId>(first + k), tf, pos});
          at += tf;
        }
        if (manifest_.positions ? at != doc->positions.size() : !doc->positions.empty()) {
          return Status::InvalidArgument("document '" + doc->id + "': " + std::to_string(doc->positions.size()) +
                                         " positions for " + std::to_string(at) + " tokens, in an index " +
                                         (manifest_.positions ? "with" : "without") + " positions");
        }
      }
      std::sort(postings.begin(), postings.end());
      // Each document's length in each column: its weights summed by the
      // column of their terms (the default field's, or a field's).
      std::vector<BinLengthTable> lengths(manifest_.fields.columns());
      std::vector<uint64_t> length(lengths.size());
      for (size_t k = 0; k < list.size(); ++k) {
        std::fill(length.begin(), length.end(), 0);
        for (const auto& term : list[k]->terms) {
          const int column = manifest_.fields.ColumnOf(term.first);
          if (column < 0) {
            return Status::InvalidArgument("document '" + list[k]->id + "': term '" + DisplayKey(term.first) +
                                           "' names no field of the index (" + manifest_.fields.List() + ")");
          }
          length[static_cast<size_t>(column)] += term.second;
        }
        for (size_t c = 0; c < lengths.size(); ++c) {
          lengths[c].Set(static_cast<DocId>(first + k), static_cast<uint32_t>(std::min(length[c], kMaxDocLength)));
        }
      }
      DPS_RETURN_IF_ERROR(writer->StartBin(BinId{bin}));
      for (size_t c = 0; c < lengths.size(); ++c) writer->SetDocLengths(&lengths[c], c);
      std::vector<DocId> list_docs;
      std::vector<uint32_t> list_weights, list_positions;
      for (size_t i = 0; i < postings.size();) {
        size_t j = i;
        list_docs.clear();
        list_weights.clear();
        list_positions.clear();
        for (; j < postings.size() && postings[j].term == postings[i].term; ++j) {
          if (!list_docs.empty() && list_docs.back() == postings[j].doc) {
            return Status::InvalidArgument("duplicate term '" + std::string(postings[j].term) +
                                           "' in one document");
          }
          list_docs.push_back(postings[j].doc);
          list_weights.push_back(postings[j].tf);
          if (postings[j].positions != nullptr) {
            list_positions.insert(list_positions.end(), postings[j].positions, postings[j].positions + postings[j].tf);
          }
        }
        DPS_RETURN_IF_ERROR(writer->AddPostingList(postings[i].term, list_docs, list_weights, list_positions));
        i = j;
      }
      for (size_t k = 0; k < list.size(); ++k) {
        DPS_RETURN_IF_ERROR(writer->AddDocument(static_cast<DocId>(first + k), list[k]->id,
                                                list[k]->title, list[k]->text));
      }
      DPS_RETURN_IF_ERROR(writer->AddTombstones(tombstones));
      DPS_RETURN_IF_ERROR(writer->FinishBin());
      stats->documents += list.size();
      stats->postings += postings.size();
    }
    DPS_RETURN_IF_ERROR(writer->Finish());
    stats->bytes_written += writer->bytes_written();
    stats->posting_sizes.Add(writer->posting_sizes());
    stats->inline_postings += writer->inline_postings();
    ++stats->files_written;
    files.emplace_back(t, file_name);
  }
  return CommitFiles(files, &stats->bytes_written);
}

Status IndexWriter::Delete(const std::vector<std::string>& ids, CommitStats* stats) {
  CommitStats local;
  if (stats == nullptr) stats = &local;
  *stats = CommitStats();
  std::map<uint32_t, std::unordered_set<std::string_view>> wanted;  // bin -> ids
  for (const auto& id : ids) wanted[BinOfId(id, manifest_.bins).value].insert(id);
  std::map<size_t, std::map<uint32_t, std::vector<DocId>>> doomed;  // tablet -> bin -> docids
  for (const auto& [bin_key, id_set] : wanted) {
    // Plain names: clang before 16 cannot capture structured bindings.
    const uint32_t bin = bin_key;
    const auto& set = id_set;
    DPS_RETURN_IF_ERROR(ForEachLiveId(bin, [&](DocId d, std::string_view id) {
      if (set.count(id) == 0) return;
      doomed[manifest_.TabletOf(bin)][bin].push_back(d);
      ++stats->deleted;
    }));
  }
  if (doomed.empty()) return Status::OK();
  std::vector<std::pair<size_t, std::string>> files;
  for (const auto& [t, bins] : doomed) {
    const std::string file_name = AllocateFileName(".tab");
    TabletWriterOptions wopt;
    wopt.store_text = manifest_.store_text;
    wopt.positions = manifest_.positions;
    wopt.fields = manifest_.fields;
    DPS_ASSIGN_OR_RETURN(auto writer, TabletWriter::Create(dir_ + "/" + file_name, wopt));
    for (const auto& [bin, docids] : bins) {
      DPS_RETURN_IF_ERROR(writer->StartBin(BinId{bin}));
      DPS_RETURN_IF_ERROR(writer->AddTombstones(docids));
      DPS_RETURN_IF_ERROR(writer->FinishBin());
    }
    DPS_RETURN_IF_ERROR(writer->Finish());
    stats->bytes_written += writer->bytes_written();
    ++stats->files_written;
    files.emplace_back(t, file_name);
  }
  return CommitFiles(files, &stats->bytes_written);
}

Status IndexWriter::CommitFiles(const std::vector<std::pair<size_t, std::string>>& files,
                                uint64_t* bytes_written) {
  uint64_t ignored = 0;
  if (bytes_written == nullptr) bytes_written = &ignored;
  Manifest next = manifest_;
  for (const auto& [t, name] : files) {
    if (t >= next.tablets.size()) return Status::InvalidArgument("no tablet " + std::to_string(t));
    next.tablets[t].files.push_back(name);
  }
  DPS_RETURN_IF_ERROR(SyncDir(dir_));  // the new files' directory entries
  std::vector<AddedFile> added;
  for (const auto& [t, name] : files) added.push_back(AddedFile{t, name});
  DPS_RETURN_IF_ERROR(RebuildGlobalIndex(&next, added, nullptr, bytes_written));
  manifest_.next_file_number = next.next_file_number;
  DPS_RETURN_IF_ERROR(SwapManifest(std::move(next)));
  return RemoveTermLists(added);
}

Status IndexWriter::RemoveTermLists(const std::vector<AddedFile>& added) {
  // The new global index holds their entries; a crash before this leaves
  // them as strays for the next writer.
  for (const AddedFile& a : added) DPS_RETURN_IF_ERROR(RemoveFile(TermListPathFor(dir_ + "/" + a.name)));
  return Status::OK();
}

Status IndexWriter::ReplaceTabletFiles(size_t tablet, size_t first, const std::string& file) {
  if (tablet >= manifest_.tablets.size() || first > manifest_.tablets[tablet].files.size()) {
    return Status::InvalidArgument("no tablet " + std::to_string(tablet) + " file " +
                                   std::to_string(first));
  }
  Manifest next = manifest_;
  auto& files = next.tablets[tablet].files;
  const std::vector<std::string> old(files.begin() + static_cast<ptrdiff_t>(first), files.end());
  files.resize(first);
  files.push_back(file);
  DPS_RETURN_IF_ERROR(SyncDir(dir_));
  uint64_t bytes = 0;
  const std::vector<AddedFile> added = {AddedFile{tablet, file}};
  const ReplacedFiles replaced{tablet, first};
  DPS_RETURN_IF_ERROR(RebuildGlobalIndex(&next, added, &replaced, &bytes));
  manifest_.next_file_number = next.next_file_number;
  DPS_RETURN_IF_ERROR(SwapManifest(std::move(next)));
  for (const auto& name : old) {
    if (name != file) DPS_RETURN_IF_ERROR(RemoveFile(dir_ + "/" + name));
  }
  return RemoveTermLists(added);
}

Status IndexWriter::SwapManifest(Manifest next) {
  ++next.generation;
  DPS_RETURN_IF_ERROR(WriteManifest(dir_, next));
  const std::string old_global = manifest_.global_index;
  manifest_ = std::move(next);
  if (!old_global.empty() && old_global != manifest_.global_index) {
    DPS_RETURN_IF_ERROR(RemoveFile(dir_ + "/" + old_global));
  }
  return Reopen();
}

Status IndexWriter::RebuildGlobalIndex(Manifest* next, const std::vector<AddedFile>& added,
                                       const ReplacedFiles* replaced, uint64_t* bytes) {
  // Merge of the committed global index (minus refs to replaced files) with
  // the term lists of the added files, one source per (file, bin).
  uint64_t total_docs = 0;
  for (const auto& entry : next->tablets) {
    DPS_ASSIGN_OR_RETURN(auto tablet, Tablet::Open(dir_, entry));
    for (const auto& file : tablet->files()) {
      for (size_t i = 0; i < file->bin_count(); ++i) {
        total_docs += file->bin(i).num_docs;
        total_docs -= file->tombstones(i).size();
      }
    }
  }
  struct Source {
    std::unique_ptr<TermDictCursor> cursor;
    const TabletReader* file = nullptr;  // null: the old global index
    size_t bin_index = 0;
    uint32_t file_pos = 0;
  };
  std::vector<Source> sources;
  const GlobalIndexReader* old = current_ != nullptr ? current_->global() : nullptr;
  if (old != nullptr) {
    auto cursor = std::make_unique<TermDictCursor>(&old->dict());
    cursor->SeekToFirst();
    DPS_RETURN_IF_ERROR(cursor->status());
    if (cursor->Valid()) sources.push_back(Source{std::move(cursor)});
  }
  std::vector<std::unique_ptr<TabletReader>> files;
  std::vector<std::unique_ptr<TermListReader>> lists;
  for (const AddedFile& a : added) {
    const auto& names = next->tablets[a.tablet].files;
    const auto at = std::find(names.begin(), names.end(), a.name);
    if (at == names.end()) return Status::InvalidArgument(a.name + ": not in its tablet");
    DPS_ASSIGN_OR_RETURN(auto file, TabletReader::Open(dir_ + "/" + a.name));
    DPS_ASSIGN_OR_RETURN(auto list, TermListReader::Open(TermListPathFor(dir_ + "/" + a.name)));
    if (file->positions() != next->positions || list->positions() != next->positions) {
      return Status::Corruption(dir_ + "/" + a.name + ": word positions " + (file->positions() ? "present" : "absent") +
                                " in a file of an index " + (next->positions ? "with" : "without") + " positions");
    }
    for (size_t k = 0; k < list->bin_count(); ++k) {
      const int i = file->FindBin(BinId{list->bin(k)});
      if (i < 0) return Status::Corruption(list->path() + ": bin " + std::to_string(list->bin(k)) + " not in its tablet file");
      auto cursor = std::make_unique<TermDictCursor>(&list->dict(k));
      cursor->SeekToFirst();
      DPS_RETURN_IF_ERROR(cursor->status());
      if (cursor->Valid()) {
        sources.push_back(Source{std::move(cursor), file.get(), static_cast<size_t>(i),
                                 static_cast<uint32_t>(at - names.begin())});
      }
    }
    files.push_back(std::move(file));
    lists.push_back(std::move(list));
  }
  auto greater = [&](size_t a, size_t b) { return sources[a].cursor->key() > sources[b].cursor->key(); };
  std::priority_queue<size_t, std::vector<size_t>, decltype(greater)> heap(greater);
  for (size_t i = 0; i < sources.size(); ++i) heap.push(i);

  char name_buf[32];
  std::snprintf(name_buf, sizeof name_buf, "%06" PRIu64 ".gix", next->next_file_number++);
  const std::string name = name_buf;
  DPS_ASSIGN_OR_RETURN(auto writer, GlobalIndexWriter::Create(dir_ + "/" + name, next->positions));
  std::string term;
  GlobalTermInfo info, old_info;
  auto flush = [&]() -> Status {
    if (info.refs.empty()) return Status::OK();  // every ref was to a replaced file
    std::sort(info.refs.begin(), info.refs.end(), [](const TermRef& x, const TermRef& y) {
      return x.bin != y.bin ? x.bin < y.bin : x.file < y.file;
    });
    return writer->Add(term, info);
  };
  bool have_term = false;
  // The sources are read through their mappings, whose touched pages count
  // in RSS: drop them now and then, or the whole of every term list (and
  // the old global index) stays resident until the commit ends.
  constexpr uint64_t kDropEvery = 1 << 16;
  uint64_t entries = 0;
  while (!heap.empty()) {
    if (++entries % kDropEvery == 0) {
      if (old != nullptr) old->DropResidentPages();
      for (const auto& list : lists) list->DropResidentPages();
      for (const auto& file : files) file->file().DropResidentPages();
    }
    const size_t top = heap.top();
    heap.pop();
    Source& src = sources[top];
    if (!have_term || src.cursor->key() != term) {
      if (have_term) DPS_RETURN_IF_ERROR(flush());
      info.refs.clear();
      term.assign(src.cursor->key());
      have_term = true;
    }
    if (src.file == nullptr) {
      DPS_RETURN_IF_ERROR(old->ParseValue(src.cursor->value(), &old_info));
      for (const TermRef& r : old_info.refs) {
        if (replaced != nullptr && next->TabletOf(r.bin) == replaced->tablet &&
            r.file >= replaced->first) {
          continue;
        }
        info.refs.push_back(r);
      }
    } else {
      PostingRef ref;
      DPS_RETURN_IF_ERROR(src.file->ParsePostingRef(src.bin_index, src.cursor->value(), &ref));
      const BinInfo& bin = src.file->bin(src.bin_index);
      TermRef r;
      r.bin = bin.bin;
      r.file = src.file_pos;
      r.df = ref.df;
      r.inline_doc = ref.inline_doc;
      r.inline_weight = ref.inline_weight;
      r.inline_postings = ref.inline_postings;  // the term list outlives the writer's Add
      r.inline_weights = ref.inline_weights;
      r.inline_positions = ref.inline_positions;
      if (ref.in_file()) {
        r.offset = ref.offset - bin.postings_offset;
        r.len = ref.len;
        r.max_score = ref.max_score;
        r.positions_offset = ref.positions_offset - bin.positions_offset;
      }
      info.refs.push_back(r);
    }
    src.cursor->Next();
    DPS_RETURN_IF_ERROR(src.cursor->status());
    if (src.cursor->Valid()) heap.push(top);
  }
  if (have_term) DPS_RETURN_IF_ERROR(flush());
  DPS_RETURN_IF_ERROR(writer->Finish(total_docs));
  *bytes += writer->bytes_written();
  next->global_index = name;
  return Status::OK();
}

}  // namespace dps
