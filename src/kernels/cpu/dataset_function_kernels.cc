// Datasets that call a function of the graph's library on each element: map (serial and
// parallel, results in input order), filter, flat_map and interleave.
#include <deque>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "core/threadpool.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/dataset.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

using IteratorPtr = std::shared_ptr<DatasetIterator>;
using FunctionPtr = std::shared_ptr<const CapturedFunction>;

absl::StatusOr<IteratorPtr> Start(const DatasetPtr& d) {
  TW_ASSIGN_OR_RETURN(std::unique_ptr<DatasetIterator> it, d->MakeIterator());
  return IteratorPtr(std::move(it));
}

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
    return MakeClosureDataset(types_, shapes_, [=]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      return NextFn([=](Element* out, bool* end) -> absl::Status {
        Element x;
        TW_RETURN_IF_ERROR(it->GetNext(&x, end));
        if (*end) return absl::OkStatus();
        TW_RETURN_IF_ERROR(fn->Call(std::move(x), out));
        return CheckResult(*out, types, *fn);
      });
    });
  }
};

// map(num_parallel_calls=n): up to n calls run at once on the iterator's own threads;
// results come out in input order (deterministic, whatever the attr says).
class ParallelMapper {
 public:
  ParallelMapper(IteratorPtr input, FunctionPtr fn, std::vector<DType> types, int n)
      : input_(std::move(input)), fn_(std::move(fn)), types_(std::move(types)), n_(n),
        pool_(std::make_unique<ThreadPool>("tf_data_map", n)) {}
  ~ParallelMapper() {
    pool_.reset();  // Waits for the calls in flight.
  }

  absl::Status GetNext(Element* out, bool* end) {
    while (!input_done_ && static_cast<int>(slots_.size()) < n_) {
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

 private:
  struct Slot {
    absl::Notification done;
    absl::Status status;
    Element result;
  };
  IteratorPtr input_;
  FunctionPtr fn_;
  std::vector<DType> types_;
  const int n_;
  bool input_done_ = false;
  std::deque<std::shared_ptr<Slot>> slots_;
  std::unique_ptr<ThreadPool> pool_;
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
    return MakeClosureDataset(types_, shapes_, [=]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      auto mapper = std::make_shared<ParallelMapper>(it, fn, types, n);
      return NextFn([mapper](Element* out, bool* end) { return mapper->GetNext(out, end); });
    });
  }
};

class FilterDatasetOp : public FunctionDatasetOp {
 public:
  explicit FilterDatasetOp(OpKernelConstruction& c) : FunctionDatasetOp(c, "predicate", 0) {}
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    FunctionPtr fn = Bind(ctx);
    return MakeClosureDataset(types_, shapes_, [=]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      return NextFn([=](Element* out, bool* end) -> absl::Status {
        while (true) {
          TW_RETURN_IF_ERROR(it->GetNext(out, end));
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
absl::StatusOr<IteratorPtr> ElementIterator(const CapturedFunction& fn, Element x) {
  Element made;
  TW_RETURN_IF_ERROR(fn.Call(std::move(x), &made));
  if (made.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("function '", fn.runtime->Name(fn.handle), "' must return a dataset"));
  }
  TW_ASSIGN_OR_RETURN(DatasetPtr d, DatasetFromTensor(made[0]));
  return Start(d);
}

// interleave(cycle_length, block_length), TF's order: block_length elements from each of
// cycle_length open datasets in turn; a finished one is replaced by the next input's.
// flat_map is interleave(1, 1). The parallel op runs this same order serially.
class InterleaveDatasetOp : public FunctionDatasetOp {
 public:
  InterleaveDatasetOp(OpKernelConstruction& c, int trailing) : FunctionDatasetOp(c, "f", trailing) {}
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
    return MakeClosureDataset(types_, shapes_, [=]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      struct State {
        std::vector<IteratorPtr> open;
        int64_t cycle_index = 0, block_index = 0, num_open = 0;
        bool end_of_input = false;
      };
      auto s = std::make_shared<State>();
      s->open.resize(cycle);
      return NextFn([=](Element* out, bool* end) -> absl::Status {
        auto advance = [&] {
          s->block_index = 0;
          s->cycle_index = (s->cycle_index + 1) % cycle;
        };
        while (!s->end_of_input || s->num_open > 0) {
          IteratorPtr& current = s->open[s->cycle_index];
          if (current) {
            bool element_end = false;
            TW_RETURN_IF_ERROR(current->GetNext(out, &element_end));
            if (!element_end) {
              if (++s->block_index == block) advance();
              *end = false;
              return absl::OkStatus();
            }
            current = nullptr;
            --s->num_open;
            advance();
          } else if (!s->end_of_input) {
            Element x;
            TW_RETURN_IF_ERROR(it->GetNext(&x, &s->end_of_input));
            if (!s->end_of_input) {
              TW_ASSIGN_OR_RETURN(current, ElementIterator(*fn, std::move(x)));
              ++s->num_open;
            }
          } else {
            advance();
          }
        }
        *end = true;
        return absl::OkStatus();
      });
    });
  }
};

}  // namespace

void RegisterDatasetFunctionKernels(KernelRegistry& r) {
  r.Register("MapDataset", kDeviceCpu, Factory<MapDatasetOp>());
  r.Register("ParallelMapDatasetV2", kDeviceCpu, Factory<ParallelMapDatasetOp>());
  r.Register("FilterDataset", kDeviceCpu, Factory<FilterDatasetOp>());
  auto interleave = [](int trailing) {
    return [trailing](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
      auto k = std::make_unique<InterleaveDatasetOp>(c, trailing);
      if (!c.status().ok()) return c.status();
      return std::unique_ptr<OpKernel>(std::move(k));
    };
  };
  r.Register("FlatMapDataset", kDeviceCpu, interleave(0));
  r.Register("InterleaveDataset", kDeviceCpu, interleave(2));
  r.Register("ParallelInterleaveDatasetV2", kDeviceCpu, interleave(3));
}

}  // namespace tw
