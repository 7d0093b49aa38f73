#include "trainer_runtime/data/file_source.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "fmt/format.h"

namespace trainpkg::data {

absl::StatusOr<std::unique_ptr<FileSource>> FileSource::Create(Options options) {
  if (!options.parser) return absl::InvalidArgumentError("FileSource needs a parser");
  if (options.epochs < -1) {
    return absl::InvalidArgumentError(
        fmt::format("epochs is {}; need >= 0, or -1 to repeat forever", options.epochs));
  }
  absl::StatusOr<ShardPlan> plan =
      PlanSharding(options.policy, options.files, options.rank, options.world_size);
  if (!plan.ok()) return plan.status();
  return std::unique_ptr<FileSource>(new FileSource(std::move(options), *std::move(plan)));
}

FileSource::FileSource(Options options, ShardPlan plan)
    : options_(std::move(options)), plan_(std::move(plan)) {}

absl::Status FileSource::LoadFile(size_t index) {
  const std::filesystem::path& path = plan_.files[index];
  absl::StatusOr<Dataset> loaded = options_.parser(path);
  if (!loaded.ok()) return loaded.status();
  if (loaded->element_shape() != options_.element_shape) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: elements have shape {}, expected {}", path.string(),
        nn::ShapeToString(loaded->element_shape()), nn::ShapeToString(options_.element_shape)));
  }
  const int64_t n = loaded->size();
  if (plan_.data_num_shards > 1) {
    // Keep global stream positions p = stream_index_ + i with p % k == index.
    const int64_t k = plan_.data_num_shards;
    const int64_t first = ((plan_.data_shard_index - stream_index_) % k + k) % k;
    std::vector<int64_t> keep;
    for (int64_t i = first; i < n; i += k) keep.push_back(i);
    current_ = loaded->Take(keep);
  } else {
    current_ = *std::move(loaded);
  }
  stream_index_ += n;
  position_ = 0;
  return absl::OkStatus();
}

absl::StatusOr<int64_t> FileSource::Read(int64_t max_elements, float* features, int32_t* labels) {
  if (!error_.ok()) return error_;
  const int64_t width = nn::NumElements(options_.element_shape);
  int64_t written = 0;
  while (written < max_elements) {
    if (position_ < current_.size()) {
      const int64_t run = std::min(max_elements - written, current_.size() - position_);
      std::memcpy(features + written * width, current_.features().data() + position_ * width,
                  run * width * sizeof(float));
      std::memcpy(labels + written, current_.labels().data() + position_, run * sizeof(int32_t));
      position_ += run;
      written += run;
      continue;
    }
    if (options_.epochs >= 0 && epoch_ >= options_.epochs) break;
    if (next_file_ == plan_.files.size()) {
      ++epoch_;
      next_file_ = 0;
      stream_index_ = 0;
      if (plan_.files.empty() || (options_.epochs >= 0 && epoch_ >= options_.epochs)) break;
      continue;
    }
    const size_t index = next_file_++;
    if (absl::Status s = LoadFile(index); !s.ok()) {
      error_ = s;
      return error_;
    }
  }
  return written;
}

}  // namespace trainpkg::data
