#include "ingest/jsonl_parser.h"

#include <simdjson.h>

#include "ingest/json_text.h"
#include "ingest/line_source.h"
#include "ingest/utf8.h"

namespace dps {

static_assert(kLinePadding >= simdjson::SIMDJSON_PADDING,
              "LineSource must leave the padding simdjson reads past a line");

namespace ondemand = simdjson::ondemand;

namespace {

// Lines longer than this are parsed without simdjson (ParseByHand).
constexpr size_t kParseByHandAbove = 1u << 20;

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

void SkipJsonSpace(std::string_view* s) {
  while (!s->empty() && IsJsonSpace(s->front())) s->remove_prefix(1);
}

std::string_view TrimTrailingSpace(std::string_view s) {
  while (!s.empty() && IsJsonSpace(s.back())) s.remove_suffix(1);
  return s;
}

const char* Describe(simdjson::error_code e) {
  switch (e) {
    case simdjson::UNCLOSED_STRING:
      return "unclosed string";
    case simdjson::UNESCAPED_CHARS:
      return "unescaped control character in a string";
    case simdjson::TAPE_ERROR:
      return "bad structure (missing or extra comma, colon, brace or key)";
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT:
      return "unterminated object or array";
    case simdjson::DEPTH_ERROR:
      return "nested too deeply";
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR:
      return "invalid literal (expected true, false or null)";
    case simdjson::NUMBER_ERROR:
      return "invalid number";
    case simdjson::STRING_ERROR:
      return "invalid string";
    case simdjson::CAPACITY:
      return "line too large for the JSON parser";
    default:
      return simdjson::error_message(e);
  }
}

Status Malformed(simdjson::error_code e) {
  return Status::InvalidArgument(std::string("malformed JSON: ") + Describe(e));
}

// Input text shortened and made safe for a one-line message.
std::string Excerpt(std::string_view text);

// What a value token is, for "must be X, not Y" messages.
std::string WhatIs(std::string_view token) {
  if (token.empty()) return "nothing";
  switch (token.front()) {
    case '{':
      return "an object";
    case '[':
      return "an array";
    case '"':
      return "a string";
    default:
      break;
  }
  if (token == "true" || token == "false") return "a boolean";
  if (token == "null") return "null";
  if (token.front() == '-' || (token.front() >= '0' && token.front() <= '9')) return "a number";
  std::string quoted = "'";  // not JSON at all
  quoted += Excerpt(token);
  quoted += '\'';
  return quoted;
}

std::string Excerpt(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string out(text.substr(0, kMax));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = '?';
  }
  if (text.size() > kMax) out += "...";
  return out;
}

std::string Quoted(const std::string& field) { return "\"" + field + "\""; }

}  // namespace

struct JsonlParser::Impl {
  explicit Impl(const ReaderOptions& o)
      : id_field(o.id_field), text_field(o.text_field), title_field(o.title_field), fields(o.fields) {}

  // The declared field `key` names, or -1.
  int FieldIndex(std::string_view key) const {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i] == key) return static_cast<int>(i);
    }
    return -1;
  }

  // A declared field's value, which starts at `value` and lies within the
  // line ending at `end`: a string, null, or an array of strings (decoded
  // by hand like the other fields; the object iterator steps over it).
  // *length: the bytes the value spans.
  Status FieldValues(const std::string& field, const char* value, const char* end, std::vector<std::string>* out,
                     size_t* length) {
    out->clear();
    std::string_view rest(value, static_cast<size_t>(end - value));
    auto skip_space = [&] { SkipJsonSpace(&rest); };
    if (rest.empty() || rest.front() != '[') {
      *length = TokenLength(rest);
      const std::string_view token = TrimTrailingSpace(rest.substr(0, *length));
      if (token == "null") return Status::OK();
      return String(token, field, &out->emplace_back(), "a string, an array of strings or null");
    }
    rest.remove_prefix(1);
    skip_space();
    if (!rest.empty() && rest.front() == ']') {
      *length = static_cast<size_t>(rest.data() + 1 - value);
      return Status::OK();
    }
    while (true) {
      skip_space();
      size_t item = 0;
      if (!SkipJsonValue(rest, &item)) {
        return Status::InvalidArgument("malformed JSON: bad value of field " + Quoted(field));
      }
      DPS_RETURN_IF_ERROR(String(rest.substr(0, item), field, &out->emplace_back(),
                                 "a string, an array of strings or null"));
      rest.remove_prefix(item);
      skip_space();
      if (!rest.empty() && rest.front() == ',') {
        rest.remove_prefix(1);
        continue;
      }
      if (!rest.empty() && rest.front() == ']') {
        *length = static_cast<size_t>(rest.data() + 1 - value);
        return Status::OK();
      }
      return Status::InvalidArgument("malformed JSON: bad value of field " + Quoted(field));
    }
  }

  // The length of the scalar token at the start of `rest` (up to a comma,
  // brace or the end), for FieldValues' message and null check.
  static size_t TokenLength(std::string_view rest) {
    size_t length = 0;
    return SkipJsonValue(rest, &length) ? length : rest.size();
  }

  // Decodes the string token of `field` into *out. `expected` names what the
  // field may hold, for the message.
  Status String(std::string_view token, const std::string& field, std::string* out,
                const char* expected = "a string") {
    if (token.size() < 2 || token.front() != '"' || token.back() != '"') {
      return Status::InvalidArgument("field " + Quoted(field) + " must be " + expected + ", not " +
                                     WhatIs(token));
    }
    if (!DecodeJsonString(token.substr(1, token.size() - 2), out, &replaced, &error)) {
      return Status::InvalidArgument("malformed JSON: field " + Quoted(field) + ": " + error);
    }
    return Status::OK();
  }

  Status Id(std::string_view token, std::string* out) {
    if (!token.empty() && token.front() == '"') {
      DPS_RETURN_IF_ERROR(String(token, id_field, out));
      if (out->empty()) return Status::InvalidArgument("field " + Quoted(id_field) + " is empty");
      return Status::OK();
    }
    if (IsJsonInteger(token)) {
      out->assign(CanonicalInteger(token));
      return Status::OK();
    }
    std::string what = WhatIs(token);
    if (what == "a number") what = Excerpt(token);  // show which: 4.5, 1e3
    return Status::InvalidArgument("field " + Quoted(id_field) +
                                   " must be a string or an integer, not " + what);
  }

  // Checks the value of an ignored field, which starts at `value` and lies
  // within the line ending at `end`; *length: the bytes it spans.
  static Status CheckSkipped(std::string_view key, const char* value, const char* end, size_t* length) {
    std::string_view rest(value, static_cast<size_t>(end - value));
    bool ok = SkipJsonValue(rest, length);
    if (ok) {
      // The value must end where the object's next comma or brace begins
      // (a value like 12abc is bad, not followed by something).
      rest.remove_prefix(*length);
      while (!rest.empty() && IsJsonSpace(rest.front())) rest.remove_prefix(1);
      ok = !rest.empty() && (rest.front() == ',' || rest.front() == '}');
    }
    if (ok) return Status::OK();
    return Status::InvalidArgument("malformed JSON: bad value of field \"" + Excerpt(key) + "\"");
  }

  // Checks that the value of member `key`, which ends at `after`, is
  // followed by the next member's comma or the object's closing brace
  // within the line ending at `end`, and sets *closing to that brace.
  static Status FollowsValue(std::string_view key, const char* after, const char* end, const char** closing) {
    std::string_view rest(after, static_cast<size_t>(end - after));
    SkipJsonSpace(&rest);
    if (rest.empty() || (rest.front() != ',' && rest.front() != '}')) {
      return Status::InvalidArgument("malformed JSON: expected ',' or '}' after the value of field \"" +
                                     Excerpt(key) + "\"");
    }
    *closing = rest.front() == '}' ? rest.data() : nullptr;
    return Status::OK();
  }

  Result<bool> Parse(std::string_view line, RawDocument* doc, uint64_t* replaced_out) {
    size_t first = 0;
    while (first < line.size() && IsJsonSpace(line[first])) ++first;
    if (first == line.size()) return false;

    if (line.size() > by_hand_above) return ParseByHand(line, first, doc, replaced_out);
    replaced = 0;
    std::string_view input = line;
    ondemand::document d;
    simdjson::error_code e =
        parser.iterate(input.data(), input.size(), input.size() + kLinePadding).get(d);
    if (e == simdjson::UTF8_ERROR) {
      // Rare: repair a copy of the line and parse that instead.
      repaired = SanitizeUtf8(line, &replaced);
      repaired.reserve(repaired.size() + kLinePadding);
      input = repaired;
      e = parser.iterate(input.data(), input.size(), repaired.capacity()).get(d);
    }
    if (e) return Malformed(e);

    ondemand::object object;
    if ((e = d.get_object().get(object))) {
      if (e == simdjson::INCORRECT_TYPE) {
        // The first token: up to the next space or structural character.
        std::string_view token = line.substr(first);
        token = token.substr(0, std::min(token.size(), token.find_first_of(" \t,:[]{}", 1)));
        return Status::InvalidArgument("expected a JSON object, not " + WhatIs(token));
      }
      return Malformed(e);
    }
    StartDocument(doc);
    const char* closing = nullptr;  // the object's '}', once a member is read
    for (auto field_or : object) {
      if (closing != nullptr) {
        return Status::InvalidArgument("malformed JSON: unexpected characters after the object");
      }
      ondemand::field field;
      std::string_view key;
      if ((e = std::move(field_or).get(field)) || (e = field.unescaped_key().get(key)))
        return Malformed(e);
      // The value is decoded (or, for other fields, checked) by hand from its
      // raw text (json_text.h); the object iterator steps over it afterwards.
      const std::string_view raw = field.value().raw_json_token();
      const char* end = input.data() + input.size();
      size_t length = 0;
      DPS_RETURN_IF_ERROR(Member(key, raw, end, doc, &length));
      // On-Demand steps from member to member without checking what lies
      // between them: {"id":"a":1,"text":"t"}} would pass. Check it here.
      DPS_RETURN_IF_ERROR(FollowsValue(key, raw.data() + length, end, &closing));
    }
    if (closing != nullptr) {
      std::string_view rest(closing + 1, static_cast<size_t>(input.data() + input.size() - closing - 1));
      SkipJsonSpace(&rest);
      if (!rest.empty()) return Status::InvalidArgument("malformed JSON: unexpected characters after the object");
    }
    // Only whitespace may follow the object: "{...} {...}" is two documents
    // on one line, which JSONL does not allow.
    const char* trailing = nullptr;
    e = d.current_location().get(trailing);
    if (e == simdjson::SUCCESS) {
      return Status::InvalidArgument("malformed JSON: unexpected characters after the object");
    }
    if (e != simdjson::OUT_OF_BOUNDS) return Malformed(e);
    return EndDocument(replaced_out);
  }

  void StartDocument(RawDocument* doc) {
    have_id = have_text = false;
    doc->title.clear();
    doc->fields.resize(fields.size());
    for (auto& values : doc->fields) values.clear();
  }

  Result<bool> EndDocument(uint64_t* replaced_out) {
    if (!have_id) return Status::InvalidArgument("missing field " + Quoted(id_field));
    if (!have_text) return Status::InvalidArgument("missing field " + Quoted(text_field));
    *replaced_out += replaced;
    return true;
  }

  // One member of the object: `raw` is its value's text (simdjson's token:
  // a scalar up to the next structural character, or only the opening
  // bracket of an array or object), within the line ending at `end`.
  // *length: the bytes the value spans, once checked.
  Status Member(std::string_view key, std::string_view raw, const char* end, RawDocument* doc, size_t* length) {
    if (const int f = FieldIndex(key); f >= 0) {
      DPS_RETURN_IF_ERROR(FieldValues(fields[static_cast<size_t>(f)], raw.data(), end,
                                      &doc->fields[static_cast<size_t>(f)], length));
      if (key != id_field && key != text_field && key != title_field) return Status::OK();
    }
    if (key != id_field && key != text_field && key != title_field) return CheckSkipped(key, raw.data(), end, length);
    // A string's token ends at its closing quote (simdjson starts a new
    // token at anything after it); any other is checked whole below.
    std::string_view token = TrimTrailingSpace(raw);
    *length = token.size();
    if (key == id_field) {
      DPS_RETURN_IF_ERROR(Id(token, &doc->id));
      have_id = true;
    } else if (key == text_field) {
      DPS_RETURN_IF_ERROR(String(token, text_field, &doc->text));
      have_text = true;
    } else if (token == "null") {
      doc->title.clear();  // "title": null is common in exported data
    } else {
      DPS_RETURN_IF_ERROR(String(token, title_field, &doc->title, "a string or null"));
    }
    return Status::OK();
  }

  // A long line without simdjson, whose index of the line's structure costs
  // a few times the line (67 MB for linuxsrc's 24 MB header, beside the
  // line and its text): the object is walked once, member by
  // member. Accepts and rejects what the simdjson path
  // does (tests/ingest/jsonl_long_line_test.cc); some messages are less
  // specific.
  Result<bool> ParseByHand(std::string_view line, size_t first, RawDocument* doc, uint64_t* replaced_out) {
    replaced = 0;
    std::string_view input = line;
    if (!IsValidUtf8(line)) {
      repaired = SanitizeUtf8(line, &replaced);
      input = repaired;
    }
    const char* const end = input.data() + input.size();
    std::string_view rest = input.substr(first);
    if (rest.front() != '{') {
      std::string_view token = rest.substr(0, std::min(rest.size(), rest.find_first_of(" \t,:[]{}", 1)));
      return Status::InvalidArgument("expected a JSON object, not " + WhatIs(token));
    }
    const Status bad = Status::InvalidArgument("malformed JSON: bad structure or value");
    // One walk: each member "key" : value, checked by the same recogniser
    // that checks skipped values, then a comma or the closing brace.
    StartDocument(doc);
    rest.remove_prefix(1);  // '{'
    SkipJsonSpace(&rest);
    bool more = rest.empty() || rest.front() != '}';
    if (!more) rest.remove_prefix(1);
    while (more) {
      SkipJsonSpace(&rest);
      size_t key_length = 0, value_length = 0;
      if (rest.empty() || rest.front() != '"' || !SkipJsonValue(rest, &key_length)) return bad;
      // simdjson refuses an unpaired surrogate in a key: so does this path.
      uint64_t key_replaced = 0;
      if (!DecodeJsonString(rest.substr(1, key_length - 2), &key, &key_replaced, &error) || key_replaced > 0) {
        return Status::InvalidArgument("malformed JSON: invalid string");
      }
      rest.remove_prefix(key_length);
      SkipJsonSpace(&rest);
      if (rest.empty() || rest.front() != ':') return bad;
      rest.remove_prefix(1);
      SkipJsonSpace(&rest);
      if (!SkipJsonValue(rest, &value_length)) return bad;
      size_t member_length = 0;  // value_length: measured already
      DPS_RETURN_IF_ERROR(Member(key, rest.substr(0, value_length), end, doc, &member_length));
      rest.remove_prefix(value_length);
      SkipJsonSpace(&rest);
      if (rest.empty() || (rest.front() != ',' && rest.front() != '}')) return bad;
      more = rest.front() == ',';
      rest.remove_prefix(1);
    }
    SkipJsonSpace(&rest);
    if (!rest.empty()) return Status::InvalidArgument("malformed JSON: unexpected characters after the object");
    return EndDocument(replaced_out);
  }

  ondemand::parser parser;
  size_t by_hand_above = kParseByHandAbove;
  bool have_id = false, have_text = false;
  std::string key;  // ParseByHand's decoded key
  const std::string id_field, text_field, title_field;
  const std::vector<std::string> fields;
  std::string repaired;   // the current line with invalid UTF-8 replaced
  std::string error;      // DecodeJsonString's message
  uint64_t replaced = 0;  // substitutions in the current line
};

JsonlParser::JsonlParser(const ReaderOptions& options) : impl_(new Impl(options)) {}
JsonlParser::~JsonlParser() = default;

Result<bool> JsonlParser::Parse(std::string_view line, RawDocument* doc, uint64_t* replaced) {
  Result<bool> result = impl_->Parse(line, doc, replaced);
  if (line.size() > impl_->by_hand_above) {
    // Kept for a long line only by hand: not the next one's.
    impl_->repaired = std::string();
    impl_->key = std::string();
  }
  return result;
}

void JsonlParser::ParseByHandAbove(size_t bytes) { impl_->by_hand_above = bytes; }

}  // namespace dps
