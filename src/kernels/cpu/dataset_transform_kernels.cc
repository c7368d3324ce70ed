// Datasets that reshape a stream without calling functions: zip, concatenate, repeat,
// take, skip, shard, batch, padded_batch, shuffle, cache (in memory) and prefetch (a
// thread filling a bounded buffer ahead of the consumer).
#include <deque>
#include <random>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dataset_util.h"
#include "kernels/dataset.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

absl::StatusOr<IteratorPtr> Start(const DatasetPtr& d) { return StartIterator(d); }

using ImplPtr = absl::StatusOr<std::unique_ptr<IteratorImpl>>;

class ZipIterator : public IteratorImpl {
 public:
  explicit ZipIterator(std::vector<IteratorPtr> inputs) : inputs_(std::move(inputs)) {}
  absl::Status GetNext(Element* out, bool* end) override {
    out->clear();
    for (const IteratorPtr& it : inputs_) {
      Element e;
      TW_RETURN_IF_ERROR(it->GetNext(&e, end));
      if (*end) return absl::OkStatus();
      out->insert(out->end(), e.begin(), e.end());
    }
    return absl::OkStatus();
  }
  absl::Status Save(IteratorStateWriter& w) override {
    for (size_t i = 0; i < inputs_.size(); ++i) TW_RETURN_IF_ERROR(SaveInput(w, absl::StrCat("input_", i), *inputs_[i]));
    return absl::OkStatus();
  }
  absl::Status Restore(const IteratorStateReader& r) override {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      TW_RETURN_IF_ERROR(RestoreInput(r, absl::StrCat("input_", i), *inputs_[i]));
    }
    return absl::OkStatus();
  }

 private:
  const std::vector<IteratorPtr> inputs_;
};

class ZipDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    std::vector<DatasetPtr> inputs;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      TW_ASSIGN_OR_RETURN(DatasetPtr d, DatasetInput(ctx, i));
      inputs.push_back(std::move(d));
    }
    return MakeIteratorDataset("Zip", types_, shapes_, [inputs]() -> ImplPtr {
      std::vector<IteratorPtr> its;
      for (const DatasetPtr& d : inputs) {
        TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(d));
        its.push_back(std::move(it));
      }
      return std::make_unique<ZipIterator>(std::move(its));
    });
  }
};

class ConcatenateIterator : public IteratorImpl {
 public:
  ConcatenateIterator(IteratorPtr first, DatasetPtr second) : current_(std::move(first)), second_(std::move(second)) {}
  absl::Status GetNext(Element* out, bool* end) override {
    TW_RETURN_IF_ERROR(current_->GetNext(out, end));
    if (!*end || in_second_) return absl::OkStatus();
    TW_RETURN_IF_ERROR(StartSecond());
    return current_->GetNext(out, end);
  }
  absl::Status Save(IteratorStateWriter& w) override {
    w.WriteInt("in_second", in_second_);
    return SaveInput(w, "input", *current_);
  }
  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(int64_t in_second, r.ReadInt("in_second"));
    if (in_second && !in_second_) TW_RETURN_IF_ERROR(StartSecond());
    return RestoreInput(r, "input", *current_);
  }

 private:
  absl::Status StartSecond() {
    in_second_ = true;
    TW_ASSIGN_OR_RETURN(current_, Start(second_));
    return absl::OkStatus();
  }
  IteratorPtr current_;
  const DatasetPtr second_;
  bool in_second_ = false;
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
    return MakeIteratorDataset("Concatenate", types_, shapes_, [a, b]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr first, Start(a));
      return std::make_unique<ConcatenateIterator>(std::move(first), b);
    });
  }
};

// repeat(count): count < 0 forever. An input that is empty ends the repetition.
class RepeatIterator : public IteratorImpl {
 public:
  RepeatIterator(DatasetPtr input, int64_t count) : input_(std::move(input)), count_(count) {}
  absl::Status GetNext(Element* out, bool* end) override {
    while (true) {
      if (count_ >= 0 && epoch_ >= count_) {
        *end = true;
        return absl::OkStatus();
      }
      if (!it_) {
        TW_ASSIGN_OR_RETURN(it_, Start(input_));
        produced_this_epoch_ = false;
      }
      TW_RETURN_IF_ERROR(it_->GetNext(out, end));
      if (!*end) {
        produced_this_epoch_ = true;
        return absl::OkStatus();
      }
      it_ = nullptr;
      ++epoch_;
      if (!produced_this_epoch_) return absl::OkStatus();  // Empty input: stop, as TF does.
    }
  }
  absl::Status Save(IteratorStateWriter& w) override {
    w.WriteInt("epoch", epoch_);
    w.WriteInt("produced_this_epoch", produced_this_epoch_);
    w.WriteInt("input_active", it_ != nullptr);
    return it_ ? SaveInput(w, "input", *it_) : absl::OkStatus();
  }
  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(epoch_, r.ReadInt("epoch"));
    TW_ASSIGN_OR_RETURN(int64_t produced, r.ReadInt("produced_this_epoch"));
    TW_ASSIGN_OR_RETURN(int64_t active, r.ReadInt("input_active"));
    produced_this_epoch_ = produced != 0;
    it_ = nullptr;
    if (!active) return absl::OkStatus();
    TW_ASSIGN_OR_RETURN(it_, Start(input_));
    return RestoreInput(r, "input", *it_);
  }

 private:
  const DatasetPtr input_;
  const int64_t count_;
  IteratorPtr it_;
  int64_t epoch_ = 0;
  bool produced_this_epoch_ = false;
};

class RepeatDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t count, ScalarInt64Input(ctx, 1, "count"));
    return MakeIteratorDataset("Repeat", types_, shapes_, [input, count]() -> ImplPtr {
      return std::make_unique<RepeatIterator>(input, count);
    });
  }
};

// An iterator over one input plus int64 counters, all saved: take, skip, shard, map...
class CountingIterator : public IteratorImpl {
 public:
  absl::Status Save(IteratorStateWriter& w) override {
    w.WriteInt("count", count_);
    return SaveInput(w, "input", *input_);
  }
  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(count_, r.ReadInt("count"));
    return RestoreInput(r, "input", *input_);
  }

 protected:
  explicit CountingIterator(IteratorPtr input) : input_(std::move(input)) {}
  const IteratorPtr input_;
  int64_t count_ = 0;
};

// take(n) (n < 0: all) and skip(n) (n < 0: everything).
template <bool kTake>
class TakeSkipIterator : public CountingIterator {
 public:
  TakeSkipIterator(IteratorPtr input, int64_t n) : CountingIterator(std::move(input)), n_(n) {}
  absl::Status GetNext(Element* out, bool* end) override {
    if (kTake) {
      if (n_ >= 0 && count_ >= n_) {
        *end = true;
        return absl::OkStatus();
      }
      ++count_;
      return input_->GetNext(out, end);
    }
    while (n_ < 0 || count_ < n_) {
      TW_RETURN_IF_ERROR(input_->GetNext(out, end));
      if (*end) return absl::OkStatus();
      ++count_;
    }
    return input_->GetNext(out, end);
  }

 private:
  const int64_t n_;
};

template <bool kTake>
class TakeSkipDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t count, ScalarInt64Input(ctx, 1, "count"));
    return MakeIteratorDataset(kTake ? "Take" : "Skip", types_, shapes_, [input, count]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      return std::make_unique<TakeSkipIterator<kTake>>(std::move(it), count);
    });
  }
};

class ShardIterator : public CountingIterator {
 public:
  ShardIterator(IteratorPtr input, int64_t num_shards, int64_t index)
      : CountingIterator(std::move(input)), num_shards_(num_shards), index_(index) {}
  absl::Status GetNext(Element* out, bool* end) override {
    while (true) {
      TW_RETURN_IF_ERROR(input_->GetNext(out, end));
      if (*end) return absl::OkStatus();
      if (count_++ % num_shards_ == index_) return absl::OkStatus();
    }
  }

 private:
  const int64_t num_shards_, index_;
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
    return MakeIteratorDataset("Shard", types_, shapes_, [=]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      return std::make_unique<ShardIterator>(std::move(it), num_shards, index);
    });
  }
};

// Up to `n` elements of `it` (fewer at its end).
absl::Status NextElements(DatasetIterator& it, int64_t n, std::vector<Element>* batch) {
  batch->clear();
  while (static_cast<int64_t>(batch->size()) < n) {
    Element e;
    bool end = false;
    TW_RETURN_IF_ERROR(it.GetNext(&e, &end));
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
    return MakeIteratorDataset(kPadded ? "PaddedBatch" : "Batch", types_, shapes_, [=]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr input_it, Start(input));
      return MakeInputIterator(input_it, [=](DatasetIterator& it, Element* out, bool* end) -> absl::Status {
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
// Saved: the buffer, the generator's state, the seeds and the epoch, so a restored
// iterator (and the iterators its dataset makes after it, e.g. repeat's next epochs)
// continue bit for bit, even with the random seeds of an unseeded shuffle.
struct ShuffleSeeds {
  absl::Mutex mu;
  int64_t seed ABSL_GUARDED_BY(mu) = 0;
  int64_t seed2 ABSL_GUARDED_BY(mu) = 0;
  int64_t next_epoch ABSL_GUARDED_BY(mu) = 0;  // The next iterator's (when reshuffling).
};

class ShuffleIterator : public IteratorImpl {
 public:
  ShuffleIterator(IteratorPtr input, size_t capacity, std::shared_ptr<ShuffleSeeds> seeds, bool reshuffle)
      : input_(std::move(input)), capacity_(capacity), seeds_(std::move(seeds)) {
    absl::MutexLock lock(&seeds_->mu);
    seed_ = seeds_->seed;
    seed2_ = seeds_->seed2;
    epoch_ = reshuffle ? seeds_->next_epoch++ : 0;
    std::seed_seq seq{static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed_ >> 32), static_cast<uint32_t>(seed2_),
                      static_cast<uint32_t>(seed2_ >> 32), static_cast<uint32_t>(epoch_)};
    rng_.seed(seq);
  }

  absl::Status GetNext(Element* out, bool* end) override {
    while (!input_done_ && buffer_.size() < capacity_) {
      Element x;
      bool input_end = false;
      TW_RETURN_IF_ERROR(input_->GetNext(&x, &input_end));
      if (input_end) {
        input_done_ = true;
        break;
      }
      buffer_.push_back(std::move(x));
    }
    *end = buffer_.empty();
    if (*end) return absl::OkStatus();
    const size_t k = std::uniform_int_distribution<size_t>(0, buffer_.size() - 1)(rng_);
    *out = std::move(buffer_[k]);
    buffer_[k] = std::move(buffer_.back());
    buffer_.pop_back();
    return absl::OkStatus();
  }

  absl::Status Save(IteratorStateWriter& w) override {
    std::ostringstream rng;
    rng << rng_;
    w.WriteString("rng", rng.str());
    w.WriteInt("epoch", epoch_);
    w.WriteInt("seed", seed_);
    w.WriteInt("seed2", seed2_);
    w.WriteInt("input_done", input_done_);
    w.WriteElements("buffer", buffer_);
    return input_done_ ? absl::OkStatus() : SaveInput(w, "input", *input_);
  }

  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(std::string rng, r.ReadString("rng"));
    std::istringstream in(rng);
    in >> rng_;
    if (!in) return absl::InvalidArgumentError(absl::StrCat("iterator state '", r.prefix(), "::rng' is not a generator state"));
    TW_ASSIGN_OR_RETURN(epoch_, r.ReadInt("epoch"));
    TW_ASSIGN_OR_RETURN(seed_, r.ReadInt("seed"));
    TW_ASSIGN_OR_RETURN(seed2_, r.ReadInt("seed2"));
    TW_ASSIGN_OR_RETURN(int64_t done, r.ReadInt("input_done"));
    input_done_ = done != 0;
    TW_ASSIGN_OR_RETURN(buffer_, r.ReadElements("buffer"));
    // The next iterator of this dataset takes the next epoch's order, as it would have.
    {
      absl::MutexLock lock(&seeds_->mu);
      seeds_->seed = seed_;
      seeds_->seed2 = seed2_;
      seeds_->next_epoch = epoch_ + 1;
    }
    return input_done_ ? absl::OkStatus() : RestoreInput(r, "input", *input_);
  }

 private:
  const IteratorPtr input_;
  const size_t capacity_;
  const std::shared_ptr<ShuffleSeeds> seeds_;
  int64_t seed_ = 0, seed2_ = 0, epoch_ = 0;
  std::mt19937_64 rng_;
  std::vector<Element> buffer_;
  bool input_done_ = false;
};

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
    auto seeds = std::make_shared<ShuffleSeeds>();
    {
      absl::MutexLock lock(&seeds->mu);
      seeds->seed = seed;
      seeds->seed2 = seed2;
    }
    const bool reshuffle = reshuffle_;
    const size_t capacity = buffer_size == -2 ? size_t{1} << 40 : static_cast<size_t>(buffer_size);
    return MakeIteratorDataset("Shuffle", types_, shapes_, [=]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      return std::make_unique<ShuffleIterator>(std::move(it), capacity, seeds, reshuffle);
    });
  }

 private:
  bool reshuffle_ = true;
};

// cache(""): the first iterator that reaches the end keeps every element; later
// iterators replay them without running the input again.
struct MemoryCache {
  absl::Mutex mu;
  std::shared_ptr<const std::vector<Element>> done ABSL_GUARDED_BY(mu);
};

// Saved while filling: the input and the elements seen so far; while replaying: the
// position and the cached elements (a restore in a new process has no cache yet).
class CacheIterator : public IteratorImpl {
 public:
  CacheIterator(DatasetPtr input, std::shared_ptr<MemoryCache> cache) : input_(std::move(input)), cache_(std::move(cache)) {}

  // Replays the cache when it is complete, else starts filling it.
  absl::Status Init() {
    {
      absl::MutexLock lock(&cache_->mu);
      done_ = cache_->done;
    }
    if (done_) return absl::OkStatus();
    TW_ASSIGN_OR_RETURN(it_, Start(input_));
    seen_ = std::make_shared<std::vector<Element>>();
    return absl::OkStatus();
  }

  absl::Status GetNext(Element* out, bool* end) override {
    if (done_) {
      *end = pos_ >= done_->size();
      if (!*end) *out = (*done_)[pos_++];
      return absl::OkStatus();
    }
    TW_RETURN_IF_ERROR(it_->GetNext(out, end));
    if (!*end) {
      seen_->push_back(*out);
      return absl::OkStatus();
    }
    absl::MutexLock lock(&cache_->mu);
    if (!cache_->done) cache_->done = seen_;
    return absl::OkStatus();
  }

  absl::Status Save(IteratorStateWriter& w) override {
    w.WriteInt("replaying", done_ != nullptr);
    if (done_) {
      w.WriteInt("pos", static_cast<int64_t>(pos_));
      w.WriteElements("cache", *done_);
      return absl::OkStatus();
    }
    w.WriteElements("seen", *seen_);
    return SaveInput(w, "input", *it_);
  }

  absl::Status Restore(const IteratorStateReader& r) override {
    TW_ASSIGN_OR_RETURN(int64_t replaying, r.ReadInt("replaying"));
    if (replaying) {
      TW_ASSIGN_OR_RETURN(int64_t pos, r.ReadInt("pos"));
      TW_ASSIGN_OR_RETURN(std::vector<Element> cached, r.ReadElements("cache"));
      if (pos < 0 || pos > static_cast<int64_t>(cached.size())) {
        return absl::InvalidArgumentError(absl::StrCat("iterator state '", r.prefix(), "::pos' is out of range"));
      }
      auto done = std::make_shared<const std::vector<Element>>(std::move(cached));
      {
        absl::MutexLock lock(&cache_->mu);
        if (!cache_->done) cache_->done = done;
      }
      done_ = done;
      pos_ = static_cast<size_t>(pos);
      it_ = nullptr;
      seen_ = nullptr;
      return absl::OkStatus();
    }
    TW_ASSIGN_OR_RETURN(std::vector<Element> seen, r.ReadElements("seen"));
    done_ = nullptr;
    if (!it_) {
      TW_ASSIGN_OR_RETURN(it_, Start(input_));
    }
    seen_ = std::make_shared<std::vector<Element>>(std::move(seen));
    return RestoreInput(r, "input", *it_);
  }

 private:
  const DatasetPtr input_;
  const std::shared_ptr<MemoryCache> cache_;
  std::shared_ptr<const std::vector<Element>> done_;
  size_t pos_ = 0;
  IteratorPtr it_;
  std::shared_ptr<std::vector<Element>> seen_;
};

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
    auto cache = std::make_shared<MemoryCache>();
    return MakeIteratorDataset("Cache", types_, shapes_, [=]() -> ImplPtr {
      auto it = std::make_unique<CacheIterator>(input, cache);
      TW_RETURN_IF_ERROR(it->Init());
      return it;
    });
  }
};

// prefetch(n): a thread runs the input ahead, keeping up to n elements (n <= 0, AUTOTUNE
// among them: 2). The thread starts at the first GetNext (as TF's), so a fresh iterator
// pulls nothing before a Restore; its destructor stops the thread and waits for it. Save
// and Restore stop the thread too (so the input and the buffer hold still): the state is
// the buffered elements plus the input's, nothing pulled is lost or repeated.
class PrefetchIterator : public IteratorImpl {
 public:
  PrefetchIterator(IteratorPtr input, size_t capacity) : capacity_(capacity), input_(std::move(input)) {}
  ~PrefetchIterator() override { Pause(); }

  absl::Status GetNext(Element* out, bool* end) override {
    if (!running_) {
      running_ = true;
      Resume();
    }
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](PrefetchIterator* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) { return !p->buffer_.empty() || p->finished_; },
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

  absl::Status Save(IteratorStateWriter& w) override {
    Pause();
    absl::Status s = SaveLocked(w);
    if (running_) Resume();
    return s;
  }

  absl::Status Restore(const IteratorStateReader& r) override {
    Pause();
    running_ = false;  // Starts again at the next GetNext.
    return RestoreLocked(r);
  }

 private:
  // Only while the thread is stopped.
  absl::Status SaveLocked(IteratorStateWriter& w) {
    absl::MutexLock lock(&mu_);
    w.WriteElements("buffer", std::vector<Element>(buffer_.begin(), buffer_.end()));
    w.WriteInt("finished", finished_);
    w.WriteStatus("status", status_);
    return finished_ ? absl::OkStatus() : SaveInput(w, "input", *input_);
  }

  absl::Status RestoreLocked(const IteratorStateReader& r) {
    TW_ASSIGN_OR_RETURN(std::vector<Element> buffer, r.ReadElements("buffer"));
    TW_ASSIGN_OR_RETURN(int64_t finished, r.ReadInt("finished"));
    TW_ASSIGN_OR_RETURN(absl::Status status, r.ReadStatus("status"));
    absl::MutexLock lock(&mu_);
    buffer_.assign(std::make_move_iterator(buffer.begin()), std::make_move_iterator(buffer.end()));
    finished_ = finished != 0;
    status_ = status;
    if (finished_) {
      input_ = nullptr;
      return absl::OkStatus();
    }
    if (!input_) return absl::FailedPreconditionError("Prefetch: restore into an iterator whose input ended");
    return RestoreInput(r, "input", *input_);
  }

  void Resume() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = false;
      if (finished_) return;
    }
    thread_ = std::thread([this] { Fill(); });
  }

  void Pause() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
    }
    if (thread_.joinable()) thread_.join();
  }

  void Fill() {
    while (true) {
      IteratorPtr input;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](PrefetchIterator* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) {
              return p->stop_ || p->buffer_.size() < p->capacity_;
            },
            this));
        if (stop_) return;
        input = input_;
      }
      Element e;
      bool end = false;
      absl::Status s = input->GetNext(&e, &end);
      absl::MutexLock lock(&mu_);
      if (!s.ok() || end) {
        status_ = s;
        finished_ = true;
        input_ = nullptr;  // Input threads stop here, on this thread.
        return;
      }
      buffer_.push_back(std::move(e));
    }
  }

  const size_t capacity_;
  absl::Mutex mu_;
  IteratorPtr input_ ABSL_GUARDED_BY(mu_);
  std::deque<Element> buffer_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // Started and joined by the consumer's thread only.
  bool running_ = false;  // The consumer's: whether the thread should be filling.
};

class PrefetchDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr input, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(int64_t buffer_size, ScalarInt64Input(ctx, 1, "buffer_size"));
    if (buffer_size < -1) return absl::InvalidArgumentError("buffer_size must be >= 0 or AUTOTUNE (-1)");
    const size_t capacity = buffer_size <= 0 ? 2 : static_cast<size_t>(buffer_size);
    return MakeIteratorDataset("Prefetch", types_, shapes_, [=]() -> ImplPtr {
      TW_ASSIGN_OR_RETURN(IteratorPtr it, Start(input));
      return std::make_unique<PrefetchIterator>(std::move(it), capacity);
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
