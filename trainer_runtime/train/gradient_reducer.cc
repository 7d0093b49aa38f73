#include "trainer_runtime/train/gradient_reducer.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/check.h"

namespace trainpkg::train {

BucketedGradientReducer::BucketedGradientReducer(collectives::Communicator& comm,
                                                 std::span<nn::Parameter* const> parameters,
                                                 const BucketOptions& options)
    : comm_(comm), parameters_(parameters.begin(), parameters.end()) {
  std::vector<int64_t> sizes;
  for (size_t i = 0; i < parameters_.size(); ++i) {
    sizes.push_back(parameters_[i]->grad.num_elements());
    index_of_[parameters_[i]] = i;
  }
  buckets_ = PlanBuckets(sizes, options);
  bucket_of_.resize(parameters_.size());
  offset_of_.resize(parameters_.size());
  for (size_t b = 0; b < buckets_.size(); ++b) {
    int64_t offset = 0;
    for (size_t p : buckets_[b].parameters) {
      bucket_of_[p] = b;
      offset_of_[p] = offset;
      offset += sizes[p];
    }
    buffers_.emplace_back(static_cast<size_t>(buckets_[b].num_elements));
  }
  waiting_.resize(buckets_.size());
  full_.assign(buckets_.size(), false);
  reported_.assign(parameters_.size(), false);
  reduced_ = buckets_.size();
  thread_ = std::thread([this] { CommunicationLoop(); });
}

BucketedGradientReducer::~BucketedGradientReducer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BucketedGradientReducer::BeginStep() {
  std::lock_guard<std::mutex> lock(mu_);
  TP_CHECK(!in_step_, "BeginStep before the previous step's FinishStep");
  in_step_ = true;
  reduced_ = 0;
  std::fill(full_.begin(), full_.end(), false);
  std::fill(reported_.begin(), reported_.end(), false);
  for (size_t b = 0; b < buckets_.size(); ++b) waiting_[b] = buckets_[b].parameters.size();
}

void BucketedGradientReducer::GradientReady(nn::Parameter& parameter) {
  auto it = index_of_.find(&parameter);
  TP_CHECK(it != index_of_.end(), "{} is not a parameter of this reducer", parameter.name);
  const size_t p = it->second;
  TP_CHECK(!reported_[p], "{} reported twice in one step", parameter.name);
  reported_[p] = true;
  const size_t b = bucket_of_[p];
  std::memcpy(buffers_[b].data() + offset_of_[p], parameter.grad.data(),
              static_cast<size_t>(parameter.grad.num_elements()) * sizeof(float));
  if (--waiting_[b] == 0) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      full_[b] = true;
    }
    cv_.notify_all();
  }
}

absl::Status BucketedGradientReducer::FinishStep() {
  for (size_t p = 0; p < parameters_.size(); ++p) {
    TP_CHECK(reported_[p], "FinishStep before {}'s gradient was reported", parameters_[p]->name);
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return reduced_ == buckets_.size(); });
  in_step_ = false;
  return error_;
}

void BucketedGradientReducer::CommunicationLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // The next bucket to reduce is always reduced_: strict index order.
    cv_.wait(lock, [this] {
      return stop_ || (in_step_ && reduced_ < buckets_.size() && full_[reduced_]);
    });
    if (stop_) return;
    const size_t b = reduced_;
    const bool failed = !error_.ok();
    lock.unlock();
    absl::Status status;
    if (!failed) {
      status = comm_.AllReduce(std::span<float>(buffers_[b]), collectives::ReduceOp::kSum);
      if (status.ok()) {
        for (size_t p : buckets_[b].parameters) {
          nn::Tensor& grad = parameters_[p]->grad;
          std::memcpy(grad.data(), buffers_[b].data() + offset_of_[p],
                      static_cast<size_t>(grad.num_elements()) * sizeof(float));
        }
      }
    }
    lock.lock();
    if (!status.ok() && error_.ok()) error_ = std::move(status);
    ++reduced_;
    if (reduced_ == buckets_.size()) cv_.notify_all();
  }
}

}  // namespace trainpkg::train
