#include "index/term_range.h"

namespace dps {

Status ForEachKeyWithPrefix(const TermDictReader& dict, std::string_view prefix,
                            const std::function<void(std::string_view key, std::string_view value)>& visit) {
  TermDictCursor c(&dict);
  for (c.Seek(prefix); c.Valid() && c.key().starts_with(prefix); c.Next()) visit(c.key(), c.value());
  return c.status();
}

}  // namespace dps
