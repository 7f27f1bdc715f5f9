#include "ingest/ingest.h"

#include <oneapi/tbb/enumerable_thread_specific.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <malloc.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "common/checksum.h"
#include "common/file.h"
#include "index/compaction.h"
#include "index/tablet_writer.h"
#include "ingest/analyzer.h"
#include "ingest/concat_reader.h"
#include "ingest/doc_spill.h"
#include "ingest/document_reader.h"
#include "ingest/ingest_buffer.h"
#include "ingest/ingest_request.h"
#include "ingest/memory_plan.h"
#include "ingest/tablet_build.h"
#include "ingest/term_counter.h"

namespace dps {

namespace {

using Clock = std::chrono::steady_clock;

// An external id's identity within an ingest: placed documents are keyed by
// it, and the committed index's stored ids are matched against it.
XXH128_hash_t IdKey(std::string_view id) { return XXH3_128bits(id.data(), id.size()); }

struct AnalyzedDoc {
  uint32_t bin = 0;
  XXH128_hash_t key{};  // IdKey of the external id
  std::vector<std::pair<std::string, uint32_t>> terms;
  // With positions: each term's positions in the title-then-text token
  // stream, ascending, the terms' one after another in `terms` order.
  std::vector<uint32_t> positions;
  uint64_t tokens = 0;
  // Token counts by length column: the default field's (tokens), then
  // each field's (index/field_key.h).
  std::vector<uint32_t> lengths;
};

// A document's text is analyzed in pieces of about this many bytes.
inline constexpr size_t kAnalyzePieceBytes = 256 << 10;

// Positions skipped between two values of a field's array, so that no
// phrase matches across them (Elasticsearch's position_increment_gap).
inline constexpr uint32_t kFieldValueGap = 100;

struct Batch {
  std::vector<RawDocument> docs;
  std::vector<AnalyzedDoc> analyzed;
};

struct KeyHash {
  size_t operator()(const XXH128_hash_t& h) const { return static_cast<size_t>(h.low64); }
};
struct KeyEq {
  bool operator()(const XXH128_hash_t& a, const XXH128_hash_t& b) const {
    return a.low64 == b.low64 && a.high64 == b.high64;
  }
};

// The document's field terms (index/field_key.h) after its default
// field's, in *out: the title's tokens (the first `title_tokens` of the
// default stream, positions from 0 as there) and each declared field's
// values' tokens; fills out->lengths.
struct FieldScratch {
  std::vector<std::string> tokens;
  std::vector<uint32_t> token_positions, positions;
  std::vector<std::pair<std::string, uint32_t>> terms;
  std::vector<std::string> value_tokens;
  TermCounter counter;
};
void AddFieldTerms(const FieldSet& fields, const RawDocument& raw, const std::vector<std::string>& default_tokens,
                   size_t title_tokens, bool with_positions, Analyzer* analyzer, AnalyzeStats* astats,
                   FieldScratch* f, AnalyzedDoc* out) {
  const auto& names = fields.names();
  out->lengths.assign(fields.columns(), 0);
  out->lengths[0] = static_cast<uint32_t>(out->tokens);
  if (names.empty()) return;
  f->tokens.clear();
  f->token_positions.clear();
  size_t next_raw = 0;  // raw.fields holds the fields other than title, in order
  for (size_t n = 0; n < names.size(); ++n) {
    if (names[n] == kTitleField) {
      const std::string prefix = FieldKeyPrefix(kTitleField);
      for (size_t i = 0; i < title_tokens; ++i) {
        f->tokens.push_back(prefix + default_tokens[i]);
        f->token_positions.push_back(static_cast<uint32_t>(i));
      }
      out->lengths[n + 1] = static_cast<uint32_t>(title_tokens);
      continue;
    }
    if (next_raw >= raw.fields.size()) continue;  // lines and dir inputs: none
    const std::string prefix = FieldKeyPrefix(names[n]);
    uint32_t next = 0, count = 0;
    for (const std::string& value : raw.fields[next_raw++]) {
      f->value_tokens.clear();
      analyzer->Analyze(value, &f->value_tokens, astats);
      if (f->value_tokens.empty()) continue;
      if (count > 0) next += kFieldValueGap;
      for (const std::string& t : f->value_tokens) {
        f->tokens.push_back(prefix + t);
        f->token_positions.push_back(next++);
      }
      count += static_cast<uint32_t>(f->value_tokens.size());
    }
    out->lengths[n + 1] = count;
  }
  if (f->tokens.empty()) return;
  f->counter.Reset(with_positions, f->tokens.size());
  f->counter.Add(&f->tokens, &f->token_positions);
  f->counter.Finish(&f->terms, with_positions ? &f->positions : nullptr);
  for (auto& term : f->terms) out->terms.push_back(std::move(term));
  if (with_positions) out->positions.insert(out->positions.end(), f->positions.begin(), f->positions.end());
}

unsigned Threads(const IngestOptions& options) {
  return options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads;
}

class IngestRun {
 public:
  IngestRun(IndexWriter* writer, const IngestOptions& options, IngestStats* stats)
      : writer_(writer),
        options_(options),
        stats_(stats),
        bins_(writer->manifest().bins),
        buffer_(bins_),
        spill_(writer->dir() + "/" + writer->AllocateFileName(".spill.tmp"), bins_, writer->manifest().fields.columns()),
        seen_(bins_),
        tombstones_(bins_),
        next_doc_(bins_),
        runs_(writer->manifest().tablets.size()),
        plan_(PlanMemory({options.memory_budget, Threads(options), bins_, writer->manifest().tablets.size()})) {
    for (uint32_t b = 0; b < bins_; ++b) next_doc_[b] = writer->NextDocId(b);
  }

  Status Run(const std::vector<std::string>& inputs, const ProgressFn& progress);

 private:
  Status Place(RawDocument& raw, AnalyzedDoc& doc);
  size_t MemoryBytes() const {
    return buffer_.memory_bytes() + spill_.memory_bytes() + seen_entries_ * 48;
  }
  Status FlushRun();
  Status NarrowRuns();
  Status TombstoneReplaced();
  Status WriteFinal();

  IndexWriter* writer_;
  const IngestOptions& options_;
  IngestStats* stats_;
  const uint32_t bins_;
  IngestBuffer buffer_;
  DocSpill spill_;
  std::vector<std::unordered_map<XXH128_hash_t, DocId, KeyHash, KeyEq>> seen_;
  size_t seen_entries_ = 0;
  std::vector<std::vector<DocId>> tombstones_;
  std::vector<uint64_t> next_doc_;
  std::vector<std::vector<std::string>> runs_;  // by tablet, oldest first
  const MemoryPlan plan_;
  std::mutex names_mu_;  // AllocateFileName from parallel merges
};

Status IngestRun::Place(RawDocument& raw, AnalyzedDoc& doc) {
  if (const uint64_t bytes = raw.ByteSize(); bytes > plan_.document_bytes) {
    ++stats_->oversized_documents;
    stats_->covered_document_bytes = plan_.document_bytes;
    if (bytes > stats_->largest_document_bytes) {
      stats_->largest_document_bytes = bytes;
      stats_->largest_document = raw.source;
    }
  }
  const uint32_t bin = doc.bin;
  auto [it, inserted] = seen_[bin].try_emplace(doc.key, 0);
  if (!inserted) {
    tombstones_[bin].push_back(it->second);  // an earlier copy in this ingest
    ++stats_->replaced;
  } else {
    ++seen_entries_;
  }
  if (next_doc_[bin] > kMaxDocId) {
    return Status::InvalidArgument(raw.source + ": bin " + std::to_string(bin) +
                                   " has no docids left (2^32-1 documents); compact the index");
  }
  const DocId docid = static_cast<DocId>(next_doc_[bin]++);
  it->second = docid;
  buffer_.Add(bin, docid, doc.terms, doc.positions);
  // BM25's dl: every token counted once into doc.terms, so the sum of its
  // weights, which the tablet writer checks.
  const uint64_t length = doc.tokens;
  if (length > kMaxDocLength) {
    return Status::InvalidArgument(raw.source + ": document '" + raw.id + "' has " + std::to_string(length) +
                                   " tokens, more than " + std::to_string(kMaxDocLength));
  }
  doc.lengths[0] = static_cast<uint32_t>(length);
  DPS_RETURN_IF_ERROR(spill_.Add(bin, docid, raw.id, raw.title,
                                 writer_->manifest().store_text ? raw.text : std::string_view(), doc.lengths));
  ++stats_->documents;
  stats_->tokens += doc.tokens;
  stats_->postings += doc.terms.size();
  return Status::OK();
}

Status IngestRun::FlushRun() {
  if (buffer_.empty()) return Status::OK();
  buffer_.Seal();
  const auto& tablets = writer_->manifest().tablets;
  std::vector<std::string> paths(tablets.size());
  for (size_t t = 0; t < tablets.size(); ++t) paths[t] = writer_->dir() + "/" + writer_->AllocateFileName(".run.tmp");
  std::vector<Status> results(tablets.size());
  std::vector<uint8_t> written(tablets.size());
  tbb::parallel_for(size_t{0}, tablets.size(), [&](size_t t) {
    bool w = false;
    results[t] = WriteBufferRun(paths[t], tablets[t].first_bin, tablets[t].last_bin, &buffer_, &w);
    written[t] = w;
  });
  for (size_t t = 0; t < tablets.size(); ++t) {
    DPS_RETURN_IF_ERROR(results[t]);
    if (written[t]) runs_[t].push_back(paths[t]);
  }
  ++stats_->runs;
  buffer_.Clear();
  // Freed buffers go back to the system, not to malloc's free lists: the
  // budget is about the process's footprint.
  malloc_trim(0);
  return Status::OK();
}

// Each run read at once costs a block of memory, and a small budget spills
// many runs: a tablet with more than the plan's fan-in has its runs merged
// in consecutive groups (oldest first, so docids still ascend) until it
// has no more.
Status IngestRun::NarrowRuns() {
  const auto& tablets = writer_->manifest().tablets;
  const size_t fan_in = plan_.merge_fan_in;
  std::vector<Status> results(tablets.size());
  tbb::parallel_for(size_t{0}, tablets.size(), [&](size_t t) {
    std::vector<std::string>& runs = runs_[t];
    while (runs.size() > fan_in && results[t].ok()) {
      std::vector<std::string> merged;
      for (size_t from = 0; from < runs.size() && results[t].ok(); from += fan_in) {
        const size_t to = std::min(runs.size(), from + fan_in);
        if (to - from == 1) {
          merged.push_back(runs[from]);
          continue;
        }
        std::string path;
        {
          std::lock_guard<std::mutex> lock(names_mu_);
          path = writer_->dir() + "/" + writer_->AllocateFileName(".run.tmp");
        }
        results[t] = MergeRunFiles(std::span<const std::string>(runs).subspan(from, to - from), path,
                                   tablets[t].first_bin, tablets[t].last_bin);
        if (!results[t].ok()) break;  // what is left is removed as strays by the next writer
        for (size_t i = from; i < to; ++i) (void)RemoveFile(runs[i]);
        merged.push_back(path);
      }
      runs.swap(merged);
    }
  });
  for (const Status& s : results) DPS_RETURN_IF_ERROR(s);
  return Status::OK();
}

// Documents of earlier commits that this ingest brings again: one scan of
// the stored ids of each bin it touched, joined against the ids it placed
// (their 128-bit hashes, as within the ingest).
Status IngestRun::TombstoneReplaced() {
  std::vector<Status> results(bins_);
  std::vector<uint64_t> replaced(bins_);
  tbb::parallel_for(uint32_t{0}, bins_, [&](uint32_t b) {
    if (seen_[b].empty()) return;
    results[b] = writer_->ForEachLiveId(b, [&](DocId d, std::string_view id) {
      if (seen_[b].count(IdKey(id)) == 0) return;
      tombstones_[b].push_back(d);
      ++replaced[b];
    });
  });
  for (uint32_t b = 0; b < bins_; ++b) {
    DPS_RETURN_IF_ERROR(results[b]);
    stats_->replaced += replaced[b];
  }
  return Status::OK();
}

Status IngestRun::WriteFinal() {
  DPS_RETURN_IF_ERROR(spill_.Finish());
  DPS_RETURN_IF_ERROR(TombstoneReplaced());
  decltype(seen_)().swap(seen_);  // the ids placed are not needed any more
  const bool spilled = stats_->runs > 0;
  if (spilled) {
    DPS_RETURN_IF_ERROR(FlushRun());
    DPS_RETURN_IF_ERROR(NarrowRuns());
  } else {
    buffer_.Seal();
  }
  const auto& tablets = writer_->manifest().tablets;
  std::vector<uint8_t> has(bins_);
  for (uint32_t b = 0; b < bins_; ++b) {
    has[b] = spill_.docs(b) > 0 || !tombstones_[b].empty() || !buffer_.BinEmpty(b);
  }
  std::vector<std::string> names(tablets.size());
  for (size_t t = 0; t < tablets.size(); ++t) names[t] = writer_->AllocateFileName(".tab");
  std::vector<Status> results(tablets.size());
  std::vector<TabletBuildResult> built(tablets.size());
  TabletWriterOptions wopt;
  wopt.store_text = writer_->manifest().store_text;
  wopt.positions = writer_->manifest().positions;
  wopt.fields = writer_->manifest().fields;
  for (auto& t : tombstones_) std::sort(t.begin(), t.end());
  const unsigned threads = Threads(options_);
  tbb::parallel_for(size_t{0}, tablets.size(), [&](size_t t) {
    RunSet runs;
    if (spilled) {
      for (const auto& path : runs_[t]) {
        Status s = runs.Add(path);
        if (!s.ok()) {
          results[t] = s;
          return;
        }
      }
    }
    TabletBuild build;
    build.path = writer_->dir() + "/" + names[t];
    build.first_bin = tablets[t].first_bin;
    build.last_bin = tablets[t].last_bin;
    build.options = wopt;
    build.docs = &spill_;
    build.tombstones = &tombstones_;
    if (spilled) {
      build.runs = &runs;
    } else {
      build.buffer = &buffer_;
    }
    // Tablets are built one per thread; with fewer tablets than threads,
    // each tablet's lists are encoded in parallel too (their batches in
    // flight: memory_plan.h).
    build.list_threads = TabletListThreads(threads, tablets.size());
    results[t] = BuildTabletFile(build, has, &built[t]);
  });
  malloc_trim(0);  // the writers' buffers, before the commit reads the new files
  std::vector<std::pair<size_t, std::string>> files;
  for (size_t t = 0; t < tablets.size(); ++t) {
    DPS_RETURN_IF_ERROR(results[t]);
    if (built[t].written) {
      files.emplace_back(t, names[t]);
      stats_->bytes_written += built[t].bytes;
    }
  }
  for (const auto& paths : runs_) {
    for (const auto& p : paths) (void)RemoveFile(p);
  }
  if (files.empty()) return Status::OK();
  return writer_->CommitFiles(files, &stats_->bytes_written);
}

Status IngestRun::Run(const std::vector<std::string>& inputs, const ProgressFn& progress) {
  DPS_RETURN_IF_ERROR(spill_.Open());
  const auto start = Clock::now();
  auto last_progress = start;
  ReaderOptions ropt;
  DPS_ASSIGN_OR_RETURN(ropt.format, ParseInputFormat(options_.format.empty() ? "auto" : options_.format));
  ropt.id_field = options_.id_field;
  ropt.text_field = options_.text_field;
  ropt.title_field = options_.title_field;
  for (const auto& name : writer_->manifest().fields.names()) {
    if (name != kTitleField) ropt.fields.push_back(name);  // title is read as the title
  }
  ropt.skip_bad = options_.skip_bad;

  // All inputs as one stream: sizes summed up front, stats merged per input.
  DPS_ASSIGN_OR_RETURN(std::unique_ptr<DocumentReader> reader, OpenReaders(inputs, ropt));
  Status status;
  std::mutex status_mu;
  auto fail = [&](Status s) {
    std::lock_guard<std::mutex> lock(status_mu);
    if (status.ok()) status = std::move(s);
  };

  tbb::enumerable_thread_specific<std::unique_ptr<Analyzer>> analyzers;
  // Budget share for buffers (ingest/memory_plan.h): the rest covers the
  // process, batches in flight and sorting at flush time.
  const uint64_t flush_at = plan_.flush_at;
  // Logs hold most of the buffer: room for a fair share of flush_at each,
  // plus a quarter for skew, entries of 16 bytes; with positions, about
  // 1.5 positions of 4 bytes a posting beside them (natural text), whose
  // reservation is doubled: pages reserved and never written cost nothing,
  // and a log of positions that grows by copying spent a fifth of an ingest.
  if (writer_->manifest().positions) {
    const size_t entries = static_cast<size_t>(flush_at / 22 / bins_ * 5 / 4);
    buffer_.SetReservation(entries, entries * 3);
  } else {
    buffer_.SetReservation(static_cast<size_t>(flush_at / 16 / bins_ * 5 / 4));
  }
  const unsigned threads = Threads(options_);
  const size_t batch_bytes = plan_.batch_bytes;

  tbb::parallel_pipeline(
      threads * 2,
      tbb::make_filter<void, Batch*>(
          tbb::filter_mode::serial_in_order,
          [&](tbb::flow_control& fc) -> Batch* {
            auto batch = std::make_unique<Batch>();
            if (status.ok()) {
              auto n = reader->NextBatch(&batch->docs, batch_bytes);
              if (!n.ok()) {
                fail(n.status());
              } else if (*n > 0) {
                return batch.release();
              }
            }
            fc.stop();
            return nullptr;
          }) &
          tbb::make_filter<Batch*, Batch*>(
              tbb::filter_mode::parallel,
              [&](Batch* batch) -> Batch* {
                auto& analyzer = analyzers.local();
                if (analyzer == nullptr) {
                  auto created = Analyzer::Create(writer_->manifest().analyzer);
                  if (!created.ok()) {
                    fail(created.status());
                    return batch;
                  }
                  analyzer = std::move(created).value();
                }
                batch->analyzed.resize(batch->docs.size());
                std::vector<std::string> tokens;
                TermCounter counter;
                FieldScratch field_scratch;
                std::vector<std::string> title_copy;
                const bool positions = writer_->manifest().positions;
                AnalyzeStats astats;
                for (size_t i = 0; i < batch->docs.size(); ++i) {
                  const RawDocument& raw = batch->docs[i];
                  AnalyzedDoc& out = batch->analyzed[i];
                  tokens.clear();
                  analyzer->Analyze(raw.title, &tokens, &astats);
                  const size_t title_tokens = tokens.size();
                  if (!writer_->manifest().fields.empty()) {
                    title_copy.assign(tokens.begin(), tokens.end());  // the counter consumes tokens
                  }
                  // Sized for a document of up to a piece (some 6 bytes of
                  // text a token): a longer one grows the table as it needs.
                  counter.Reset(positions, std::min(raw.title.size() + raw.text.size(), kAnalyzePieceBytes) / 6);
                  counter.Add(&tokens);
                  // The text a piece at a time: a long document costs its
                  // term counts and positions, not a string a token.
                  for (std::string_view text = raw.text; !text.empty();) {
                    const size_t end = Analyzer::PieceEnd(text, kAnalyzePieceBytes);
                    tokens.clear();
                    analyzer->Analyze(text.substr(0, end), &tokens, &astats);
                    counter.Add(&tokens);
                    text.remove_prefix(end);
                  }
                  out.tokens = counter.tokens();
                  counter.Finish(&out.terms, positions ? &out.positions : nullptr);
                  AddFieldTerms(writer_->manifest().fields, raw, title_copy, title_tokens, positions,
                                analyzer.get(), &astats, &field_scratch, &out);
                  out.bin = BinOfId(raw.id, bins_).value;
                  out.key = IdKey(raw.id);
                }
                return batch;
              }) &
          tbb::make_filter<Batch*, void>(
              tbb::filter_mode::serial_in_order, [&](Batch* batch) {
                std::unique_ptr<Batch> owned(batch);
                if (!status.ok()) return;
                for (size_t i = 0; i < batch->docs.size(); ++i) {
                  Status s = Place(batch->docs[i], batch->analyzed[i]);
                  if (!s.ok()) return fail(s);
                }
                if (MemoryBytes() > flush_at) {
                  Status s = FlushRun();
                  if (!s.ok()) return fail(s);
                }
                const auto now = Clock::now();
                if (progress && now - last_progress > std::chrono::milliseconds(100)) {
                  last_progress = now;
                  IngestProgress p;
                  p.documents = stats_->documents;
                  p.bytes_read = reader->bytes_read();
                  p.total_bytes = reader->total_bytes();
                  p.seconds = std::chrono::duration<double>(now - start).count();
                  progress(p);
                }
              }));
  DPS_RETURN_IF_ERROR(status);
  const ReaderStats& reader_stats = reader->stats();
  stats_->bytes_read = reader->bytes_read();
  stats_->skipped = reader_stats.bad_records + reader_stats.binary_files;
  stats_->skipped_examples = reader_stats.first_errors;
  stats_->invalid_utf8 = reader_stats.utf8_replacements;
  DPS_RETURN_IF_ERROR(WriteFinal());
  stats_->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return Status::OK();
}

}  // namespace

namespace {

Status IngestInto(const std::string& index_dir, const std::vector<std::string>& inputs,
                  const IngestOptions& options, IngestStats* stats, const ProgressFn& progress) {
  std::unique_ptr<tbb::global_control> limit;
  if (options.threads > 0) {
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  options.threads);
  }
  DPS_ASSIGN_OR_RETURN(auto writer, IndexWriter::Open(index_dir, options.index));
  DPS_RETURN_IF_ERROR(CheckShapeMatches(index_dir, writer->manifest(), options));
  Status s;
  {
    IngestRun run(writer.get(), options, stats);  // removes its spill file when done
    s = run.Run(inputs, progress);
  }
  // A first ingest that failed before its commit leaves no index behind;
  // one that failed later (in the compaction below) keeps its commit.
  if (!s.ok()) {
    if (writer->created_index()) writer->AbandonNewIndex();
    return s;
  }
  CompactionStats compaction;
  // The documents are committed: a compaction the disk has no room for is
  // housekeeping put off, not a failed ingest (exit 3 would say the index
  // is as before). Anything else (corruption found) still fails it.
  Status compacted = CompactWhereNeeded(writer.get(), &compaction);
  if (compacted.IsIOError()) {
    stats->compaction_error = compacted.message();
  } else {
    DPS_RETURN_IF_ERROR(compacted);
  }
  stats->compacted_tablets = compaction.tablets;
  uint64_t index_bytes = 0;
  DPS_ASSIGN_OR_RETURN(auto names, ListDir(index_dir));
  for (const auto& name : names) {
    std::error_code ec;
    auto size = std::filesystem::file_size(index_dir + "/" + name, ec);
    if (!ec) index_bytes += size;
  }
  stats->index_bytes = index_bytes;
  return Status::OK();
}

}  // namespace

Status Ingest(const std::string& index_dir, const std::vector<std::string>& inputs,
              const IngestOptions& options, IngestStats* stats, const ProgressFn& progress) {
  *stats = IngestStats();
  DPS_RETURN_IF_ERROR(CheckIngestRequest(inputs, options));
  return IngestInto(index_dir, inputs, options, stats, progress);
}

}  // namespace dps
