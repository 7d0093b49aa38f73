#include "registry/registry_error.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/internal/url.h"
#include "tests/registry/fakes.h"

namespace trainpkg::registry {
namespace {

using ::testing::HasSubstr;
using testing::Response;

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

TEST(UrlTest, ResolvesRelativeUploadLocations) {
  using internal::ResolveUrl;
  const std::string base = "https://r:5000/v2/app/blobs/uploads/";
  EXPECT_EQ(ResolveUrl(base, "/v2/app/blobs/uploads/u?_state=s"),
            "https://r:5000/v2/app/blobs/uploads/u?_state=s");
  EXPECT_EQ(ResolveUrl(base, "u1"), "https://r:5000/v2/app/blobs/uploads/u1");
  EXPECT_EQ(ResolveUrl(base, "https://storage/x?sig=1"), "https://storage/x?sig=1");
  EXPECT_EQ(ResolveUrl(base, "//other/y"), "https://other/y");
  EXPECT_EQ(ResolveUrl("https://r/v2/a/tags/list?n=1", "?n=1&last=b"),
            "https://r/v2/a/tags/list?n=1&last=b");
  EXPECT_EQ(ResolveUrl("http://h", "/v2/"), "http://h/v2/");
}

TEST(UrlTest, AuthorityAndDisplay) {
  EXPECT_EQ(*internal::UrlAuthority("https://127.0.0.1:5000/v2/"), "127.0.0.1:5000");
  EXPECT_EQ(*internal::UrlAuthority("http://[::1]:80"), "[::1]:80");
  EXPECT_EQ(*internal::UrlAuthority("https://u:p@gcr.io/v2/"), "gcr.io");
  EXPECT_FALSE(internal::UrlAuthority("/v2/").ok());
  EXPECT_EQ(internal::UrlForDisplay("https://s/x?X-Amz-Signature=secret"), "https://s/x");
  EXPECT_EQ(internal::UrlEncode("repository:a/b:pull,push x"),
            "repository%3Aa%2Fb%3Apull%2Cpush%20x");
}

}  // namespace
}  // namespace trainpkg::registry
