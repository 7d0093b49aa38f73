#include "trainer_runtime/ps/checkpoint_dir.h"

#include <algorithm>
#include <system_error>

#include "absl/strings/numbers.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::ps {
namespace {

constexpr std::string_view kPrefix = "ckpt-";
constexpr std::string_view kSuffix = ".tpckpt";
constexpr std::string_view kDoneFile = "training_done";

}  // namespace

std::filesystem::path CheckpointDir::PathFor(int64_t step) const {
  return dir_ / fmt::format("{}{:08d}{}", kPrefix, step, kSuffix);
}

absl::Status CheckpointDir::Write(int64_t step, const train::TensorBundle& bundle) {
  TP_RETURN_IF_ERROR(train::WriteTensorBundle(PathFor(step), bundle));
  // Older ones are pruned only after the new one is written (atomically), so
  // a failed write never leaves fewer checkpoints than before.
  if (max_to_keep_ <= 0) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(std::vector<int64_t> steps, Steps());
  for (size_t i = 0; i + static_cast<size_t>(max_to_keep_) < steps.size(); ++i) {
    std::error_code ec;
    std::filesystem::remove(PathFor(steps[i]), ec);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> CheckpointDir::Steps() const {
  std::vector<int64_t> steps;
  std::error_code ec;
  if (!std::filesystem::exists(dir_, ec)) return steps;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
        !name.ends_with(kSuffix)) {
      continue;
    }
    int64_t step = 0;
    const std::string digits =
        name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
    if (absl::SimpleAtoi(digits, &step)) steps.push_back(step);
  }
  if (ec) {
    return absl::InternalError(fmt::format("listing {}: {}", dir_.string(), ec.message()));
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

absl::StatusOr<std::optional<int64_t>> CheckpointDir::LatestStep() const {
  TP_ASSIGN_OR_RETURN(std::vector<int64_t> steps, Steps());
  if (steps.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(steps.back());
}

absl::Status CheckpointDir::MarkDone(int64_t final_step) {
  // Atomic: the evaluator polls for this file and must never read half of it.
  return base::WriteFileAtomic(dir_ / kDoneFile, fmt::format("{}\n", final_step));
}

bool CheckpointDir::IsDone() const {
  std::error_code ec;
  return std::filesystem::exists(dir_ / kDoneFile, ec);
}

absl::Status CheckpointDir::ClearDone() {
  std::error_code ec;
  std::filesystem::remove(dir_ / kDoneFile, ec);
  if (ec)
    return absl::InternalError(
        fmt::format("removing {}: {}", (dir_ / kDoneFile).string(), ec.message()));
  return absl::OkStatus();
}

}  // namespace trainpkg::ps
