#include "registry/registry_error.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/http/scripted_transport.h"

namespace trainpkg::registry {
namespace {

using http::testing::Response;
using ::testing::HasSubstr;

TEST(RegistryErrorTest, UsesTheOciCodeAndTheRegistrysMessage) {
  auto status = StatusFromResponse(
      Response(401, R"({"errors":[{"code":"UNAUTHORIZED","message":"authentication required",
                     "detail":[{"Type":"repository","Name":"app","Action":"push"}]}]})"),
      "pushing blob sha256:ab12… to r/app");
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("pushing blob sha256:ab12… to r/app: HTTP 401: UNAUTHORIZED: "
                        "authentication required ([{\"Action\":\"push\""));
  EXPECT_EQ(RegistryErrorCode(status), "UNAUTHORIZED");
}

TEST(RegistryErrorTest, CarriesRetryAfterForRetriesAboveTheTransport) {
  auto busy = StatusFromResponse(Response(429, "", {{"Retry-After", "11"}}), "x");
  EXPECT_EQ(RetryAfterHeader(busy), "11");
  EXPECT_EQ(RetryAfterHeader(StatusFromResponse(Response(503), "x")), std::nullopt);
}

TEST(RegistryErrorTest, MapsHttpStatusesToCodes) {
  EXPECT_EQ(StatusFromResponse(Response(404), "x").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(StatusFromResponse(Response(403), "x").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(StatusFromResponse(Response(400), "x").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusFromResponse(Response(429), "x").code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusFromResponse(Response(503), "x").code(), absl::StatusCode::kUnavailable);
}

TEST(RegistryErrorTest, JoinsSeveralErrorsAndQuotesPlainBodies) {
  auto two =
      StatusFromResponse(Response(400, R"({"errors":[{"code":"DIGEST_INVALID","message":"bad"},
                                  {"code":"SIZE_INVALID","message":"short"}]})"),
                         "x");
  EXPECT_THAT(std::string(two.message()), HasSubstr("DIGEST_INVALID: bad; SIZE_INVALID: short"));
  EXPECT_EQ(RegistryErrorCode(two), "DIGEST_INVALID");
  auto plain = StatusFromResponse(Response(404, "404 page not found\n"), "x");
  EXPECT_EQ(std::string(plain.message()), "x: HTTP 404: 404 page not found");
  EXPECT_EQ(RegistryErrorCode(plain), "");
  auto long_body = StatusFromResponse(Response(500, std::string(1000, 'z')), "x");
  EXPECT_LT(long_body.message().size(), 300u);
}

}  // namespace
}  // namespace trainpkg::registry
