#include "trainer_runtime/nn/rng.h"

#include <sstream>

namespace trainpkg::nn {

std::vector<uint64_t> Rng::State() const {
  std::stringstream text;
  text << engine_;
  std::vector<uint64_t> state;
  uint64_t value = 0;
  while (text >> value) state.push_back(value);
  return state;
}

bool Rng::RestoreState(std::span<const uint64_t> state) {
  if (state.size() != State().size()) return false;
  std::stringstream text;
  for (uint64_t value : state) text << value << ' ';
  std::mt19937_64 engine;
  text >> engine;
  if (text.fail()) return false;
  engine_ = engine;
  return true;
}

}  // namespace trainpkg::nn
