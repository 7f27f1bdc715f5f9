#include "tests/fuzz/fuzz_tablet.h"

#include <cstdlib>
#include <vector>

#include "index/doc_lengths.h"
#include "index/tablet_writer.h"
#include "tests/fuzz/fuzz_util.h"

namespace dps::fuzz {

void WriteFuzzTablet(const std::string& path, bool positions) {
  TabletWriterOptions options;
  options.positions = positions;
  auto writer = TabletWriter::Create(path, options);
  if (!writer.ok()) abort();
  TabletWriter& w = *writer.value();
  BinLengthTable lengths;  // no documents: any length at least each weight
  for (DocId d = 3; d <= 3 + 300 * 11; d += 11) lengths.Set(d, 1000);
  for (uint32_t bin = 0; bin < 4; ++bin) {
    OrDie(w.StartBin(BinId{bin}));
    w.SetDocLengths(&lengths);
    for (uint32_t df : {1u, 2u, 7u, 9u, 300u}) {
      for (bool weighted : {false, true}) {
        std::vector<DocId> docs;
        std::vector<uint32_t> weights, where;
        for (uint32_t i = 0; i < df; ++i) {
          docs.push_back(3 + i * 11);
          weights.push_back(weighted && i % 3 == 1 ? 2 + i % 9 : 1);
          for (uint32_t k = 0; k < weights.back(); ++k) where.push_back(k * 7 + bin);
        }
        std::string term = std::to_string(1000 + df * 2 + weighted);
        term.insert(term.begin(), 't');  // (not "t" + ...: GCC 12 -Wrestrict false positive)
        OrDie(w.AddPostingList(term, docs, weights, where));
      }
    }
    OrDie(w.FinishBin());
  }
  OrDie(w.Finish());
}

}  // namespace dps::fuzz
