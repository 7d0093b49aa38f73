// Fuzz target: `trainpkg serve`'s ListCustomJobs query, three input lines:
// filter, pageSize and pageToken (WebSafe base64 of "<nanos>/<id>"),
// against a job store of three finished jobs under projects/p/locations/l.
// A nextPageToken in the reply is followed once. Must never crash, hang or
// trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "base/check.h"
#include "jobspec/custom_job.h"
#include "sdk/job_store.h"
#include "sdk/serve/local_job_service.h"
#include "tests/fuzz/fuzz_scratch.h"

namespace {

using namespace trainpkg;

// The service over a store made once per process.
sdk::serve::LocalJobService& Service() {
  static base::TempDir* home = new base::TempDir(fuzz::ScratchDir());
  // The service is never destroyed (inputs run until the process ends); its
  // store goes at exit, so no run leaves a directory under $TMPDIR.
  static const bool removed_at_exit = std::atexit([] { delete home; }) == 0;
  (void)removed_at_exit;
  static sdk::serve::LocalJobService* service = [] {
    sdk::JobStore store(home->path());
    for (int i = 0; i < 3; ++i) {
      std::string id = "job_" + std::to_string(i);
      jobspec::CustomJob job;
      job.name = "projects/p/locations/l/customJobs/" + id;
      job.display_name = "digits-" + std::to_string(i);
      job.state = i == 2 ? jobspec::JobState::kFailed : jobspec::JobState::kSucceeded;
      job.create_time = absl::FromUnixSeconds(1800000000 + i);
      job.update_time = absl::FromUnixSeconds(1800000100 + i);
      job.labels = {{"team", i == 0 ? "ml" : "infra"}};
      TP_CHECK(store.CreateJobDir(id).ok(), "job dir {}", id);
      TP_CHECK(store.WriteJob(id, job).ok(), "job {}", id);
    }
    sdk::serve::LocalJobServiceOptions options;
    options.home = home->path();
    options.max_page_size = 2;
    return new sdk::serve::LocalJobService(options);
  }();
  return *service;
}

std::string_view NextLine(std::string_view& text) {
  size_t end = text.find('\n');
  std::string_view line = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string_view filter = NextLine(text);
  std::string_view page_size = NextLine(text);
  std::string_view page_token = NextLine(text);
  sdk::serve::RestReply reply = Service().ListCustomJobs("p", "l", filter, page_size, page_token);
  (void)reply.body.dump(2, ' ', false,
                        nlohmann::json::error_handler_t::replace);  // as serve replies
  if (reply.status == 200 && reply.body.contains("nextPageToken") &&
      reply.body["nextPageToken"].is_string()) {
    const std::string next = reply.body["nextPageToken"];
    (void)Service().ListCustomJobs("p", "l", filter, page_size, next);
  }
  return 0;
}
