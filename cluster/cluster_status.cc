#include "cluster/cluster_status.h"

#include <algorithm>
#include <map>

#include "cluster/connect_string.h"
#include "cluster/server_watch.h"
#include "cluster/zk_session.h"

namespace dps {

namespace {
std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}
}  // namespace

bool ClusterStatus::incomplete() const {
  return servers.empty() || std::any_of(replicas.begin(), replicas.end(), [](const auto& r) { return r.empty(); });
}

ClusterStatus SummarizeCluster(std::vector<ServerRecord> servers, uint32_t replicas_wanted) {
  ClusterStatus st;
  st.replicas_wanted = replicas_wanted;
  std::map<std::pair<std::string, uint32_t>, size_t> count;
  for (const auto& s : servers) ++count[{s.index_id, s.tablets}];
  size_t most = 0;
  for (const auto& [key, n] : count) {
    if (n > most) most = n, st.index_id = key.first, st.tablets = key.second;
  }
  st.replicas.assign(st.tablets, {});
  for (const auto& s : servers) {
    if (s.index_id != st.index_id || s.tablets != st.tablets) continue;
    for (const auto& span : s.hosted) {
      for (uint32_t t = span.first; t <= span.last && t < st.tablets; ++t) st.replicas[t].push_back(s.address);
    }
  }
  st.servers = std::move(servers);
  return st;
}

std::string ClusterStatus::Format() const {
  std::string out = std::to_string(servers.size()) + (servers.size() == 1 ? " server" : " servers");
  if (!servers.empty()) out += ", index " + index_id + ", " + std::to_string(tablets) + " tablets";
  if (replicas_wanted > 0) out += ", " + std::to_string(replicas_wanted) + " replicas wanted";
  out += "\n";
  for (const auto& s : servers) {
    out += "server " + s.address + " generation " + std::to_string(s.generation) + " tablets " +
           (s.hosted.empty() ? std::string("none") : SpansToString(s.hosted));
    if (s.index_id != index_id || s.tablets != tablets) out += " (another index: " + s.index_id + ")";
    out += "\n";
  }
  for (uint32_t t = 0; t < tablets;) {
    uint32_t end = t;
    while (end + 1 < tablets && replicas[end + 1] == replicas[t]) ++end;
    const auto& r = replicas[t];
    out += "tablets " + std::to_string(t);
    if (end > t) {
      out += '-';  // appended apart: GCC 12 -O3 warns (-Wrestrict) on "-" + to_string
      out += std::to_string(end);
    }
    out += ": ";
    if (r.empty()) {
      out += "NO LIVE REPLICA\n";
    } else {
      out += std::to_string(r.size()) + (r.size() == 1 ? " replica " : " replicas ") + Join(r);
      if (replicas_wanted > 0 && r.size() < replicas_wanted) out += " (under-replicated)";
      out += "\n";
    }
    t = end + 1;
  }
  return out;
}

Result<ClusterStatus> ReadClusterStatus(const std::string& zookeeper, uint32_t timeout_ms) {
  DPS_ASSIGN_OR_RETURN(ZkAddress address, ParseZkAddress(zookeeper));
  auto session = ZkSession::Start(ZkSessionOptions{address.hosts, std::max<uint32_t>(timeout_ms, 400), {}});
  ServerWatch watch(session.get(), address.path, {}, {});
  if (!watch.WaitForView(timeout_ms)) {
    return Status::IOError("--zookeeper " + zookeeper + ": ZooKeeper did not answer within " +
                           std::to_string(timeout_ms) + " ms");
  }
  uint32_t wanted = 0;
  auto replicas = session->Get(address.path + "/replicas", /*watch=*/false);
  if (replicas.ok()) wanted = static_cast<uint32_t>(std::strtoul(replicas->c_str(), nullptr, 10));
  return SummarizeCluster(watch.view().servers, wanted);
}

}  // namespace dps
