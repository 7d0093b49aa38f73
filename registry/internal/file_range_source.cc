#include "registry/internal/file_range_source.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/file_util.h"

namespace trainpkg::registry::internal {

absl::StatusOr<size_t> FileRangeSource::Read(char* buffer, size_t size) {
  size_t want = static_cast<size_t>(std::min<uint64_t>(size, length_ - done_));
  if (want == 0) return 0;
  ssize_t n;
  do {
    n = ::pread(fd_, buffer, want, static_cast<off_t>(offset_ + done_));
  } while (n < 0 && errno == EINTR);
  if (n < 0) return base::ErrnoToStatus(errno, "reading " + path_.string());
  if (n == 0) {
    return absl::DataLossError(path_.string() + " is shorter than its descriptor says");
  }
  done_ += static_cast<uint64_t>(n);
  if (on_position_) on_position_(offset_ + done_);
  return static_cast<size_t>(n);
}

}  // namespace trainpkg::registry::internal
