#include "query/cluster_roster.h"

#include <algorithm>

namespace dps {

std::string ServerIdentity::ToString() const {
  return "index " + index_id + " (" + std::to_string(bins) +
         " bins, " + std::to_string(tablets) + " tablets, analyzer " + analyzer.ToString() + (fields.empty() ? "" : ", fields " + fields.List()) + ")";
}

bool WarnedServers::First(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_.insert(address).second;
}

namespace {
std::string Span(uint32_t first, uint32_t last) { return std::to_string(first) + "-" + std::to_string(last); }

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}
}  // namespace

ClusterRoster::ClusterRoster(const std::vector<ClusterRange>* ranges, Log log, WarnedServers* warned)
    : ranges_(ranges), log_(std::move(log)), warned_(warned) {}

Status ClusterRoster::OnWelcome(const std::string& address, const Welcome& w) {
  std::string warning;
  Status s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Server& server = servers_[address];
    server.identity = ServerIdentity{w.index_id, w.bins, w.tablets, w.analyzer, w.fields};
    server.generation = w.generation;  // a restarted server may serve an older copy
    server.first_tablet = w.first_tablet;
    server.last_tablet = w.last_tablet;
    if (!identity_ || server.identity == *identity_) return Status::OK();
    // Its range does not matter: another index is refused whatever it hosts.
    // The link names the address.
    s = Status::InvalidArgument("server " + Reason(address, ClusterRange{w.first_tablet, w.last_tablet, {}}));
    if (warned_->First(address)) warning = WarningLocked(address);
  }
  if (!warning.empty() && log_) log_(warning);
  return s;
}

void ClusterRoster::SawGeneration(const std::string& address, uint64_t generation) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = servers_.find(address);
  if (it != servers_.end()) it->second.generation = std::max(it->second.generation, generation);
}

uint64_t ClusterRoster::NewestGeneration() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t newest = 0;
  for (const auto& [address, server] : servers_) newest = std::max(newest, server.generation);
  return newest;
}

// The identity most servers answered with. A tie has no answer: the file
// may mean either index, and guessing could answer from the wrong one.
Status ClusterRoster::PickIdentity() {
  std::map<std::string, std::pair<ServerIdentity, std::vector<std::string>>> groups;  // by ToString
  for (const auto& [address, server] : servers_) {
    auto& g = groups[server.identity.ToString()];
    g.first = server.identity;
    g.second.push_back(address);
  }
  size_t best = 0, ties = 0;
  for (const auto& [name, g] : groups) {
    if (g.second.size() > best) {
      best = g.second.size();
      identity_ = g.first;
      ties = 1;
    } else if (g.second.size() == best) {
      ++ties;
    }
  }
  if (ties == 1) return Status::OK();
  identity_.reset();
  std::vector<std::string> parts;
  for (const auto& [name, g] : groups) parts.push_back(Join(g.second, ", ") + " serve " + name);
  return Status::InvalidArgument("the servers disagree on the index and none is served by most of them: " +
                                 Join(parts, "; "));
}

Status ClusterRoster::Settle(bool allow_partial) {
  std::vector<std::string> warnings;
  {
    std::lock_guard<std::mutex> lock(mu_);
    DPS_RETURN_IF_ERROR(PickIdentity());
    const uint32_t tablets = identity_->tablets;
    for (const auto& r : *ranges_) {
      if (r.last_tablet >= tablets) {
        return Status::InvalidArgument("tablets " + r.name() + " are beyond the " + std::to_string(tablets) +
                                       " tablets of index " + identity_->index_id);
      }
    }
    FindUncovered();
    if (!uncovered_.empty() && !allow_partial) {
      return Status::InvalidArgument("tablets " + Join(uncovered_, ",") + " of index " + identity_->index_id +
                                     " (" + std::to_string(tablets) + " tablets) are not covered by any range");
    }
    std::vector<std::string> unusable;
    for (const auto& r : *ranges_) {
      if (std::string why = RangeRefusal(r); !why.empty()) unusable.push_back(why);
    }
    if (!unusable.empty()) return Status::InvalidArgument(Join(unusable, "; "));
    for (const auto& [address, server] : servers_) {
      const bool bad = std::any_of(ranges_->begin(), ranges_->end(), [&](const ClusterRange& r) {
        return std::count(r.replicas.begin(), r.replicas.end(), address) && !Reason(address, r).empty();
      });
      if (bad && warned_->First(address)) warnings.push_back(WarningLocked(address));
    }
  }
  if (log_) {
    for (const auto& w : warnings) log_(w);
  }
  return Status::OK();
}

void ClusterRoster::FindUncovered() {
  const uint32_t tablets = identity_->tablets;
  uncovered_.clear();
  uint32_t next = 0;  // the first tablet not yet covered by a range before
  for (const auto& r : *ranges_) {
    if (r.first_tablet > next && next < tablets) uncovered_.push_back(Span(next, std::min(r.first_tablet, tablets) - 1));
    next = std::max(next, r.last_tablet + 1);
  }
  if (next < tablets) uncovered_.push_back(Span(next, tablets - 1));
}

void ClusterRoster::Replace(std::vector<ClusterRange>* ranges, std::vector<ClusterRange> next) {
  std::lock_guard<std::mutex> lock(mu_);
  *ranges = std::move(next);
  // Ranges beyond the index (servers of another index) are never asked:
  // their replicas' Welcome does not match the cluster's identity.
  FindUncovered();
}

ServerIdentity ClusterRoster::identity() const {
  std::lock_guard<std::mutex> lock(mu_);
  return identity_.value();
}

Status ClusterRoster::Usable(const std::string& address, const ClusterRange& range) {
  std::string why, warning;
  {
    std::lock_guard<std::mutex> lock(mu_);
    why = Reason(address, range);
    if (why.empty()) return Status::OK();
    if (warned_->First(address)) warning = WarningLocked(address);
  }
  if (!warning.empty() && log_) log_(warning);
  return Status::InvalidArgument(address + " " + why);
}

Status ClusterRoster::RangeUsable(const ClusterRange& range) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string why = RangeRefusal(range);
  return why.empty() ? Status::OK() : Status::InvalidArgument(why);
}

std::string ClusterRoster::Reason(const std::string& address, const ClusterRange& range) const {
  auto it = servers_.find(address);
  if (it == servers_.end() || !identity_) return "";
  const Server& s = it->second;
  const ServerIdentity& want = *identity_;
  if (s.identity.index_id != want.index_id) return "is of another index (" + s.identity.ToString() + ")";
  if (!(s.identity == want)) return "serves " + s.identity.ToString() + ", the others " + want.ToString();
  if (range.first_tablet < s.first_tablet || range.last_tablet > s.last_tablet) {
    return "hosts tablets " + Span(s.first_tablet, s.last_tablet) + " only";
  }
  return "";
}

std::string ClusterRoster::RangeRefusal(const ClusterRange& range) const {
  std::vector<std::string> why;
  for (const auto& a : range.replicas) {
    std::string w = Reason(a, range);
    if (w.empty()) return "";
    why.push_back(a + " " + w);
  }
  return "tablets " + range.name() + " have no usable replica: " + Join(why, ", ");
}

// One line for the ranges `address` may not answer (the reason is the same
// for all: its identity, or the tablets it hosts).
std::string ClusterRoster::WarningLocked(const std::string& address) const {
  std::vector<std::string> names;
  std::string why;
  for (const auto& r : *ranges_) {
    if (!std::count(r.replicas.begin(), r.replicas.end(), address)) continue;
    if (std::string w = Reason(address, r); !w.empty()) {
      names.push_back(r.name());
      why = std::move(w);
    }
  }
  return "server " + address + " (replica of tablets " + Join(names, ",") + ") " + why +
         "; using the other replicas";
}

}  // namespace dps
