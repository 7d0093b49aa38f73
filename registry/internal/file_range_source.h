// A BodySource reading `length` bytes of a file from `offset` with pread,
// so chunks of one blob file upload without loading it, and a rewind (an
// auth retry) starts the range again.
#ifndef TRAINPKG_REGISTRY_INTERNAL_FILE_RANGE_SOURCE_H_
#define TRAINPKG_REGISTRY_INTERNAL_FILE_RANGE_SOURCE_H_

#include <cstdint>
#include <filesystem>
#include <functional>

#include "http/http_transport.h"

namespace trainpkg::registry::internal {

class FileRangeSource final : public http::BodySource {
 public:
  // `fd` is not owned and must stay open. `on_position` (may be null) is
  // told the absolute file position after each read, for progress.
  FileRangeSource(int fd, std::filesystem::path path, uint64_t offset, uint64_t length,
                  std::function<void(uint64_t)> on_position)
      : fd_(fd),
        path_(std::move(path)),
        offset_(offset),
        length_(length),
        on_position_(std::move(on_position)) {}

  absl::StatusOr<size_t> Read(char* buffer, size_t size) override;
  std::optional<uint64_t> Size() const override { return length_; }
  bool Rewind() override {
    done_ = 0;
    return true;
  }

 private:
  int fd_;
  std::filesystem::path path_;
  uint64_t offset_;
  uint64_t length_;
  std::function<void(uint64_t)> on_position_;
  uint64_t done_ = 0;
};

}  // namespace trainpkg::registry::internal

#endif  // TRAINPKG_REGISTRY_INTERNAL_FILE_RANGE_SOURCE_H_
