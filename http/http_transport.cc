#include "http/http_transport.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"

namespace trainpkg::http {
namespace {

constexpr char kFailurePayload[] = "trainpkg.registry/transport-failure";

bool SameName(std::string_view a, std::string_view b) {
  return absl::EqualsIgnoreCase(std::string(a), std::string(b));
}

}  // namespace

void HttpHeaders::Add(std::string name, std::string value) {
  entries_.emplace_back(std::move(name), std::move(value));
}

void HttpHeaders::Set(std::string name, std::string value) {
  std::erase_if(entries_, [&](const auto& e) { return SameName(e.first, name); });
  Add(std::move(name), std::move(value));
}

std::optional<std::string> HttpHeaders::Get(std::string_view name) const {
  for (const auto& [n, v] : entries_) {
    if (SameName(n, name)) return v;
  }
  return std::nullopt;
}

std::vector<std::string> HttpHeaders::GetAll(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : entries_) {
    if (SameName(n, name)) out.push_back(v);
  }
  return out;
}

HttpRequest MakeRequest(std::string method, std::string url, bool idempotent) {
  HttpRequest request;
  request.method = std::move(method);
  request.url = std::move(url);
  request.idempotent = idempotent;
  return request;
}

absl::StatusOr<size_t> StringBodySource::Read(char* buffer, size_t size) {
  size_t n = std::min(size, data_.size() - offset_);
  std::memcpy(buffer, data_.data() + offset_, n);
  offset_ += n;
  return n;
}

absl::Status MakeTransportError(TransportFailure failure, absl::StatusCode code,
                                std::string message) {
  absl::Status status(code, message);
  status.SetPayload(kFailurePayload, absl::Cord(std::to_string(static_cast<int>(failure))));
  return status;
}

TransportFailure TransportFailureOf(const absl::Status& status) {
  auto payload = status.GetPayload(kFailurePayload);
  if (!payload.has_value()) return TransportFailure::kUnknown;
  int value = std::atoi(std::string(*payload).c_str());
  if (value < 0 || value > static_cast<int>(TransportFailure::kAborted)) {
    return TransportFailure::kUnknown;
  }
  return static_cast<TransportFailure>(value);
}

bool IsTransientTransportFailure(const absl::Status& status) {
  switch (TransportFailureOf(status)) {
    case TransportFailure::kConnect:
    case TransportFailure::kReset:
    case TransportFailure::kTimeout:
      return true;
    default:
      return false;
  }
}

}  // namespace trainpkg::http
