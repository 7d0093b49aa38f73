#include "trainer_runtime/train/gradient_reducer.h"

#include <algorithm>
#include <utility>

#include "base/check.h"
#include "fmt/format.h"

namespace trainpkg::train {

absl::StatusOr<std::unique_ptr<BucketedGradientReducer>> BucketedGradientReducer::Create(
    collectives::Communicator& comm, std::span<nn::Parameter* const> parameters,
    const BucketOptions& options) {
  std::unique_ptr<BucketedGradientReducer> reducer(
      new BucketedGradientReducer(parameters, options));
  // In bucket order on every rank, before any runs.
  for (std::vector<float>& buffer : reducer->buffers_) {
    absl::StatusOr<std::unique_ptr<collectives::PreparedAllReduce>> prepared =
        comm.PrepareAllReduce(std::span<float>(buffer), collectives::ReduceOp::kSum);
    if (!prepared.ok()) return prepared.status();
    reducer->allreduces_.push_back(*std::move(prepared));
  }
  if (reducer->buckets_.size() > 1) {
    reducer->thread_ = std::thread([r = reducer.get()] { r->CommunicationLoop(); });
  }
  return reducer;
}

BucketedGradientReducer::BucketedGradientReducer(std::span<nn::Parameter* const> parameters,
                                                 const BucketOptions& options)
    : parameters_(parameters.begin(), parameters.end()) {
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
    // The gradients, then the weight.
    buffers_.emplace_back(static_cast<size_t>(buckets_[b].num_elements) + 1);
  }
  waiting_.resize(buckets_.size());
  full_.assign(buckets_.size(), false);
  reported_.assign(parameters_.size(), false);
}

BucketedGradientReducer::~BucketedGradientReducer() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BucketedGradientReducer::BeginStep(float weight) {
  TP_CHECK(weight >= 0, "gradient weight {} is negative", weight);
  std::lock_guard<std::mutex> lock(mu_);
  TP_CHECK(!in_step_, "BeginStep before the previous step's FinishStep");
  in_step_ = true;
  weight_ = weight;
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
  // No lock for the copy: each parameter has its own range of the bucket,
  // and the communication thread touches a bucket only after full_[b] is set
  // under mu_, once all its parameters have reported.
  float* out = buffers_[b].data() + offset_of_[p];
  const float weight = weight_;
  const int64_t n = parameter.grad.num_elements();
  if (parameter.grad.device() == nn::Device::kCpu) {
    const float* grad = parameter.grad.data();
    for (int64_t i = 0; i < n; ++i) out[i] = grad[i] * weight;
  } else {
    // Staged through the host bucket: the communicator reduces host memory.
    parameter.grad.CopyToHost(std::span<float>(out, static_cast<size_t>(n)));
    for (int64_t i = 0; i < n; ++i) out[i] *= weight;
  }
  if (--waiting_[b] != 0) return;
  buffers_[b].back() = weight;
  if (b + 1 == buckets_.size()) return;  // FinishStep reduces the last bucket
  {
    std::lock_guard<std::mutex> lock(mu_);
    full_[b] = true;
  }
  cv_.notify_all();
}

absl::Status BucketedGradientReducer::FinishStep() {
  for (size_t p = 0; p < parameters_.size(); ++p) {
    TP_CHECK(reported_[p], "FinishStep before {}'s gradient was reported", parameters_[p]->name);
  }
  if (buckets_.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    in_step_ = false;
    return absl::OkStatus();
  }
  const size_t last = buckets_.size() - 1;
  {
    std::unique_lock<std::mutex> lock(mu_);
    // Strict bucket order: the communication thread's buckets first.
    cv_.wait(lock, [&] { return reduced_ == last; });
    in_step_ = false;
    if (!error_.ok()) return error_;
  }
  absl::Status status = ReduceBucket(last);
  std::lock_guard<std::mutex> lock(mu_);
  if (!status.ok() && error_.ok()) error_ = std::move(status);
  if (!error_.ok()) return error_;
  // Device gradients go back on this thread, whose CUDA device is the
  // model's (the communication thread's current device may be another).
  for (size_t p = 0; p < parameters_.size(); ++p) {
    nn::Tensor& grad = parameters_[p]->grad;
    if (grad.device() == nn::Device::kCpu) continue;
    grad.CopyFromHost(std::span<const float>(buffers_[bucket_of_[p]].data() + offset_of_[p],
                                             static_cast<size_t>(grad.num_elements())));
  }
  return absl::OkStatus();
}

absl::Status BucketedGradientReducer::ReduceBucket(size_t b) {
  if (absl::Status status = allreduces_[b]->Run(); !status.ok()) return status;
  const std::vector<float>& sum = buffers_[b];
  const float total = sum.back();
  // Written so that a NaN total is refused too.
  if (!(total > 0)) {
    return absl::InvalidArgumentError(fmt::format(
        "the replicas' gradient weights (batch sizes) sum to {}; at least one must be > 0", total));
  }
  for (size_t p : buckets_[b].parameters) {
    nn::Tensor& grad = parameters_[p]->grad;
    float* in = buffers_[b].data() + offset_of_[p];
    // A device gradient is divided in place and copied by FinishStep.
    float* out = grad.device() == nn::Device::kCpu ? grad.data() : in;
    for (int64_t i = 0; i < grad.num_elements(); ++i) out[i] = in[i] / total;
  }
  return absl::OkStatus();
}

void BucketedGradientReducer::CommunicationLoop() {
  const size_t last = buckets_.size() - 1;
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    // The next bucket to reduce is always reduced_: strict index order.
    cv_.wait(lock, [&] { return stop_ || (in_step_ && reduced_ < last && full_[reduced_]); });
    if (stop_) return;
    const size_t b = reduced_;
    // After an error the remaining buckets are counted but not reduced, so
    // FinishStep stops waiting and returns the error; the broken communicator
    // would fail them anyway.
    const bool failed = !error_.ok();
    lock.unlock();
    absl::Status status = failed ? absl::OkStatus() : ReduceBucket(b);
    lock.lock();
    if (!status.ok() && error_.ok()) error_ = std::move(status);
    ++reduced_;
    if (reduced_ == last) cv_.notify_all();
  }
}

}  // namespace trainpkg::train
