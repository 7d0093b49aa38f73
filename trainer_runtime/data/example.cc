#include "trainer_runtime/data/example.h"

#include <utility>

#include "fmt/format.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "trainer_runtime/data/proto/example.pb.h"
#include "trainer_runtime/data/tfrecord_reader.h"

namespace trainpkg::data {

absl::StatusOr<Example> ParseExample(std::string_view serialized) {
  proto::Example message;
  if (!message.ParseFromArray(serialized.data(), static_cast<int>(serialized.size()))) {
    return absl::DataLossError(
        fmt::format("{} bytes are not a tf.train.Example message", serialized.size()));
  }
  Example out;
  for (const auto& [key, feature] : message.features().feature()) {
    Feature f;
    switch (feature.kind_case()) {
      case proto::Feature::kBytesList:
        f.value = std::vector<std::string>(feature.bytes_list().value().begin(),
                                           feature.bytes_list().value().end());
        break;
      case proto::Feature::kInt64List:
        f.value = std::vector<int64_t>(feature.int64_list().value().begin(),
                                       feature.int64_list().value().end());
        break;
      case proto::Feature::kFloatList:
        f.value = std::vector<float>(feature.float_list().value().begin(),
                                     feature.float_list().value().end());
        break;
      case proto::Feature::KIND_NOT_SET:
        break;
    }
    out.emplace(key, std::move(f));
  }
  return out;
}

std::string SerializeExample(const Example& example) {
  proto::Example message;
  auto& map = *message.mutable_features()->mutable_feature();
  for (const auto& [key, feature] : example) {
    proto::Feature& f = map[key];
    if (const auto* floats = std::get_if<std::vector<float>>(&feature.value)) {
      f.mutable_float_list()->mutable_value()->Add(floats->begin(), floats->end());
    } else if (const auto* ints = std::get_if<std::vector<int64_t>>(&feature.value)) {
      f.mutable_int64_list()->mutable_value()->Add(ints->begin(), ints->end());
    } else {
      for (const std::string& b : std::get<std::vector<std::string>>(feature.value)) {
        f.mutable_bytes_list()->add_value(b);
      }
    }
  }
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

absl::StatusOr<Dataset> ExamplesToDataset(std::span<const std::string> records,
                                          const ExampleSpec& spec, std::string_view name) {
  const int64_t width = nn::NumElements(spec.element_shape);
  std::vector<float> features;
  features.reserve(records.size() * width);
  std::vector<int32_t> labels;
  labels.reserve(records.size());
  for (size_t r = 0; r < records.size(); ++r) {
    auto bad = [&](std::string_view key, std::string_view what) {
      return absl::InvalidArgumentError(
          fmt::format("{}: record {}: feature '{}' {}", name, r, key, what));
    };
    absl::StatusOr<Example> ex = ParseExample(records[r]);
    if (!ex.ok()) {
      return absl::DataLossError(
          fmt::format("{}: record {}: {}", name, r, std::string(ex.status().message())));
    }
    auto fit = ex->find(spec.features_key);
    if (fit == ex->end()) return bad(spec.features_key, "is missing");
    const size_t before = features.size();
    if (const auto* floats = std::get_if<std::vector<float>>(&fit->second.value)) {
      features.insert(features.end(), floats->begin(), floats->end());
    } else if (const auto* ints = std::get_if<std::vector<int64_t>>(&fit->second.value)) {
      for (int64_t v : *ints) features.push_back(static_cast<float>(v));
    } else {
      return bad(spec.features_key, "is a bytes_list; expected float_list or int64_list");
    }
    if (static_cast<int64_t>(features.size() - before) != width) {
      return bad(spec.features_key,
                 fmt::format("has {} values; element shape {} needs {}", features.size() - before,
                             nn::ShapeToString(spec.element_shape), width));
    }
    auto lit = ex->find(spec.label_key);
    if (lit == ex->end()) return bad(spec.label_key, "is missing");
    const auto* label = std::get_if<std::vector<int64_t>>(&lit->second.value);
    if (label == nullptr || label->size() != 1 || (*label)[0] < 0 || (*label)[0] > INT32_MAX) {
      return bad(spec.label_key, "must be an int64_list of one class label >= 0");
    }
    labels.push_back(static_cast<int32_t>((*label)[0]));
  }
  return Dataset::Create(spec.element_shape, std::move(features), std::move(labels));
}

absl::StatusOr<Dataset> ReadTfRecordExamples(const std::filesystem::path& path,
                                             const ExampleSpec& spec) {
  absl::StatusOr<std::vector<std::string>> records = ReadTfRecordFile(path);
  if (!records.ok()) return records.status();
  return ExamplesToDataset(*records, spec, path.string());
}

}  // namespace trainpkg::data
