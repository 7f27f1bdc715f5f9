// libFuzzer target for the cluster file (DESIGN.md "Cluster file",
// query/cluster_file.h): ReadClusterFile of arbitrary text must refuse it
// with InvalidArgument or give ranges ascending by first tablet, none
// overlapping, first <= last, each with at least one HOST:PORT replica (a
// colon with text on both sides). Round trip: the ranges written back as a
// cluster file (no encoder exists: one line per range, as the file is
// documented) read back the same. Input: the file's text; the target
// writes it to a scratch file on tmpfs. Seeds in
// tests/fuzz/corpus/cluster_file_fuzz/ are cluster files like those the
// tests and docs use (comments, single tablets, several replicas), made by
// tests/fuzz/make_seeds.cc.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "query/cluster_file.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

void Check(const std::vector<dps::ClusterRange>& ranges) {
  if (ranges.empty()) abort();
  for (size_t i = 0; i < ranges.size(); ++i) {
    const dps::ClusterRange& r = ranges[i];
    if (r.first_tablet > r.last_tablet || r.replicas.empty()) abort();
    if (i > 0 && r.first_tablet <= ranges[i - 1].last_tablet) abort();
    for (const std::string& replica : r.replicas) {
      const size_t colon = replica.rfind(':');
      if (colon == std::string::npos || colon == 0 || colon + 1 == replica.size()) abort();
      if (replica.find_first_of(" \t\n#") != std::string::npos) abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = dps::fuzz::ScratchPath("cluster");
  dps::fuzz::WriteFileOrDie(path, std::string_view(reinterpret_cast<const char*>(data), size));
  auto ranges = dps::ReadClusterFile(path);
  if (!ranges.ok()) {
    if (!ranges.status().IsInvalidArgument()) abort();
    return 0;
  }
  Check(ranges.value());
  std::string text;
  for (const dps::ClusterRange& r : ranges.value()) {
    text += r.name();
    for (const std::string& replica : r.replicas) text += " " + replica;
    text += "\n";
  }
  const std::string again_path = dps::fuzz::ScratchPath("cluster.again");
  dps::fuzz::WriteFileOrDie(again_path, text);
  auto again = dps::ReadClusterFile(again_path);
  if (!again.ok() || again.value().size() != ranges.value().size()) abort();
  for (size_t i = 0; i < again.value().size(); ++i) {
    const dps::ClusterRange &a = again.value()[i], &b = ranges.value()[i];
    if (a.first_tablet != b.first_tablet || a.last_tablet != b.last_tablet || a.replicas != b.replicas) abort();
  }
  return 0;
}
