#include "ingest/concat_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/file.h"

namespace dps {

namespace {

class ConcatReader final : public DocumentReader {
 public:
  ConcatReader(std::vector<std::string> inputs, std::optional<uint64_t> total,
               const ReaderOptions& options)
      : DocumentReader(options), inputs_(std::move(inputs)), total_(total) {}

  uint64_t bytes_read() const override {
    return finished_bytes_ + (current_ ? current_->bytes_read() : 0);
  }
  std::optional<uint64_t> total_bytes() const override { return total_; }

 protected:
  Result<bool> ReadNext(RawDocument* doc) override {
    for (;;) {
      if (current_ == nullptr) {
        if (next_input_ == inputs_.size()) return false;
        DPS_ASSIGN_OR_RETURN(current_, OpenReader(inputs_[next_input_++], options_));
      }
      DPS_ASSIGN_OR_RETURN(bool more, current_->Next(doc));
      if (more) return true;
      ReaderStats finished = current_->stats();
      finished.documents = 0;  // already counted by our own Next
      stats_.Merge(finished);
      finished_bytes_ += current_->bytes_read();
      current_.reset();
    }
  }

 private:
  const std::vector<std::string> inputs_;
  const std::optional<uint64_t> total_;
  size_t next_input_ = 0;
  std::unique_ptr<DocumentReader> current_;
  uint64_t finished_bytes_ = 0;
};

}  // namespace

Result<std::unique_ptr<DocumentReader>> OpenReaders(const std::vector<std::string>& inputs,
                                                    const ReaderOptions& options) {
  if (inputs.size() == 1) return OpenReader(inputs[0], options);
  if (inputs.empty()) return Status::InvalidArgument("no input given");
  std::optional<uint64_t> total = 0;
  for (const std::string& input : inputs) {
    struct stat st;
    int rc = input == "-" ? fstat(STDIN_FILENO, &st) : stat(input.c_str(), &st);
    if (rc != 0) return ErrnoError(input, "stat");
    if (total && S_ISREG(st.st_mode)) {
      *total += static_cast<uint64_t>(st.st_size);
    } else {
      total.reset();
    }
  }
  return std::unique_ptr<DocumentReader>(std::make_unique<ConcatReader>(inputs, total, options));
}

}  // namespace dps
