// The lines a library logs through a std::function sink (a server's or a
// client's log, written from their threads), kept for a test to read.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace dps::testing {

class LogLines {
 public:
  std::function<void(const std::string&)> Sink() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.push_back(line);
    };
  }
  std::vector<std::string> Get() {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

}  // namespace dps::testing
