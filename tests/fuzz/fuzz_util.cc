#include "tests/fuzz/fuzz_util.h"

#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdlib>
#include <filesystem>

#include "common/file.h"
#include "index/paged_file.h"

namespace dps::fuzz {

namespace {

std::string* scratch_dir = nullptr;

void RemoveScratch() {
  std::error_code ignored;
  std::filesystem::remove_all(*scratch_dir, ignored);
}

const std::string& ScratchDir() {
  if (scratch_dir == nullptr) {
    const char* base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::getenv("TMPDIR");
    scratch_dir = new std::string(std::string(base != nullptr ? base : "/tmp") + "/dps_fuzz." +
                                  std::to_string(getpid()));
    std::error_code ec;
    std::filesystem::create_directories(*scratch_dir, ec);
    if (ec) abort();
    std::atexit(RemoveScratch);
  }
  return *scratch_dir;
}

}  // namespace

void OrDie(const Status& s) {
  if (!s.ok()) abort();
}

std::string ScratchPath(std::string_view name) { return ScratchDir() + "/" + std::string(name); }

void WriteFileOrDie(const std::string& path, std::string_view bytes) {
  auto file = WritableFile::Create(path);
  if (!file.ok()) abort();
  OrDie(file.value()->Append(bytes));
  OrDie(file.value()->Close());
}

void WritePagedFileOrDie(const std::string& path, std::string_view body, uint64_t directory_offset,
                         uint64_t directory_size, uint32_t version) {
  auto file = PagedFileWriter::Create(path);
  if (!file.ok()) abort();
  OrDie(file.value()->Append(body));
  OrDie(file.value()->Finish(directory_offset, directory_size, version));
}

std::string Gzip(std::string_view in, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();  // +16: gzip
  std::string out(deflateBound(&z, in.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Zstd(std::string_view in, int level) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level);
  if (ZSTD_isError(n)) abort();
  out.resize(n);
  return out;
}

uint64_t TakeLE(std::string_view* in, size_t bytes) {
  if (in->size() < bytes) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= uint64_t{static_cast<uint8_t>((*in)[i])} << (8 * i);
  in->remove_prefix(bytes);
  return v;
}

}  // namespace dps::fuzz
