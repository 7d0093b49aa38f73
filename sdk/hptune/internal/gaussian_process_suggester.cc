#include "sdk/hptune/internal/gaussian_process_suggester.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>

#include "base/check.h"
#include "base/status_macros.h"
#include "nlopt.h"
#include "sdk/hptune/internal/call_rng.h"
#include "sdk/hptune/internal/gaussian_process.h"
#include "sdk/hptune/internal/pending_expected_improvement.h"
#include "sdk/hptune/internal/power_transform.h"
#include "sdk/hptune/internal/random_suggester.h"

namespace trainpkg::sdk::hptune::internal {
namespace {

constexpr int kTopTrials = 5;
constexpr int kRefined = 5;
constexpr int kRefineEvaluations = 100;
constexpr double kLocalSd = 0.1;
constexpr int kUnseenTries = 100;

// What the refinement sees at a point already in the history: log EI of
// e^-10^4, below any finite log EI of a fitted model.
constexpr double kSeenLogEi = -1e4;

struct Candidate {
  double log_ei = -std::numeric_limits<double>::infinity();
  Eigen::VectorXd raw;
  Point point;
  std::string key;
};

// log of the EI averaged over the hyperparameter samples, at the feasible
// point nearest `raw`; nullopt when that point was seen.
class Acquisition {
 public:
  Acquisition(const SearchSpace& space, const std::vector<PendingExpectedImprovement>& eis,
              const std::set<std::string>& seen)
      : space_(space), eis_(eis), seen_(seen) {}

  std::optional<Candidate> Evaluate(const Eigen::VectorXd& raw) const {
    Candidate candidate;
    candidate.raw = raw.cwiseMax(0.0).cwiseMin(1.0);
    candidate.point = space_.Decode(candidate.raw);
    candidate.key = space_.Key(candidate.point);
    if (seen_.count(candidate.key) > 0) return std::nullopt;
    const Eigen::VectorXd encoded = space_.Encode(candidate.point);
    Eigen::VectorXd terms(eis_.size());
    for (size_t k = 0; k < eis_.size(); ++k) terms[k] = eis_[k].LogValue(encoded);
    const double top = terms.maxCoeff();
    candidate.log_ei = top + std::log((terms.array() - top).exp().mean());
    return candidate;
  }

 private:
  const SearchSpace& space_;
  const std::vector<PendingExpectedImprovement>& eis_;
  const std::set<std::string>& seen_;
};

struct RefineData {
  const Acquisition* acquisition;
  Eigen::VectorXd raw;
  const std::vector<int>* variables;
  Candidate best;
};

double RefineObjective(unsigned n, const double* x, double* /*gradient*/, void* data) {
  auto* refine = static_cast<RefineData*>(data);
  Eigen::VectorXd raw = refine->raw;
  for (unsigned i = 0; i < n; ++i) raw[(*refine->variables)[i]] = x[i];
  std::optional<Candidate> candidate = refine->acquisition->Evaluate(raw);
  if (!candidate.has_value()) return kSeenLogEi;
  if (candidate->log_ei > refine->best.log_ei) refine->best = *candidate;
  return candidate->log_ei;
}

// Local refinement of `start` over the numeric features.
Candidate Refine(const Acquisition& acquisition, const std::vector<int>& variables,
                 const Candidate& start) {
  if (variables.empty()) return start;
  RefineData data{&acquisition, start.raw, &variables, start};
  const unsigned n = static_cast<unsigned>(variables.size());
  nlopt_opt opt = nlopt_create(n >= 2 ? NLOPT_LN_BOBYQA : NLOPT_LN_SBPLX, n);
  TP_CHECK(opt != nullptr, "nlopt_create failed");
  std::vector<double> lower(n, 0.0), upper(n, 1.0), x(n);
  for (unsigned i = 0; i < n; ++i) x[i] = start.raw[variables[i]];
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_upper_bounds(opt, upper.data());
  nlopt_set_max_objective(opt, RefineObjective, &data);
  nlopt_set_maxeval(opt, kRefineEvaluations);
  nlopt_set_xtol_abs1(opt, 1e-5);
  double value = 0;
  // The best point evaluated is tracked in `data.best` whatever the result code.
  nlopt_optimize(opt, x.data(), &value);
  nlopt_destroy(opt);
  return data.best;
}

// `n` points in [0,1]^f, each feature's n values one per stratum [i/n, (i+1)/n).
Eigen::MatrixXd LatinHypercube(int n, int f, uint64_t seed) {
  // Not CallRng's stream: the design is the same for every call.
  std::seed_seq sequence{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  std::mt19937_64 rng(sequence);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  Eigen::MatrixXd design(n, f);
  std::vector<int> strata(n);
  for (int j = 0; j < f; ++j) {
    std::iota(strata.begin(), strata.end(), 0);
    std::shuffle(strata.begin(), strata.end(), rng);
    for (int i = 0; i < n; ++i) design(i, j) = (strata[i] + uniform(rng)) / n;
  }
  return design;
}

}  // namespace

std::vector<int> GaussianProcessSuggester::ModelTrials(const std::vector<double>& y, int max,
                                                       std::mt19937_64& rng) {
  TP_CHECK(max >= 2, "max is {}", max);
  const int n = static_cast<int>(y.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (n <= max) return order;
  // Best first; ties by index, so the subset does not depend on the sort.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return y[a] > y[b]; });
  const int best = max / 2;
  // A partial Fisher-Yates shuffle of the others picks max - best of them.
  for (int i = best; i < max; ++i) {
    std::uniform_int_distribution<int> pick(i, n - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  order.resize(max);
  std::sort(order.begin(), order.end());
  return order;
}

int GaussianProcessSuggester::InitialTrials(const SearchSpace& space, int max_trial_count) {
  const int preferred = std::max(5, 2 * space.feature_count());
  if (max_trial_count <= 0) return preferred;
  return std::min(preferred, std::max(2, max_trial_count / 2));
}

GaussianProcessSuggester::GaussianProcessSuggester(const jobspec::StudySpec& spec, uint64_t seed,
                                                   int max_trial_count)
    : spec_(spec),
      space_(spec_),
      seed_(seed),
      initial_trials_(InitialTrials(space_, max_trial_count)),
      initial_design_(LatinHypercube(initial_trials_, space_.feature_count(), seed)) {
  TP_CHECK(max_trial_count >= 0, "max_trial_count is {}", max_trial_count);
}

absl::StatusOr<std::vector<TrialParameters>> GaussianProcessSuggester::Suggest(
    const std::vector<Observation>& history, int count) {
  TP_CHECK(count >= 0, "count is {}", count);
  TP_ASSIGN_OR_RETURN(std::vector<Point> points, HistoryPoints(space_, history));
  std::mt19937_64 rng = CallRng(seed_, history.size());
  std::set<std::string> seen;
  for (const Point& point : points) seen.insert(space_.Key(point));

  // Finished trials' objectives, as "higher is better" (warped in the fit).
  const bool minimize =
      jobspec::EffectiveGoal(spec_.metrics.front()) == jobspec::GoalType::kMinimize;
  std::vector<Eigen::VectorXd> finished_x, pending_x;
  std::vector<double> finished_y;
  for (size_t i = 0; i < history.size(); ++i) {
    if (history[i].objective.has_value()) {
      finished_x.push_back(space_.Encode(points[i]));
      finished_y.push_back(minimize ? -*history[i].objective : *history[i].objective);
    } else if (history[i].pending) {
      pending_x.push_back(space_.Encode(points[i]));
    }
  }
  if (static_cast<int>(finished_y.size()) > kMaxModelTrials) {
    std::vector<Eigen::VectorXd> subset_x;
    std::vector<double> subset_y;
    for (int i : ModelTrials(finished_y, kMaxModelTrials, rng)) {
      subset_x.push_back(std::move(finished_x[i]));
      subset_y.push_back(finished_y[i]);
    }
    finished_x = std::move(subset_x);
    finished_y = std::move(subset_y);
  }
  const int n_finished = static_cast<int>(finished_y.size());
  std::vector<GaussianProcess> gps;
  Eigen::VectorXd y_finished;
  const int initial = initial_trials_;

  std::vector<TrialParameters> suggestions;
  auto random_unseen = [&]() {
    Point point = RandomPoint(space_, rng);
    for (int tries = 1; tries < kUnseenTries && seen.count(space_.Key(point)) > 0; ++tries) {
      point = RandomPoint(space_, rng);
    }
    return point;
  };
  for (int k = 0; k < count; ++k) {
    Point chosen;
    const int index = static_cast<int>(history.size()) + k;
    if (index < initial) {
      chosen = space_.Decode(initial_design_.row(index).transpose());
      if (seen.count(space_.Key(chosen)) > 0) chosen = random_unseen();
    } else if (n_finished < 2) {
      chosen = random_unseen();
    } else {
      const int f = space_.feature_count();
      if (gps.empty()) {
        y_finished = WarpOutputs(Eigen::Map<const Eigen::VectorXd>(finished_y.data(), n_finished));
        Eigen::MatrixXd x(n_finished, f);
        for (int i = 0; i < n_finished; ++i) x.row(i) = finished_x[i].transpose();
        gps = GaussianProcess::SamplePosterior(x, y_finished, kHyperparameterSamples, rng);
      }
      // Pending trials and the points already chosen in this call stay
      // uncertain in the acquisition (pending_expected_improvement.h).
      std::vector<PendingExpectedImprovement> eis;
      for (const GaussianProcess& gp : gps) {
        eis.emplace_back(gp, y_finished.maxCoeff(), pending_x, rng);
      }
      const Acquisition acquisition(space_, eis, seen);

      std::vector<Candidate> candidates;
      std::uniform_real_distribution<double> uniform(0.0, 1.0);
      std::normal_distribution<double> normal(0.0, kLocalSd);
      auto consider = [&](const Eigen::VectorXd& raw) {
        if (std::optional<Candidate> c = acquisition.Evaluate(raw)) candidates.push_back(*c);
      };
      for (int i = 0; i < kRandomCandidates; ++i) {
        consider(Eigen::VectorXd::NullaryExpr(f, [&]() { return uniform(rng); }));
      }
      std::vector<int> order(n_finished);
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(),
                [&](int a, int b) { return y_finished[a] > y_finished[b]; });
      for (int t = 0; t < std::min(kTopTrials, n_finished); ++t) {
        for (int i = 0; i < kLocalCandidates; ++i) {
          consider(finished_x[order[t]] +
                   Eigen::VectorXd::NullaryExpr(f, [&]() { return normal(rng); }));
        }
      }
      std::sort(candidates.begin(), candidates.end(),
                [](const Candidate& a, const Candidate& b) { return a.log_ei > b.log_ei; });
      std::vector<int> numeric;
      for (const Dimension& d : space_.dimensions()) {
        if (!std::holds_alternative<jobspec::CategoricalValueSpec>(d.spec->value_spec)) {
          numeric.push_back(d.feature_offset);
        }
      }
      std::optional<Candidate> best;
      std::set<std::string> refined;
      for (const Candidate& start : candidates) {
        if (static_cast<int>(refined.size()) >= kRefined) break;
        if (!refined.insert(start.key).second) continue;
        Candidate result = Refine(acquisition, numeric, start);
        if (!best.has_value() || result.log_ei > best->log_ei) best = std::move(result);
      }
      chosen = best.has_value() ? best->point : random_unseen();
      pending_x.push_back(space_.Encode(chosen));
    }
    seen.insert(space_.Key(chosen));
    suggestions.push_back(space_.ToTrialParameters(chosen));
  }
  return suggestions;
}

}  // namespace trainpkg::sdk::hptune::internal
