// Reusable libcurl easy handles sharing one connection, DNS and TLS-session
// cache, so consecutive and concurrent requests reuse connections.
#ifndef TRAINPKG_HTTP_INTERNAL_CURL_HANDLE_POOL_H_
#define TRAINPKG_HTTP_INTERNAL_CURL_HANDLE_POOL_H_

#include <curl/curl.h>

#include <array>
#include <mutex>
#include <vector>

namespace trainpkg::http::internal {

// Thread-safe. Handles come back reset (curl_easy_reset keeps connections).
class CurlHandlePool {
 public:
  CurlHandlePool();
  ~CurlHandlePool();
  CurlHandlePool(const CurlHandlePool&) = delete;
  CurlHandlePool& operator=(const CurlHandlePool&) = delete;

  // A handle attached to the shared cache; never null (aborts when libcurl
  // cannot allocate one).
  CURL* Acquire();
  void Release(CURL* handle);

 private:
  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* pool);
  static void Unlock(CURL*, curl_lock_data data, void* pool);

  CURLSH* share_ = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> share_locks_;
  std::mutex mu_;
  std::vector<CURL*> idle_;
};

}  // namespace trainpkg::http::internal

#endif  // TRAINPKG_HTTP_INTERNAL_CURL_HANDLE_POOL_H_
