#include "http/url.h"

#include <string>

#include "gtest/gtest.h"

namespace trainpkg::http {
namespace {

TEST(UrlTest, ResolvesRelativeUploadLocations) {
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
  EXPECT_EQ(*UrlAuthority("https://127.0.0.1:5000/v2/"), "127.0.0.1:5000");
  EXPECT_EQ(*UrlAuthority("http://[::1]:80"), "[::1]:80");
  EXPECT_EQ(*UrlAuthority("https://u:p@gcr.io/v2/"), "gcr.io");
  EXPECT_FALSE(UrlAuthority("/v2/").ok());
  EXPECT_EQ(UrlForDisplay("https://s/x?X-Amz-Signature=secret"), "https://s/x");
  EXPECT_EQ(UrlEncode("repository:a/b:pull,push x"), "repository%3Aa%2Fb%3Apull%2Cpush%20x");
}

}  // namespace
}  // namespace trainpkg::http
