// Datasets that reshape a stream without calling functions: zip, concatenate, repeat,
// take, skip, shard, batch, padded_batch, shuffle, cache (in memory) and prefetch (a
// thread filling a bounded buffer ahead of the consumer).
#include <deque>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dataset_util.h"
#include "kernels/dataset.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

using IteratorPtr = std::shared_ptr<DatasetIterator>;

absl::StatusOr<IteratorPtr> Start(const DatasetPtr& d) {
  TW_ASSIGN_OR_RETURN(std::unique_ptr<DatasetIterator> it, d->MakeIterator());
  return IteratorPtr(std::move(it));
}

class ZipDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    std::vector<DatasetPtr> inputs;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      TW_ASSIGN_OR_RETURN(DatasetPtr d, DatasetInput(ctx, i));
      inputs.push_back(std::move(d));
    }
    return MakeClosureDataset(types_, shapes_, [inputs]() -> absl::StatusOr<NextFn> {
      std::vector<IteratorPtr> its;
      for (const DatasetPtr& d : inputs) {
        TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(d));
        its.push_back(std::move(it));
      }
      return NextFn([its](Element* out, bool* end) -> absl::Status {
        out->clear();
        for (const IteratorPtr& it : its) {
          Element e;
          TW_RETURN_IF_ERROR(it->GetNext(&e, end));
          if (*end) return absl::OkStatus();
          out->insert(out->end(), e.begin(), e.end());
        }
        return absl::OkStatus();
      });
    });
  }
};

class ConcatenateDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr a, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(DatasetPtr b, DatasetInput(ctx, 1));
    if (a->output_types() != b->output_types()) {
      return absl::InvalidArgumentError("input dataset and dataset to concatenate have different types");
    }
    return MakeClosureDataset(types_, shapes_, [a, b]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr first, Start(a));
      auto current = std::make_shared<IteratorPtr>(first);
      auto second = std::make_shared<bool>(false);
      return NextFn([=](Element* out, bool* end) -> absl::Status {
        TW_RETURN_IF_ERROR((*current)->GetNext(out, end));
        if (!*end || *second) return absl::OkStatus();
        *second = true;
        TW_ASSIGN_OR_RETURN(*current, Start(b));
        return (*current)->GetNext(out, end);
      });
    });
  }
};

// repeat(count): count < 0 forever. An input that is empty ends the repetition.
class RepeatDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t count, ScalarInt64Input(ctx, 1, "count"));
    return MakeClosureDataset(types_, shapes_, [input, count]() -> absl::StatusOr<NextFn> {
      struct State {
        IteratorPtr it;
        int64_t epoch = 0;
        bool produced_this_epoch = false;
      };
      auto s = std::make_shared<State>();
      return NextFn([input, count, s](Element* out, bool* end) -> absl::Status {
        while (true) {
          if (count >= 0 && s->epoch >= count) {
            *end = true;
            return absl::OkStatus();
          }
          if (!s->it) {
            TW_ASSIGN_OR_RETURN(s->it, Start(input));
            s->produced_this_epoch = false;
          }
          TW_RETURN_IF_ERROR(s->it->GetNext(out, end));
          if (!*end) {
            s->produced_this_epoch = true;
            return absl::OkStatus();
          }
          s->it = nullptr;
          ++s->epoch;
          if (!s->produced_this_epoch) return absl::OkStatus();  // Empty input: stop, as TF does.
        }
      });
    });
  }
};

// take(n) (n < 0: all) and skip(n) (n < 0: everything).
template <bool kTake>
class TakeSkipDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t count, ScalarInt64Input(ctx, 1, "count"));
    return MakeClosureDataset(types_, shapes_, [input, count]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      auto seen = std::make_shared<int64_t>(0);
      return NextFn([it, count, seen](Element* out, bool* end) -> absl::Status {
        if (kTake) {
          if (count >= 0 && *seen >= count) {
            *end = true;
            return absl::OkStatus();
          }
          ++*seen;
          return it->GetNext(out, end);
        }
        while (count < 0 || *seen < count) {
          TW_RETURN_IF_ERROR(it->GetNext(out, end));
          if (*end) return absl::OkStatus();
          ++*seen;
        }
        return it->GetNext(out, end);
      });
    });
  }
};

class ShardDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t num_shards, ScalarInt64Input(ctx, 1, "num_shards"));
    TW_ASSIGN_OR_RETURN(int64_t index, ScalarInt64Input(ctx, 2, "index"));
    if (num_shards <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("Number of shards must be greater than zero (currently num_shards = ",
                                                     num_shards, ")."));
    }
    if (index < 0 || index >= num_shards) {
      return absl::InvalidArgumentError(absl::StrCat("Index must be between 0 and ", num_shards - 1,
                                                     " (currently index = ", index, ")."));
    }
    return MakeClosureDataset(types_, shapes_, [=]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      auto position = std::make_shared<int64_t>(0);
      return NextFn([=](Element* out, bool* end) -> absl::Status {
        while (true) {
          TW_RETURN_IF_ERROR(it->GetNext(out, end));
          if (*end) return absl::OkStatus();
          if ((*position)++ % num_shards == index) return absl::OkStatus();
        }
      });
    });
  }
};

// Up to `n` elements of `it` (fewer at its end).
absl::Status NextElements(const IteratorPtr& it, int64_t n, std::vector<Element>* batch) {
  batch->clear();
  while (static_cast<int64_t>(batch->size()) < n) {
    Element e;
    bool end = false;
    TW_RETURN_IF_ERROR(it->GetNext(&e, &end));
    if (end) break;
    batch->push_back(std::move(e));
  }
  return absl::OkStatus();
}

// BatchDatasetV2 and, with kPadded, PaddedBatchDatasetV2.
template <bool kPadded>
class BatchDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t batch_size, ScalarInt64Input(ctx, 1, "batch_size"));
    if (batch_size <= 0) return absl::InvalidArgumentError("Batch size must be greater than zero.");
    const int n = static_cast<int>(input->output_types().size());
    std::vector<PartialShape> padded(n);
    Element pads(n);
    const Tensor& drop_t = ctx.input(kPadded ? 2 + 2 * n : 2);
    if (drop_t.dtype() != DType::kBool || drop_t.NumElements() != 1) {
      return absl::InvalidArgumentError("drop_remainder must be a scalar bool");
    }
    const bool drop = drop_t.scalar<bool>();
    if (kPadded) {
      for (int i = 0; i < n; ++i) {
        const Tensor& s = ctx.input(2 + i);
        if (s.dtype() != DType::kInt64 || s.rank() != 1) return absl::InvalidArgumentError("padded_shapes must be int64 vectors");
        padded[i] = PartialShape(absl::Span<const int64_t>(s.data<int64_t>(), s.NumElements()));
        pads[i] = ctx.input(2 + n + i);
        if (pads[i].NumElements() != 1) return absl::InvalidArgumentError("padding values must be scalars");
      }
    }
    return MakeClosureDataset(types_, shapes_, [=]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      return NextFn([=](Element* out, bool* end) -> absl::Status {
        std::vector<Element> batch;
        TW_RETURN_IF_ERROR(NextElements(it, batch_size, &batch));
        *end = batch.empty() || (drop && static_cast<int64_t>(batch.size()) < batch_size);
        if (*end) return absl::OkStatus();
        out->clear();
        for (int c = 0; c < n; ++c) {
          std::vector<Tensor> rows;
          for (Element& e : batch) rows.push_back(std::move(e[c]));
          if (!kPadded) {
            TW_ASSIGN_OR_RETURN(Tensor t, StackRows(rows, c));
            out->push_back(std::move(t));
            continue;
          }
          // Unknown padded dims (-1) take the largest size in the batch.
          std::vector<int64_t> dims(padded[c].dims().begin(), padded[c].dims().end());
          for (const Tensor& r : rows) {
            if (r.rank() != static_cast<int>(dims.size())) {
              return absl::InvalidArgumentError(absl::StrCat("component ", c, " has rank ", r.rank(),
                                                             ", its padded shape ", dims.size()));
            }
            for (int d = 0; d < r.rank(); ++d) {
              if (padded[c].dims()[d] < 0) {
                dims[d] = std::max(dims[d], r.dim(d));
              } else if (r.dim(d) > dims[d]) {
                return absl::InvalidArgumentError(absl::StrCat(
                    "Attempted to pad to a smaller size than the input element. Component ", c, " dimension ", d,
                    " is ", r.dim(d), ", padded to ", dims[d]));
              }
            }
          }
          TW_ASSIGN_OR_RETURN(Tensor t, StackPadded(rows, TensorShape(absl::Span<const int64_t>(dims)), pads[c], c));
          out->push_back(std::move(t));
        }
        return absl::OkStatus();
      });
    });
  }
};

// shuffle: a buffer of buffer_size elements; each output is a uniformly chosen one,
// replaced by the next input. Seeded (seed, seed2) runs repeat exactly; each iterator
// made from one dataset gets the next epoch's order when reshuffle_each_iteration.
class ShuffleDatasetOp : public DatasetOpKernel {
 public:
  explicit ShuffleDatasetOp(OpKernelConstruction& c) : DatasetOpKernel(c) {
    if (c.attrs().count("reshuffle_each_iteration")) c.GetAttr("reshuffle_each_iteration", &reshuffle_);
  }
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t buffer_size, ScalarInt64Input(ctx, 1, "buffer_size"));
    TW_ASSIGN_OR_RETURN(int64_t seed, ScalarInt64Input(ctx, 2, "seed"));
    TW_ASSIGN_OR_RETURN(int64_t seed2, ScalarInt64Input(ctx, 3, "seed2"));
    if (buffer_size <= 0 && buffer_size != -2) {
      return absl::InvalidArgumentError("buffer_size must be greater than zero.");
    }
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      seed = rd();
      seed2 = rd();
    }
    auto epoch = std::make_shared<std::atomic<int64_t>>(0);
    const bool reshuffle = reshuffle_;
    return MakeClosureDataset(types_, shapes_, [=]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      const int64_t e = reshuffle ? epoch->fetch_add(1) : 0;
      std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(seed2),
                        static_cast<uint32_t>(seed2 >> 32), static_cast<uint32_t>(e)};
      struct State {
        std::mt19937_64 rng;
        std::vector<Element> buffer;
        bool input_done = false;
      };
      auto s = std::make_shared<State>();
      s->rng.seed(seq);
      const size_t capacity = buffer_size == -2 ? size_t{1} << 40 : static_cast<size_t>(buffer_size);
      return NextFn([=](Element* out, bool* end) -> absl::Status {
        while (!s->input_done && s->buffer.size() < capacity) {
          Element x;
          bool input_end = false;
          TW_RETURN_IF_ERROR(it->GetNext(&x, &input_end));
          if (input_end) {
            s->input_done = true;
            break;
          }
          s->buffer.push_back(std::move(x));
        }
        *end = s->buffer.empty();
        if (*end) return absl::OkStatus();
        const size_t k = std::uniform_int_distribution<size_t>(0, s->buffer.size() - 1)(s->rng);
        *out = std::move(s->buffer[k]);
        s->buffer[k] = std::move(s->buffer.back());
        s->buffer.pop_back();
        return absl::OkStatus();
      });
    });
  }

 private:
  bool reshuffle_ = true;
};

// cache(""): the first iterator that reaches the end keeps every element; later
// iterators replay them without running the input again.
class CacheDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    const Tensor& f = ctx.input(1);
    if (f.dtype() != DType::kString || f.NumElements() != 1) return absl::InvalidArgumentError("filename must be a string");
    if (!f.data<std::string>()[0].empty()) {
      return absl::UnimplementedError("cache(filename): only the in-memory cache (filename \"\") is supported");
    }
    struct Cache {
      absl::Mutex mu;
      std::shared_ptr<const std::vector<Element>> done;
    };
    auto cache = std::make_shared<Cache>();
    return MakeClosureDataset(types_, shapes_, [=]() -> absl::StatusOr<NextFn> {
      std::shared_ptr<const std::vector<Element>> done;
      {
        absl::MutexLock lock(&cache->mu);
        done = cache->done;
      }
      if (done) {
        auto pos = std::make_shared<size_t>(0);
        return NextFn([done, pos](Element* out, bool* end) {
          *end = *pos >= done->size();
          if (!*end) *out = (*done)[(*pos)++];
          return absl::OkStatus();
        });
      }
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      auto seen = std::make_shared<std::vector<Element>>();
      return NextFn([=](Element* out, bool* end) -> absl::Status {
        TW_RETURN_IF_ERROR(it->GetNext(out, end));
        if (!*end) {
          seen->push_back(*out);
          return absl::OkStatus();
        }
        absl::MutexLock lock(&cache->mu);
        if (!cache->done) cache->done = seen;
        return absl::OkStatus();
      });
    });
  }
};

// prefetch(n): a thread runs the input ahead, keeping up to n elements (n <= 0, AUTOTUNE
// among them: 2). Its destructor stops the thread and waits for it.
class Prefetcher {
 public:
  Prefetcher(IteratorPtr input, size_t capacity) : input_(std::move(input)), capacity_(capacity) {
    thread_ = std::thread([this] { Fill(); });
  }
  ~Prefetcher() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
    }
    thread_.join();
  }
  absl::Status GetNext(Element* out, bool* end) {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](Prefetcher* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) { return !p->buffer_.empty() || p->finished_; },
        this));
    if (!buffer_.empty()) {
      *out = std::move(buffer_.front());
      buffer_.pop_front();
      *end = false;
      return absl::OkStatus();
    }
    *end = true;
    return status_;
  }

 private:
  void Fill() {
    while (true) {
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](Prefetcher* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) { return p->stop_ || p->buffer_.size() < p->capacity_; },
            this));
        if (stop_) break;
      }
      Element e;
      bool end = false;
      absl::Status s = input_->GetNext(&e, &end);
      absl::MutexLock lock(&mu_);
      if (!s.ok() || end) {
        status_ = s;
        finished_ = true;
        break;
      }
      buffer_.push_back(std::move(e));
    }
    absl::MutexLock lock(&mu_);
    finished_ = true;
    input_ = nullptr;  // Input threads stop here, on this thread.
  }

  IteratorPtr input_;
  const size_t capacity_;
  absl::Mutex mu_;
  std::deque<Element> buffer_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

class PrefetchDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t buffer_size, ScalarInt64Input(ctx, 1, "buffer_size"));
    if (buffer_size < -1) return absl::InvalidArgumentError("buffer_size must be >= 0 or AUTOTUNE (-1)");
    const size_t capacity = buffer_size <= 0 ? 2 : static_cast<size_t>(buffer_size);
    return MakeClosureDataset(types_, shapes_, [=]() -> absl::StatusOr<NextFn> {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      auto p = std::make_shared<Prefetcher>(std::move(it), capacity);
      return NextFn([p](Element* out, bool* end) { return p->GetNext(out, end); });
    });
  }
};

}  // namespace

void RegisterDatasetTransformKernels(KernelRegistry& r) {
  r.Register("ZipDataset", kDeviceCpu, Factory<ZipDatasetOp>());
  r.Register("ConcatenateDataset", kDeviceCpu, Factory<ConcatenateDatasetOp>());
  r.Register("RepeatDataset", kDeviceCpu, Factory<RepeatDatasetOp>());
  r.Register("TakeDataset", kDeviceCpu, Factory<TakeSkipDatasetOp<true>>());
  r.Register("SkipDataset", kDeviceCpu, Factory<TakeSkipDatasetOp<false>>());
  r.Register("ShardDataset", kDeviceCpu, Factory<ShardDatasetOp>());
  r.Register("BatchDatasetV2", kDeviceCpu, Factory<BatchDatasetOp<false>>());
  r.Register("PaddedBatchDatasetV2", kDeviceCpu, Factory<BatchDatasetOp<true>>());
  r.Register("ShuffleDataset", kDeviceCpu, Factory<ShuffleDatasetOp>());
  r.Register("CacheDataset", kDeviceCpu, Factory<CacheDatasetOp>());
  r.Register("PrefetchDataset", kDeviceCpu, Factory<PrefetchDatasetOp>());
}

}  // namespace tw
