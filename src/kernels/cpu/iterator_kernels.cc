// tf.data iterators as resources: IteratorV2 names one, MakeIterator starts it on a
// dataset, IteratorGetNext pulls the next element (OutOfRange "End of sequence" at the
// end, as TensorFlow), OneShotIterator builds its dataset once with its dataset_factory
// function and needs no initializer.
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/resource_handle_input.h"
#include "kernels/dataset.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

class IteratorResource : public ResourceBase {
 public:
  IteratorResource(std::vector<DType> types, std::vector<PartialShape> shapes)
      : types_(std::move(types)), shapes_(std::move(shapes)) {}
  std::string TypeName() const override { return "Iterator"; }

  absl::Status Start(const DatasetBase& dataset) {
    if (dataset.output_types() != types_) {
      return absl::InvalidArgumentError("The iterator and the dataset have different types");
    }
    TW_ASSIGN_OR_RETURN(std::unique_ptr<DatasetIterator> it, dataset.MakeIterator());
    std::unique_ptr<DatasetIterator> old;
    absl::MutexLock lock(&mu_);
    old = std::move(iterator_);  // Destroyed after the lock: may join threads.
    iterator_ = std::move(it);
    return absl::OkStatus();
  }

  absl::Status GetNext(Element* out) {
    absl::MutexLock lock(&mu_);
    if (!iterator_) {
      return absl::FailedPreconditionError("GetNext() failed because the iterator has not been initialized. "
                                           "Ensure that you have run the initializer operation for this iterator "
                                           "before getting the next element.");
    }
    bool end = false;
    TW_RETURN_IF_ERROR(iterator_->GetNext(out, &end));
    if (end) return absl::OutOfRangeError("End of sequence");
    return CheckElement(*out, types_, shapes_, "IteratorGetNext");
  }

 private:
  const std::vector<DType> types_;
  const std::vector<PartialShape> shapes_;
  absl::Mutex mu_;
  std::unique_ptr<DatasetIterator> iterator_ ABSL_GUARDED_BY(mu_);
};

std::string SharedName(OpKernelConstruction& c) {
  std::string shared_name;
  c.GetAttr("shared_name", &shared_name);
  return shared_name.empty() ? c.name() : shared_name;
}

// IteratorV2 and OneShotIterator: the handle; OneShotIterator also starts it once.
template <bool kOneShot>
class IteratorOp : public OpKernel {
 public:
  explicit IteratorOp(OpKernelConstruction& c)
      : OpKernel(c), name_(SharedName(c)), flr_(c.function_library()) {
    c.GetAttr("container", &container_);
    c.GetAttr("output_types", &types_);
    c.GetAttr("output_shapes", &shapes_);
    handle_ = Tensor::Resource(ResourceHandle{c.device_name(), container_, name_});
    if (kOneShot) {
      auto it = c.attrs().find("dataset_factory");
      if (it == c.attrs().end() || !it->second.has_func()) {
        c.Fail(absl::InvalidArgumentError("attr 'dataset_factory' names no function"));
      } else {
        factory_ = it->second.func().name();
      }
    }
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<IteratorResource> iterator,
                        ctx.resource_mgr()->LookupOrCreateResource<IteratorResource>(
                            container_, name_, [this]() -> absl::StatusOr<std::shared_ptr<IteratorResource>> {
                              auto r = std::make_shared<IteratorResource>(types_, shapes_);
                              if (kOneShot) TW_RETURN_IF_ERROR(StartOneShot(*r));
                              return r;
                            }));
    ctx.set_output(0, handle_);
    return absl::OkStatus();
  }

 private:
  absl::Status StartOneShot(IteratorResource& iterator) {
    if (flr_ == nullptr) return absl::FailedPreconditionError("OneShotIterator needs the graph's function library");
    TW_ASSIGN_OR_RETURN(FunctionLibraryRuntime::Handle h, flr_->Instantiate(factory_));
    Element made;
    TW_RETURN_IF_ERROR(flr_->RunSync(h, {}, &made));
    if (made.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("dataset_factory '", factory_, "' must return one dataset"));
    }
    TW_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromTensor(made[0]));
    return iterator.Start(*dataset);
  }

  std::string name_, container_, factory_;
  FunctionLibraryRuntime* flr_;
  std::vector<DType> types_;
  std::vector<PartialShape> shapes_;
  Tensor handle_;
};

class MakeIteratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetInput(ctx, 0));
    TW_ASSIGN_OR_RETURN(std::shared_ptr<IteratorResource> iterator,
                        LookupResourceInput<IteratorResource>(ctx, 1, "iterator"));
    return iterator->Start(*dataset);
  }
};

class IteratorGetNextOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<IteratorResource> iterator,
                        LookupResourceInput<IteratorResource>(ctx, 0, "iterator"));
    Element e;
    TW_RETURN_IF_ERROR(iterator->GetNext(&e));
    if (static_cast<int>(e.size()) != ctx.num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat("the iterator gives ", e.size(), " components, the op has ",
                                                     ctx.num_outputs(), " outputs"));
    }
    for (size_t i = 0; i < e.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(e[i]));
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterIteratorKernels(KernelRegistry& r) {
  r.Register("IteratorV2", kDeviceCpu, Factory<IteratorOp<false>>());
  r.Register("OneShotIterator", kDeviceCpu, Factory<IteratorOp<true>>());
  r.Register("MakeIterator", kDeviceCpu, Factory<MakeIteratorOp>());
  r.Register("IteratorGetNext", kDeviceCpu, Factory<IteratorGetNextOp>());
  r.Register("IteratorGetNextSync", kDeviceCpu, Factory<IteratorGetNextOp>());
}

}  // namespace tw
