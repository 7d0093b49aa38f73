// The hostile job documents of issue #16, shared by the tests that feed them
// to the parsers directly and to `trainpkg run --config` end to end.
#ifndef TRAINPKG_TESTS_TEST_UTIL_ATTACK_DOCUMENTS_H_
#define TRAINPKG_TESTS_TEST_UTIL_ATTACK_DOCUMENTS_H_

#include <string>

namespace trainpkg::testing {

// A CustomJob whose displayName nests 200,000 lists deep.
inline std::string DeepJsonJob() {
  return "{\"displayName\":" + std::string(200000, '[') + std::string(200000, ']') + "}";
}

// The classic "billion laughs": nine levels of nine aliases each, 9^9 strings.
inline std::string BillionLaughsYaml() {
  std::string yaml = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char level = 'b'; level <= 'i'; ++level) {
    const std::string alias = std::string("*") + static_cast<char>(level - 1);
    yaml += std::string(1, level) + ": &" + level + " [" + alias;
    for (int i = 1; i < 9; ++i) yaml += ", " + alias;
    yaml += "]\n";
  }
  return yaml;
}

// A job file whose second pool asks for 100,000,000 replicas.
inline std::string HugeReplicaCountJobYaml() {
  return "workerPoolSpecs:\n"
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    replicaCount: 1\n"
         "    containerSpec: {imageUri: local:/bin/true}\n"
         "  - machineSpec: {machineType: n1-standard-4}\n"
         "    replicaCount: 100000000\n"
         "    containerSpec: {imageUri: local:/bin/true}\n";
}

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TEST_UTIL_ATTACK_DOCUMENTS_H_
