#include "cluster/connect_string.h"

#include <cstdlib>

namespace dps {

namespace {

// "HOST:PORT" or "[V6]:PORT"; "" when fine, else why not.
std::string CheckHost(const std::string& host) {
  const size_t colon = host.rfind(':');
  if (host.empty()) return "an empty host";
  if (colon == std::string::npos) return "host '" + host + "' has no :PORT";
  if (colon == 0) return "'" + host + "' has no host before the port";
  const std::string port = host.substr(colon + 1);
  char* end = nullptr;
  const unsigned long n = std::strtoul(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || port[0] == '-' || port[0] == '+' || n == 0 || n > 65535) {
    return "host '" + host + "' has a bad port (1-65535)";
  }
  return "";
}

}  // namespace

Result<ZkAddress> ParseZkAddress(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("--zookeeper " + text + ": " + why + " (expected HOST:PORT[,HOST:PORT...]/PATH)");
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return bad("no /PATH");
  ZkAddress out;
  out.hosts = text.substr(0, slash);
  out.path = text.substr(slash);
  if (out.hosts.empty()) return bad("no HOST:PORT");
  size_t start = 0;
  while (true) {
    const size_t comma = out.hosts.find(',', start);
    const std::string host = out.hosts.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (std::string why = CheckHost(host); !why.empty()) return bad(why);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.path == "/") return bad("PATH must name a node below the root");
  if (out.path.back() == '/') return bad("PATH ends with '/'");
  for (size_t i = 1; i <= out.path.size();) {
    const size_t next = std::min(out.path.find('/', i), out.path.size());
    const std::string part = out.path.substr(i, next - i);
    if (part.empty() || part == "." || part == "..") return bad("PATH has an empty, '.' or '..' component");
    i = next + 1;
  }
  return out;
}

}  // namespace dps
