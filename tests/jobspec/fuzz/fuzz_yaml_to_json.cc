// Fuzz target: any bytes through YamlToJson, the YAML reader behind job
// files, study files and kubeconfig, and the JSON it makes back to text.
// Must never crash, hang or trip a sanitizer (aliases, anchors, deep
// nesting, tags); errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "jobspec/job_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<nlohmann::json> json = trainpkg::jobspec::YamlToJson(text);
  if (json.ok()) (void)json->dump();
  return 0;
}
