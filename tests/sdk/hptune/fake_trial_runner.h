// A TrialRunner for unit tests of the tuning service: trials are scripts of
// metric values, one written to the trial's metric file per tick; a tick is
// one poll interval (the service's sleep seam calls Tick()).
#ifndef TRAINPKG_TESTS_SDK_HPTUNE_FAKE_TRIAL_RUNNER_H_
#define TRAINPKG_TESTS_SDK_HPTUNE_FAKE_TRIAL_RUNNER_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sdk/hptune/trial_runner.h"

namespace trainpkg::sdk::hptune::testing {

struct TrialScript {
  std::vector<double> values;  // one metric value per tick
  bool fail = false;           // end FAILED instead of SUCCEEDED
};

class FakeTrialRunner final : public TrialRunner {
 public:
  // `script(job, n)` gives the n-th (1-based) started trial's script.
  explicit FakeTrialRunner(std::function<TrialScript(const jobspec::CustomJob&, int)> script)
      : script_(std::move(script)) {}

  absl::StatusOr<std::unique_ptr<RunningTrial>> Start(const jobspec::CustomJob& job) override;

  // Advances every running trial by one measurement (or to its end).
  void Tick();

  int max_running() const;
  int cancelled() const;
  std::vector<jobspec::CustomJob> started_jobs() const;

  struct State;

 private:
  std::function<TrialScript(const jobspec::CustomJob&, int)> script_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<State>> trials_;
  std::vector<jobspec::CustomJob> started_;
  int max_running_ = 0;
};

}  // namespace trainpkg::sdk::hptune::testing

#endif  // TRAINPKG_TESTS_SDK_HPTUNE_FAKE_TRIAL_RUNNER_H_
