// Analytic test functions for the tuning bench (minimisation), with their
// search boxes and known minima (used only to report regret, never by the
// suggesters). Definitions: Surjanovic & Bingham, Virtual Library of
// Simulation Experiments (sfu.ca/~ssurjano): branin.html, hart6.html.
#ifndef TRAINPKG_BENCH_HPTUNE_TEST_FUNCTIONS_H_
#define TRAINPKG_BENCH_HPTUNE_TEST_FUNCTIONS_H_

#include <string>
#include <vector>

namespace trainpkg::bench {

struct TestFunction {
  std::string name;
  std::vector<double> lower;
  std::vector<double> upper;
  double minimum;
  double (*evaluate)(const std::vector<double>& x);
  // True for Conditional(): `evaluate` is its "hartmann6" branch alone.
  bool conditional = false;
};

// Branin-Hoo on [-5,10] x [0,15]; minimum 0.397887 (three minimisers).
const TestFunction& Branin();
// Hartmann 6-D on [0,1]^6; minimum -3.32237.
const TestFunction& Hartmann6();
// A study with a conditional parameter (Vertex's conditionalParameterSpecs):
// categorical `model` in {hartmann6, branin}; under "hartmann6" the
// children x1..x6 in [0,1] give Hartmann6; under "branin" the children y1
// in [-5,10], y2 in [0,15] give a decoy, -3 + (Branin(y) - 0.397887) / 10,
// whose minimum -3 is worse than Hartmann6's -3.32237 but better than
// most of Hartmann6's box. Evaluated with ConditionalValue.
const TestFunction& Conditional();
// `model` and the values of its active children (x1..x6 or y1, y2).
double ConditionalValue(bool hartmann6, const std::vector<double>& children);

}  // namespace trainpkg::bench

#endif  // TRAINPKG_BENCH_HPTUNE_TEST_FUNCTIONS_H_
