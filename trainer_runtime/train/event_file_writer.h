// A TensorBoard event file (what tf.summary's writer produces): TFRecords
// (internal/tfrecord.h) of Event protos (proto/event.proto, TensorFlow's
// field numbers), named events.out.tfevents.<unix seconds, 10 digits>.<host>.
// The first record carries file_version "brain.Event:2"; each WriteScalars
// adds one Event with a Summary of simple_value scalars and flushes it, so
// TensorBoard sees an epoch as soon as it is written. Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_EVENT_FILE_WRITER_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_EVENT_FILE_WRITER_H_

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trainpkg::train {

// The serialized Event {wall_time, step, summary {value {tag, simple_value}...}}.
std::string ScalarEvent(double wall_time, int64_t step,
                        const std::vector<std::pair<std::string, float>>& scalars);

class EventFileWriter {
 public:
  // Creates `dir` (with parents) and the file, and writes the version
  // record. The filesystem's error otherwise.
  static absl::StatusOr<std::unique_ptr<EventFileWriter>> Create(const std::filesystem::path& dir,
                                                                 std::string_view hostname,
                                                                 absl::Time now);
  ~EventFileWriter();
  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Appends one event and flushes. The filesystem's error.
  absl::Status WriteScalars(int64_t step, absl::Time wall_time,
                            const std::vector<std::pair<std::string, float>>& scalars);

 private:
  EventFileWriter(std::filesystem::path path, std::FILE* file)
      : path_(std::move(path)), file_(file) {}
  absl::Status Append(std::string_view event);

  std::filesystem::path path_;
  std::FILE* file_;
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_EVENT_FILE_WRITER_H_
