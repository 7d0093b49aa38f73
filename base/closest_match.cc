#include "base/closest_match.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "fmt/format.h"

namespace trainpkg::base {
namespace {

bool SameIgnoringCase(char a, char b) {
  return absl::ascii_tolower(static_cast<unsigned char>(a)) ==
         absl::ascii_tolower(static_cast<unsigned char>(b));
}

bool StartsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), SameIgnoringCase);
}

// Optimal string alignment distance ignoring ASCII case: Levenshtein plus
// the swap of two neighbouring characters ("bulid" is 1 from "build").
size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows: i - 2, i - 1 and i.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = SameIgnoringCase(a[i - 1], b[j - 1]);
      current[j] =
          std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && SameIgnoringCase(a[i - 1], b[j - 2]) &&
          SameIgnoringCase(a[i - 2], b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

constexpr size_t kMinPrefixLength = 4;

}  // namespace

std::optional<std::string_view> ClosestMatch(std::string_view input,
                                             absl::Span<const std::string_view> candidates) {
  std::optional<std::string_view> best;
  if (input.size() >= kMinPrefixLength) {
    for (std::string_view candidate : candidates) {
      if (StartsWithIgnoringCase(candidate, input) &&
          (!best.has_value() || candidate.size() < best->size())) {
        best = candidate;
      }
    }
    if (best.has_value()) return best;
  }
  const size_t max_distance = std::max<size_t>(2, input.size() / 3);
  size_t best_distance = max_distance + 1;
  for (std::string_view candidate : candidates) {
    size_t distance = EditDistance(input, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view input, absl::Span<const std::string_view> candidates) {
  std::optional<std::string_view> match = ClosestMatch(input, candidates);
  if (!match.has_value()) return "";
  return fmt::format("; did you mean '{}'?", *match);
}

}  // namespace trainpkg::base
