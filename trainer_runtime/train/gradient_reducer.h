// Averages a model's gradients across replicas while Backward runs, in the
// buckets of bucket_plan.h (DDP-style overlap of communication with
// computation). Each replica's gradient is the mean over its own batch and
// gets a weight, its batch size; the reducer produces the weighted mean
// sum_r w_r g_r / sum_r w_r, which is the global batch's mean gradient even
// when the replicas' batches differ in size (TF's compute_average_loss
// semantics).
//
//   TP_ASSIGN_OR_RETURN(auto reducer,
//                       BucketedGradientReducer::Create(comm, model.parameters(), {}));
//   reducer->BeginStep(/*weight=*/batch_size);
//   TP_RETURN_IF_ERROR(model.Backward(loss_grad, [&](nn::Parameter& p) {
//     reducer->GradientReady(p);
//   }));
//   TP_RETURN_IF_ERROR(reducer->FinishStep());  // every grad is now the mean
//
// GradientReady copies the gradient, times the weight, into its bucket's
// flat buffer, which holds one more float: the weight. Each bucket's
// allreduce (sum) is prepared once (Communicator::PrepareAllReduce), so the
// transport keeps its buffers registered across steps; the summed weight at
// the end of the bucket divides the summed gradients as they are copied
// back. So a step costs one allreduce per bucket and nothing else.
// Gradients of a model on a CUDA device are staged through the same host
// buckets (copied out in GradientReady, back in FinishStep), so the host
// communicator reduces them whatever the GPU layout, ranks sharing one GPU
// included.
//
// Overlap: when a bucket other than the last is complete, a communication
// thread owned by the reducer runs its allreduce while Backward goes on with
// earlier layers. The last bucket completes at the end of Backward, when
// there is nothing left to overlap, so FinishStep runs it on the calling
// thread (no hand-off to another thread and back on the critical path); a
// model whose gradients fit one bucket starts no thread at all.
//
// Ordering: allreduces are issued strictly in bucket index order (bucket k
// waits for bucket k-1 even if it filled first). The plan is a pure function
// of the parameter list, identical on every replica of the same model, so
// every rank prepares and runs the same sequence of allreduces with the same
// sizes, the precondition of Communicator. Only the reducer uses the
// communicator between BeginStep and FinishStep.
//
// Thread safety: Create, BeginStep, GradientReady and FinishStep are called
// from one thread (the training loop).
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_GRADIENT_REDUCER_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_GRADIENT_REDUCER_H_

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/collectives/communicator.h"
#include "trainer_runtime/nn/parameter.h"
#include "trainer_runtime/train/bucket_plan.h"

namespace trainpkg::train {

class BucketedGradientReducer {
 public:
  // Plans the buckets and prepares their allreduces on `comm`; every rank
  // calls it with the same parameter shapes. `comm` and the parameters must
  // outlive the reducer. Errors: the communicator's (a broken one).
  static absl::StatusOr<std::unique_ptr<BucketedGradientReducer>> Create(
      collectives::Communicator& comm, std::span<nn::Parameter* const> parameters,
      const BucketOptions& options);
  // Waits for the allreduce in flight, if any, and stops the thread.
  ~BucketedGradientReducer();
  BucketedGradientReducer(const BucketedGradientReducer&) = delete;
  BucketedGradientReducer& operator=(const BucketedGradientReducer&) = delete;

  const std::vector<Bucket>& buckets() const { return buckets_; }

  // Starts a step in which this replica's gradients weigh `weight` (its
  // batch size). REQUIRES: the previous step, if any, was finished;
  // weight >= 0 and exactly representable as a float sum with the other
  // replicas' (integer counts below 2^24 are).
  void BeginStep(float weight);
  // `parameter`'s gradient is final for this step.
  // REQUIRES: parameter is one of the reducer's, reported once per step.
  void GradientReady(nn::Parameter& parameter);
  // Runs the last bucket's allreduce, waits for the others, and leaves every
  // gradient holding the weighted mean across replicas. The communicator's
  // error (Aborted naming a failed rank, ...) when an allreduce failed, the
  // step's gradients then unspecified and later steps failing the same way;
  // InvalidArgument when the replicas' weights sum to 0.
  // REQUIRES: every parameter was reported this step.
  absl::Status FinishStep();

 private:
  BucketedGradientReducer(std::span<nn::Parameter* const> parameters, const BucketOptions& options);
  // Bucket b's allreduce, then its parameters' gradients <- sum / total weight.
  absl::Status ReduceBucket(size_t b);
  void CommunicationLoop();

  std::vector<nn::Parameter*> parameters_;
  std::unordered_map<const nn::Parameter*, size_t> index_of_;
  std::vector<Bucket> buckets_;
  std::vector<size_t> bucket_of_;   // by parameter index
  std::vector<int64_t> offset_of_;  // by parameter index, within its bucket
  // By bucket: its parameters' weighted gradients, then the weight.
  std::vector<std::vector<float>> buffers_;
  std::vector<std::unique_ptr<collectives::PreparedAllReduce>> allreduces_;  // by bucket
  std::vector<size_t> waiting_;  // by bucket: parameters not yet reported
  std::vector<bool> reported_;   // by parameter, this step
  float weight_ = 0;             // this step's

  // The communication thread's share of a step: buckets 0 .. last-1.
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<bool> full_;  // by bucket, guarded by mu_
  size_t reduced_ = 0;      // buckets done this step, guarded by mu_
  bool in_step_ = false;    // guarded by mu_
  bool stop_ = false;       // guarded by mu_
  absl::Status error_;      // sticky, guarded by mu_
  std::thread thread_;      // only with more than one bucket
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_GRADIENT_REDUCER_H_
