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
// With Optuna 3.1 installed (Debian python3-optuna, scripts/install-deps.sh
// --bench), every row also runs Optuna's TPE, multivariate TPE and CMA-ES
// on the same function, budget, parallelism and seeds (optuna_peer.py, run
// with --optuna-python) and prints ours / Optuna's median regret.
//
//   build-*/bench/hptune/hptune_bench [--seeds 30] [--first-seed 1] [--threads 2]
//                                     [--json out.json] [--function branin|hartmann6]
//                                     [--parallel 1 2 4] [--no-optuna] [--verbose]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
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

jobspec::ParameterSpec DoubleParameter(std::string id, double lower, double upper) {
  jobspec::ParameterSpec parameter;
  parameter.parameter_id = std::move(id);
  parameter.value_spec = jobspec::DoubleValueSpec{lower, upper, {}};
  parameter.scale_type = jobspec::ScaleType::kLinear;
  return parameter;
}

jobspec::StudySpec StudyFor(const TestFunction& function, jobspec::SearchAlgorithm algorithm) {
  jobspec::StudySpec spec;
  spec.metrics.push_back({"value", jobspec::GoalType::kMinimize});
  if (function.conditional) {
    jobspec::ParameterSpec model;
    model.parameter_id = "model";
    model.value_spec = jobspec::CategoricalValueSpec{{"hartmann6", "branin"}, {}};
    for (int i = 1; i <= 6; ++i) {
      model.conditional_parameter_specs.push_back({jobspec::ParentCategoricalValues{{"hartmann6"}},
                                                   DoubleParameter(fmt::format("x{}", i), 0, 1)});
    }
    model.conditional_parameter_specs.push_back(
        {jobspec::ParentCategoricalValues{{"branin"}}, DoubleParameter("y1", -5, 10)});
    model.conditional_parameter_specs.push_back(
        {jobspec::ParentCategoricalValues{{"branin"}}, DoubleParameter("y2", 0, 15)});
    spec.parameters.push_back(std::move(model));
  } else {
    for (size_t i = 0; i < function.lower.size(); ++i) {
      spec.parameters.push_back(
          DoubleParameter(fmt::format("x{}", i + 1), function.lower[i], function.upper[i]));
    }
  }
  spec.algorithm = algorithm;
  return spec;
}

double Evaluate(const TestFunction& function, const sdk::hptune::TrialParameters& parameters) {
  if (function.conditional) {
    bool hartmann6 = false;
    std::vector<double> x(6), y(2);
    for (const jobspec::TrialParameter& parameter : parameters) {
      const std::string& id = parameter.parameter_id;
      if (id == "model") {
        hartmann6 = std::get<std::string>(parameter.value) == "hartmann6";
      } else if (id[0] == 'x') {
        x[std::stoi(id.substr(1)) - 1] = std::get<double>(parameter.value);
      } else {
        y[std::stoi(id.substr(1)) - 1] = std::get<double>(parameter.value);
      }
    }
    return ConditionalValue(hartmann6, hartmann6 ? x : y);
  }
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

struct PeerResult {
  double median = 0;
  double seconds = 0;
};

struct Row {
  std::string function;
  int budget;
  int parallel;
  double bayesian_median;
  double random_median;
  double bayesian_seconds;
  std::map<std::string, PeerResult> optuna;  // by sampler: tpe, mtpe, cmaes
};

constexpr const char* kOptunaSamplers[] = {"tpe", "mtpe", "cmaes"};

// Runs optuna_peer.py for one row and sampler; nullopt (with the reason on
// stderr) when it fails or its function disagrees with ours.
std::optional<PeerResult> RunOptuna(const std::string& python, const TestFunction& function,
                                    const std::string& sampler, int budget, int parallel,
                                    int first_seed, int seeds) {
  const std::string command = fmt::format(
      "'{}' '{}' --function {} --budget {} --parallel {} --sampler {} --seeds {} --first-seed {}",
      python, OPTUNA_PEER, function.name, budget, parallel, sampler, seeds, first_seed);
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string output;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  if (::pclose(pipe) != 0) {
    fmt::print(stderr, "hptune_bench: {} failed\n", command);
    return std::nullopt;
  }
  nlohmann::json json = nlohmann::json::parse(output, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("regrets") || !json.contains("probe")) {
    fmt::print(stderr, "hptune_bench: {}: unexpected output {}\n", command, output);
    return std::nullopt;
  }
  std::vector<double> centre(function.lower.size());
  for (size_t i = 0; i < centre.size(); ++i) {
    centre[i] = (function.lower[i] + function.upper[i]) / 2;
  }
  const double ours = function.evaluate(centre), theirs = json["probe"].get<double>();
  if (std::fabs(ours - theirs) > 1e-9 * std::max(1.0, std::fabs(ours))) {
    fmt::print(stderr, "hptune_bench: optuna_peer.py's {} gives {} at the centre, ours {}\n",
               function.name, theirs, ours);
    return std::nullopt;
  }
  return PeerResult{Median(json["regrets"].get<std::vector<double>>()),
                    json["seconds"].get<double>()};
}

bool OptunaAvailable(const std::string& python) {
  const std::string command = fmt::format("'{}' -c 'import optuna' >/dev/null 2>&1", python);
  return std::system(command.c_str()) == 0;
}

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
  std::vector<int> parallel_counts = {1, 2, 4};
  bool verbose = false;
  bool no_optuna = false;
  std::string optuna_python = "/usr/bin/python3";
  app.add_option("--seeds", seeds, "studies per algorithm and row")->check(CLI::PositiveNumber);
  app.add_option("--first-seed", first_seed, "seed of the first study (seeds first..first+N-1)")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "studies run at once")->check(CLI::PositiveNumber);
  app.add_option("--json", json_path, "also write the rows as JSON to this file");
  app.add_option("--function", only, "run only these functions (branin, hartmann6, conditional)");
  app.add_option("--parallel", parallel_counts, "parallelTrialCount values to run (1 2 4)");
  app.add_flag("--no-optuna", no_optuna, "do not run the Optuna peers");
  app.add_option("--optuna-python", optuna_python,
                 "the Python with Optuna 3.1 (Debian's python3-optuna)")
      ->capture_default_str();
  app.add_flag("--verbose", verbose, "also print every study's regret, sorted");
  CLI11_PARSE(app, argc, argv);

  struct Case {
    const TestFunction* function;
    int budget;
  };
  const Case cases[] = {{&Branin(), 30}, {&Hartmann6(), 60}, {&Conditional(), 60}};
  const bool optuna = !no_optuna && OptunaAvailable(optuna_python);
  if (!no_optuna && !optuna) {
    fmt::print("Optuna peers skipped: {} cannot import optuna (scripts/install-deps.sh --bench)\n",
               optuna_python);
  }
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
      Row row{c.function->name, c.budget, parallel, Median(bayes), Median(random), seconds, {}};
      fmt::print("{:<10} {:>6} {:>8} {:>16.5f} {:>16.5f} {:>10.4f} {:>10.1f}\n", row.function,
                 row.budget, row.parallel, row.bayesian_median, row.random_median,
                 row.bayesian_median / row.random_median, row.bayesian_seconds);
      if (optuna) {
        for (const char* sampler : kOptunaSamplers) {
          std::optional<PeerResult> peer =
              RunOptuna(optuna_python, *c.function, sampler, c.budget, parallel, first_seed, seeds);
          if (!peer.has_value()) continue;
          row.optuna[sampler] = *peer;
          fmt::print("  optuna {:<6} median {:>10.5f}   ours / optuna {:>8.4f}   ({:.1f} s)\n",
                     sampler, peer->median, row.bayesian_median / peer->median, peer->seconds);
        }
      }
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
      for (const auto& [sampler, peer] : row.optuna) {
        out.back()["optuna_" + sampler + "_median_regret"] = peer.median;
        out.back()["ours_over_optuna_" + sampler] = row.bayesian_median / peer.median;
        out.back()["optuna_" + sampler + "_seconds"] = peer.seconds;
      }
    }
    std::ofstream(json_path) << out.dump(2) << "\n";
  }
  return 0;
}
