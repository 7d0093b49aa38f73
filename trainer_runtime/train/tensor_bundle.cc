#include "trainer_runtime/train/tensor_bundle.h"

#include <bit>
#include <cstring>
#include <exception>
#include <optional>

#include "base/check.h"
#include "base/crc32c.h"
#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "trainer_runtime/nn/element_count.h"

namespace trainpkg::train {
namespace {

constexpr std::string_view kMagic = "TPTENSOR";
constexpr size_t kPrefix = 16;  // magic, version, header length
constexpr size_t kCrcBytes = 4;

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t GetU32(std::string_view bytes, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  }
  return v;
}

void PutFloats(std::string& out, const std::vector<float>& values) {
  const size_t at = out.size();
  out.resize(at + values.size() * sizeof(float));
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out.data() + at, values.data(), values.size() * sizeof(float));
  } else {
    for (size_t i = 0; i < values.size(); ++i) {
      const uint32_t bits = std::bit_cast<uint32_t>(values[i]);
      for (int b = 0; b < 4; ++b) out[at + 4 * i + b] = static_cast<char>((bits >> (8 * b)) & 0xff);
    }
  }
}

void GetFloats(std::string_view bytes, size_t at, std::vector<float>& values) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(values.data(), bytes.data() + at, values.size() * sizeof(float));
  } else {
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = std::bit_cast<float>(GetU32(bytes, at + 4 * i));
  }
}

absl::Status DataLoss(std::string_view where, const std::string& what) {
  return absl::DataLossError(fmt::format("{}: {}", where, what));
}

}  // namespace

std::string EncodeTensorBundle(const TensorBundle& bundle) {
  nlohmann::ordered_json header;
  header["format_version"] = kTensorBundleVersion;
  header["kind"] = bundle.kind;
  header["layers"] = nlohmann::ordered_json::array();
  for (const LayerRecord& layer : bundle.layers) {
    header["layers"].push_back(
        {{"name", layer.name}, {"kind", layer.kind}, {"parameters", layer.parameters}});
  }
  header["tensors"] = nlohmann::ordered_json::array();
  for (const NamedTensor& t : bundle.tensors) {
    TP_CHECK(static_cast<int64_t>(t.values.size()) == nn::NumElements(t.shape),
             "tensor {}: {} values for shape {}", t.name, t.values.size(),
             nn::ShapeToString(t.shape));
    header["tensors"].push_back({{"name", t.name}, {"shape", t.shape}});
  }
  header["counters"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : bundle.counters) header["counters"][name] = value;
  const std::string json = header.dump();

  std::string out(kMagic);
  PutU32(out, kTensorBundleVersion);
  PutU32(out, static_cast<uint32_t>(json.size()));
  out += json;
  for (const NamedTensor& t : bundle.tensors) PutFloats(out, t.values);
  PutU32(out, base::MaskedCrc32c(out));
  return out;
}

absl::StatusOr<TensorBundle> DecodeTensorBundle(std::string_view bytes, std::string_view where) {
  if (bytes.size() < kPrefix + kCrcBytes || bytes.substr(0, kMagic.size()) != kMagic) {
    return DataLoss(where, fmt::format("not a trainpkg tensor file (want the magic \"{}\" and at "
                                       "least {} bytes; got {} bytes)",
                                       kMagic, kPrefix + kCrcBytes, bytes.size()));
  }
  // The version before the CRC: a file of another format version is told so,
  // not reported as corrupt because its layout differs.
  const uint32_t version = GetU32(bytes, 8);
  if (version != kTensorBundleVersion) {
    return absl::FailedPreconditionError(
        fmt::format("{}: format version {}; this build reads version {}", where, version,
                    kTensorBundleVersion));
  }
  // The CRC before the header is parsed: a torn or corrupted file is named as
  // such, not reported as a bad header or a short tensor.
  const size_t body = bytes.size() - kCrcBytes;
  const uint32_t stored = GetU32(bytes, body);
  const uint32_t computed = base::MaskedCrc32c(bytes.substr(0, body));
  if (stored != computed) {
    return DataLoss(where, fmt::format("CRC mismatch (stored {:#010x}, computed {:#010x}): the "
                                       "file is corrupted or truncated",
                                       stored, computed));
  }
  const size_t header_size = GetU32(bytes, 12);
  if (header_size > body - kPrefix) {
    return DataLoss(where,
                    fmt::format("header of {} bytes runs past the end of the file", header_size));
  }
  TensorBundle bundle;
  size_t data_at = kPrefix + header_size;
  try {
    const nlohmann::json header = base::ParseJson(bytes.substr(kPrefix, header_size))
                                      .value_or(nlohmann::json::value_t::discarded);
    bundle.kind = header.at("kind").get<std::string>();
    for (const auto& layer : header.at("layers")) {
      bundle.layers.push_back({layer.at("name").get<std::string>(),
                               layer.at("kind").get<std::string>(),
                               layer.at("parameters").get<std::vector<std::string>>()});
    }
    for (const auto& [name, value] : header.at("counters").items()) {
      bundle.counters[name] = value.get<int64_t>();
    }
    for (const auto& t : header.at("tensors")) {
      NamedTensor tensor{t.at("name").get<std::string>(), t.at("shape").get<nn::Shape>(), {}};
      for (int64_t d : tensor.shape) {
        if (d < 0)
          return DataLoss(where, fmt::format("tensor {}: negative dimension", tensor.name));
      }
      // At most the floats left in the data, counted without overflow.
      const std::optional<int64_t> count = nn::NumElementsAtMost(
          tensor.shape, static_cast<int64_t>((body - data_at) / sizeof(float)));
      if (!count.has_value()) {
        return DataLoss(where, fmt::format("tensor {} of shape {} runs past the end of the data",
                                           tensor.name, nn::ShapeToString(tensor.shape)));
      }
      const auto n = static_cast<size_t>(*count);
      tensor.values.resize(n);
      GetFloats(bytes, data_at, tensor.values);
      data_at += n * sizeof(float);
      bundle.tensors.push_back(std::move(tensor));
    }
  } catch (const std::exception& e) {
    return DataLoss(where, fmt::format("bad header: {}", e.what()));
  }
  if (data_at != body) {
    return DataLoss(where, fmt::format("{} bytes of data after the last tensor", body - data_at));
  }
  return bundle;
}

absl::Status WriteTensorBundle(const std::filesystem::path& path, const TensorBundle& bundle) {
  // Atomic (temporary file + rename): a crash mid-save leaves the previous
  // file whole, which resuming from a checkpoint relies on.
  return base::WriteFileAtomic(path, EncodeTensorBundle(bundle));
}

absl::StatusOr<TensorBundle> ReadTensorBundle(const std::filesystem::path& path) {
  TP_ASSIGN_OR_RETURN(std::string bytes, base::ReadFile(path));
  return DecodeTensorBundle(bytes, path.string());
}

}  // namespace trainpkg::train
