// tf.train.Example: named features, each a list of bytes, floats or int64s,
// decoded from (and encoded to) the protobuf wire format TensorFlow uses
// (proto/example.proto has TF's field numbers), plus the step from TFRecord
// files of Examples to a Dataset.
//
//   Example ex = {{"pixels", Feature{std::vector<float>{...}}},
//                 {"label", Feature{std::vector<int64_t>{7}}}};
//   std::string bytes = SerializeExample(ex);
//   TP_ASSIGN_OR_RETURN(Example back, ParseExample(bytes));
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_EXAMPLE_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_EXAMPLE_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/data/dataset.h"
#include "trainer_runtime/nn/shape.h"

namespace trainpkg::data {

// One feature's values. A Feature with no list set on the wire (TF allows
// it) decodes as an empty float list.
struct Feature {
  std::variant<std::vector<float>, std::vector<int64_t>, std::vector<std::string>> value;
  bool operator==(const Feature&) const = default;
};

using Example = std::map<std::string, Feature, std::less<>>;

// DataLoss when `serialized` is not a valid Example message.
absl::StatusOr<Example> ParseExample(std::string_view serialized);

// The wire form. Deterministic: map entries are written in key order.
std::string SerializeExample(const Example& example);

// Which features of an Example make a Dataset element.
struct ExampleSpec {
  std::string features_key;  // float_list or int64_list of NumElements(element_shape) values
  nn::Shape element_shape;
  std::string label_key;  // int64_list of one value >= 0
};

// Decodes each record as an Example and takes its features and label.
// InvalidArgument naming `name`, the record index and the key when a key is
// missing, has the wrong list kind or the wrong number of values; DataLoss
// for a record that is not an Example.
absl::StatusOr<Dataset> ExamplesToDataset(std::span<const std::string> records,
                                          const ExampleSpec& spec, std::string_view name);

// ReadTfRecordFile + ExamplesToDataset: a FileParser for TFRecord files.
absl::StatusOr<Dataset> ReadTfRecordExamples(const std::filesystem::path& path,
                                             const ExampleSpec& spec);

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_EXAMPLE_H_
