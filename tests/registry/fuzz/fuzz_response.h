// The input format of the registry fuzz targets that play a server: the
// bytes as an HTTP response, "<status>\n<Name>: <value>\n...\n\n<body>".
// Whatever does not fit that shape still makes a response (status 0 or the
// leading number, headers up to the first line without ':', the rest body),
// so every input reaches the code under test.
#ifndef TRAINPKG_TESTS_REGISTRY_FUZZ_FUZZ_RESPONSE_H_
#define TRAINPKG_TESTS_REGISTRY_FUZZ_FUZZ_RESPONSE_H_

#include <charconv>
#include <string>
#include <string_view>

#include "http/http_transport.h"

namespace trainpkg::registry::fuzz {

inline http::HttpResponse ParseFuzzResponse(std::string_view text) {
  http::HttpResponse response;
  auto next_line = [&text]() {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    return line;
  };
  std::string_view status = next_line();
  (void)std::from_chars(status.data(), status.data() + status.size(), response.status);
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    size_t colon = line.find(':');
    if (line.empty() || colon == std::string_view::npos) {
      if (line.empty()) next_line();
      break;
    }
    std::string_view value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    response.headers.Add(std::string(line.substr(0, colon)), std::string(value));
    next_line();
  }
  response.body = std::string(text);
  return response;
}

}  // namespace trainpkg::registry::fuzz

#endif  // TRAINPKG_TESTS_REGISTRY_FUZZ_FUZZ_RESPONSE_H_
