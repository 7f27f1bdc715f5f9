#include "ingest/stemmer.h"

#include <libstemmer.h>

#include <algorithm>
#include <climits>

namespace dps {

const std::vector<std::string>& Stemmer::Languages() {
  static const std::vector<std::string> languages = [] {
    std::vector<std::string> out;
    for (const char** name = sb_stemmer_list(); *name != nullptr; ++name) out.emplace_back(*name);
    std::sort(out.begin(), out.end());
    return out;
  }();
  return languages;
}

Status Stemmer::CheckLanguage(const std::string& language) {
  const auto& all = Languages();
  if (std::find(all.begin(), all.end(), language) != all.end()) return Status::OK();
  std::string list;
  for (const auto& l : all) list += (list.empty() ? "" : ", ") + l;
  return Status::InvalidArgument("stemmer '" + language + "': not one of libstemmer's (" + list + ")");
}

Result<std::unique_ptr<Stemmer>> Stemmer::Create(const std::string& language) {
  if (Status s = CheckLanguage(language); !s.ok()) return Status::Unsupported(s.message());
  sb_stemmer* stemmer = sb_stemmer_new(language.c_str(), "UTF_8");
  if (stemmer == nullptr) return Status::IOError("libstemmer: cannot create the " + language + " stemmer");
  return std::unique_ptr<Stemmer>(new Stemmer(stemmer));
}

Stemmer::~Stemmer() { sb_stemmer_delete(stemmer_); }

bool Stemmer::Stem(std::string* word) {
  if (auto it = memo_.find(*word); it != memo_.end()) {
    *word = it->second;
    return true;
  }
  if (word->size() > INT_MAX) return false;
  const sb_symbol* stem = sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(word->data()),
                                          static_cast<int>(word->size()));
  if (stem == nullptr) return false;
  std::string stemmed(reinterpret_cast<const char*>(stem), static_cast<size_t>(sb_stemmer_length(stemmer_)));
  if (memo_.size() == kMemoWords) memo_.clear();
  memo_.emplace(std::move(*word), stemmed);
  *word = std::move(stemmed);
  return true;
}

}  // namespace dps
