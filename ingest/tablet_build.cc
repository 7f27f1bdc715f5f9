#include "ingest/tablet_build.h"

#include <algorithm>
#include <numeric>

#include <mutex>

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_pipeline.h>
#include <oneapi/tbb/task_arena.h>

namespace dps {

Status RunSet::Add(const std::string& path) {
  DPS_ASSIGN_OR_RETURN(auto reader, RunReader::Open(path));
  runs_.push_back(std::move(reader));
  return Status::OK();
}

void ListBatch::Add(std::string_view term, std::span<const DocId> list_docs, std::span<const uint32_t> list_weights,
                    std::span<const uint32_t> list_positions) {
  terms.emplace_back(term);
  docs.insert(docs.end(), list_docs.begin(), list_docs.end());
  weights.insert(weights.end(), list_weights.begin(), list_weights.end());
  positions.insert(positions.end(), list_positions.begin(), list_positions.end());
  ends.push_back(docs.size());
  position_ends.push_back(positions.size());
}

Status RunSet::SkipTo(uint32_t bin) {
  for (auto& run : runs_) {  // records of bins nobody asked for (none expected)
    while (run->Valid() && run->bin() < bin) DPS_RETURN_IF_ERROR(run->Next());
  }
  return Status::OK();
}

Status RunSet::NextList(uint32_t bin, bool* found) {
  *found = false;
  // Smallest current term; runs are few, so a linear scan beats a heap.
  const RunReader* best = nullptr;
  for (const auto& run : runs_) {
    if (run->Valid() && run->bin() == bin && (best == nullptr || run->term() < best->term())) {
      best = run.get();
    }
  }
  if (best == nullptr) return Status::OK();
  term_.assign(best->term());
  docs_.clear();
  weights_.clear();
  positions_.clear();
  // Postings first, then the positions into one exact reservation: a
  // frequent term's positions are the merge's largest array, and a
  // doubling vector would hold up to twice them.
  starts_.clear();
  bool with_positions = false;
  PostingCursor& cursor = cursor_;
  for (auto& run : runs_) {  // oldest run first: docids ascend
    if (!run->Valid() || run->bin() != bin || run->term() != term_) continue;
    DPS_RETURN_IF_ERROR(run->OpenList(&cursor));
    starts_.emplace_back(run.get(), docs_.size());
    for (DocId d = cursor.doc(); d != kEndDoc; d = cursor.Next()) {
      if (!docs_.empty() && d <= docs_.back()) {
        return Status::Corruption(run->path() + ": docids of '" + term_ + "' overlap an older run");
      }
      docs_.push_back(d);
      weights_.push_back(cursor.weight());
    }
    DPS_RETURN_IF_ERROR(cursor.status());
    with_positions |= run->has_positions();
  }
  const uint64_t weight_sum = std::accumulate(weights_.begin(), weights_.end(), uint64_t{0});
  if (with_positions) positions_.reserve(weight_sum);
  for (size_t i = 0; i < starts_.size(); ++i) {
    const size_t from = starts_[i].second;
    const size_t to = i + 1 < starts_.size() ? starts_[i + 1].second : docs_.size();
    RunReader* run = starts_[i].first;
    DPS_RETURN_IF_ERROR(run->ReadPositions(std::span(weights_).subspan(from, to - from), &positions_));
    DPS_RETURN_IF_ERROR(run->Next());
  }
  if (!positions_.empty() && positions_.size() != weight_sum) {
    return Status::Corruption("spill runs of '" + term_ + "': some lists have positions, some do not");
  }
  *found = true;
  return Status::OK();
}

Status RunSet::ForEachList(uint32_t bin, const IngestBuffer::ListSink& emit) {
  DPS_RETURN_IF_ERROR(SkipTo(bin));
  for (;;) {
    bool found = false;
    DPS_RETURN_IF_ERROR(NextList(bin, &found));
    if (!found || !emit(term_, docs_, weights_, positions_)) return Status::OK();
  }
}

Status RunSet::ReadLists(uint32_t bin, size_t min_postings, ListBatch* batch) {
  DPS_RETURN_IF_ERROR(SkipTo(bin));
  while (batch->docs.size() < min_postings) {
    bool found = false;
    DPS_RETURN_IF_ERROR(NextList(bin, &found));
    if (!found) break;
    batch->Add(term_, docs_, weights_, positions_);
  }
  return Status::OK();
}

Status WriteRunFile(const std::string& path, uint32_t first_bin, uint32_t last_bin,
                    const std::vector<uint8_t>& bin_has_data, const ListSource& lists,
                    bool* written) {
  *written = false;
  bool any = false;
  for (uint32_t bin = first_bin; bin <= last_bin; ++bin) any |= bin_has_data[bin];
  if (!any) return Status::OK();
  DPS_ASSIGN_OR_RETURN(auto writer, RunWriter::Create(path));
  for (uint32_t bin = first_bin; bin <= last_bin; ++bin) {
    if (!bin_has_data[bin]) continue;
    Status added;
    DPS_RETURN_IF_ERROR(lists(bin, [&](std::string_view term, std::span<const DocId> docs,
                                       std::span<const uint32_t> weights, std::span<const uint32_t> positions) {
      added = writer->Add(bin, term, docs, weights, positions);
      return added.ok();
    }));
    DPS_RETURN_IF_ERROR(added);
  }
  DPS_RETURN_IF_ERROR(writer->Finish());
  *written = true;
  return Status::OK();
}

Status WriteBufferRun(const std::string& path, uint32_t first_bin, uint32_t last_bin, IngestBuffer* buffer,
                      bool* written, size_t min_part_postings) {
  *written = false;
  bool any = false;
  for (uint32_t bin = first_bin; bin <= last_bin; ++bin) any |= !buffer->BinEmpty(bin);
  if (!any) return Status::OK();
  DPS_ASSIGN_OR_RETURN(auto writer, RunWriter::Create(path));
  const size_t threads = static_cast<size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  for (uint32_t bin = first_bin; bin <= last_bin; ++bin) {
    if (buffer->BinEmpty(bin)) continue;
    buffer->SortBin(bin);
    // Below min_part_postings, a task's start and its blocks' copy cost
    // more than it saves.
    const size_t parts_worth = std::max<size_t>(1, buffer->BinPostings(bin) / min_part_postings);
    const std::vector<size_t> cuts = buffer->SplitBin(bin, std::min(threads, parts_worth));
    const size_t parts = cuts.size() - 1;
    std::vector<RunBlockEncoder> encoders(parts);
    std::vector<Status> results(parts);
    tbb::parallel_for(size_t{0}, parts, [&](size_t p) {
      buffer->ForEachListIn(bin, cuts[p], cuts[p + 1],
                            [&](std::string_view term, std::span<const DocId> docs, std::span<const uint32_t> weights,
                                std::span<const uint32_t> positions) {
                              results[p] = encoders[p].Add(bin, term, docs, weights, positions);
                              return results[p].ok();
                            });
      encoders[p].Flush();
    });
    buffer->ReleaseBin(bin);
    for (size_t p = 0; p < parts; ++p) {
      DPS_RETURN_IF_ERROR(results[p]);
      DPS_RETURN_IF_ERROR(writer->AppendBlocks(*encoders[p].blocks()));
      std::string().swap(*encoders[p].blocks());
    }
  }
  DPS_RETURN_IF_ERROR(writer->Finish());
  *written = true;
  return Status::OK();
}

Status MergeRunFiles(std::span<const std::string> runs, const std::string& path, uint32_t first_bin,
                     uint32_t last_bin) {
  RunSet set;
  for (const std::string& run : runs) DPS_RETURN_IF_ERROR(set.Add(run));
  const std::vector<uint8_t> has(static_cast<size_t>(last_bin) + 1, 1);
  bool written = false;
  return WriteRunFile(
      path, first_bin, last_bin, has,
      [&set](uint32_t bin, const IngestBuffer::ListSink& emit) { return set.ForEachList(bin, emit); }, &written);
}

namespace {

// One batch of a bin's lists on its way through WriteBinLists: a range of
// the buffer's sorted log (gathered by the encoding stage) or lists the
// producer merged from runs, then their encodings.
struct EncodeBatch {
  size_t from = 0, to = 0;  // the buffer's range
  ListBatch lists;
  std::vector<TabletWriter::EncodedList> encoded;
  Status status;
};

// Postings a batch aims at: enough to amortize a task, few enough that the
// batches in flight stay small beside the writer's own buffers.
constexpr size_t kBatchPostings = size_t{1} << 15;

// Adds one bin's lists to the writer: the lists in batches, encoded by
// parallel tasks, added in term order by one.
Status WriteBinLists(const TabletBuild& build, uint32_t bin, TabletWriter* writer, uint64_t* postings) {
  std::vector<size_t> cuts;  // the buffer's ranges
  size_t next_range = 0;
  if (build.buffer != nullptr) {
    build.buffer->SortBin(bin);
    cuts = build.buffer->SplitBin(bin, std::max<size_t>(1, build.buffer->BinPostings(bin) / kBatchPostings));
  }
  Status status;
  std::mutex status_mu;
  auto fail = [&](Status s) {
    std::lock_guard<std::mutex> lock(status_mu);
    if (status.ok()) status = std::move(s);
  };
  auto failed = [&] {
    std::lock_guard<std::mutex> lock(status_mu);
    return !status.ok();
  };
  tbb::parallel_pipeline(
      build.list_threads + 1,
      tbb::make_filter<void, EncodeBatch*>(
          tbb::filter_mode::serial_in_order,
          [&](tbb::flow_control& fc) -> EncodeBatch* {
            if (failed()) {
              fc.stop();
              return nullptr;
            }
            auto batch = std::make_unique<EncodeBatch>();
            if (build.buffer != nullptr) {
              if (next_range + 1 >= cuts.size()) {
                fc.stop();
                return nullptr;
              }
              batch->from = cuts[next_range];
              batch->to = cuts[next_range + 1];
              ++next_range;
              return batch.release();
            }
            Status s = build.runs->ReadLists(bin, kBatchPostings, &batch->lists);
            if (!s.ok()) fail(std::move(s));
            if (!s.ok() || batch->lists.lists() == 0) {
              fc.stop();
              return nullptr;
            }
            return batch.release();
          }) &
          tbb::make_filter<EncodeBatch*, EncodeBatch*>(
              tbb::filter_mode::parallel,
              [&](EncodeBatch* batch) -> EncodeBatch* {
                ListBatch& lists = batch->lists;
                if (build.buffer != nullptr) {
                  build.buffer->ForEachListIn(bin, batch->from, batch->to,
                                              [&](std::string_view term, std::span<const DocId> docs,
                                                  std::span<const uint32_t> weights,
                                                  std::span<const uint32_t> positions) {
                                                lists.Add(term, docs, weights, positions);
                                                return true;
                                              });
                }
                batch->encoded.resize(lists.lists());
                size_t begin = 0, position_begin = 0;
                for (size_t i = 0; i < lists.lists() && batch->status.ok(); ++i) {
                  const size_t n = lists.ends[i] - begin;
                  batch->status = writer->EncodeList(
                      lists.terms[i], std::span(lists.docs).subspan(begin, n),
                      std::span(lists.weights).subspan(begin, n),
                      std::span(lists.positions).subspan(position_begin, lists.position_ends[i] - position_begin),
                      &batch->encoded[i]);
                  begin = lists.ends[i];
                  position_begin = lists.position_ends[i];
                }
                return batch;
              }) &
          tbb::make_filter<EncodeBatch*, void>(
              tbb::filter_mode::serial_in_order, [&](EncodeBatch* batch) {
                std::unique_ptr<EncodeBatch> owned(batch);
                if (!batch->status.ok()) return fail(batch->status);
                if (failed()) return;
                const ListBatch& lists = batch->lists;
                size_t begin = 0;
                for (size_t i = 0; i < lists.lists(); ++i) {
                  const size_t n = lists.ends[i] - begin;
                  Status s = writer->AddEncodedList(batch->encoded[i], std::span(lists.docs).subspan(begin, n),
                                                    std::span(lists.weights).subspan(begin, n));
                  if (!s.ok()) return fail(std::move(s));
                  *postings += n;
                  begin = lists.ends[i];
                }
              }));
  if (build.buffer != nullptr) build.buffer->ReleaseBin(bin);
  return status;
}

}  // namespace

Status BuildTabletFile(const TabletBuild& build, const std::vector<uint8_t>& bin_has_data,
                       TabletBuildResult* result) {
  *result = TabletBuildResult();
  bool any = false;
  for (uint32_t bin = build.first_bin; bin <= build.last_bin; ++bin) any |= bin_has_data[bin];
  if (!any) return Status::OK();
  DPS_ASSIGN_OR_RETURN(auto writer, TabletWriter::Create(build.path, build.options));
  for (uint32_t bin = build.first_bin; bin <= build.last_bin; ++bin) {
    if (!bin_has_data[bin]) continue;
    DPS_RETURN_IF_ERROR(writer->StartBin(BinId{bin}));
    if (build.docs != nullptr) {
      for (size_t c = 0; c < build.docs->columns(); ++c) writer->SetDocLengths(&build.docs->lengths(bin, c), c);
    }
    if (build.list_threads > 1) {
      DPS_RETURN_IF_ERROR(WriteBinLists(build, bin, writer.get(), &result->postings));
    } else {
      Status list_status;
      const IngestBuffer::ListSink add = [&](std::string_view term, std::span<const DocId> docs,
                                             std::span<const uint32_t> weights, std::span<const uint32_t> positions) {
        list_status = writer->AddPostingList(term, docs, weights, positions);
        result->postings += docs.size();
        return list_status.ok();
      };
      if (build.buffer != nullptr) {
        build.buffer->ForEachList(bin, add);
      } else if (build.runs != nullptr) {
        DPS_RETURN_IF_ERROR(build.runs->ForEachList(bin, add));
      }
      DPS_RETURN_IF_ERROR(list_status);
    }
    if (build.docs != nullptr) {
      DPS_RETURN_IF_ERROR(build.docs->ReadBin(
          bin, [&](DocId docid, std::string_view id, std::string_view title, std::string_view text) {
            return writer->AddDocument(docid, id, title, text);
          }));
    }
    if (build.tombstones != nullptr) {
      DPS_RETURN_IF_ERROR(writer->AddTombstones((*build.tombstones)[bin]));
    }
    DPS_RETURN_IF_ERROR(writer->FinishBin());
  }
  DPS_RETURN_IF_ERROR(writer->Finish());
  result->written = true;
  result->bytes = writer->bytes_written();
  result->sizes = writer->posting_sizes();
  result->inline_postings = writer->inline_postings();
  return Status::OK();
}

}  // namespace dps
