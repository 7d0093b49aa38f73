#include "sdk/hptune/suggester.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/hptune/internal/gaussian_process_suggester.h"
#include "sdk/hptune/internal/search_space.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::hptune {
namespace {

using jobspec::ScaleType;
using jobspec::SearchAlgorithm;
using ::testing::HasSubstr;

jobspec::StudySpec Study(SearchAlgorithm algorithm) {
  jobspec::StudySpec spec;
  spec.metrics.push_back({"loss", jobspec::GoalType::kMinimize});
  spec.algorithm = algorithm;
  return spec;
}

std::unique_ptr<Suggester> Make(const jobspec::StudySpec& spec, uint64_t seed = 1) {
  absl::StatusOr<std::unique_ptr<Suggester>> suggester = MakeSuggester(spec, seed);
  EXPECT_THAT(suggester, IsOk());
  return suggester.ok() ? *std::move(suggester) : nullptr;
}

std::vector<TrialParameters> SuggestOk(Suggester& suggester,
                                       const std::vector<Observation>& history, int count) {
  absl::StatusOr<std::vector<TrialParameters>> suggestions = suggester.Suggest(history, count);
  EXPECT_THAT(suggestions, IsOk());
  return suggestions.ok() ? *suggestions : std::vector<TrialParameters>{};
}

std::string Text(const TrialParameters& parameters) {
  std::string text;
  for (const auto& p : parameters) {
    text += p.parameter_id + "=";
    text += std::holds_alternative<std::string>(p.value)
                ? std::get<std::string>(p.value)
                : std::to_string(std::get<double>(p.value));
    text += " ";
  }
  return text;
}

// ---- grid ----

jobspec::StudySpec GridStudy() {
  jobspec::StudySpec spec = Study(SearchAlgorithm::kGridSearch);
  jobspec::ParameterSpec opt{
      "opt", jobspec::CategoricalValueSpec{{"sgd", "adam"}, {}}, ScaleType::kUnspecified, {}};
  opt.conditional_parameter_specs.push_back(
      {jobspec::ParentCategoricalValues{{"sgd"}},
       {"momentum", jobspec::DiscreteValueSpec{{0.5, 0.9}, {}}, ScaleType::kUnspecified, {}}});
  spec.parameters.push_back(opt);
  spec.parameters.push_back(
      {"units", jobspec::IntegerValueSpec{1, 2, {}}, ScaleType::kUnspecified, {}});
  return spec;
}

TEST(GridSuggesterTest, EnumeratesInTheDocumentedOrderThenRunsOut) {
  std::unique_ptr<Suggester> grid = Make(GridStudy());
  ASSERT_NE(grid, nullptr);
  std::vector<Observation> history;
  std::vector<std::string> order;
  for (int call = 0; call < 10; ++call) {
    std::vector<TrialParameters> next = SuggestOk(*grid, history, 2);
    for (TrialParameters& parameters : next) {
      order.push_back(Text(parameters));
      history.push_back({std::move(parameters), std::nullopt, true});
    }
    if (next.empty()) break;
  }
  EXPECT_THAT(order,
              ::testing::ElementsAre("opt=sgd momentum=0.500000 units=1.000000 ",
                                     "opt=sgd momentum=0.500000 units=2.000000 ",
                                     "opt=sgd momentum=0.900000 units=1.000000 ",
                                     "opt=sgd momentum=0.900000 units=2.000000 ",
                                     "opt=adam units=1.000000 ", "opt=adam units=2.000000 "));
  EXPECT_TRUE(SuggestOk(*grid, history, 3).empty());
}

TEST(GridSuggesterTest, SkipsPointsAlreadyTriedInAnyOrder) {
  std::unique_ptr<Suggester> grid = Make(GridStudy());
  ASSERT_NE(grid, nullptr);
  std::vector<Observation> history = {
      {{{"opt", std::string("adam")}, {"units", 1.0}}, 0.3, false},
      {{{"opt", std::string("sgd")}, {"momentum", 0.5}, {"units", 1.0}}, std::nullopt, false},
  };
  std::vector<TrialParameters> next = SuggestOk(*grid, history, 10);
  ASSERT_EQ(next.size(), 4u);
  EXPECT_EQ(Text(next[0]), "opt=sgd momentum=0.500000 units=2.000000 ");
  EXPECT_EQ(Text(next[3]), "opt=adam units=2.000000 ");
}

// ---- random ----

jobspec::StudySpec MixedStudy(SearchAlgorithm algorithm) {
  jobspec::StudySpec spec = Study(algorithm);
  spec.parameters.push_back({"lr", jobspec::DoubleValueSpec{1e-4, 1e-1, {}}, ScaleType::kLog, {}});
  spec.parameters.push_back(
      {"linear", jobspec::DoubleValueSpec{1e-4, 1e-1, {}}, ScaleType::kLinear, {}});
  spec.parameters.push_back(
      {"beta", jobspec::DoubleValueSpec{0.001, 1.0, {}}, ScaleType::kReverseLog, {}});
  spec.parameters.push_back(
      {"units", jobspec::IntegerValueSpec{8, 64, {}}, ScaleType::kUnspecified, {}});
  spec.parameters.push_back(
      {"batch", jobspec::DiscreteValueSpec{{16, 32, 128}, {}}, ScaleType::kUnspecified, {}});
  jobspec::ParameterSpec opt{
      "opt", jobspec::CategoricalValueSpec{{"sgd", "adam"}, {}}, ScaleType::kUnspecified, {}};
  opt.conditional_parameter_specs.push_back(
      {jobspec::ParentCategoricalValues{{"sgd"}},
       {"momentum", jobspec::DoubleValueSpec{0, 0.99, {}}, ScaleType::kUnspecified, {}}});
  spec.parameters.push_back(opt);
  return spec;
}

std::map<std::string, jobspec::ParameterValueType> ById(const TrialParameters& parameters) {
  std::map<std::string, jobspec::ParameterValueType> by_id;
  for (const auto& p : parameters) by_id[p.parameter_id] = p.value;
  return by_id;
}

TEST(RandomSuggesterTest, RespectsBoundsTypesScalesAndConditions) {
  std::unique_ptr<Suggester> random = Make(MixedStudy(SearchAlgorithm::kRandomSearch), 7);
  ASSERT_NE(random, nullptr);
  std::vector<TrialParameters> points = SuggestOk(*random, {}, 2000);
  ASSERT_EQ(points.size(), 2000u);
  int lr_below_geometric_middle = 0, linear_below = 0, beta_above_09 = 0, sgd = 0;
  std::set<double> batches;
  for (const TrialParameters& point : points) {
    auto v = ById(point);
    const double lr = std::get<double>(v["lr"]);
    ASSERT_GE(lr, 1e-4);
    ASSERT_LE(lr, 1e-1);
    if (lr < std::sqrt(1e-4 * 1e-1)) ++lr_below_geometric_middle;
    if (std::get<double>(v["linear"]) < std::sqrt(1e-4 * 1e-1)) ++linear_below;
    const double beta = std::get<double>(v["beta"]);
    ASSERT_GE(beta, 0.001);
    ASSERT_LE(beta, 1.0);
    if (beta > 0.9) ++beta_above_09;
    const double units = std::get<double>(v["units"]);
    ASSERT_EQ(units, std::round(units));
    ASSERT_GE(units, 8);
    ASSERT_LE(units, 64);
    batches.insert(std::get<double>(v["batch"]));
    const bool is_sgd = std::get<std::string>(v["opt"]) == "sgd";
    sgd += is_sgd;
    ASSERT_EQ(v.count("momentum") == 1, is_sgd) << Text(point);
  }
  // Log scale: half the draws below the geometric middle; linear: about 3%.
  EXPECT_NEAR(lr_below_geometric_middle / 2000.0, 0.5, 0.05);
  EXPECT_LT(linear_below / 2000.0, 0.06);
  // Reverse log: log(1 + 0.001 - x) uniform, so x > 0.9 (z = 1.001 - x <
  // 0.101) has probability log(0.101/0.001)/log(1/0.001) ~ 0.668.
  EXPECT_NEAR(beta_above_09 / 2000.0, 0.668, 0.04);
  EXPECT_EQ(batches, (std::set<double>{16, 32, 128}));
  EXPECT_NEAR(sgd / 2000.0, 0.5, 0.05);
}

TEST(RandomSuggesterTest, SameSeedAndHistoryGiveTheSamePoints) {
  const jobspec::StudySpec spec = MixedStudy(SearchAlgorithm::kRandomSearch);
  std::unique_ptr<Suggester> a = Make(spec, 42), b = Make(spec, 42), c = Make(spec, 43);
  std::vector<TrialParameters> first = SuggestOk(*a, {}, 3);
  SuggestOk(*a, {}, 5);  // an extra call changes nothing for the next one
  EXPECT_EQ(SuggestOk(*a, {}, 3), first);
  EXPECT_EQ(SuggestOk(*b, {}, 3), first);
  EXPECT_NE(SuggestOk(*c, {}, 3), first);
  std::vector<Observation> history = {{first[0], 1.0, false}};
  EXPECT_NE(SuggestOk(*a, history, 1)[0], first[0]);
}

TEST(SuggesterTest, RejectsInvalidSpecsAndHistories) {
  jobspec::StudySpec spec = MixedStudy(SearchAlgorithm::kGridSearch);  // grid with doubles
  absl::Status status = MakeSuggester(spec, 1).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("studySpec.parameters[0].doubleValueSpec: GRID_SEARCH takes only"));

  for (SearchAlgorithm algorithm :
       {SearchAlgorithm::kRandomSearch, SearchAlgorithm::kUnspecified}) {
    std::unique_ptr<Suggester> suggester = Make(MixedStudy(algorithm));
    ASSERT_NE(suggester, nullptr);
    std::vector<Observation> history = {{{{"lr", 0.01}}, 1.0, false},
                                        {{{"nope", 1.0}}, 2.0, false}};
    EXPECT_THAT(std::string(suggester->Suggest(history, 1).status().message()),
                HasSubstr("history[1]: trial parameter 'nope' is not a parameter of the study"));
  }
}

// ---- Bayesian ----

jobspec::StudySpec QuadraticStudy(SearchAlgorithm algorithm) {
  jobspec::StudySpec spec = Study(algorithm);
  spec.parameters.push_back({"x", jobspec::DoubleValueSpec{-10, 10, {}}, ScaleType::kLinear, {}});
  return spec;
}

double Quadratic(const TrialParameters& parameters) {
  const double x = std::get<double>(parameters[0].value);
  return (x - 3.7) * (x - 3.7);
}

// Best loss after `budget` sequential trials.
double Minimize(const jobspec::StudySpec& spec, uint64_t seed, int budget) {
  std::unique_ptr<Suggester> suggester = Make(spec, seed);
  std::vector<Observation> history;
  double best = 1e300;
  for (int i = 0; i < budget; ++i) {
    std::vector<TrialParameters> next = SuggestOk(*suggester, history, 1);
    if (next.size() != 1) return best;
    const double loss = Quadratic(next[0]);
    best = std::min(best, loss);
    history.push_back({next[0], loss, false});
  }
  return best;
}

TEST(GaussianProcessSuggesterTest, FindsAQuadraticsMinimumFarBetterThanRandom) {
  double bayes_worst = 0, random_total = 0;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    bayes_worst =
        std::max(bayes_worst, Minimize(QuadraticStudy(SearchAlgorithm::kUnspecified), seed, 12));
    random_total += Minimize(QuadraticStudy(SearchAlgorithm::kRandomSearch), seed, 12);
  }
  EXPECT_LT(bayes_worst, 1e-3);
  EXPECT_LT(bayes_worst, random_total / 3 / 100);
}

TEST(GaussianProcessSuggesterTest, InitialDesignLeavesHalfTheBudgetToTheModel) {
  using internal::GaussianProcessSuggester;
  jobspec::StudySpec three = QuadraticStudy(SearchAlgorithm::kUnspecified);
  three.parameters.push_back({"y", jobspec::DoubleValueSpec{0, 1, {}}, ScaleType::kLinear, {}});
  three.parameters.push_back({"z", jobspec::IntegerValueSpec{1, 8, {}}, ScaleType::kLinear, {}});
  const internal::SearchSpace space(three);
  EXPECT_EQ(GaussianProcessSuggester::InitialTrials(space, 0), 6);  // budget unknown: max(5, 2F)
  EXPECT_EQ(GaussianProcessSuggester::InitialTrials(space, 60),
            6);  // a large budget changes nothing
  EXPECT_EQ(GaussianProcessSuggester::InitialTrials(space, 6), 3);  // the hptune_digits sample
  EXPECT_EQ(GaussianProcessSuggester::InitialTrials(space, 3), 2);  // never fewer than 2
  const internal::SearchSpace one(QuadraticStudy(SearchAlgorithm::kUnspecified));
  EXPECT_EQ(GaussianProcessSuggester::InitialTrials(one, 30), 5);
}

TEST(GaussianProcessSuggesterTest, ParallelSuggestionsDifferAndAreDeterministic) {
  const jobspec::StudySpec spec = MixedStudy(SearchAlgorithm::kUnspecified);
  std::unique_ptr<Suggester> suggester = Make(spec, 5);
  std::vector<Observation> history;
  for (const TrialParameters& point : SuggestOk(*suggester, {}, 10)) {
    history.push_back({point, std::get<double>(ById(point)["lr"]) * 100, false});
  }
  history.push_back({history[0].parameters, std::nullopt, true});  // pending
  std::vector<TrialParameters> next = SuggestOk(*suggester, history, 3);
  ASSERT_EQ(next.size(), 3u);
  std::set<std::string> distinct;
  for (const TrialParameters& point : next) {
    distinct.insert(Text(point));
    auto v = ById(point);
    EXPECT_EQ(v.count("momentum") == 1, std::get<std::string>(v["opt"]) == "sgd");
    const double units = std::get<double>(v["units"]);
    EXPECT_EQ(units, std::round(units));
    const double batch = std::get<double>(v["batch"]);
    EXPECT_TRUE(batch == 16 || batch == 32 || batch == 128) << batch;
    for (const Observation& seen : history) EXPECT_NE(seen.parameters, point);
  }
  EXPECT_EQ(distinct.size(), 3u);
  EXPECT_EQ(SuggestOk(*Make(spec, 5), history, 3), next);
}

// After a 1-D study's initial trials, the pending point is where the
// suggester would go next alone; with it pending, the next suggestion must be
// somewhere else, and a call for two returns two separate points.
TEST(GaussianProcessSuggesterTest, ParallelPicksAreNotOnTopOfEachOther) {
  const jobspec::StudySpec spec = QuadraticStudy(SearchAlgorithm::kUnspecified);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::unique_ptr<Suggester> suggester = Make(spec, seed);
    std::vector<Observation> history;
    for (int i = 0; i < 5; ++i) {
      std::vector<TrialParameters> next = SuggestOk(*suggester, history, 1);
      ASSERT_EQ(next.size(), 1u);
      history.push_back({next[0], Quadratic(next[0]), false});
    }
    const std::vector<TrialParameters> alone = SuggestOk(*suggester, history, 1);
    ASSERT_EQ(alone.size(), 1u);
    const std::vector<TrialParameters> pair = SuggestOk(*suggester, history, 2);
    ASSERT_EQ(pair.size(), 2u);
    EXPECT_EQ(pair[0], alone[0]) << "the first of a batch is the sequential pick";
    history.push_back({alone[0], std::nullopt, true});
    const std::vector<TrialParameters> beside = SuggestOk(*suggester, history, 1);
    ASSERT_EQ(beside.size(), 1u);
    const double x = std::get<double>(alone[0][0].value);
    // 1% of the range [-10, 10].
    EXPECT_GT(std::fabs(std::get<double>(beside[0][0].value) - x), 0.2) << "seed " << seed;
    EXPECT_GT(std::fabs(std::get<double>(pair[1][0].value) - x), 0.2) << "seed " << seed;
  }
}

TEST(GaussianProcessSuggesterTest, ModelTrialsAreAllUpToTheCapThenTheBestHalfAndARandomRest) {
  using internal::GaussianProcessSuggester;
  std::mt19937_64 rng(1);
  std::vector<double> y = {3, 1, 2};
  EXPECT_THAT(GaussianProcessSuggester::ModelTrials(y, 4, rng), ::testing::ElementsAre(0, 1, 2));
  y.clear();
  for (int i = 0; i < 300; ++i) y.push_back(std::sin(i * 0.7) * 10 + i % 7);
  std::vector<int> by_rank(y.size());
  std::iota(by_rank.begin(), by_rank.end(), 0);
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](int a, int b) { return y[a] > y[b]; });
  std::mt19937_64 first(7), second(7), other(8);
  const std::vector<int> subset = GaussianProcessSuggester::ModelTrials(y, 100, first);
  ASSERT_EQ(subset.size(), 100u);
  EXPECT_TRUE(std::is_sorted(subset.begin(), subset.end()));
  EXPECT_EQ(std::set<int>(subset.begin(), subset.end()).size(), 100u);
  for (int r = 0; r < 50; ++r) {
    EXPECT_TRUE(std::binary_search(subset.begin(), subset.end(), by_rank[r])) << "rank " << r;
  }
  // Half of the subset is not the best 50: drawn from the rest.
  int outside = 0;
  for (int r = 50; r < 300; ++r)
    outside += std::binary_search(subset.begin(), subset.end(), by_rank[r]);
  EXPECT_EQ(outside, 50);
  EXPECT_EQ(GaussianProcessSuggester::ModelTrials(y, 100, second), subset);
  EXPECT_NE(GaussianProcessSuggester::ModelTrials(y, 100, other), subset);
}

// Past the cap on the trials the GPs see, the suggester still models the
// objective: after 400 uniform random trials of a 6-D bowl (3x the cap) its
// suggestion beats nearly all of them, and stays deterministic.
TEST(GaussianProcessSuggesterTest, PastTheTrialCapSuggestionsStillFollowTheModel) {
  using internal::GaussianProcessSuggester;
  jobspec::StudySpec spec = Study(SearchAlgorithm::kUnspecified);
  for (int i = 0; i < 6; ++i) {
    spec.parameters.push_back(
        {"x" + std::to_string(i), jobspec::DoubleValueSpec{0, 1, {}}, ScaleType::kLinear, {}});
  }
  auto bowl = [](const TrialParameters& parameters) {
    double sum = 0;
    for (const jobspec::TrialParameter& p : parameters) {
      const double x = std::get<double>(p.value);
      sum += (x - 0.3) * (x - 0.3);
    }
    return sum;
  };
  const int trials = 3 * GaussianProcessSuggester::kMaxModelTrials + 16;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Observation> history;
  std::vector<double> losses;
  for (int t = 0; t < trials; ++t) {
    TrialParameters point;
    for (int i = 0; i < 6; ++i) point.push_back({"x" + std::to_string(i), unit(rng)});
    losses.push_back(bowl(point));
    history.push_back({point, losses.back(), false});
  }
  std::sort(losses.begin(), losses.end());
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    const std::vector<TrialParameters> next = SuggestOk(*Make(spec, seed), history, 1);
    ASSERT_EQ(next.size(), 1u);
    EXPECT_LT(bowl(next[0]), losses[2]) << "seed " << seed << ": best of the history " << losses[0];
    EXPECT_EQ(SuggestOk(*Make(spec, seed), history, 1), next);
  }
}

TEST(GaussianProcessSuggesterTest, ExhaustedDiscreteSpaceFallsBackToRepeats) {
  jobspec::StudySpec spec = Study(SearchAlgorithm::kUnspecified);
  spec.parameters.push_back(
      {"a", jobspec::IntegerValueSpec{1, 2, {}}, ScaleType::kUnspecified, {}});
  std::unique_ptr<Suggester> suggester = Make(spec);
  std::vector<Observation> history;
  for (int i = 0; i < 8; ++i) {
    std::vector<TrialParameters> next = SuggestOk(*suggester, history, 1);
    ASSERT_EQ(next.size(), 1u);
    const double a = std::get<double>(next[0][0].value);
    ASSERT_TRUE(a == 1 || a == 2);
    history.push_back({next[0], a, false});
  }
  std::set<double> seen;
  for (const Observation& o : history) seen.insert(std::get<double>(o.parameters[0].value));
  EXPECT_EQ(seen, (std::set<double>{1, 2}));
}

}  // namespace
}  // namespace trainpkg::sdk::hptune
