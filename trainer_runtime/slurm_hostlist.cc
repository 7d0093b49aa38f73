#include "trainer_runtime/slurm_hostlist.h"

#include <algorithm>
#include <charconv>

#include "fmt/format.h"

namespace trainpkg::runtime {
namespace {

constexpr size_t kMaxHosts = size_t{1} << 20;
constexpr size_t kMaxDigits = 18;  // fits int64_t
// All the host names of one list together (a million names of 64 bytes).
constexpr size_t kMaxBytes = size_t{64} << 20;

absl::Status InvalidHostlist(std::string_view part, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("\"{}\": {}", part, what));
}

// Splits on commas that are not inside brackets.
std::vector<std::string_view> SplitTopLevel(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']') --depth;
    if (text[i] == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t at = text.find(separator); at != std::string_view::npos;
       at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

bool ParseDigits(std::string_view text, int64_t& out) {
  if (text.empty() || text.size() > kMaxDigits) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size() && text.front() != '-';
}

// The numbers of "1-3,05,7" as strings, padded to their lower bound's
// width; at most `max_count` of them.
absl::StatusOr<std::vector<std::string>> ExpandRanges(std::string_view body, size_t max_count) {
  std::vector<std::string> out;
  for (std::string_view range : Split(body, ',')) {
    size_t dash = range.find('-');
    std::string_view lo_text = range.substr(0, dash);
    std::string_view hi_text = dash == std::string_view::npos ? lo_text : range.substr(dash + 1);
    int64_t lo = 0;
    int64_t hi = 0;
    if (!ParseDigits(lo_text, lo) || !ParseDigits(hi_text, hi)) {
      return InvalidHostlist(range, "expected a number or a range like 1-4");
    }
    if (lo > hi) return InvalidHostlist(range, "range runs backwards");
    if (out.size() >= max_count || static_cast<uint64_t>(hi - lo) >= max_count - out.size()) {
      return InvalidHostlist(range, fmt::format("more than {} hosts", kMaxHosts));
    }
    for (int64_t n = lo; n <= hi; ++n) {
      out.push_back(fmt::format("{:0{}}", n, lo_text.size()));
    }
  }
  return out;
}

// Appends every expansion of one hostname pattern (no top-level commas):
// the literal text between bracket groups, and each group's numbers, the
// last group varying fastest. The count and the bytes are checked before
// any host is made, so a pattern is refused in time linear in its length
// plus its groups' numbers (a group is expanded only while the product of
// the counts so far still fits).
absl::Status ExpandName(std::string_view name, std::vector<std::string>& out, size_t& bytes) {
  std::vector<std::string_view> literals;  // before each group
  std::vector<std::vector<std::string>> groups;
  size_t count = 1;
  size_t longest = 0;  // an upper bound on one host's length
  size_t at = 0;
  for (size_t open = name.find('['); open != std::string_view::npos;
       open = name.find('[', at)) {
    std::string_view literal = name.substr(at, open - at);
    if (literal.find(']') != std::string_view::npos) return InvalidHostlist(name, "unbalanced ']'");
    size_t close = name.find(']', open);
    if (close == std::string_view::npos) return InvalidHostlist(name, "unbalanced '['");
    std::string_view body = name.substr(open + 1, close - open - 1);
    if (body.find('[') != std::string_view::npos) return InvalidHostlist(name, "nested '['");
    absl::StatusOr<std::vector<std::string>> numbers =
        ExpandRanges(body, (kMaxHosts - out.size()) / count);
    if (!numbers.ok()) return numbers.status();
    count *= numbers->size();
    size_t widest = 0;
    for (const std::string& number : *numbers) widest = std::max(widest, number.size());
    longest += literal.size() + widest;
    literals.push_back(literal);
    groups.push_back(*std::move(numbers));
    at = close + 1;
  }
  std::string_view tail = name.substr(at);
  if (tail.find(']') != std::string_view::npos) return InvalidHostlist(name, "unbalanced ']'");
  longest += tail.size();
  if (count > kMaxHosts - out.size()) {
    return InvalidHostlist(name, fmt::format("more than {} hosts", kMaxHosts));
  }
  if (longest > 0 && count > (kMaxBytes - bytes) / longest) {
    return InvalidHostlist(name, fmt::format("expands to more than {} MiB of host names",
                                     kMaxBytes >> 20));
  }
  std::vector<size_t> digit(groups.size(), 0);  // an odometer over the groups
  for (size_t made = 0; made < count; ++made) {
    std::string host;
    host.reserve(longest);
    for (size_t g = 0; g < groups.size(); ++g) {
      host.append(literals[g]);
      host.append(groups[g][digit[g]]);
    }
    host.append(tail);
    bytes += host.size();
    out.push_back(std::move(host));
    for (size_t g = groups.size(); g-- > 0;) {
      if (++digit[g] < groups[g].size()) break;
      digit[g] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ExpandHostlist(std::string_view hostlist) {
  std::vector<std::string> hosts;
  size_t bytes = 0;
  for (std::string_view name : SplitTopLevel(hostlist)) {
    if (name.empty()) return InvalidHostlist(hostlist, "empty host name");
    if (absl::Status s = ExpandName(name, hosts, bytes); !s.ok()) return s;
  }
  return hosts;
}

absl::StatusOr<std::vector<int64_t>> ExpandTasksPerNode(std::string_view text) {
  std::vector<int64_t> counts;
  for (std::string_view entry : Split(text, ',')) {
    std::string_view count_text = entry;
    int64_t repeat = 1;
    if (size_t paren = entry.find("(x"); paren != std::string_view::npos) {
      count_text = entry.substr(0, paren);
      std::string_view repeat_text = entry.substr(paren + 2);
      if (!repeat_text.ends_with(')') ||
          !ParseDigits(repeat_text.substr(0, repeat_text.size() - 1), repeat) || repeat < 1 ||
          static_cast<size_t>(repeat) > kMaxHosts - counts.size()) {
        return InvalidHostlist(entry, "expected N or N(xM)");
      }
    }
    int64_t count = 0;
    if (!ParseDigits(count_text, count) || count < 1) {
      return InvalidHostlist(entry, "expected N or N(xM)");
    }
    counts.insert(counts.end(), static_cast<size_t>(repeat), count);
  }
  return counts;
}

}  // namespace trainpkg::runtime
