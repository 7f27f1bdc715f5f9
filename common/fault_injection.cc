#include "common/fault_injection.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <mutex>
#include <vector>

namespace dps::faults {

namespace detail {
std::atomic<bool> armed{false};
}

namespace {

struct ArmedRule {
  Rule rule;
  uint64_t seen = 0;    // matching calls
  uint64_t bytes = 0;   // kWrite: bytes of matching writes that went through
  uint64_t failed = 0;  // failures this rule caused
};

struct State {
  std::mutex mu;
  std::vector<ArmedRule> rules;
  std::array<uint64_t, kOps> calls{};
  uint64_t failures = 0;
};

State& state() {
  static State* s = new State();  // never destroyed: hooks may run during exit
  return *s;
}

int ErrorOf(const Rule& r) {
  if (r.error != 0) return r.error;
  return r.op == Op::kWrite ? ENOSPC : EIO;
}

bool Matches(const ArmedRule& a, Op op, const std::string& path) {
  return a.rule.op == op && a.failed < a.rule.times &&
         (a.rule.path.empty() || path.find(a.rule.path) != std::string::npos);
}

}  // namespace

const char* OpName(Op op) {
  static constexpr const char* kNames[kOps] = {"write", "sync", "syncdir", "rename", "read"};
  return kNames[static_cast<size_t>(op)];
}

void Arm(Rule rule) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.rules.push_back(ArmedRule{std::move(rule)});
  detail::armed.store(true, std::memory_order_relaxed);
}

void Count() { detail::armed.store(true, std::memory_order_relaxed); }

void Disarm() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  detail::armed.store(false, std::memory_order_relaxed);
  s.rules.clear();
  s.calls.fill(0);
  s.failures = 0;
}

uint64_t Calls(Op op) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.calls[static_cast<size_t>(op)];
}

uint64_t Failures() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.failures;
}

int BeforeWrite(const std::string& path, size_t* len) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.calls[static_cast<size_t>(Op::kWrite)];
  int error = 0;
  ArmedRule* culprit = nullptr;
  size_t allowed = *len;
  for (ArmedRule& a : s.rules) {
    if (!Matches(a, Op::kWrite, path)) continue;
    if (a.seen++ < a.rule.skip) continue;
    if (a.rule.bytes == kNever || a.bytes >= a.rule.bytes) {
      error = ErrorOf(a.rule);
      culprit = &a;
      break;
    }
    allowed = static_cast<size_t>(std::min<uint64_t>(allowed, a.rule.bytes - a.bytes));
  }
  if (culprit != nullptr) {
    ++culprit->failed;
    ++s.failures;
    return error;
  }
  for (ArmedRule& a : s.rules) {
    if (Matches(a, Op::kWrite, path)) a.bytes += allowed;
  }
  *len = allowed;
  return 0;
}

int Before(Op op, const std::string& path, uint64_t offset, uint64_t len) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.calls[static_cast<size_t>(op)];
  for (ArmedRule& a : s.rules) {
    if (!Matches(a, op, path)) continue;
    if (op == Op::kRead && a.rule.offset != kNever && (a.rule.offset < offset || a.rule.offset - offset >= len)) {
      continue;
    }
    if (a.seen++ < a.rule.skip) continue;
    ++a.failed;
    ++s.failures;
    return ErrorOf(a.rule);
  }
  return 0;
}

namespace {

// 'text' (appended, not "'" + ...: GCC 12 -Wrestrict false positive).
std::string Quoted(std::string_view text) {
  std::string q(1, '\'');
  q.append(text);
  q.push_back('\'');
  return q;
}

Status Bad(std::string_view part, const std::string& why) {
  std::string message = "fault rule ";
  message.append(Quoted(part)).append(": ").append(why);
  return Status::InvalidArgument(std::move(message));
}

Result<uint64_t> Number(std::string_view rule, std::string_view value) {
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return Bad(rule, Quoted(value) + " is not a whole number");
  }
  return n;
}

Result<Rule> ParseRule(std::string_view text) {
  Rule r;
  std::vector<std::string_view> parts;
  for (size_t from = 0;;) {
    const size_t comma = text.find(',', from);
    parts.push_back(text.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from));
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  bool known = false;
  for (size_t op = 0; op < kOps; ++op) {
    if (parts[0] == OpName(static_cast<Op>(op))) {
      r.op = static_cast<Op>(op);
      known = true;
    }
  }
  if (!known) return Bad(text, "operation must be write, sync, syncdir, rename or read");
  for (size_t i = 1; i < parts.size(); ++i) {
    const size_t eq = parts[i].find('=');
    if (eq == std::string_view::npos) return Bad(text, Quoted(parts[i]) + " is not KEY=VALUE");
    const std::string_view key = parts[i].substr(0, eq), value = parts[i].substr(eq + 1);
    if (key == "path") {
      r.path = std::string(value);
      continue;
    }
    if (key == "errno" && (value == "ENOSPC" || value == "EIO")) {
      r.error = value == "ENOSPC" ? ENOSPC : EIO;
      continue;
    }
    DPS_ASSIGN_OR_RETURN(const uint64_t n, Number(text, value));
    if (key == "skip") {
      r.skip = n;
    } else if (key == "bytes") {
      r.bytes = n;
    } else if (key == "offset") {
      r.offset = n;
    } else if (key == "times") {
      r.times = n;
    } else if (key == "errno" && n > 0 && n < 4096) {
      r.error = static_cast<int>(n);
    } else {
      return Bad(text, "unknown key or value " + Quoted(parts[i]));
    }
  }
  return r;
}

}  // namespace

Status ArmFromSpec(std::string_view spec) {
  std::vector<Rule> rules;
  for (size_t from = 0; from <= spec.size();) {
    size_t semi = spec.find(';', from);
    if (semi == std::string_view::npos) semi = spec.size();
    const std::string_view text = spec.substr(from, semi - from);
    if (!text.empty()) {
      DPS_ASSIGN_OR_RETURN(Rule r, ParseRule(text));
      rules.push_back(std::move(r));
    }
    from = semi + 1;
  }
  for (Rule& r : rules) Arm(std::move(r));
  return Status::OK();
}

}  // namespace dps::faults
