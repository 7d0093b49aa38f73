#include "sdk/cli/job_list_query.h"

#include <algorithm>
#include <array>
#include <functional>

#include "absl/strings/str_cat.h"
#include "base/closest_match.h"
#include "sdk/serve/list_filter.h"

namespace trainpkg::cli {
namespace {

using Less = std::function<bool(const sdk::JobInfo&, const sdk::JobInfo&)>;

constexpr std::array<std::string_view, 3> kSortFields = {"createTime", "displayName", "state"};

absl::StatusOr<Less> SortOrder(std::string_view field) {
  if (field == "createTime" || field == "create_time") {
    return Less([](const sdk::JobInfo& a, const sdk::JobInfo& b) {
      return a.job.create_time.value_or(absl::InfinitePast()) <
             b.job.create_time.value_or(absl::InfinitePast());
    });
  }
  if (field == "displayName" || field == "display_name") {
    return Less([](const sdk::JobInfo& a, const sdk::JobInfo& b) {
      return a.job.display_name < b.job.display_name;
    });
  }
  if (field == "state") {
    return Less([](const sdk::JobInfo& a, const sdk::JobInfo& b) {
      return static_cast<int>(a.job.state) < static_cast<int>(b.job.state);
    });
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--sort-by: unknown field \"", std::string(field), "\"", base::DidYouMean(field, kSortFields),
      "; valid: createTime, displayName, state, each with a leading ~ for descending order"));
}

}  // namespace

absl::StatusOr<std::vector<sdk::JobInfo>> SelectJobs(std::vector<sdk::JobInfo> jobs,
                                                     const JobListQuery& query) {
  if (query.limit < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--limit: ", query.limit, " is negative; give a count, or 0 for all"));
  }
  absl::StatusOr<sdk::serve::ListFilter> filter = sdk::serve::ListFilter::Parse(query.filter);
  if (!filter.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--", filter.status().message()));
  }
  std::erase_if(jobs, [&](const sdk::JobInfo& info) { return !filter->Matches(info.job); });
  if (!query.sort_by.empty()) {
    std::string_view field = query.sort_by;
    const bool descending = field.front() == '~';
    if (descending) field.remove_prefix(1);
    absl::StatusOr<Less> less = SortOrder(field);
    if (!less.ok()) return less.status();
    if (descending) {
      std::stable_sort(jobs.begin(), jobs.end(),
                       [&](const sdk::JobInfo& a, const sdk::JobInfo& b) { return (*less)(b, a); });
    } else {
      std::stable_sort(jobs.begin(), jobs.end(), *less);
    }
  }
  if (query.limit > 0 && jobs.size() > static_cast<size_t>(query.limit)) {
    jobs.resize(query.limit);
  }
  return jobs;
}

}  // namespace trainpkg::cli
