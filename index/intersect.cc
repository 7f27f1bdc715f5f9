#include "index/intersect.h"

namespace dps {

namespace {

// Returns the next docid >= d present in all cursors, or kEndDoc.
inline DocId Align(PostingCursor* const* c, size_t n, DocId d) {
  PostingCursor* lead = c[0];
  size_t i = 1;
  while (d != kEndDoc && i < n) {
    const DocId e = c[i]->Seek(d);
    if (e == d) {
      ++i;
    } else {
      d = lead->Seek(e);
      i = 1;
    }
  }
  return d;
}

}  // namespace

uint64_t CountIntersection(PostingCursor* const* c, size_t n) {
  uint64_t count = 0;
  if (n == 2) {
    // The two-term case dominates real query logs: keep it tight.
    PostingCursor* a = c[0];
    PostingCursor* b = c[1];
    DocId d = a->doc();
    while (d != kEndDoc) {
      const DocId e = b->Seek(d);
      if (e == d) {
        ++count;
        d = a->Next();
      } else {
        d = a->Seek(e);
      }
    }
    return count;
  }
  for (DocId d = Align(c, n, c[0]->doc()); d != kEndDoc; d = Align(c, n, c[0]->Next())) ++count;
  return count;
}

void CollectIntersection(PostingCursor* const* c, size_t n, size_t limit,
                         std::vector<DocId>* out) {
  for (DocId d = Align(c, n, c[0]->doc()); d != kEndDoc && limit > 0;
       d = Align(c, n, c[0]->Next()), --limit) {
    out->push_back(d);
  }
}

}  // namespace dps
