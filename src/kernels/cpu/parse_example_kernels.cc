// ParseExample, ParseExampleV2, ParseSingleExample: read the feature keys and defaults
// (inputs or attrs, as each op's signature has them) into an ExampleParserConfig and let
// example_parser.cc do the work.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/example_parser.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

// The attrs every parse op has: sparse_types, Tdense, dense_shapes.
struct ParseAttrs {
  std::vector<DType> sparse_types, dense_types;
  std::vector<PartialShape> dense_shapes;
  void Read(OpKernelConstruction& c) {
    c.GetAttr("sparse_types", &sparse_types);
    c.GetAttr("Tdense", &dense_types);
    c.GetAttr("dense_shapes", &dense_shapes);
    if (c.status().ok() && dense_shapes.size() != dense_types.size()) {
      c.Fail(absl::InvalidArgumentError(absl::StrCat("dense_shapes has ", dense_shapes.size(), " entries but Tdense ",
                                                     dense_types.size())));
    }
  }
  // Keys and defaults (one tensor per dense feature, at inputs[first_default...]).
  absl::StatusOr<ExampleParserConfig> Config(const std::vector<std::string>& sparse_keys,
                                             const std::vector<std::string>& dense_keys, OpKernelContext& ctx,
                                             int first_default) const {
    if (sparse_keys.size() != sparse_types.size() || dense_keys.size() != dense_types.size()) {
      return absl::InvalidArgumentError(absl::StrCat("got ", sparse_keys.size(), " sparse keys for ",
                                                     sparse_types.size(), " sparse_types and ", dense_keys.size(),
                                                     " dense keys for ", dense_types.size(), " Tdense"));
    }
    ExampleParserConfig config;
    for (size_t i = 0; i < sparse_keys.size(); ++i) config.sparse.push_back({sparse_keys[i], sparse_types[i]});
    for (size_t i = 0; i < dense_keys.size(); ++i) {
      config.dense.push_back(
          {dense_keys[i], dense_types[i], dense_shapes[i], ctx.input(first_default + static_cast<int>(i))});
    }
    return config;
  }
};

// Examples are parsed on the intra-op pool.
ExampleParallelFor ParallelOver(OpKernelContext& ctx) {
  return [&ctx](int64_t n, int64_t cost, const std::function<void(int64_t, int64_t)>& fn) {
    ctx.ParallelFor(n, cost, fn);
  };
}

absl::Status SetOutputs(OpKernelContext& ctx, ExampleParserOutput& out) {
  int o = 0;
  for (auto* list : {&out.sparse_indices, &out.sparse_values, &out.sparse_shapes, &out.dense_values}) {
    for (Tensor& t : *list) ctx.set_output(o++, std::move(t));
  }
  return absl::OkStatus();
}

absl::Status ScalarString(const Tensor& t, const char* what, int i, std::string* out) {
  if (t.dtype() != DType::kString || t.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("Expected ", what, "[", i, "] to be a scalar, got shape: ",
                                                   t.shape().DebugString()));
  }
  *out = t.data<std::string>()[0];
  return absl::OkStatus();
}

absl::Status VectorStrings(const Tensor& t, const char* what, std::vector<std::string>* out) {
  if (t.dtype() != DType::kString || t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("Expected ", what, " to be a vector, got shape: ",
                                                   t.shape().DebugString()));
  }
  out->assign(t.data<std::string>(), t.data<std::string>() + t.NumElements());
  return absl::OkStatus();
}

class ParseExampleOp : public OpKernel {
 public:
  explicit ParseExampleOp(OpKernelConstruction& c) : OpKernel(c) {
    c.GetAttr("Nsparse", &num_sparse_);
    c.GetAttr("Ndense", &num_dense_);
    attrs_.Read(c);
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& serialized = ctx.input(0);
    if (serialized.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected serialized to be a vector, got shape: ", serialized.shape().DebugString()));
    }
    const Tensor& names = ctx.input(1);
    if (names.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected names to be a vector, got shape: ", names.shape().DebugString()));
    }
    std::vector<std::string> sparse_keys(num_sparse_), dense_keys(num_dense_);
    for (int i = 0; i < num_sparse_; ++i) TW_RETURN_IF_ERROR(ScalarString(ctx.input(2 + i), "sparse_keys", i, &sparse_keys[i]));
    for (int i = 0; i < num_dense_; ++i) {
      TW_RETURN_IF_ERROR(ScalarString(ctx.input(2 + num_sparse_ + i), "dense_keys", i, &dense_keys[i]));
    }
    TW_ASSIGN_OR_RETURN(ExampleParserConfig config, attrs_.Config(sparse_keys, dense_keys, ctx, 2 + num_sparse_ + num_dense_));
    ExampleParserOutput out;
    TW_RETURN_IF_ERROR(ParseExamples(config, serialized, &names, ctx.params().max_tensor_bytes, &out, ParallelOver(ctx)));
    return SetOutputs(ctx, out);
  }

 private:
  int num_sparse_ = 0, num_dense_ = 0;
  ParseAttrs attrs_;
};

class ParseExampleV2Op : public OpKernel {
 public:
  explicit ParseExampleV2Op(OpKernelConstruction& c) : OpKernel(c) {
    attrs_.Read(c);
    std::vector<DType> ragged;
    c.GetAttr("ragged_value_types", &ragged);
    if (c.status().ok() && !ragged.empty()) {
      c.Fail(absl::UnimplementedError("ParseExampleV2: ragged features are not supported"));
    }
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& serialized = ctx.input(0);
    if (serialized.rank() > 1) {
      return absl::InvalidArgumentError(absl::StrCat("Expected serialized to be a scalar or vector, got shape: ",
                                                     serialized.shape().DebugString()));
    }
    std::vector<std::string> sparse_keys, dense_keys, ragged_keys;
    TW_RETURN_IF_ERROR(VectorStrings(ctx.input(2), "sparse_keys", &sparse_keys));
    TW_RETURN_IF_ERROR(VectorStrings(ctx.input(3), "dense_keys", &dense_keys));
    TW_RETURN_IF_ERROR(VectorStrings(ctx.input(4), "ragged_keys", &ragged_keys));
    if (!ragged_keys.empty()) return absl::UnimplementedError("ParseExampleV2: ragged features are not supported");
    TW_ASSIGN_OR_RETURN(ExampleParserConfig config, attrs_.Config(sparse_keys, dense_keys, ctx, 5));
    ExampleParserOutput out;
    TW_RETURN_IF_ERROR(ParseExamples(config, serialized, &ctx.input(1), ctx.params().max_tensor_bytes, &out, ParallelOver(ctx)));
    return SetOutputs(ctx, out);
  }

 private:
  ParseAttrs attrs_;
};

class ParseSingleExampleOp : public OpKernel {
 public:
  explicit ParseSingleExampleOp(OpKernelConstruction& c) : OpKernel(c) {
    attrs_.Read(c);
    for (auto [attr, keys] : {std::pair{"sparse_keys", &sparse_keys_}, std::pair{"dense_keys", &dense_keys_}}) {
      auto value = GetStringListAttr(c.attrs(), attr);
      if (value.ok()) {
        *keys = std::move(*value);
      } else {
        c.Fail(value.status());
      }
    }
  }
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& serialized = ctx.input(0);
    if (serialized.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected serialized to be a scalar, got shape: ", serialized.shape().DebugString()));
    }
    TW_ASSIGN_OR_RETURN(ExampleParserConfig config, attrs_.Config(sparse_keys_, dense_keys_, ctx, 1));
    ExampleParserOutput out;
    TW_RETURN_IF_ERROR(ParseExamples(config, serialized, nullptr, ctx.params().max_tensor_bytes, &out, ParallelOver(ctx)));
    return SetOutputs(ctx, out);
  }

 private:
  ParseAttrs attrs_;
  std::vector<std::string> sparse_keys_, dense_keys_;
};

}  // namespace

void RegisterParseExampleKernels(KernelRegistry& r) {
  r.Register("ParseExample", kDeviceCpu, Factory<ParseExampleOp>());
  r.Register("ParseExampleV2", kDeviceCpu, Factory<ParseExampleV2Op>());
  r.Register("ParseSingleExample", kDeviceCpu, Factory<ParseSingleExampleOp>());
}

}  // namespace tw
