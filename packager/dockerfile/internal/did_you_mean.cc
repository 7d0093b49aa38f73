#include "packager/dockerfile/internal/did_you_mean.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace trainpkg::packager::dockerfile::internal {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      size_t cost = absl::ascii_tolower(static_cast<unsigned char>(a[i - 1])) ==
                            absl::ascii_tolower(static_cast<unsigned char>(b[j - 1]))
                        ? 0
                        : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string ClosestMatch(std::string_view input, const std::vector<std::string_view>& candidates) {
  const size_t limit = std::max<size_t>(2, input.size() / 3);
  size_t best = limit + 1;
  std::string_view found;
  for (std::string_view c : candidates) {
    size_t d = EditDistance(input, c);
    if (d < best) {
      best = d;
      found = c;
    }
  }
  return std::string(found);
}

}  // namespace trainpkg::packager::dockerfile::internal
