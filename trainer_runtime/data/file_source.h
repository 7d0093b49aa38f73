// An ElementSource that streams a list of files, one file in memory at a
// time, sharded between workers with an AutoShardPolicy (shard_policy.h).
//
//   auto source = FileSource::Create({
//       .files = paths, .policy = AutoShardPolicy::kAuto,
//       .rank = info.rank, .world_size = info.world_size,
//       .element_shape = {64},
//       .parser = [](const std::filesystem::path& p) { return ReadCsv(p, {}); }});
//
// Files are read in list order (the plan's order) and elements in file
// order, so DATA sharding sees the same stream on every worker. `epochs`
// passes; each pass re-reads the files. Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_FILE_SOURCE_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_FILE_SOURCE_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/data/dataset.h"
#include "trainer_runtime/data/element_source.h"
#include "trainer_runtime/data/shard_policy.h"

namespace trainpkg::data {

// Reads one whole file into a Dataset (ReadCsv, LoadIdxDataset, ...). Its
// errors should name the file.
using FileParser = std::function<absl::StatusOr<Dataset>(const std::filesystem::path&)>;

class FileSource final : public ElementSource {
 public:
  struct Options {
    std::vector<std::filesystem::path> files;
    AutoShardPolicy policy = AutoShardPolicy::kAuto;
    int64_t rank = 0;
    int64_t world_size = 1;
    nn::Shape element_shape;  // every file's elements must have it
    FileParser parser;
    int64_t epochs = 1;  // -1 repeats forever
  };

  // InvalidArgument for PlanSharding's errors, a missing parser or epochs < -1.
  static absl::StatusOr<std::unique_ptr<FileSource>> Create(Options options);

  const nn::Shape& element_shape() const override { return options_.element_shape; }
  // Errors (returned again by every later call): the parser's, or InvalidArgument when a file's
  // element shape is not element_shape (naming the file and both shapes).
  absl::StatusOr<int64_t> Read(int64_t max_elements, float* features, int32_t* labels) override;

  // The plan this worker follows (which policy applied, which files).
  const ShardPlan& plan() const { return plan_; }

 private:
  FileSource(Options options, ShardPlan plan);
  absl::Status LoadFile(size_t index);

  Options options_;
  ShardPlan plan_;
  int64_t epoch_ = 0;
  size_t next_file_ = 0;      // index in plan_.files of the next file to load
  Dataset current_;           // the loaded file, already sharded
  int64_t position_ = 0;      // next element of current_
  int64_t stream_index_ = 0;  // elements seen in this epoch before current_ (DATA sharding)
  absl::Status error_;        // the first error; ends the stream
};

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_FILE_SOURCE_H_
