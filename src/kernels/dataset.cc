#include "kernels/dataset.h"

#include "absl/strings/str_cat.h"

namespace tw {

namespace {
constexpr char kDatasetTypeName[] = "Dataset";

class ClosureIterator : public DatasetIterator {
 public:
  ClosureIterator(DatasetPtr keep, NextFn next) : keep_(std::move(keep)), next_(std::move(next)) {}
  absl::Status GetNext(Element* out, bool* end) override {
    if (done_) {
      *end = true;
      return absl::OkStatus();
    }
    TW_RETURN_IF_ERROR(next_(out, end));
    if (*end) {
      done_ = true;
      next_ = nullptr;  // Releases the input iterators (and stops their threads) now.
    }
    return absl::OkStatus();
  }

 private:
  DatasetPtr keep_;
  NextFn next_;
  bool done_ = false;
};

class ClosureDataset : public DatasetBase {
 public:
  ClosureDataset(std::vector<DType> types, std::vector<PartialShape> shapes,
                 std::function<absl::StatusOr<NextFn>()> make)
      : DatasetBase(std::move(types), std::move(shapes)), make_(std::move(make)) {}
  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator() const override {
    TW_ASSIGN_OR_RETURN(NextFn next, make_());
    return std::unique_ptr<DatasetIterator>(new ClosureIterator(shared_from_this(), std::move(next)));
  }

 private:
  std::function<absl::StatusOr<NextFn>()> make_;
};

}  // namespace

DatasetPtr MakeClosureDataset(std::vector<DType> types, std::vector<PartialShape> shapes,
                              std::function<absl::StatusOr<NextFn>()> make) {
  return std::make_shared<ClosureDataset>(std::move(types), std::move(shapes), std::move(make));
}

Tensor DatasetToTensor(DatasetPtr dataset) {
  return Tensor::Variant(VariantValue{kDatasetTypeName, std::shared_ptr<const void>(dataset, dataset.get())});
}

absl::StatusOr<DatasetPtr> DatasetFromTensor(const Tensor& t) {
  if (t.dtype() != DType::kVariant || t.NumElements() != 1 || t.variant().type_name != kDatasetTypeName) {
    return absl::InvalidArgumentError(absl::StrCat("expected a dataset (a variant scalar), got ", DTypeName(t.dtype()),
                                                   " ", t.shape().DebugString()));
  }
  return DatasetPtr(t.variant().object, static_cast<const DatasetBase*>(t.variant().object.get()));
}

absl::StatusOr<DatasetPtr> DatasetInput(const OpKernelContext& ctx, int i) {
  return DatasetFromTensor(ctx.input(i));
}

absl::StatusOr<int64_t> ScalarInt64Input(const OpKernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.NumElements() != 1 || t.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be a scalar, got shape ", t.shape().DebugString()));
  }
  if (t.dtype() == DType::kInt64) return t.scalar<int64_t>();
  if (t.dtype() == DType::kInt32) return t.scalar<int32_t>();
  return absl::InvalidArgumentError(absl::StrCat(what, " must be int64, got ", DTypeName(t.dtype())));
}

absl::Status CheckElement(const Element& e, const std::vector<DType>& types, const std::vector<PartialShape>& shapes,
                          const std::string& where) {
  if (e.size() != types.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, " produced ", e.size(), " components, expected ", types.size()));
  }
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i].dtype() != types[i]) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": component ", i, " is ", DTypeName(e[i].dtype()),
                                                     ", expected ", DTypeName(types[i])));
    }
    if (i < shapes.size() && !shapes[i].Matches(e[i].shape())) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": component ", i, " has shape ",
                                                     e[i].shape().DebugString(), ", expected ",
                                                     shapes[i].DebugString()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const CapturedFunction>> CapturedFunction::Make(OpKernelConstruction* c,
                                                                             const std::string& attr) {
  auto it = c->attrs().find(attr);
  if (it == c->attrs().end() || !it->second.has_func() || it->second.func().name().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("attr '", attr, "' names no function"));
  }
  if (c->function_library() == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("function '", it->second.func().name(), "' cannot run here: no function library"));
  }
  auto fn = std::make_shared<CapturedFunction>();
  fn->runtime = c->function_library();
  TW_ASSIGN_OR_RETURN(fn->handle, fn->runtime->Instantiate(it->second.func().name()));
  return std::shared_ptr<const CapturedFunction>(std::move(fn));
}

absl::Status CapturedFunction::Call(Element args, Element* out) const {
  for (const Tensor& t : captured) args.push_back(t);
  return runtime->RunSync(handle, std::move(args), out);
}

DatasetOpKernel::DatasetOpKernel(OpKernelConstruction& c) : OpKernel(c) {
  if (c.attrs().count("output_types")) c.GetAttr("output_types", &types_);
  if (c.attrs().count("Toutput_types")) c.GetAttr("Toutput_types", &types_);
  if (c.attrs().count("output_shapes")) c.GetAttr("output_shapes", &shapes_);
}

absl::Status DatasetOpKernel::Compute(OpKernelContext& ctx) {
  TW_ASSIGN_OR_RETURN(DatasetPtr dataset, MakeDataset(ctx));
  ctx.set_output(0, DatasetToTensor(std::move(dataset)));
  return absl::OkStatus();
}

}  // namespace tw
