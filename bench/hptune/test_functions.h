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
};

// Branin-Hoo on [-5,10] x [0,15]; minimum 0.397887 (three minimisers).
const TestFunction& Branin();
// Hartmann 6-D on [0,1]^6; minimum -3.32237.
const TestFunction& Hartmann6();

}  // namespace trainpkg::bench

#endif  // TRAINPKG_BENCH_HPTUNE_TEST_FUNCTIONS_H_
