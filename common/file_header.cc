#include "common/file_header.h"

#include "common/coding.h"

namespace dps {

void EncodeFileHeader(const FileHeader& header, std::string* out) {
  PutFixed64(out, header.magic);
  PutFixed32(out, header.version);
  PutFixed32(out, header.flags);
}

Status CheckFileHeader(std::string_view bytes, const FileHeader& expected, uint32_t known_flags,
                       std::string_view kind, uint32_t* flags) {
  const std::string what(kind);
  if (bytes.size() < kFileHeaderSize) return Status::Corruption("offset 0: short " + what + " header");
  auto* h = reinterpret_cast<const uint8_t*>(bytes.data());
  if (DecodeFixed64(h) != expected.magic) return Status::Corruption("offset 0: not a " + what + " (bad magic)");
  const uint32_t version = DecodeFixed32(h + 8);
  if (version != expected.version) {
    return Status::Corruption("offset 8: " + what + " header says version " + std::to_string(version) +
                              ", expected " + std::to_string(expected.version));
  }
  const uint32_t f = DecodeFixed32(h + 12);
  if (f & ~known_flags) return Status::Corruption("offset 12: unknown " + what + " flag bits");
  if (flags != nullptr) *flags = f;
  return Status::OK();
}

}  // namespace dps
