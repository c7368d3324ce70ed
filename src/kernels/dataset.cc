#include "kernels/dataset.h"

#include "absl/strings/str_cat.h"

namespace tw {

namespace {
constexpr char kDatasetTypeName[] = "Dataset";

// Keeps the dataset alive beside its iterator; after the end, drops the iterator (and so
// its inputs and their threads) and answers end from then on.
class WrappedIterator : public DatasetIterator {
 public:
  WrappedIterator(DatasetPtr keep, std::string kind, std::unique_ptr<IteratorImpl> impl)
      : keep_(std::move(keep)), kind_(std::move(kind)), impl_(std::move(impl)) {}
  absl::Status GetNext(Element* out, bool* end) override {
    if (!impl_) {
      *end = true;
      return absl::OkStatus();
    }
    TW_RETURN_IF_ERROR(impl_->GetNext(out, end));
    if (*end) impl_ = nullptr;  // Releases the input iterators (and stops their threads) now.
    return absl::OkStatus();
  }
  absl::Status Save(IteratorStateWriter& writer) override {
    writer.WriteInt("exhausted", impl_ ? 0 : 1);
    return impl_ ? impl_->Save(writer) : absl::OkStatus();
  }
  absl::Status Restore(const IteratorStateReader& reader) override {
    TW_ASSIGN_OR_RETURN(int64_t exhausted, reader.ReadInt("exhausted"));
    if (exhausted) {
      impl_ = nullptr;
      return absl::OkStatus();
    }
    if (!impl_) return absl::FailedPreconditionError(absl::StrCat(kind_, ": restore into a used iterator"));
    return impl_->Restore(reader);
  }
  std::string kind() const override { return kind_; }

 private:
  DatasetPtr keep_;
  const std::string kind_;
  std::unique_ptr<IteratorImpl> impl_;
};

class FactoryDataset : public DatasetBase {
 public:
  FactoryDataset(std::string kind, std::vector<DType> types, std::vector<PartialShape> shapes, IteratorFactory make)
      : DatasetBase(std::move(types), std::move(shapes)), kind_(std::move(kind)), make_(std::move(make)) {}
  absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator() const override {
    TW_ASSIGN_OR_RETURN(std::unique_ptr<IteratorImpl> impl, make_());
    return std::unique_ptr<DatasetIterator>(new WrappedIterator(shared_from_this(), kind_, std::move(impl)));
  }

 private:
  const std::string kind_;
  IteratorFactory make_;
};

class InputIterator : public IteratorImpl {
 public:
  InputIterator(IteratorPtr input, NextFromInput next) : input_(std::move(input)), next_(std::move(next)) {}
  absl::Status GetNext(Element* out, bool* end) override { return next_(*input_, out, end); }
  absl::Status Save(IteratorStateWriter& w) override { return SaveInput(w, "input", *input_); }
  absl::Status Restore(const IteratorStateReader& r) override { return RestoreInput(r, "input", *input_); }

 private:
  const IteratorPtr input_;
  const NextFromInput next_;
};

}  // namespace

absl::StatusOr<IteratorPtr> StartIterator(const DatasetPtr& d) {
  TW_ASSIGN_OR_RETURN(std::unique_ptr<DatasetIterator> it, d->MakeIterator());
  return IteratorPtr(std::move(it));
}

std::unique_ptr<IteratorImpl> MakeInputIterator(IteratorPtr input, NextFromInput next) {
  return std::make_unique<InputIterator>(std::move(input), std::move(next));
}

DatasetPtr MakeIteratorDataset(std::string kind, std::vector<DType> types, std::vector<PartialShape> shapes,
                               IteratorFactory make) {
  return std::make_shared<FactoryDataset>(std::move(kind), std::move(types), std::move(shapes), std::move(make));
}

absl::Status SaveInput(IteratorStateWriter& writer, const std::string& name, DatasetIterator& input) {
  IteratorStateWriter w = writer.Child(name);
  w.WriteString("kind", input.kind());
  return input.Save(w);
}

absl::Status RestoreInput(const IteratorStateReader& reader, const std::string& name, DatasetIterator& input) {
  IteratorStateReader r = reader.Child(name);
  TW_ASSIGN_OR_RETURN(std::string kind, r.ReadString("kind"));
  if (kind != input.kind()) {
    return absl::InvalidArgumentError(absl::StrCat("iterator state at '", r.prefix(), "' was saved from a ", kind,
                                                   " dataset, but this pipeline has a ", input.kind(),
                                                   " dataset there"));
  }
  return input.Restore(r);
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
