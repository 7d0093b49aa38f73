#include "trainer_runtime/train/event_file_writer.h"

#include <cerrno>
#include <system_error>

#include "base/file_util.h"
#include "fmt/format.h"
#include "trainer_runtime/train/internal/tfrecord.h"
#include "trainer_runtime/train/proto/event.pb.h"

namespace trainpkg::train {
namespace {

double UnixSeconds(absl::Time t) { return static_cast<double>(absl::ToUnixMicros(t)) / 1e6; }

}  // namespace

std::string ScalarEvent(double wall_time, int64_t step,
                        const std::vector<std::pair<std::string, float>>& scalars) {
  tensorboard::Event event;
  event.set_wall_time(wall_time);
  event.set_step(step);
  tensorboard::Summary* summary = event.mutable_summary();
  for (const auto& [tag, value] : scalars) {
    tensorboard::SummaryValue* v = summary->add_value();
    v->set_tag(tag);
    v->set_simple_value(value);
  }
  return event.SerializeAsString();
}

absl::StatusOr<std::unique_ptr<EventFileWriter>> EventFileWriter::Create(
    const std::filesystem::path& dir, std::string_view hostname, absl::Time now) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return base::ErrnoToStatus(error.value(), fmt::format("creating {}", dir.string()));
  const std::filesystem::path path =
      // TensorBoard reads only files whose names contain "tfevents"; this is the
      // name TF's own writer uses.
      dir / fmt::format("events.out.tfevents.{:010d}.{}", absl::ToUnixSeconds(now), hostname);
  std::FILE* file = std::fopen(path.c_str(), "ab");
  if (file == nullptr) return base::ErrnoToStatus(errno, fmt::format("opening {}", path.string()));
  std::unique_ptr<EventFileWriter> writer(new EventFileWriter(path, file));
  tensorboard::Event version;
  version.set_wall_time(UnixSeconds(now));
  // The first record of every event file, as TF writes it.
  version.set_file_version("brain.Event:2");
  absl::Status status = writer->Append(version.SerializeAsString());
  if (!status.ok()) return status;
  return writer;
}

EventFileWriter::~EventFileWriter() { std::fclose(file_); }

absl::Status EventFileWriter::WriteScalars(
    int64_t step, absl::Time wall_time, const std::vector<std::pair<std::string, float>>& scalars) {
  return Append(ScalarEvent(UnixSeconds(wall_time), step, scalars));
}

absl::Status EventFileWriter::Append(std::string_view event) {
  const std::string record = internal::FrameTfRecord(event);
  if (std::fwrite(record.data(), 1, record.size(), file_) != record.size() ||
      // Flushed per event so TensorBoard shows each epoch while training runs.
      std::fflush(file_) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("writing {}", path_.string()));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::train
