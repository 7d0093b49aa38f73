#include "trainer_runtime/ps/evaluator.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <system_error>

#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/log.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "trainer_runtime/ps/checkpoint_dir.h"
#include "trainer_runtime/train/event_file_writer.h"

namespace trainpkg::ps {
namespace {

// The last step already in the metrics file; -1 when none.
absl::StatusOr<int64_t> LastEvaluatedStep(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return int64_t{-1};
  TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(file));
  int64_t last = -1;
  int line_number = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    ++line_number;
    if (line.empty()) continue;
    nlohmann::json j = base::ParseJson(line).value_or(nlohmann::json::value_t::discarded);
    if (!j.is_object() || !j.contains("step") || !j["step"].is_number_integer()) {
      return absl::DataLossError(fmt::format("{}:{}: not a JSON object with an integer \"step\"",
                                             file.string(), line_number));
    }
    last = std::max(last, j["step"].get<int64_t>());
  }
  return last;
}

}  // namespace

absl::StatusOr<int> RunEvaluator(const EvaluatorOptions& options,
                                 const CheckpointEvaluation& evaluate) {
  CheckpointDir dir(options.checkpoint_dir);
  TP_ASSIGN_OR_RETURN(int64_t last, LastEvaluatedStep(options.metrics_file));
  std::unique_ptr<train::EventFileWriter> events;
  int evaluated = 0;
  base::Clock& clock = options.clock != nullptr ? *options.clock : base::RealClock();
  absl::Time last_progress = clock.Now();
  for (;;) {
    const bool done = dir.IsDone();  // before listing: every checkpoint of a done run is listed
    TP_ASSIGN_OR_RETURN(std::vector<int64_t> steps, dir.Steps());
    bool progressed = false;
    for (int64_t step : steps) {
      if (step <= last) continue;
      const std::filesystem::path path = dir.PathFor(step);
      absl::StatusOr<train::TensorBundle> bundle = train::ReadTensorBundle(path);
      if (absl::IsNotFound(bundle.status())) continue;  // pruned before its turn
      if (!bundle.ok()) return bundle.status();
      absl::StatusOr<EvalMetrics> metrics = evaluate(*bundle);
      if (!metrics.ok()) {
        return base::WithContext(metrics.status(), fmt::format("evaluating {}", path.string()));
      }
      nlohmann::ordered_json line = {{"step", step},
                                     {"checkpoint", path.filename().string()},
                                     {"loss", metrics->loss},
                                     {"accuracy", metrics->accuracy}};
      TP_RETURN_IF_ERROR(base::AppendToFile(options.metrics_file, line.dump() + "\n"));
      if (!options.tensorboard_dir.empty()) {
        if (events == nullptr) {
          TP_ASSIGN_OR_RETURN(events, train::EventFileWriter::Create(
                                          options.tensorboard_dir, options.hostname, clock.Now()));
        }
        TP_RETURN_IF_ERROR(
            events->WriteScalars(step, clock.Now(),
                                 {{"loss", static_cast<float>(metrics->loss)},
                                  {"accuracy", static_cast<float>(metrics->accuracy)}}));
      }
      TP_LOG(INFO, "evaluated {}: loss {:.4f} accuracy {:.4f}", path.filename().string(),
             metrics->loss, metrics->accuracy);
      last = step;
      ++evaluated;
      progressed = true;
    }
    if (done) return evaluated;
    if (progressed) {
      last_progress = clock.Now();
    } else if (clock.Now() - last_progress > options.idle_timeout) {
      return absl::DeadlineExceededError(
          fmt::format("evaluator: no new checkpoint in {} for {} and training is not marked done",
                      options.checkpoint_dir.string(), absl::FormatDuration(options.idle_timeout)));
    }
    clock.SleepFor(options.poll_interval);
  }
}

}  // namespace trainpkg::ps
