#include "kernels/fifo_queue.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tw {
namespace {

std::string ShapesString(const std::vector<PartialShape>& shapes) {
  return absl::StrCat("[", absl::StrJoin(shapes, ", ", [](std::string* out, const PartialShape& s) {
                        out->append(s.DebugString());
                      }), "]");
}

std::string TypesString(const std::vector<DType>& types) {
  return absl::StrCat("[", absl::StrJoin(types, ", ", [](std::string* out, DType t) {
                        out->append(DTypeName(t));
                      }), "]");
}

// Element `i` along dimension 0 of `batch`, copied out.
Tensor Unbatch(const Tensor& batch, int64_t i) {
  TensorShape shape(absl::Span<const int64_t>(batch.shape().dims()).subspan(1));
  Tensor element(batch.dtype(), shape);
  if (batch.dtype() == DType::kString) {  // Objects, not bytes.
    const int64_t n = element.NumElements();
    std::copy_n(batch.data<std::string>() + i * n, n, element.data<std::string>());
    return element;
  }
  const size_t bytes = element.TotalBytes();
  if (bytes > 0) {
    std::memcpy(element.raw_data(), static_cast<const char*>(batch.raw_data()) + i * bytes, bytes);
  }
  return element;
}

}  // namespace

absl::StatusOr<std::shared_ptr<FIFOQueueResource>> FIFOQueueResource::Create(std::string name,
                                                             std::vector<DType> types,
                                                             std::vector<PartialShape> shapes,
                                                             int64_t capacity) {
  if (types.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FIFOQueue '", name, "' needs at least one component type"));
  }
  for (DType t : types) {
    if (!IsValidDType(static_cast<int>(t)) || t == DType::kResource) {
      return absl::InvalidArgumentError(absl::StrCat("FIFOQueue '", name, "' cannot hold ",
                                                     DTypeName(t), " components"));
    }
  }
  if (!shapes.empty() && shapes.size() != types.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FIFOQueue '", name, "' has ", types.size(), " component types but ", shapes.size(),
        " shapes; give a shape for every component or none"));
  }
  return std::shared_ptr<FIFOQueueResource>(
      new FIFOQueueResource(std::move(name), std::move(types), std::move(shapes), capacity));
}

FIFOQueueResource::FIFOQueueResource(std::string name, std::vector<DType> types, std::vector<PartialShape> shapes,
                     int64_t capacity)
    : name_(std::move(name)),
      types_(std::move(types)),
      shapes_(std::move(shapes)),
      capacity_(capacity) {}

absl::Status FIFOQueueResource::CheckSameAs(const std::vector<DType>& types,
                                    const std::vector<PartialShape>& shapes,
                                    int64_t capacity) const {
  if (types != types_) {
    return absl::InvalidArgumentError(absl::StrCat("shared queue '", name_, "' has component types ",
                                                   TypesString(types_), " but requested ",
                                                   TypesString(types)));
  }
  if (shapes != shapes_) {
    return absl::InvalidArgumentError(absl::StrCat("shared queue '", name_, "' has shapes ",
                                                   ShapesString(shapes_), " but requested ",
                                                   ShapesString(shapes)));
  }
  if ((capacity < 0) != (capacity_ < 0) || (capacity >= 0 && capacity != capacity_)) {
    return absl::InvalidArgumentError(absl::StrCat("shared queue '", name_, "' has capacity ",
                                                   capacity_, " but requested ", capacity));
  }
  return absl::OkStatus();
}

absl::Status FIFOQueueResource::CheckElement(const Tuple& tuple, bool batched) const {
  if (tuple.size() != types_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(kind_, " '", name_, "' has ", types_.size(),
                                                   " components but was given ", tuple.size()));
  }
  for (size_t i = 0; i < tuple.size(); ++i) {
    const Tensor& t = tuple[i];
    if (t.dtype() != types_[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "component ", i, " of ", kind_, " '", name_, "' is ", DTypeName(types_[i]),
          " but was given ", DTypeName(t.dtype())));
    }
    if (batched && (t.rank() == 0 || t.dim(0) != tuple[0].dim(0))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "EnqueueMany on ", kind_, " '", name_, "' needs every component batched along dimension "
          "0 with one size; component ", i, " has shape ", t.shape().DebugString(),
          i == 0 ? "" : absl::StrCat(", component 0 ", tuple[0].shape().DebugString())));
    }
    if (shapes_.empty()) continue;
    auto dims = absl::Span<const int64_t>(t.shape().dims()).subspan(batched ? 1 : 0);
    TensorShape element(dims);
    if (!shapes_[i].Matches(element)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "component ", i, " of ", kind_, " '", name_, "' has shape ", shapes_[i].DebugString(),
          " but was given ", batched ? "elements of shape " : "", element.DebugString()));
    }
  }
  return absl::OkStatus();
}

void FIFOQueueResource::Enqueue(Tuple tuple, CancellationManager* cancellation, DoneCallback done) {
  if (absl::Status s = CheckElement(tuple, /*batched=*/false); !s.ok()) {
    done(s);
    return;
  }
  Attempt a;
  a.to_enqueue.push_back(std::move(tuple));
  a.cancellation = cancellation;
  a.enqueue_done = std::move(done);
  Add(std::move(a), /*is_enqueue=*/true);
}

void FIFOQueueResource::EnqueueMany(const Tuple& batch, CancellationManager* cancellation,
                            DoneCallback done) {
  if (absl::Status s = CheckElement(batch, /*batched=*/true); !s.ok()) {
    done(s);
    return;
  }
  Attempt a;
  for (int64_t i = 0; i < batch[0].dim(0); ++i) {
    Tuple element;
    for (const Tensor& component : batch) element.push_back(Unbatch(component, i));
    a.to_enqueue.push_back(std::move(element));
  }
  a.cancellation = cancellation;
  a.enqueue_done = std::move(done);
  Add(std::move(a), /*is_enqueue=*/true);
}

void FIFOQueueResource::Dequeue(CancellationManager* cancellation, DequeueCallback done) {
  Attempt a;
  a.wanted = -1;
  a.cancellation = cancellation;
  a.dequeue_done = std::move(done);
  Add(std::move(a), /*is_enqueue=*/false);
}

void FIFOQueueResource::SetShuffle(int64_t min_after_dequeue, uint64_t seed) {
  absl::MutexLock lock(&mu_);
  kind_ = "RandomShuffleQueue";
  shuffle_ = true;
  min_after_dequeue_ = std::max<int64_t>(0, min_after_dequeue);
  rng_.seed(seed != 0 ? seed : std::random_device()());
}

absl::Status FIFOQueueResource::SetPadding() {
  if (shapes_.size() != types_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Shapes must be provided for all components, but received ",
                                                   types_.size(), " dtypes and ", shapes_.size(), " shapes."));
  }
  for (const PartialShape& s : shapes_) {
    if (!s.known_rank()) {
      return absl::InvalidArgumentError(absl::StrCat("PaddingFIFOQueue '", name_, "': shape ", s.DebugString(),
                                                     " must have known rank."));
    }
  }
  absl::MutexLock lock(&mu_);
  kind_ = "PaddingFIFOQueue";
  pad_ = true;
  return absl::OkStatus();
}

void FIFOQueueResource::DequeueUpTo(int64_t n, CancellationManager* cancellation, DequeueCallback done) {
  DequeueBatch(n, /*up_to=*/true, cancellation, std::move(done));
}

void FIFOQueueResource::DequeueMany(int64_t n, CancellationManager* cancellation, DequeueCallback done) {
  DequeueBatch(n, /*up_to=*/false, cancellation, std::move(done));
}

void FIFOQueueResource::DequeueBatch(int64_t n, bool up_to, CancellationManager* cancellation,
                                     DequeueCallback done) {
  if (n < 0) {
    done(absl::InvalidArgumentError(absl::StrCat("DequeueMany on ", kind_, " '", name_,
                                                 "' asked for ", n, " elements")),
         {});
    return;
  }
  bool specified = !shapes_.empty();
  for (const PartialShape& s : shapes_) specified = specified && (pad_ || s.IsFullyDefined());
  if (!specified) {
    done(absl::InvalidArgumentError(absl::StrCat(
             "DequeueMany on ", kind_, " '", name_,
             "' needs the queue's components to have fully defined shapes, not ",
             shapes_.empty() ? std::string("none") : ShapesString(shapes_))),
         {});
    return;
  }
  Attempt a;
  a.wanted = n;
  a.up_to = up_to;
  a.cancellation = cancellation;
  a.dequeue_done = std::move(done);
  Add(std::move(a), /*is_enqueue=*/false);
}

void FIFOQueueResource::Add(Attempt attempt, bool is_enqueue) {
  Ready ready;
  {
    absl::MutexLock lock(&mu_);
    if (is_enqueue && closed_) {
      ready.push_back([done = std::move(attempt.enqueue_done), name = name_, kind = kind_] {
        done(absl::CancelledError(absl::StrCat(kind, " '", name, "' is closed.")));
      });
    } else {
      const int64_t id = attempt.id = next_id_++;
      CancellationManager* cancellation = attempt.cancellation;
      std::deque<Attempt>& list = is_enqueue ? enqueues_ : dequeues_;
      list.push_back(std::move(attempt));
      ServeLocked(&ready);
      auto pending = std::find_if(list.begin(), list.end(),
                                  [id](const Attempt& a) { return a.id == id; });
      if (pending != list.end() && cancellation != nullptr) {
        // Registered under the lock: the attempt cannot finish before its token is set.
        // The callback only runs Cancel, which takes the lock itself.
        pending->token = cancellation->RegisterCallback(
            [self = shared_from_this(), id] { self->Cancel(id); });
        if (pending->token == CancellationManager::kInvalidToken) {
          Attempt a = std::move(*pending);
          list.erase(pending);
          absl::Status cancelled = absl::CancelledError(absl::StrCat(
              is_enqueue ? "Enqueue" : "Dequeue", " on ", kind_, " '", name_, "' was cancelled"));
          if (is_enqueue) {
            ready.push_back([done = std::move(a.enqueue_done), cancelled] { done(cancelled); });
          } else {
            FinishDequeueLocked(a, cancelled, &ready);
            ServeLocked(&ready);  // Elements it had taken went back.
          }
        }
      }
    }
  }
  for (auto& fn : ready) fn();
}

void FIFOQueueResource::Cancel(int64_t id) {
  Ready ready;
  {
    absl::MutexLock lock(&mu_);
    for (bool is_enqueue : {true, false}) {
      std::deque<Attempt>& list = is_enqueue ? enqueues_ : dequeues_;
      auto it = std::find_if(list.begin(), list.end(), [id](const Attempt& a) { return a.id == id; });
      if (it == list.end()) continue;  // Finished first; its owner answers it.
      Attempt a = std::move(*it);
      list.erase(it);
      a.token = CancellationManager::kInvalidToken;  // The callback ran: nothing to release.
      absl::Status cancelled = absl::CancelledError(absl::StrCat(
          is_enqueue ? "Enqueue" : "Dequeue", " on ", kind_, " '", name_, "' was cancelled"));
      if (is_enqueue) {
        ready.push_back([done = std::move(a.enqueue_done), cancelled] { done(cancelled); });
      } else {
        FinishDequeueLocked(a, cancelled, &ready);
      }
      ServeLocked(&ready);
      break;
    }
  }
  for (auto& fn : ready) fn();
}

void FIFOQueueResource::Release(Attempt& a) {
  if (a.cancellation != nullptr && a.token != CancellationManager::kInvalidToken) {
    a.cancellation->DeregisterCallback(a.token);
  }
}

void FIFOQueueResource::ServeLocked(Ready* ready) {
  bool progress = true;
  while (progress) {
    progress = false;
    while (!enqueues_.empty()) {
      Attempt& a = enqueues_.front();
      while (!a.to_enqueue.empty() &&
             (capacity_ < 0 || static_cast<int64_t>(elements_.size()) < capacity_)) {
        elements_.push_back(std::move(a.to_enqueue.front()));
        a.to_enqueue.pop_front();
        progress = true;
      }
      if (!a.to_enqueue.empty()) break;
      ready->push_back([a = std::move(a)]() mutable {
        Release(a);
        a.enqueue_done(absl::OkStatus());
      });
      enqueues_.pop_front();
    }
    while (!dequeues_.empty()) {
      Attempt& a = dequeues_.front();
      const size_t need = a.wanted < 0 ? 1 : static_cast<size_t>(a.wanted);
      const size_t remaining = need - a.taken.size();
      if (closed_ && elements_.size() < remaining) {
        // As TensorFlow: a closed queue that cannot serve the rest fails the dequeue at once
        // (naming what is still requested and what is there), or, for DequeueUpTo, hands
        // over everything it has.
        absl::Status status = absl::OkStatus();
        if (a.up_to && a.taken.size() + elements_.size() > 0) {
          while (!elements_.empty()) {
            a.taken.push_back(std::move(elements_.front()));
            elements_.pop_front();
          }
        } else {
          status = absl::OutOfRangeError(ClosedMessage(static_cast<int64_t>(remaining), elements_.size()));
        }
        Attempt done = std::move(a);
        dequeues_.pop_front();
        FinishDequeueLocked(done, status, ready);
        progress = true;
        continue;
      }
      // A shuffling queue keeps min_after_dequeue elements to mix with, until it is closed.
      const size_t keep = closed_ ? 0 : static_cast<size_t>(min_after_dequeue_);
      while (a.taken.size() < need && elements_.size() > keep) {
        if (shuffle_ && elements_.size() > 1) {
          std::uniform_int_distribution<size_t> pick(0, elements_.size() - 1);
          std::swap(elements_.front(), elements_[pick(rng_)]);
        }
        a.taken.push_back(std::move(elements_.front()));
        elements_.pop_front();
        progress = true;
      }
      if (a.taken.size() < need) break;
      Attempt done = std::move(a);
      dequeues_.pop_front();
      FinishDequeueLocked(done, absl::OkStatus(), ready);
      progress = true;
    }
  }
}

std::string FIFOQueueResource::ClosedMessage(int64_t requested, size_t size) const {
  return absl::StrCat(kind_, " '", name_, "' is closed and has insufficient elements (requested ",
                      requested, ", current size ", size, ")");
}

void FIFOQueueResource::FinishDequeueLocked(Attempt& a, absl::Status status, Ready* ready) {
  absl::StatusOr<Tuple> result = status.ok() ? Assemble(a) : absl::StatusOr<Tuple>(status);
  if (!status.ok()) {
    // Taken elements go back to the front, in their order, for the next dequeue.
    for (auto it = a.taken.rbegin(); it != a.taken.rend(); ++it) elements_.push_front(std::move(*it));
    a.taken.clear();
  }
  ready->push_back([a = std::move(a), result = std::move(result)]() mutable {
    Release(a);
    if (result.ok()) {
      a.dequeue_done(absl::OkStatus(), *std::move(result));
    } else {
      a.dequeue_done(result.status(), {});
    }
  });
}

absl::StatusOr<FIFOQueueResource::Tuple> FIFOQueueResource::Assemble(const Attempt& a) const {
  if (a.wanted < 0) return a.taken[0];
  Tuple batch;
  const int64_t n = static_cast<int64_t>(a.taken.size());  // wanted, or fewer for DequeueUpTo
  for (size_t c = 0; c < types_.size(); ++c) {
    if (pad_) {
      TW_ASSIGN_OR_RETURN(Tensor padded, AssemblePadded(a, c));
      batch.push_back(std::move(padded));
      continue;
    }
    std::vector<int64_t> dims{n};
    for (int64_t d : shapes_[c].dims()) dims.push_back(d);
    TW_ASSIGN_OR_RETURN(Tensor stacked, Tensor::Allocate(types_[c], TensorShape(dims)));
    if (types_[c] == DType::kString) {  // Objects, not bytes.
      std::string* out = stacked.data<std::string>();
      for (const Tuple& element : a.taken) out = std::copy_n(element[c].data<std::string>(), element[c].NumElements(), out);
      batch.push_back(std::move(stacked));
      continue;
    }
    char* out = static_cast<char*>(stacked.raw_data());
    for (const Tuple& element : a.taken) {
      const size_t bytes = element[c].TotalBytes();
      if (bytes > 0) std::memcpy(out, element[c].raw_data(), bytes);
      out += bytes;
    }
    batch.push_back(std::move(stacked));
  }
  return batch;
}

// Component `c` of the taken elements stacked, each padded to the largest along every
// dim: element i fills out[i, :d0, :d1, ...] of a zero-filled (or "") tensor.
absl::StatusOr<Tensor> FIFOQueueResource::AssemblePadded(const Attempt& a, size_t c) const {
  const int rank = shapes_[c].rank();
  std::vector<int64_t> dims(rank + 1, 0);
  dims[0] = static_cast<int64_t>(a.taken.size());
  for (int d = 0; d < rank; ++d) {
    dims[d + 1] = std::max<int64_t>(shapes_[c].dim(d), 0);
    for (const Tuple& element : a.taken) dims[d + 1] = std::max(dims[d + 1], element[c].dim(d));
  }
  TW_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(types_[c], TensorShape(dims)));
  const bool strings = types_[c] == DType::kString;
  const size_t width = strings ? sizeof(std::string) : DTypeSize(types_[c]);
  if (!strings && out.TotalBytes() > 0) std::memset(out.raw_data(), 0, out.TotalBytes());
  std::vector<int64_t> strides(rank + 1, 1);  // of the padded tensor, in elements
  for (int d = rank - 1; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  for (size_t i = 0; i < a.taken.size(); ++i) {
    const Tensor& e = a.taken[i][c];
    std::vector<int64_t> index(rank, 0);
    for (int64_t k = 0; k < e.NumElements(); ++k) {
      int64_t at = static_cast<int64_t>(i) * strides[0];
      for (int d = 0; d < rank; ++d) at += index[d] * strides[d + 1];
      if (strings) {
        out.data<std::string>()[at] = e.data<std::string>()[k];
      } else {
        std::memcpy(static_cast<char*>(out.raw_data()) + at * width,
                    static_cast<const char*>(e.raw_data()) + k * width, width);
      }
      for (int d = rank - 1; d >= 0 && ++index[d] == e.dim(d); --d) index[d] = 0;
    }
  }
  return out;
}

void FIFOQueueResource::Close(bool cancel_pending_enqueues) {
  Ready ready;
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      for (Attempt& a : enqueues_) {
        ready.push_back([a = std::move(a), name = name_, kind = kind_]() mutable {
          Release(a);
          a.enqueue_done(absl::CancelledError(absl::StrCat(kind, " '", name, "' is closed.")));
        });
      }
      enqueues_.clear();
    }
    ServeLocked(&ready);
  }
  for (auto& fn : ready) fn();
}

int64_t FIFOQueueResource::size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(elements_.size());
}

bool FIFOQueueResource::closed() const {
  absl::MutexLock lock(&mu_);
  return closed_;
}

}  // namespace tw
