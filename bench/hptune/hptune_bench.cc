// Bayesian optimisation (trainpkg's default algorithm) vs random search on
// Branin (budget 30) and Hartmann6 (budget 60), as issue #7 asks: for each
// function and parallelTrialCount (1, 2), `--seeds` seeded studies per
// algorithm; prints the median simple regret (best found - known minimum)
// at the budget and the ratio Bayesian / random, and writes the rows as JSON.
//
// Parallel studies run as the tuning service does: up to P trials pending;
// the oldest finishes first, then the suggester fills the free slot with the
// finished and pending trials as history.
//
//   build-*/bench/hptune/hptune_bench [--seeds 30] [--first-seed 1] [--threads 2]
//                                     [--json out.json] [--function branin|hartmann6]
//                                     [--parallel 1 2] [--verbose]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/hptune/test_functions.h"
#include "fmt/format.h"
#include "jobspec/study_spec.h"
#include "nlohmann/json.hpp"
#include "sdk/hptune/suggester.h"

namespace trainpkg::bench {
namespace {

using sdk::hptune::Observation;

jobspec::StudySpec StudyFor(const TestFunction& function, jobspec::SearchAlgorithm algorithm) {
  jobspec::StudySpec spec;
  spec.metrics.push_back({"value", jobspec::GoalType::kMinimize});
  for (size_t i = 0; i < function.lower.size(); ++i) {
    jobspec::ParameterSpec parameter;
    parameter.parameter_id = fmt::format("x{}", i + 1);
    parameter.value_spec = jobspec::DoubleValueSpec{function.lower[i], function.upper[i], {}};
    parameter.scale_type = jobspec::ScaleType::kLinear;
    spec.parameters.push_back(parameter);
  }
  spec.algorithm = algorithm;
  return spec;
}

double Evaluate(const TestFunction& function, const sdk::hptune::TrialParameters& parameters) {
  std::vector<double> x(function.lower.size());
  for (const jobspec::TrialParameter& parameter : parameters) {
    x[std::stoi(parameter.parameter_id.substr(1)) - 1] = std::get<double>(parameter.value);
  }
  return function.evaluate(x);
}

// One study; returns the simple regret at the budget.
double RunStudy(const TestFunction& function, jobspec::SearchAlgorithm algorithm, int budget,
                int parallel, uint64_t seed) {
  auto suggester = sdk::hptune::MakeSuggester(StudyFor(function, algorithm), seed, budget);
  if (!suggester.ok()) {
    fmt::print(stderr, "hptune_bench: {}\n", std::string(suggester.status().message()));
    std::exit(1);
  }
  std::vector<Observation> history;
  std::deque<size_t> running;
  int started = 0;
  double best = 1e300;
  while (started < budget || !running.empty()) {
    const int free_slots = std::min(parallel - static_cast<int>(running.size()), budget - started);
    if (free_slots > 0) {
      auto suggestions = (*suggester)->Suggest(history, free_slots);
      if (!suggestions.ok()) {
        fmt::print(stderr, "hptune_bench: {}\n", std::string(suggestions.status().message()));
        std::exit(1);
      }
      for (auto& parameters : *suggestions) {
        history.push_back({std::move(parameters), std::nullopt, true});
        running.push_back(history.size() - 1);
        ++started;
      }
    }
    const size_t done = running.front();
    running.pop_front();
    const double value = Evaluate(function, history[done].parameters);
    history[done].objective = value;
    history[done].pending = false;
    best = std::min(best, value);
  }
  return best - function.minimum;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct Row {
  std::string function;
  int budget;
  int parallel;
  double bayesian_median;
  double random_median;
  double bayesian_seconds;
};

// Regrets of `seeds` studies, spread over `threads` threads.
std::vector<double> RunSeeds(const TestFunction& function, jobspec::SearchAlgorithm algorithm,
                             int budget, int parallel, int first_seed, int seeds, int threads) {
  std::vector<double> regrets(seeds);
  std::atomic<int> next{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&]() {
      for (int s = next++; s < seeds; s = next++) {
        regrets[s] =
            RunStudy(function, algorithm, budget, parallel, static_cast<uint64_t>(first_seed + s));
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  return regrets;
}

}  // namespace
}  // namespace trainpkg::bench

int main(int argc, char** argv) {
  using namespace trainpkg::bench;
  CLI::App app{"Bayesian optimisation vs random search on Branin and Hartmann6"};
  int seeds = 30;
  int first_seed = 1;
  int threads = 1;
  std::string json_path;
  std::vector<std::string> only;
  std::vector<int> parallel_counts = {1, 2};
  bool verbose = false;
  app.add_option("--seeds", seeds, "studies per algorithm and row")->check(CLI::PositiveNumber);
  app.add_option("--first-seed", first_seed, "seed of the first study (seeds first..first+N-1)")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "studies run at once")->check(CLI::PositiveNumber);
  app.add_option("--json", json_path, "also write the rows as JSON to this file");
  app.add_option("--function", only, "run only these functions (branin, hartmann6)");
  app.add_option("--parallel", parallel_counts, "parallelTrialCount values to run (1 2)");
  app.add_flag("--verbose", verbose, "also print every study's regret, sorted");
  CLI11_PARSE(app, argc, argv);

  struct Case {
    const TestFunction* function;
    int budget;
  };
  const Case cases[] = {{&Branin(), 30}, {&Hartmann6(), 60}};
  std::vector<Row> rows;
  fmt::print("{:<10} {:>6} {:>8} {:>16} {:>16} {:>10} {:>10}\n", "function", "budget", "parallel",
             "bayes median", "random median", "ratio", "bayes s");
  for (const Case& c : cases) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.function->name) == only.end())
      continue;
    for (int parallel : parallel_counts) {
      auto start = std::chrono::steady_clock::now();
      std::vector<double> bayes =
          RunSeeds(*c.function, trainpkg::jobspec::SearchAlgorithm::kUnspecified, c.budget,
                   parallel, first_seed, seeds, threads);
      double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::vector<double> random =
          RunSeeds(*c.function, trainpkg::jobspec::SearchAlgorithm::kRandomSearch, c.budget,
                   parallel, first_seed, seeds, threads);
      Row row{c.function->name, c.budget, parallel, Median(bayes), Median(random), seconds};
      fmt::print("{:<10} {:>6} {:>8} {:>16.5f} {:>16.5f} {:>10.4f} {:>10.1f}\n", row.function,
                 row.budget, row.parallel, row.bayesian_median, row.random_median,
                 row.bayesian_median / row.random_median, row.bayesian_seconds);
      if (verbose) {
        std::sort(bayes.begin(), bayes.end());
        std::sort(random.begin(), random.end());
        fmt::print("  bayes:  {:.4f}\n  random: {:.4f}\n", fmt::join(bayes, " "),
                   fmt::join(random, " "));
      }
      std::fflush(stdout);
      rows.push_back(row);
    }
  }
  if (!json_path.empty()) {
    nlohmann::json out = nlohmann::json::array();
    for (const Row& row : rows) {
      out.push_back({{"function", row.function},
                     {"budget", row.budget},
                     {"parallel_trial_count", row.parallel},
                     {"seeds", seeds},
                     {"first_seed", first_seed},
                     {"bayesian_median_regret", row.bayesian_median},
                     {"random_median_regret", row.random_median},
                     {"ratio", row.bayesian_median / row.random_median},
                     {"bayesian_seconds", row.bayesian_seconds}});
    }
    std::ofstream(json_path) << out.dump(2) << "\n";
  }
  return 0;
}
