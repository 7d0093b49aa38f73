#include "packager/builder/build_session.h"

#include <unistd.h>

#include <random>

#include "base/status_context.h"
#include "fmt/format.h"

namespace trainpkg::packager::builder {

absl::Status AtLine(const dockerfile::Dockerfile& file, const dockerfile::Instruction& instruction,
                    const absl::Status& status) {
  return base::WithContext(status, fmt::format("{}:{}: {}", file.path, instruction.lines.first_line,
                                               instruction.keyword));
}

ScopedWorkDir::ScopedWorkDir(const std::filesystem::path& root) {
  std::random_device random;
  // Builds share the cache dir: the pid and a random part keep two
  // processes, or two steps of one, from sharing a work dir.
  path_ = root / fmt::format("{}-{:08x}", ::getpid(), random());
}

ScopedWorkDir::~ScopedWorkDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace trainpkg::packager::builder
