#include "index/manifest.h"

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "common/checksum.h"
#include "common/file.h"

namespace dps {

namespace {

std::string Hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

bool ParseU64(std::string_view s, uint64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

bool ParseU32(std::string_view s, uint32_t* v) {
  uint64_t w;
  if (!ParseU64(s, &w) || w > UINT32_MAX) return false;
  *v = static_cast<uint32_t>(w);
  return true;
}

bool SafeFileName(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  for (char c : name) {
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) return false;
  }
  return true;
}

std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

}  // namespace

std::string Manifest::Encode() const {
  std::string out = "dpsearch-manifest " + std::to_string(kManifestVersion) + "\n";
  out += "index-id " + index_id + "\n";
  out += "generation " + std::to_string(generation) + "\n";
  out += "bins " + std::to_string(bins) + "\n";
  out += "store-text " + std::string(store_text ? "1" : "0") + "\n";
  out += "analyzer " + analyzer.ToString() + "\n";
  out += "positions " + std::string(positions ? "1" : "0") + "\n";
  out += "fields";
  for (const auto& f : fields.names()) out += " " + f;
  out += "\n";
  out += "next-file " + std::to_string(next_file_number) + "\n";
  out += "global " + (global_index.empty() ? std::string("-") : global_index) + "\n";
  for (const auto& t : tablets) {
    out += "tablet " + std::to_string(t.first_bin) + "-" + std::to_string(t.last_bin);
    for (const auto& f : t.files) out += " " + f;
    out += "\n";
  }
  out += "checksum " + Hex64(Checksum64(out)) + "\n";
  return out;
}

Result<Manifest> Manifest::Decode(const std::string& text, const std::string& path) {
  auto error = [&](size_t line, const std::string& what) {
    return Status::Corruption(path + ": line " + std::to_string(line) + ": " + what);
  };
  // The checksum line covers every byte before it.
  const size_t at = text.rfind("checksum ");
  if (at == std::string::npos || (at > 0 && text[at - 1] != '\n')) {
    return Status::Corruption(path + ": no checksum line (truncated?)");
  }
  const std::string expect = "checksum " + Hex64(Checksum64(text.data(), at)) + "\n";
  if (text.compare(at, std::string::npos, expect) != 0) {
    return Status::Corruption(path + ": checksum mismatch at offset " + std::to_string(at));
  }
  Manifest m;
  std::istringstream in(text.substr(0, at));
  std::string line;
  size_t n = 0;
  bool seen_version = false, seen_bins = false, seen_id = false, seen_analyzer = false, seen_positions = false,
       seen_fields = false;
  while (std::getline(in, line)) {
    ++n;
    auto w = Words(line);
    if (w.empty()) continue;
    if (!seen_version) {
      uint32_t v;
      if (w.size() != 2 || w[0] != "dpsearch-manifest" || !ParseU32(w[1], &v)) {
        return error(n, "not a dpsearch MANIFEST");
      }
      if (v != kManifestVersion) {
        return Status::Unsupported(path + ": MANIFEST version " + w[1] + " (this build reads " +
                                   std::to_string(kManifestVersion) + ")" +
                                   (v < kManifestVersion ? "; re-ingest the documents" : ""));
      }
      seen_version = true;
      continue;
    }
    const std::string& key = w[0];
    bool ok = true;
    if (key == "index-id" && w.size() == 2) {
      m.index_id = w[1];
      ok = m.index_id.size() == 32 &&
           m.index_id.find_first_not_of("0123456789abcdef") == std::string::npos;
      seen_id = true;
    } else if (key == "generation" && w.size() == 2) {
      ok = ParseU64(w[1], &m.generation);
    } else if (key == "bins" && w.size() == 2) {
      ok = ParseU32(w[1], &m.bins) && m.bins > 0;
      seen_bins = true;
    } else if (key == "store-text" && w.size() == 2) {
      ok = w[1] == "0" || w[1] == "1";
      m.store_text = w[1] == "1";
    } else if (key == "analyzer" && w.size() >= 2) {
      // The spec's options are the line's further words.
      std::string text = w[1];
      for (size_t i = 2; i < w.size(); ++i) text += " " + w[i];
      auto spec = AnalyzerSpec::Parse(text);
      if (!spec.ok()) return error(n, spec.status().message());
      m.analyzer = std::move(spec).value();
      seen_analyzer = true;
    } else if (key == "positions" && w.size() == 2) {
      ok = w[1] == "0" || w[1] == "1";
      m.positions = w[1] == "1";
      seen_positions = true;
    } else if (key == "fields") {
      std::vector<std::string> names(w.begin() + 1, w.end());
      const Status valid = FieldSet::Validate(names);
      if (!valid.ok()) return error(n, valid.message());
      m.fields = FieldSet(std::move(names));
      seen_fields = true;
    } else if (key == "next-file" && w.size() == 2) {
      ok = ParseU64(w[1], &m.next_file_number);
    } else if (key == "global" && w.size() == 2) {
      m.global_index = w[1] == "-" ? "" : w[1];
      ok = m.global_index.empty() || SafeFileName(m.global_index);
    } else if (key == "tablet" && w.size() >= 2) {
      TabletEntry t;
      size_t dash = w[1].find('-');
      ok = dash != std::string::npos && ParseU32(w[1].substr(0, dash), &t.first_bin) &&
           ParseU32(w[1].substr(dash + 1), &t.last_bin) && t.first_bin <= t.last_bin;
      for (size_t i = 2; ok && i < w.size(); ++i) {
        ok = SafeFileName(w[i]);
        t.files.push_back(w[i]);
      }
      m.tablets.push_back(std::move(t));
    } else {
      return error(n, "unknown or malformed line '" + line + "'");
    }
    if (!ok) return error(n, "malformed value in '" + line + "'");
  }
  for (const auto& [seen, key] : {std::pair{seen_version, "version"}, {seen_id, "index-id"}, {seen_bins, "bins"},
                                   {seen_analyzer, "analyzer"}, {seen_positions, "positions"},
                                   {seen_fields, "fields"}}) {
    if (!seen) return Status::Corruption(path + ": missing its " + key + " line");
  }
  uint32_t expect_bin = 0;
  for (const auto& t : m.tablets) {
    if (t.first_bin != expect_bin) {
      return Status::Corruption(path + ": tablets do not cover bins contiguously at bin " +
                                std::to_string(expect_bin));
    }
    expect_bin = t.last_bin + 1;
  }
  if (expect_bin != m.bins || m.tablets.empty()) {
    return Status::Corruption(path + ": tablets cover " + std::to_string(expect_bin) + " of " +
                              std::to_string(m.bins) + " bins");
  }
  return m;
}

size_t Manifest::TabletOf(uint32_t bin) const {
  size_t lo = 0, hi = tablets.size();
  while (lo + 1 < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (tablets[mid].first_bin <= bin) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

Result<Manifest> ReadManifest(const std::string& dir) {
  const std::string path = dir + "/" + kManifestName;
  if (!FileExists(path)) return Status::NotFound(dir + ": no index here (no MANIFEST)");
  DPS_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return Manifest::Decode(text, path);
}

Status WriteManifest(const std::string& dir, const Manifest& manifest) {
  return WriteFileAtomically(dir + "/" + kManifestName, manifest.Encode());
}

std::vector<TabletEntry> SplitBins(uint32_t bins, uint32_t tablets) {
  std::vector<TabletEntry> out;
  if (tablets == 0 || bins == 0) return out;
  tablets = std::min(tablets, bins);
  for (uint32_t t = 0; t < tablets; ++t) {
    TabletEntry e;
    e.first_bin = static_cast<uint32_t>(uint64_t{bins} * t / tablets);
    e.last_bin = static_cast<uint32_t>(uint64_t{bins} * (t + 1) / tablets) - 1;
    out.push_back(e);
  }
  return out;
}

BinId BinOfId(std::string_view id, uint32_t bins) {
  return BinId{static_cast<uint32_t>(StableHash64(id) % bins)};
}

}  // namespace dps
