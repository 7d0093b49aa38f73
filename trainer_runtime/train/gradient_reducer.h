// Sums a model's gradients across replicas while Backward runs, in the
// buckets of bucket_plan.h (DDP-style overlap of communication with
// computation). The caller weights each replica's gradient beforehand (Fit
// scales the loss gradient by local batch / global batch, as TF's
// compute_average_loss does), so the sum is the global batch's mean
// gradient even when the replicas' batches differ in size.
//
//   BucketedGradientReducer reducer(comm, model.parameters(), {});
//   reducer.BeginStep();
//   TP_RETURN_IF_ERROR(model.Backward(loss_grad, [&](nn::Parameter& p) {
//     reducer.GradientReady(p);
//   }));
//   TP_RETURN_IF_ERROR(reducer.FinishStep());   // every grad is now the sum
//
// GradientReady copies the gradient into its bucket's flat buffer; when the
// bucket is complete, a communication thread owned by the reducer runs its
// AllReduce(kSum) while Backward goes on with earlier layers, and copies the
// sum back into the parameters' gradients.
//
// Ordering: the communication thread issues the allreduces strictly in
// bucket index order (bucket k waits for bucket k-1 even if it filled
// first). The plan is a pure function of the parameter list, identical on
// every replica of the same model, so every rank issues the same sequence of
// AllReduce calls with the same sizes — the precondition of Communicator.
// Only this thread uses the communicator between BeginStep and FinishStep.
//
// Thread safety: BeginStep, GradientReady and FinishStep are called from one
// thread (the training loop).
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_GRADIENT_REDUCER_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_GRADIENT_REDUCER_H_

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <span>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "trainer_runtime/collectives/communicator.h"
#include "trainer_runtime/nn/parameter.h"
#include "trainer_runtime/train/bucket_plan.h"

namespace trainpkg::train {

class BucketedGradientReducer {
 public:
  // `comm` and the parameters must outlive the reducer. Starts the
  // communication thread.
  BucketedGradientReducer(collectives::Communicator& comm,
                          std::span<nn::Parameter* const> parameters, const BucketOptions& options);
  // Waits for the allreduce in flight, if any, and stops the thread.
  ~BucketedGradientReducer();
  BucketedGradientReducer(const BucketedGradientReducer&) = delete;
  BucketedGradientReducer& operator=(const BucketedGradientReducer&) = delete;

  const std::vector<Bucket>& buckets() const { return buckets_; }

  // Starts a step. REQUIRES: the previous step, if any, was finished.
  void BeginStep();
  // `parameter`'s gradient is final for this step.
  // REQUIRES: parameter is one of the reducer's, reported once per step.
  void GradientReady(nn::Parameter& parameter);
  // Waits until every bucket is reduced and copied back. The communicator's
  // error (Aborted naming a failed rank, ...) when an allreduce failed; the
  // step's gradients are then unspecified and later steps fail the same way.
  // REQUIRES: every parameter was reported this step.
  absl::Status FinishStep();

 private:
  void CommunicationLoop();

  collectives::Communicator& comm_;
  std::vector<nn::Parameter*> parameters_;
  std::unordered_map<const nn::Parameter*, size_t> index_of_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;   // by parameter index
  std::vector<int64_t> offset_of_;  // by parameter index, within its bucket
  std::vector<std::vector<float>> buffers_;
  std::vector<size_t> waiting_;  // by bucket: parameters not yet reported
  std::vector<bool> reported_;   // by parameter, this step

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<bool> full_;  // by bucket, guarded by mu_
  size_t reduced_ = 0;      // buckets done this step, guarded by mu_
  bool in_step_ = false;    // guarded by mu_
  bool stop_ = false;       // guarded by mu_
  absl::Status error_;      // sticky, guarded by mu_
  std::thread thread_;
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_GRADIENT_REDUCER_H_
