#include "kernels/conditional_accumulator.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tw {
namespace {

template <typename T>
void AddInto(Tensor& sum, const Tensor& g) {
  T* s = sum.data<T>();
  const T* x = g.data<T>();
  for (int64_t i = 0, n = sum.NumElements(); i < n; ++i) s[i] += x[i];
}

template <typename T>
void DivideBy(Tensor& sum, int64_t count) {
  T* s = sum.data<T>();
  for (int64_t i = 0, n = sum.NumElements(); i < n; ++i) s[i] /= static_cast<T>(count);
}

}  // namespace

absl::StatusOr<AccumulatorBase::Reduction> AccumulatorBase::CheckArgs(const char* kind, const std::string& name,
                                                                      DType dtype,
                                                                      const std::string& reduction_type) {
  if (dtype != DType::kFloat && dtype != DType::kDouble) {  // Not half: no kernel sums it.
    return absl::InvalidArgumentError(
        absl::StrCat(kind, " '", name, "' accumulates float32 or float64, not ", DTypeName(dtype)));
  }
  if (reduction_type == "MEAN") return Reduction::kMean;
  if (reduction_type == "SUM") return Reduction::kSum;
  return absl::InvalidArgumentError(
      absl::StrCat(kind, " '", name, "': reduction_type must be MEAN or SUM, not '", reduction_type, "'"));
}

absl::Status AccumulatorBase::CheckSameAs(DType dtype, const PartialShape& shape) const {
  if (dtype != dtype_ || shape != shape_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shared accumulator '", name_, "' holds ", DTypeName(dtype_), " ", shape_.DebugString(),
        " but ", DTypeName(dtype), " ", shape.DebugString(), " was requested"));
  }
  return absl::OkStatus();
}

absl::Status AccumulatorBase::Apply(int64_t local_step, absl::FunctionRef<absl::Status()> add) {
  Ready ready;
  {
    absl::MutexLock lock(&mu_);
    if (local_step < global_step_) return absl::OkStatus();  // Stale: dropped, as in TF.
    TW_RETURN_IF_ERROR(add());
    ++count_;
    ServeLocked(&ready);
  }
  for (auto& fn : ready) fn();
  return absl::OkStatus();
}

void AccumulatorBase::TakeGradient(int64_t num_required, CancellationManager* cancellation, TakeCallback done) {
  if (num_required < 1) {
    done(absl::InvalidArgumentError(absl::StrCat("TakeGradient on accumulator '", name_,
                                                 "': num_required must be at least 1, not ", num_required)),
         {});
    return;
  }
  Ready ready;
  {
    absl::MutexLock lock(&mu_);
    const int64_t id = next_id_++;
    takes_.push_back(Take{id, num_required, std::move(done), cancellation});
    ServeLocked(&ready);
    auto pending = std::find_if(takes_.begin(), takes_.end(), [id](const Take& t) { return t.id == id; });
    if (pending != takes_.end() && cancellation != nullptr) {
      // Registered under the lock (see FIFOQueueResource::Add): Cancel takes the lock itself.
      pending->token = cancellation->RegisterCallback([self = shared_from_this(), id] { self->Cancel(id); });
      if (pending->token == CancellationManager::kInvalidToken) {
        ready.push_back([done = std::move(pending->done), name = name_] {
          done(absl::CancelledError(absl::StrCat("TakeGradient on accumulator '", name, "' was cancelled")), {});
        });
        takes_.erase(pending);
      }
    }
  }
  for (auto& fn : ready) fn();
}

void AccumulatorBase::ServeLocked(Ready* ready) {
  while (!takes_.empty() && count_ >= takes_.front().num_required) {
    Take take = std::move(takes_.front());
    takes_.pop_front();
    std::vector<Tensor> result = TakeLocked();
    count_ = 0;
    ++global_step_;
    ready->push_back([take = std::move(take), result = std::move(result)] {
      if (take.cancellation != nullptr && take.token != CancellationManager::kInvalidToken) {
        take.cancellation->DeregisterCallback(take.token);
      }
      take.done(absl::OkStatus(), result);
    });
  }
}

void AccumulatorBase::Cancel(int64_t id) {
  TakeCallback done;
  {
    absl::MutexLock lock(&mu_);
    auto it = std::find_if(takes_.begin(), takes_.end(), [id](const Take& t) { return t.id == id; });
    if (it == takes_.end()) return;  // Finished first; its owner answers it.
    done = std::move(it->done);
    takes_.erase(it);
  }
  done(absl::CancelledError(absl::StrCat("TakeGradient on accumulator '", name_, "' was cancelled")), {});
}

int64_t AccumulatorBase::num_accumulated() const {
  absl::MutexLock lock(&mu_);
  return count_;
}

int64_t AccumulatorBase::global_step() const {
  absl::MutexLock lock(&mu_);
  return global_step_;
}

void AccumulatorBase::SetGlobalStep(int64_t new_global_step) {
  absl::MutexLock lock(&mu_);
  global_step_ = new_global_step;
}

absl::StatusOr<std::shared_ptr<ConditionalAccumulatorResource>> ConditionalAccumulatorResource::Create(
    std::string name, DType dtype, PartialShape shape, const std::string& reduction_type) {
  TW_ASSIGN_OR_RETURN(Reduction reduction, CheckArgs("ConditionalAccumulator", name, dtype, reduction_type));
  return std::shared_ptr<ConditionalAccumulatorResource>(
      new ConditionalAccumulatorResource(std::move(name), dtype, std::move(shape), reduction));
}

absl::Status ConditionalAccumulatorResource::ApplyGradient(int64_t local_step, const Tensor& gradient) {
  if (gradient.dtype() != dtype_) {
    return absl::InvalidArgumentError(absl::StrCat("accumulator '", name_, "' holds ", DTypeName(dtype_),
                                                   " but the gradient is ", DTypeName(gradient.dtype())));
  }
  if (!shape_.Matches(gradient.shape())) {
    return absl::InvalidArgumentError(absl::StrCat("accumulator '", name_, "' has shape ", shape_.DebugString(),
                                                   " but the gradient has shape ", gradient.shape().DebugString()));
  }
  return Apply(local_step, [&]() ABSL_NO_THREAD_SAFETY_ANALYSIS -> absl::Status {  // Runs under mu_.
    if (!sum_.IsInitialized()) {
      sum_ = gradient.Copy();
      return absl::OkStatus();
    }
    if (sum_.shape() != gradient.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("accumulator '", name_, "' holds gradients of shape ",
                                                     sum_.shape().DebugString(), " but the gradient has shape ",
                                                     gradient.shape().DebugString()));
    }
    Tensor* sum = &sum_;  // The generic lambda below is analysed on its own: it sees no lock.
    VisitFloating(dtype_, [&](auto tag) { AddInto<TypeOf<decltype(tag)>>(*sum, gradient); });
    return absl::OkStatus();
  });
}

std::vector<Tensor> ConditionalAccumulatorResource::TakeLocked() {
  Tensor result = std::move(sum_);
  sum_ = Tensor();
  if (reduction_ == Reduction::kMean) {
    const int64_t n = count();
    VisitFloating(dtype_, [&](auto tag) { DivideBy<TypeOf<decltype(tag)>>(result, n); });
  }
  return {std::move(result)};
}

}  // namespace tw
