// Datasets that call a function of the graph's library on each element: map (serial and
// parallel, results in input order), filter, flat_map and interleave.
#include <deque>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "core/threadpool.h"
#include "unsupported/Eigen/CXX11/ThreadPool"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/dataset.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

using FunctionPtr = std::shared_ptr<const CapturedFunction>;
using ImplPtr = absl::StatusOr<std::unique_ptr<IteratorImpl>>;

absl::StatusOr<IteratorPtr> Start(const DatasetPtr& d) { return StartIterator(d); }

// The kernels' common part: the function `attr` instantiated at construction; each
// dataset binds it to the captured inputs (other_arguments, from input 1 on).
class FunctionDatasetOp : public DatasetOpKernel {
 public:
  FunctionDatasetOp(OpKernelConstruction& c, const char* attr, int num_trailing_inputs)
      : DatasetOpKernel(c), trailing_(num_trailing_inputs) {
    auto fn = CapturedFunction::Make(&c, attr);
    if (!fn.ok()) {
      c.Fail(fn.status());
      return;
    }
    fn_ = *std::move(fn);
  }

 protected:
  FunctionPtr Bind(const OpKernelContext& ctx) const {
    auto fn = std::make_shared<CapturedFunction>(*fn_);
    for (int i = 1; i < ctx.num_inputs() - trailing_; ++i) fn->captured.push_back(ctx.input(i));
    return fn;
  }
  const int trailing_;
  FunctionPtr fn_;
};

absl::Status CheckResult(const Element& e, const std::vector<DType>& types, const CapturedFunction& fn) {
  return CheckElement(e, types, {}, absl::StrCat("function '", fn.runtime->Name(fn.handle), "'"));
}

class MapDatasetOp : public FunctionDatasetOp {
 public:
  explicit MapDatasetOp(OpKernelConstruction& c) : FunctionDatasetOp(c, "f", 0) {}
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    FunctionPtr fn = Bind(ctx);
    std::vector<DType> types = types_;
    return MakeIteratorDataset("Map", types_, shapes_, [=]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr input_it, Start(input));
      return MakeInputIterator(input_it, [=](DatasetIterator& it, Element* out, bool* end) -> absl::Status {
        Element x;
        TW_RETURN_IF_ERROR(it.GetNext(&x, end));
        if (*end) return absl::OkStatus();
        TW_RETURN_IF_ERROR(fn->Call(std::move(x), out));
        return CheckResult(*out, types, *fn);
      });
    });
  }
};

// map(num_parallel_calls=n): up to n calls run at once on the iterator's own n threads
// (a few more wait their turn); results come out in input order (deterministic, whatever the attr says). Saving waits
// for the calls in flight and saves their results (pulled from the input, not yet
// returned) beside the input's state; a restored iterator returns those first.
class ParallelMapIterator : public IteratorImpl {
 public:
  ParallelMapIterator(IteratorPtr input, FunctionPtr fn, std::vector<DType> types, int n)
      : input_(std::move(input)), fn_(std::move(fn)), types_(std::move(types)), n_(n),
        pool_(std::make_unique<Eigen::ThreadPool>(n, /*allow_spinning=*/false)) {}
  ~ParallelMapIterator() override {
    pool_.reset();  // Waits for the calls in flight.
  }

  absl::Status GetNext(Element* out, bool* end) override {
    while (!input_done_ && static_cast<int>(slots_.size()) < kCallsAheadPerThread * n_) {
      auto slot = std::make_shared<Slot>();
      Element x;
      bool input_end = false;
      TW_RETURN_IF_ERROR(input_->GetNext(&x, &input_end));
      if (input_end) {
        input_done_ = true;
        break;
      }
      FunctionPtr fn = fn_;
      pool_->Schedule([slot, fn, x = std::move(x)]() mutable {
        slot->status = fn->Call(std::move(x), &slot->result);
        slot->done.Notify();
      });
      slots_.push_back(std::move(slot));
    }
    *end = slots_.empty();
    if (*end) return absl::OkStatus();
    std::shared_ptr<Slot> slot = std::move(slots_.front());
    slots_.pop_front();
    slot->done.WaitForNotification();
    TW_RETURN_IF_ERROR(slot->status);
    *out = std::move(slot->result);
    return CheckResult(*out, types_, *fn_);
  }

  absl::Status Save(IteratorStateWriter& w) override {
    // Each call's result, or its error (given out in its turn after a restore, as now).
    std::vector<Element> results;
    for (size_t i = 0; i < slots_.size(); ++i) {
      slots_[i]->done.WaitForNotification();
      results.push_back(slots_[i]->status.ok() ? slots_[i]->result : Element());
      w.WriteStatus(absl::StrCat("status_", i), slots_[i]->status);
    }
    w.WriteElements("results", results);
    w.WriteInt("input_done", input_done_);
    return SaveInput(w, "input", *input_);
  }

  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(std::vector<Element> results, r.ReadElements("results"));
    TW_ASSIGN_OR_RETURN(int64_t input_done, r.ReadInt("input_done"));
    for (const std::shared_ptr<Slot>& slot : slots_) slot->done.WaitForNotification();
    slots_.clear();
    for (size_t i = 0; i < results.size(); ++i) {
      auto slot = std::make_shared<Slot>();
      TW_ASSIGN_OR_RETURN(slot->status, r.ReadStatus(absl::StrCat("status_", i)));
      slot->result = std::move(results[i]);
      slot->done.Notify();
      slots_.push_back(std::move(slot));
    }
    input_done_ = input_done != 0;
    return RestoreInput(r, "input", *input_);
  }

 private:
  struct Slot {
    absl::Notification done;
    absl::Status status;
    Element result;
  };
  // Calls queued per thread: with only one each, every element cost a thread a sleep and
  // a wake-up, and the consumer another (their futex calls took two fifths of the CPU of
  // a parse pipeline); a few queued keep the threads running and the results ready.
  static constexpr int kCallsAheadPerThread = 4;
  IteratorPtr input_;
  FunctionPtr fn_;
  std::vector<DType> types_;
  const int n_;
  bool input_done_ = false;
  std::deque<std::shared_ptr<Slot>> slots_;
  // Not the runtime's ThreadPool: its threads spin between tasks, and here a task comes
  // per element, so the spinning took the cores the pipeline's other threads and the
  // training step need (a fifth of the CPU time of a parse pipeline on 2 cores).
  std::unique_ptr<Eigen::ThreadPool> pool_;
};

class ParallelMapDatasetOp : public FunctionDatasetOp {
 public:
  explicit ParallelMapDatasetOp(OpKernelConstruction& c) : FunctionDatasetOp(c, "f", 1) {}
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t calls, ScalarInt64Input(ctx, ctx.num_inputs() - 1, "num_parallel_calls"));
    if (calls <= 0 && calls != -1) {
      return absl::InvalidArgumentError("num_parallel_calls must be greater than zero.");
    }
    const int n = calls == -1 ? 4 : static_cast<int>(std::min<int64_t>(calls, 64));  // -1: AUTOTUNE.
    FunctionPtr fn = Bind(ctx);
    std::vector<DType> types = types_;
    return MakeIteratorDataset("ParallelMap", types_, shapes_, [=]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      return std::make_unique<ParallelMapIterator>(it, fn, types, n);
    });
  }
};

class FilterDatasetOp : public FunctionDatasetOp {
 public:
  explicit FilterDatasetOp(OpKernelConstruction& c) : FunctionDatasetOp(c, "predicate", 0) {}
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    FunctionPtr fn = Bind(ctx);
    return MakeIteratorDataset("Filter", types_, shapes_, [=]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr input_it, Start(input));
      return MakeInputIterator(input_it, [=](DatasetIterator& it, Element* out, bool* end) -> absl::Status {
        while (true) {
          TW_RETURN_IF_ERROR(it.GetNext(out, end));
          if (*end) return absl::OkStatus();
          Element keep;
          TW_RETURN_IF_ERROR(fn->Call(*out, &keep));
          if (keep.size() != 1 || keep[0].dtype() != DType::kBool || keep[0].NumElements() != 1) {
            return absl::InvalidArgumentError("Filter predicate `f` must return a scalar bool.");
          }
          if (keep[0].scalar<bool>()) return absl::OkStatus();
        }
      });
    });
  }
};

// The dataset `fn` makes of one input element.
absl::StatusOr<IteratorPtr> ElementIterator(const CapturedFunction& fn, const Element& x) {
  Element made;
  TW_RETURN_IF_ERROR(fn.Call(x, &made));
  if (made.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("function '", fn.runtime->Name(fn.handle), "' must return a dataset"));
  }
  TW_ASSIGN_OR_RETURN(DatasetPtr d, DatasetFromTensor(made[0]));
  return Start(d);
}

// interleave(cycle_length, block_length), TF's order: block_length elements from each of
// cycle_length open datasets in turn; a finished one is replaced by the next input's.
// flat_map is interleave(1, 1). The parallel op runs this same order serially.
// The open datasets are saved with the input element that made each, so a restore makes
// them again with the function and restores their positions.
class InterleaveIterator : public IteratorImpl {
 public:
  InterleaveIterator(IteratorPtr input, FunctionPtr fn, int64_t cycle, int64_t block)
      : input_(std::move(input)), fn_(std::move(fn)), cycle_(cycle), block_(block), open_(cycle), args_(cycle) {}

  absl::Status GetNext(Element* out, bool* end) override {
    while (!end_of_input_ || num_open_ > 0) {
      IteratorPtr& current = open_[cycle_index_];
      if (current) {
        bool element_end = false;
        TW_RETURN_IF_ERROR(current->GetNext(out, &element_end));
        if (!element_end) {
          if (++block_index_ == block_) Advance();
          *end = false;
          return absl::OkStatus();
        }
        current = nullptr;
        args_[cycle_index_].clear();
        --num_open_;
        Advance();
      } else if (!end_of_input_) {
        Element x;
        TW_RETURN_IF_ERROR(input_->GetNext(&x, &end_of_input_));
        if (!end_of_input_) {
          TW_ASSIGN_OR_RETURN(current, ElementIterator(*fn_, x));
          args_[cycle_index_] = std::move(x);
          ++num_open_;
        }
      } else {
        Advance();
      }
    }
    *end = true;
    return absl::OkStatus();
  }

  absl::Status Save(IteratorStateWriter& w) override {
    w.WriteInt("cycle_index", cycle_index_);
    w.WriteInt("block_index", block_index_);
    w.WriteInt("end_of_input", end_of_input_);
    for (int64_t i = 0; i < cycle_; ++i) {
      IteratorStateWriter slot = w.Child(absl::StrCat("slot_", i));
      slot.WriteInt("open", open_[i] != nullptr);
      if (!open_[i]) continue;
      slot.WriteElements("arg", {args_[i]});
      TW_RETURN_IF_ERROR(SaveInput(slot, "element", *open_[i]));
    }
    return end_of_input_ ? absl::OkStatus() : SaveInput(w, "input", *input_);
  }

  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(cycle_index_, r.ReadInt("cycle_index"));
    TW_ASSIGN_OR_RETURN(block_index_, r.ReadInt("block_index"));
    TW_ASSIGN_OR_RETURN(int64_t end_of_input, r.ReadInt("end_of_input"));
    if (cycle_index_ < 0 || cycle_index_ >= cycle_) {
      return absl::InvalidArgumentError(absl::StrCat("iterator state '", r.prefix(), "::cycle_index' is ",
                                                     cycle_index_, ", this interleave has cycle_length ", cycle_));
    }
    end_of_input_ = end_of_input != 0;
    num_open_ = 0;
    for (int64_t i = 0; i < cycle_; ++i) {
      IteratorStateReader slot = r.Child(absl::StrCat("slot_", i));
      TW_ASSIGN_OR_RETURN(int64_t open, slot.ReadInt("open"));
      open_[i] = nullptr;
      args_[i].clear();
      if (!open) continue;
      TW_ASSIGN_OR_RETURN(std::vector<Element> arg, slot.ReadElements("arg"));
      if (arg.size() != 1) return absl::InvalidArgumentError(absl::StrCat("iterator state '", slot.prefix(), "::arg'"));
      TW_ASSIGN_OR_RETURN(open_[i], ElementIterator(*fn_, arg[0]));
      args_[i] = std::move(arg[0]);
      TW_RETURN_IF_ERROR(RestoreInput(slot, "element", *open_[i]));
      ++num_open_;
    }
    return end_of_input_ ? absl::OkStatus() : RestoreInput(r, "input", *input_);
  }

 private:
  void Advance() {
    block_index_ = 0;
    cycle_index_ = (cycle_index_ + 1) % cycle_;
  }

  const IteratorPtr input_;
  const FunctionPtr fn_;
  const int64_t cycle_, block_;
  std::vector<IteratorPtr> open_;
  std::vector<Element> args_;  // The input element each open dataset was made of.
  int64_t cycle_index_ = 0, block_index_ = 0, num_open_ = 0;
  bool end_of_input_ = false;
};

class InterleaveDatasetOp : public FunctionDatasetOp {
 public:
  InterleaveDatasetOp(OpKernelConstruction& c, int trailing, const char* kind)
      : FunctionDatasetOp(c, "f", trailing), kind_(kind) {}
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    int64_t cycle = 1, block = 1;
    if (trailing_ >= 2) {
      const int base = ctx.num_inputs() - trailing_;
      TW_ASSIGN_OR_RETURN(cycle, ScalarInt64Input(ctx, base, "cycle_length"));
      TW_ASSIGN_OR_RETURN(block, ScalarInt64Input(ctx, base + 1, "block_length"));
      if (cycle == -1) cycle = 4;  // AUTOTUNE
      if (cycle <= 0) return absl::InvalidArgumentError("cycle_length must be greater than zero.");
      if (block <= 0) return absl::InvalidArgumentError("block_length must be greater than zero.");
    }
    FunctionPtr fn = Bind(ctx);
    return MakeIteratorDataset(kind_, types_, shapes_, [=]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      return std::make_unique<InterleaveIterator>(std::move(it), fn, cycle, block);
    });
  }

 private:
  const char* kind_;
};

}  // namespace

void RegisterDatasetFunctionKernels(KernelRegistry& r) {
  r.Register("MapDataset", kDeviceCpu, Factory<MapDatasetOp>());
  r.Register("ParallelMapDatasetV2", kDeviceCpu, Factory<ParallelMapDatasetOp>());
  r.Register("FilterDataset", kDeviceCpu, Factory<FilterDatasetOp>());
  auto interleave = [](int trailing, const char* kind) {
    return [trailing, kind](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
      auto k = std::make_unique<InterleaveDatasetOp>(c, trailing, kind);
      if (!c.status().ok()) return c.status();
      return std::unique_ptr<OpKernel>(std::move(k));
    };
  };
  r.Register("FlatMapDataset", kDeviceCpu, interleave(0, "FlatMap"));
  r.Register("InterleaveDataset", kDeviceCpu, interleave(2, "Interleave"));
  r.Register("ParallelInterleaveDatasetV2", kDeviceCpu, interleave(3, "ParallelInterleave"));
}

}  // namespace tw
