// The list filter of Vertex AI's List*Jobs (AIP-160 subset), evaluated
// locally by `trainpkg serve`:
//   term [AND term]...      term: [NOT] field op value
//   display_name  = != :     ':' matches a pattern with '*' wildcards, or a substring
//   state         = !=       JOB_STATE_SUCCEEDED, SUCCEEDED or the enum number
//   create_time, update_time = != < <= > >=   RFC 3339 timestamps
//   labels.KEY    = != :     labels.KEY:* tests that the label exists
// Values are "double-quoted" (with \" and \\ escapes) or bare words.
#ifndef TRAINPKG_SDK_SERVE_LIST_FILTER_H_
#define TRAINPKG_SDK_SERVE_LIST_FILTER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::sdk::serve {

class ListFilter {
 public:
  // An empty filter matches every job. InvalidArgument naming the position
  // and what was expected, e.g. `filter: at 7: unknown field "stat"; valid:
  // display_name, state, create_time, update_time, labels.KEY`.
  static absl::StatusOr<ListFilter> Parse(std::string_view text);

  bool Matches(const jobspec::CustomJob& job) const;

 private:
  enum class Op { kEq, kNe, kHas, kLt, kLe, kGt, kGe };
  struct Term {
    bool negate = false;
    std::string field;  // "display_name", "state", "create_time", "update_time", "labels.<k>"
    Op op = Op::kEq;
    std::string value;
    jobspec::JobState state = jobspec::JobState::kUnspecified;  // field "state"
    absl::Time time;                                            // *_time fields
  };
  static bool TermMatches(const Term& term, const jobspec::CustomJob& job);

  std::vector<Term> terms_;
};

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_LIST_FILTER_H_
