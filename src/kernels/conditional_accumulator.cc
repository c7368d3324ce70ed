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

absl::StatusOr<std::shared_ptr<ConditionalAccumulatorResource>> ConditionalAccumulatorResource::Create(
    std::string name, DType dtype, PartialShape shape, const std::string& reduction_type) {
  if (dtype != DType::kFloat && dtype != DType::kDouble) {  // Not half: no kernel sums it.
    return absl::InvalidArgumentError(absl::StrCat("ConditionalAccumulator '", name,
                                                   "' accumulates float32 or float64, not ",
                                                   DTypeName(dtype)));
  }
  Reduction reduction;
  if (reduction_type == "MEAN") {
    reduction = Reduction::kMean;
  } else if (reduction_type == "SUM") {
    reduction = Reduction::kSum;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("ConditionalAccumulator '", name,
                                                   "': reduction_type must be MEAN or SUM, not '",
                                                   reduction_type, "'"));
  }
  return std::shared_ptr<ConditionalAccumulatorResource>(
      new ConditionalAccumulatorResource(std::move(name), dtype, std::move(shape), reduction));
}

ConditionalAccumulatorResource::ConditionalAccumulatorResource(std::string name, DType dtype, PartialShape shape,
                                               Reduction reduction)
    : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)), reduction_(reduction) {}

absl::Status ConditionalAccumulatorResource::CheckSameAs(DType dtype, const PartialShape& shape) const {
  if (dtype != dtype_ || shape != shape_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shared accumulator '", name_, "' holds ", DTypeName(dtype_), " ", shape_.DebugString(),
        " but ", DTypeName(dtype), " ", shape.DebugString(), " was requested"));
  }
  return absl::OkStatus();
}

absl::Status ConditionalAccumulatorResource::ApplyGradient(int64_t local_step, const Tensor& gradient) {
  if (gradient.dtype() != dtype_) {
    return absl::InvalidArgumentError(absl::StrCat("accumulator '", name_, "' holds ",
                                                   DTypeName(dtype_), " but the gradient is ",
                                                   DTypeName(gradient.dtype())));
  }
  if (!shape_.Matches(gradient.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "accumulator '", name_, "' has shape ", shape_.DebugString(),
        " but the gradient has shape ", gradient.shape().DebugString()));
  }
  Ready ready;
  {
    absl::MutexLock lock(&mu_);
    if (sum_.IsInitialized() && sum_.shape() != gradient.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "accumulator '", name_, "' holds gradients of shape ", sum_.shape().DebugString(),
          " but the gradient has shape ", gradient.shape().DebugString()));
    }
    if (local_step < global_step_) return absl::OkStatus();  // Stale: dropped, as in TF.
    if (!sum_.IsInitialized()) {
      sum_ = gradient.Copy();
    } else {
      // Through a pointer taken under mu_: -Wthread-safety does not see mu_ held inside the lambda.
      Tensor* sum = &sum_;
      VisitFloating(dtype_, [&](auto tag) { AddInto<TypeOf<decltype(tag)>>(*sum, gradient); });
    }
    ++count_;
    ServeLocked(&ready);
  }
  for (auto& fn : ready) fn();
  return absl::OkStatus();
}

void ConditionalAccumulatorResource::TakeGradient(int64_t num_required, CancellationManager* cancellation,
                                          TakeCallback done) {
  if (num_required < 1) {
    done(absl::InvalidArgumentError(absl::StrCat("TakeGradient on accumulator '", name_,
                                                 "': num_required must be at least 1, not ",
                                                 num_required)),
         Tensor());
    return;
  }
  Ready ready;
  {
    absl::MutexLock lock(&mu_);
    const int64_t id = next_id_++;
    takes_.push_back(Take{id, num_required, std::move(done), cancellation});
    ServeLocked(&ready);
    auto pending = std::find_if(takes_.begin(), takes_.end(),
                                [id](const Take& t) { return t.id == id; });
    if (pending != takes_.end() && cancellation != nullptr) {
      // Registered under the lock (see FIFOQueueResource::Add): Cancel takes the lock itself.
      pending->token =
          cancellation->RegisterCallback([self = shared_from_this(), id] { self->Cancel(id); });
      if (pending->token == CancellationManager::kInvalidToken) {
        ready.push_back([done = std::move(pending->done), name = name_] {
          done(absl::CancelledError(absl::StrCat("TakeGradient on accumulator '", name,
                                                 "' was cancelled")),
               Tensor());
        });
        takes_.erase(pending);
      }
    }
  }
  for (auto& fn : ready) fn();
}

void ConditionalAccumulatorResource::ServeLocked(Ready* ready) {
  while (!takes_.empty() && count_ >= takes_.front().num_required) {
    Take take = std::move(takes_.front());
    takes_.pop_front();
    Tensor result = std::move(sum_);
    if (reduction_ == Reduction::kMean) {
      const auto count = count_;  // As above: read under mu_, outside the lambda.
      VisitFloating(dtype_, [&](auto tag) { DivideBy<TypeOf<decltype(tag)>>(result, count); });
    }
    sum_ = Tensor();
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

void ConditionalAccumulatorResource::Cancel(int64_t id) {
  TakeCallback done;
  {
    absl::MutexLock lock(&mu_);
    auto it = std::find_if(takes_.begin(), takes_.end(), [id](const Take& t) { return t.id == id; });
    if (it == takes_.end()) return;  // Finished first; its owner answers it.
    done = std::move(it->done);
    takes_.erase(it);
  }
  done(absl::CancelledError(absl::StrCat("TakeGradient on accumulator '", name_, "' was cancelled")),
       Tensor());
}

int64_t ConditionalAccumulatorResource::num_accumulated() const {
  absl::MutexLock lock(&mu_);
  return count_;
}

int64_t ConditionalAccumulatorResource::global_step() const {
  absl::MutexLock lock(&mu_);
  return global_step_;
}

void ConditionalAccumulatorResource::SetGlobalStep(int64_t new_global_step) {
  absl::MutexLock lock(&mu_);
  global_step_ = new_global_step;
}

}  // namespace tw
