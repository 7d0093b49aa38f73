// Fuzz target: any bytes as each record of a job in the store (job.json,
// history.jsonl, local.json, and the vertex.json / k8s record texts), read
// back as `trainpkg jobs` reads them. Only parsing: nothing acts on what a
// record says (no process is signalled). Must never crash, hang or trip a
// sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "sdk/job_store.h"
#include "sdk/k8s/k8s_job_record.h"
#include "sdk/local_job_details.h"
#include "sdk/vertex/vertex_job_record.h"
#include "tests/fuzz/fuzz_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  base::TempDir home = fuzz::ScratchDir();
  sdk::JobStore store(home.path());
  TP_CHECK(store.CreateJobDir("job_1").ok(), "job dir");
  fuzz::WriteScratchFile(store.JobFile("job_1"), bytes);
  fuzz::WriteScratchFile(store.HistoryFile("job_1"), bytes);
  fuzz::WriteScratchFile(store.LocalFile("job_1"), bytes);
  (void)store.ListJobIds();
  (void)store.ReadJob("job_1");
  (void)store.ReadHistory("job_1");
  (void)store.ReadLocalDetails("job_1");
  (void)sdk::ParseLocalJobDetails(bytes);
  (void)sdk::vertex::ParseVertexJobRecord(bytes);
  (void)sdk::k8s::ParseK8sJobRecord(bytes);
  return 0;
}
