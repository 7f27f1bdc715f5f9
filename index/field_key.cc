#include "index/field_key.h"

#include <algorithm>

namespace dps {

std::string FieldKeyPrefix(std::string_view field) {
  std::string key;
  key.reserve(field.size() + 2);
  key.push_back(kFieldKeyMarker);
  key.append(field);
  key.push_back(':');
  return key;
}

std::string FieldKey(std::string_view field, std::string_view term) {
  std::string key = FieldKeyPrefix(field);
  key.append(term);
  return key;
}

std::string_view FieldOfKey(std::string_view key) {
  if (!IsFieldKey(key)) return {};
  const size_t colon = key.find(':', 1);
  return key.substr(1, (colon == std::string_view::npos ? key.size() : colon) - 1);
}

std::string_view TermOfKey(std::string_view key) {
  if (!IsFieldKey(key)) return key;
  const size_t colon = key.find(':', 1);
  return colon == std::string_view::npos ? std::string_view() : key.substr(colon + 1);
}

std::string DisplayKey(std::string_view key) {
  if (!IsFieldKey(key)) return std::string(key);
  std::string out(FieldOfKey(key));
  out.push_back(':');
  out.append(TermOfKey(key));
  return out;
}

bool ValidFieldName(std::string_view name) {
  if (name.empty() || name.size() > kMaxFieldNameBytes) return false;
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!letter(name[0])) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

Status FieldSet::Validate(const std::vector<std::string>& names) {
  if (names.size() > kMaxFields) {
    return Status::InvalidArgument(std::to_string(names.size()) + " fields, more than " + std::to_string(kMaxFields));
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!ValidFieldName(names[i])) {
      return Status::InvalidArgument("field name '" + names[i] +
                                     "' is not letters, digits and '_' starting with a letter or '_' (at most " +
                                     std::to_string(kMaxFieldNameBytes) + " bytes)");
    }
    if (std::find(names.begin(), names.begin() + static_cast<ptrdiff_t>(i), names[i]) !=
        names.begin() + static_cast<ptrdiff_t>(i)) {
      return Status::InvalidArgument("field '" + names[i] + "' is named twice");
    }
  }
  return Status::OK();
}

int FieldSet::ColumnOfField(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i + 1);
  }
  return -1;
}

int FieldSet::ColumnOf(std::string_view key) const {
  if (!IsFieldKey(key)) return 0;
  const size_t colon = key.find(':', 1);
  if (colon == std::string_view::npos) return -1;
  return ColumnOfField(key.substr(1, colon - 1));
}

std::string FieldSet::List() const {
  std::string out;
  for (const auto& n : names_) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace dps
