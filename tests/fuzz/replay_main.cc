// Replays fuzz inputs through a target's LLVMFuzzerTestOneInput without
// libFuzzer, so every build (GCC release and ASan, clang) runs each
// target's seed corpus as a ctest test (`fuzz_replay.<target>`), and a
// crash a fuzzer once found stays fixed. Usage: <target>_replay PATH...,
// each a file or a directory whose files are replayed in name order. A
// failing input (an abort, a signal, a sanitizer report) is named on
// stderr before the process dies.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Present when a sanitizer runtime is linked in (it then reports and exits
// without a signal); weak, so the plain build links too.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

const char* current = nullptr;  // the input being replayed

void NameCurrent() {
  if (current == nullptr) return;
  const char prefix[] = "replay: failing input: ";
  (void)!write(2, prefix, sizeof prefix - 1);
  (void)!write(2, current, std::strlen(current));
  (void)!write(2, "\n", 1);
}

void OnSignal(int sig) {
  NameCurrent();
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) signal(sig, OnSignal);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(NameCurrent);
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    if (std::filesystem::is_directory(argv[i])) {
      std::vector<std::string> files;
      for (const auto& e : std::filesystem::directory_iterator(argv[i])) {
        if (e.is_regular_file()) files.push_back(e.path().string());
      }
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (std::filesystem::is_regular_file(argv[i])) {
      inputs.push_back(argv[i]);
    } else {
      std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs (an empty corpus replays nothing: a mistake)\n");
    return 2;
  }
  for (const std::string& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
      return 2;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    current = path.c_str();
    // A copy of its own size, as libFuzzer passes it: ASan sees overreads.
    std::vector<uint8_t> data(bytes.begin(), bytes.end());
    static const uint8_t kEmpty = 0;  // never a null pointer, as with libFuzzer
    LLVMFuzzerTestOneInput(data.empty() ? &kEmpty : data.data(), data.size());
  }
  current = nullptr;
  std::printf("replay: %zu inputs, no failure\n", inputs.size());
  return 0;
}
