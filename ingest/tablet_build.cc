#include "ingest/tablet_build.h"

#include <algorithm>
#include <numeric>

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

namespace dps {

Status RunSet::Add(const std::string& path) {
  DPS_ASSIGN_OR_RETURN(auto reader, RunReader::Open(path));
  runs_.push_back(std::move(reader));
  return Status::OK();
}

Status RunSet::ForEachList(uint32_t bin, const IngestBuffer::ListSink& emit) {
  for (auto& run : runs_) {  // records of bins nobody asked for (none expected)
    while (run->Valid() && run->bin() < bin) DPS_RETURN_IF_ERROR(run->Next());
  }
  std::vector<DocId> docs;
  std::vector<uint32_t> weights, positions;
  std::string term;
  PostingCursor cursor;
  std::vector<std::pair<RunReader*, size_t>> starts;  // the term's runs, where their postings begin
  for (;;) {
    // Smallest current term; runs are few, so a linear scan beats a heap.
    const RunReader* best = nullptr;
    for (const auto& run : runs_) {
      if (run->Valid() && run->bin() == bin && (best == nullptr || run->term() < best->term())) {
        best = run.get();
      }
    }
    if (best == nullptr) return Status::OK();
    term.assign(best->term());
    docs.clear();
    weights.clear();
    positions.clear();
    // Postings first, then the positions into one exact reservation: a
    // frequent term's positions are the merge's largest array, and a
    // doubling vector would hold up to twice them.
    starts.clear();
    bool with_positions = false;
    for (auto& run : runs_) {  // oldest run first: docids ascend
      if (!run->Valid() || run->bin() != bin || run->term() != term) continue;
      DPS_RETURN_IF_ERROR(run->OpenList(&cursor));
      starts.emplace_back(run.get(), docs.size());
      for (DocId d = cursor.doc(); d != kEndDoc; d = cursor.Next()) {
        if (!docs.empty() && d <= docs.back()) {
          return Status::Corruption(run->path() + ": docids of '" + term + "' overlap an older run");
        }
        docs.push_back(d);
        weights.push_back(cursor.weight());
      }
      DPS_RETURN_IF_ERROR(cursor.status());
      with_positions |= run->has_positions();
    }
    if (with_positions) positions.reserve(std::accumulate(weights.begin(), weights.end(), size_t{0}));
    for (size_t i = 0; i < starts.size(); ++i) {
      const size_t from = starts[i].second;
      const size_t to = i + 1 < starts.size() ? starts[i + 1].second : docs.size();
      RunReader* run = starts[i].first;
      DPS_RETURN_IF_ERROR(run->ReadPositions(std::span(weights).subspan(from, to - from), &positions));
      DPS_RETURN_IF_ERROR(run->Next());
    }
    if (!positions.empty() && positions.size() != std::accumulate(weights.begin(), weights.end(), uint64_t{0})) {
      return Status::Corruption("spill runs of '" + term + "': some lists have positions, some do not");
    }
    if (!emit(term, docs, weights, positions)) return Status::OK();
  }
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
    std::vector<size_t> cuts = buffer->SplitBin(bin, threads);
    const size_t postings = cuts.back();
    // Below min_part_postings, a task's start and its blocks' copy cost
    // more than it saves.
    if (postings / min_part_postings < cuts.size() - 1) {
      cuts = buffer->SplitBin(bin, std::max<size_t>(1, postings / min_part_postings));
    }
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
    Status list_status;
    DPS_RETURN_IF_ERROR(build.lists(bin, [&](std::string_view term, std::span<const DocId> docs,
                                             std::span<const uint32_t> weights, std::span<const uint32_t> positions) {
      list_status = writer->AddPostingList(term, docs, weights, positions);
      result->postings += docs.size();
      return list_status.ok();
    }));
    DPS_RETURN_IF_ERROR(list_status);
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
