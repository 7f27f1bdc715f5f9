// Reads the JSONL sample corpora of ../shared/corpora/samples for the
// ingest tests and benchmarks. A deliberately small JSON reader: it handles
// the objects those files hold (flat, string or number values, as written
// by Python's json.dumps), not JSON in general; the real JSONL reader of
// ingest/ is what production uses.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/utf8.h"

namespace dps::testing {

// $DPS_CORPORA_SAMPLES, else ../shared/corpora/samples beside the checkout
// (DPS_SOURCE_DIR, which the build defines: __FILE__ is relative to the
// build directory, and a path made from it missed the samples, so the
// tests that read them were skipped). Empty if neither exists.
inline std::string SampleCorpusDir() {
  if (const char* env = std::getenv("DPS_CORPORA_SAMPLES")) return env;
#ifdef DPS_SOURCE_DIR
  std::string dir = std::string(DPS_SOURCE_DIR) + "/../shared/corpora/samples";
#else
  std::string here = __FILE__;  // <root>/tests/ingest/sample_corpus.h
  for (int i = 0; i < 3; ++i) here.erase(here.find_last_of('/'));
  std::string dir = here + "/../shared/corpora/samples";
#endif
  return std::ifstream(dir + "/brown.jsonl").good() ? dir : std::string();
}

struct SampleDoc {
  std::string id;
  std::string title;
  std::string text;
};

namespace internal {

inline int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline bool ParseHex4(std::string_view s, size_t at, char32_t* out) {
  if (at + 4 > s.size()) return false;
  char32_t v = 0;
  for (size_t i = at; i < at + 4; ++i) {
    int d = HexDigit(s[i]);
    if (d < 0) return false;
    v = v * 16 + static_cast<char32_t>(d);
  }
  *out = v;
  return true;
}

// Parses the JSON string starting at s[*i] == '"'; leaves *i after it.
inline bool ParseString(std::string_view s, size_t* i, std::string* out) {
  if (*i >= s.size() || s[*i] != '"') return false;
  for (size_t p = *i + 1; p < s.size(); ++p) {
    char c = s[p];
    if (c == '"') {
      *i = p + 1;
      return true;
    }
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (++p == s.size()) return false;
    switch (s[p]) {
      case 'n':
        out->push_back('\n');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'u': {
        char32_t cp;
        if (!ParseHex4(s, p + 1, &cp)) return false;
        p += 4;
        char32_t low;
        if (cp >= 0xD800 && cp <= 0xDBFF && p + 2 < s.size() && s[p + 1] == '\\' &&
            s[p + 2] == 'u' && ParseHex4(s, p + 3, &low) && low >= 0xDC00 && low <= 0xDFFF) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          p += 6;
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = kReplacementCharacter;
        AppendUtf8(cp, out);
        break;
      }
      default:
        out->push_back(s[p]);  // '"', '\\', '/'
    }
  }
  return false;
}

}  // namespace internal

// One document per line; fields other than id/title/text are ignored.
// Returns an empty vector if the file cannot be read.
inline std::vector<SampleDoc> ReadSampleCorpus(const std::string& path) {
  std::vector<SampleDoc> docs;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    SampleDoc doc;
    size_t i = line.find('{');
    if (i == std::string::npos) continue;
    ++i;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == ',')) ++i;
      std::string key, value;
      if (!internal::ParseString(line, &i, &key)) break;
      while (i < line.size() && (line[i] == ' ' || line[i] == ':')) ++i;
      if (i < line.size() && line[i] == '"') {
        if (!internal::ParseString(line, &i, &value)) break;
      } else {
        while (i < line.size() && line[i] != ',' && line[i] != '}') value.push_back(line[i++]);
      }
      if (key == "id") doc.id = value;
      if (key == "title") doc.title = value;
      if (key == "text") doc.text = value;
    }
    docs.push_back(std::move(doc));
  }
  return docs;
}

}  // namespace dps::testing
