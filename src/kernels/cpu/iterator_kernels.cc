// tf.data iterators as resources: IteratorV2 names one, MakeIterator starts it on a
// dataset, IteratorGetNext pulls the next element (OutOfRange "End of sequence" at the
// end, as TensorFlow), OneShotIterator builds its dataset once with its dataset_factory
// function and needs no initializer. SerializeIterator / DeserializeIterator save and
// restore its position (kernels/iterator_state.h).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
    dataset_ = dataset.shared_from_this();
    return absl::OkStatus();
  }

  // The position, serialized (an IteratorStateProto): the element types and shapes, then
  // the chain of iterators from this one inwards.
  absl::StatusOr<std::string> Save() {
    absl::MutexLock lock(&mu_);
    if (!iterator_) return NotInitialized("Save()", "saving it");
    IteratorStateMap state;
    IteratorStateWriter w(&state, "Iterator");
    w.WriteString("structure", Structure());
    TW_RETURN_IF_ERROR(SaveInput(w, "root", *iterator_));
    return SerializeIteratorState(state);
  }

  // A fresh iterator of the dataset this one was started on, at the saved position;
  // nothing changes on error.
  absl::Status Restore(const std::string& bytes) {
    DatasetPtr dataset;
    {
      absl::MutexLock lock(&mu_);
      if (!dataset_) return NotInitialized("Restore()", "restoring it");
      dataset = dataset_;
    }
    TW_ASSIGN_OR_RETURN(IteratorStateMap state, ParseIteratorState(bytes));
    IteratorStateReader r(&state, "Iterator");
    TW_ASSIGN_OR_RETURN(std::string structure, r.ReadString("structure"));
    if (structure != Structure()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot restore an iterator of elements ", structure,
                                                     " into an iterator of elements ", Structure()));
    }
    TW_ASSIGN_OR_RETURN(std::unique_ptr<DatasetIterator> it, dataset->MakeIterator());
    TW_RETURN_IF_ERROR(RestoreInput(r, "root", *it));
    std::unique_ptr<DatasetIterator> old;
    absl::MutexLock lock(&mu_);
    old = std::move(iterator_);  // Destroyed after the lock: may join threads.
    iterator_ = std::move(it);
    return absl::OkStatus();
  }

  absl::Status GetNext(Element* out) {
    absl::MutexLock lock(&mu_);
    if (!iterator_) return NotInitialized("GetNext()");
    bool end = false;
    TW_RETURN_IF_ERROR(iterator_->GetNext(out, &end));
    if (end) return absl::OutOfRangeError("End of sequence");
    return CheckElement(*out, types_, shapes_, "IteratorGetNext");
  }

 private:
  static absl::Status NotInitialized(const char* what, const char* before = "getting the next element") {
    return absl::FailedPreconditionError(absl::StrCat(what, " failed because the iterator has not been initialized. ",
                                                      "Ensure that you have run the initializer operation for this ",
                                                      "iterator before ", before, "."));
  }
  // "(int64 [?], string [])": what a saved state must match.
  std::string Structure() const {
    std::vector<std::string> parts;
    for (size_t i = 0; i < types_.size(); ++i) {
      parts.push_back(absl::StrCat(DTypeName(types_[i]), " ", i < shapes_.size() ? shapes_[i].DebugString() : "?"));
    }
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }

  const std::vector<DType> types_;
  const std::vector<PartialShape> shapes_;
  absl::Mutex mu_;
  std::unique_ptr<DatasetIterator> iterator_ ABSL_GUARDED_BY(mu_);
  DatasetPtr dataset_ ABSL_GUARDED_BY(mu_);  // What iterator_ iterates; a restore makes a fresh one.
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

class SerializeIteratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<IteratorResource> iterator,
                        LookupResourceInput<IteratorResource>(ctx, 0, "resource_handle"));
    TW_ASSIGN_OR_RETURN(std::string bytes, iterator->Save());
    ctx.set_output(0, SerializedVariant(std::move(bytes)));
    return absl::OkStatus();
  }
};

class DeserializeIteratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    TW_ASSIGN_OR_RETURN(std::shared_ptr<IteratorResource> iterator,
                        LookupResourceInput<IteratorResource>(ctx, 0, "resource_handle"));
    TW_ASSIGN_OR_RETURN(std::string bytes, SerializedVariantBytes(ctx.input(1)));
    absl::Status s = iterator->Restore(bytes);
    if (s.ok()) return s;
    // TF's words, so programs matching on them behave alike.
    return absl::Status(s.code(), absl::StrCat("Failed to restore dataset iterator from checkpoint: ", s.message(),
                                               ". Make sure the dataset definition has not changed between the ",
                                               "process that saved the checkpoint and the process that is restoring it."));
  }
};

}  // namespace

void RegisterIteratorKernels(KernelRegistry& r) {
  r.Register("IteratorV2", kDeviceCpu, Factory<IteratorOp<false>>());
  r.Register("OneShotIterator", kDeviceCpu, Factory<IteratorOp<true>>());
  r.Register("MakeIterator", kDeviceCpu, Factory<MakeIteratorOp>());
  r.Register("IteratorGetNext", kDeviceCpu, Factory<IteratorGetNextOp>());
  r.Register("IteratorGetNextSync", kDeviceCpu, Factory<IteratorGetNextOp>());
  r.Register("SerializeIterator", kDeviceCpu, Factory<SerializeIteratorOp>());
  r.Register("DeserializeIterator", kDeviceCpu, Factory<DeserializeIteratorOp>());
}

}  // namespace tw
