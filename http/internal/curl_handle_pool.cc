#include "http/internal/curl_handle_pool.h"

#include <cstdio>
#include <cstdlib>

namespace trainpkg::http::internal {
namespace {

constexpr size_t kMaxIdleHandles = 16;

void InitCurlOnce() {
  static const bool ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!ok) {
    std::fputs("libcurl global initialisation failed\n", stderr);
    std::abort();
  }
}

}  // namespace

CurlHandlePool::CurlHandlePool() {
  InitCurlOnce();
  share_ = curl_share_init();
  if (share_ == nullptr) {
    std::fputs("curl_share_init failed\n", stderr);
    std::abort();
  }
  curl_share_setopt(share_, CURLSHOPT_LOCKFUNC, &CurlHandlePool::Lock);
  curl_share_setopt(share_, CURLSHOPT_UNLOCKFUNC, &CurlHandlePool::Unlock);
  curl_share_setopt(share_, CURLSHOPT_USERDATA, this);
  curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
}

CurlHandlePool::~CurlHandlePool() {
  for (CURL* handle : idle_) curl_easy_cleanup(handle);
  curl_share_cleanup(share_);
}

CURL* CurlHandlePool::Acquire() {
  CURL* handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      handle = idle_.back();
      idle_.pop_back();
    }
  }
  if (handle == nullptr) handle = curl_easy_init();
  if (handle == nullptr) {
    std::fputs("curl_easy_init failed\n", stderr);
    std::abort();
  }
  curl_easy_reset(handle);
  curl_easy_setopt(handle, CURLOPT_SHARE, share_);
  return handle;
}

void CurlHandlePool::Release(CURL* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() >= kMaxIdleHandles) {
    curl_easy_cleanup(handle);
    return;
  }
  idle_.push_back(handle);
}

void CurlHandlePool::Lock(CURL*, curl_lock_data data, curl_lock_access, void* pool) {
  static_cast<CurlHandlePool*>(pool)->share_locks_[data].lock();
}

void CurlHandlePool::Unlock(CURL*, curl_lock_data data, void* pool) {
  static_cast<CurlHandlePool*>(pool)->share_locks_[data].unlock();
}

}  // namespace trainpkg::http::internal
