// tf.train.Example parsing ops with TensorFlow's signatures: ParseExample (TF 1.x's
// tf.parse_example), ParseExampleV2 (what TF 2.x's tf.compat.v1.parse_example emits; no
// ragged features here) and ParseSingleExample. Outputs, in order: sparse_indices,
// sparse_values, sparse_shapes (one triple per VarLen feature), dense_values. And DecodeCSV
// (tf.io.decode_csv): one output per column, each of the records' shape.
#include "absl/strings/str_cat.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// Sets the outputs given the rank of `serialized` (0: one Example, 1: a batch of
// `batch` examples, -1 when unknown).
absl::Status SetParseOutputs(InferenceContext& c, int serialized_rank, int64_t batch, int num_sparse) {
  TW_ASSIGN_OR_RETURN(std::vector<PartialShape> dense_shapes, GetShapeListAttr(c.attrs(), "dense_shapes"));
  TW_ASSIGN_OR_RETURN(std::vector<DType> sparse_types, GetTypeListAttr(c.attrs(), "sparse_types"));
  TW_ASSIGN_OR_RETURN(std::vector<DType> dense_types, GetTypeListAttr(c.attrs(), "Tdense"));
  if (static_cast<int>(sparse_types.size()) != num_sparse) {
    return absl::InvalidArgumentError(
        absl::StrCat("sparse_types has ", sparse_types.size(), " entries for ", num_sparse, " sparse features"));
  }
  if (dense_shapes.size() != dense_types.size()) {
    return absl::InvalidArgumentError(absl::StrCat("dense_shapes has ", dense_shapes.size(), " entries for ",
                                                   dense_types.size(), " dense features"));
  }
  for (const auto* types : {&sparse_types, &dense_types}) {
    for (DType t : *types) {
      if (t != DType::kFloat && t != DType::kInt64 && t != DType::kString) {
        return absl::InvalidArgumentError(
            absl::StrCat("Example features are float, int64 or string, not ", DTypeName(t)));
      }
    }
  }
  int out = 0;
  const int64_t cols = serialized_rank < 0 ? -1 : serialized_rank + 1;
  for (int i = 0; i < num_sparse; ++i) c.set_output(out++, PartialShape({-1, cols}));
  for (int i = 0; i < num_sparse; ++i) c.set_output(out++, PartialShape({-1}));
  for (int i = 0; i < num_sparse; ++i) c.set_output(out++, PartialShape({cols}));
  for (const PartialShape& shape : dense_shapes) {
    if (serialized_rank < 0 || !shape.known_rank()) {
      c.set_output(out++, PartialShape::UnknownRank());
      continue;
    }
    std::vector<int64_t> dims;
    if (serialized_rank == 1) dims.push_back(batch);
    dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
    c.set_output(out++, PartialShape(dims));
  }
  for (; out < c.num_outputs(); ++out) c.set_output(out, PartialShape::UnknownRank());
  return absl::OkStatus();
}

int64_t BatchOf(const PartialShape& s) { return s.known_rank() && s.rank() == 1 ? s.dim(0) : -1; }

absl::Status ParseExampleShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 1));
  TW_RETURN_IF_ERROR(c.WithRank(1, 1));
  TW_ASSIGN_OR_RETURN(int64_t num_sparse, GetIntAttr(c.attrs(), "Nsparse"));
  TW_ASSIGN_OR_RETURN(int64_t num_dense, GetIntAttr(c.attrs(), "Ndense"));
  for (int i = 2; i < 2 + num_sparse + num_dense; ++i) TW_RETURN_IF_ERROR(c.WithRank(i, 0));
  return SetParseOutputs(c, 1, BatchOf(c.input_shape(0)), static_cast<int>(num_sparse));
}

absl::Status ParseExampleV2Shape(InferenceContext& c) {
  const PartialShape& serialized = c.input_shape(0);
  if (serialized.known_rank() && serialized.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("serialized must be a scalar or a vector, got shape ", serialized.DebugString()));
  }
  for (int i = 2; i <= 4; ++i) TW_RETURN_IF_ERROR(c.WithRank(i, 1));
  TW_ASSIGN_OR_RETURN(std::vector<DType> ragged, GetTypeListAttr(c.attrs(), "ragged_value_types"));
  if (!ragged.empty()) return absl::UnimplementedError("ParseExampleV2: ragged features are not supported");
  TW_ASSIGN_OR_RETURN(int64_t num_sparse, GetIntAttr(c.attrs(), "num_sparse"));
  return SetParseOutputs(c, serialized.rank(), BatchOf(serialized), static_cast<int>(num_sparse));
}

absl::Status ParseSingleExampleShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 0));
  TW_ASSIGN_OR_RETURN(int64_t num_sparse, GetIntAttr(c.attrs(), "num_sparse"));
  TW_ASSIGN_OR_RETURN(std::vector<std::string> sparse_keys, GetStringListAttr(c.attrs(), "sparse_keys"));
  TW_ASSIGN_OR_RETURN(std::vector<std::string> dense_keys, GetStringListAttr(c.attrs(), "dense_keys"));
  TW_ASSIGN_OR_RETURN(std::vector<DType> dense_types, GetTypeListAttr(c.attrs(), "Tdense"));
  if (static_cast<int64_t>(sparse_keys.size()) != num_sparse || dense_keys.size() != dense_types.size()) {
    return absl::InvalidArgumentError("ParseSingleExample: sparse_keys / dense_keys do not match num_sparse / Tdense");
  }
  return SetParseOutputs(c, 0, -1, static_cast<int>(num_sparse));
}

// Each default a scalar or a vector of 0 or 1 values (TF's texts); outputs shaped as records.
absl::Status DecodeCsvShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(std::vector<DType> types, GetTypeListAttr(c.attrs(), "OUT_TYPE"));
  for (DType t : types) {
    if (t != DType::kFloat && t != DType::kDouble && t != DType::kInt32 && t != DType::kInt64 &&
        t != DType::kString) {
      return absl::InvalidArgumentError(absl::StrCat("Value for attr 'OUT_TYPE' of ", DTypeName(t),
                                                     " is not in the list of allowed values: float, double, int32, "
                                                     "int64, string"));
    }
  }
  for (int i = 1; i < c.num_inputs(); ++i) {
    const PartialShape& d = c.input_shape(i);
    if (!d.known_rank()) continue;
    if (d.rank() > 1) {
      return absl::InvalidArgumentError(absl::StrCat("Shape must be at most rank 1 but is rank ", d.rank()));
    }
    if (d.rank() == 1 && d.dim(0) > 1) {
      return absl::InvalidArgumentError("Shape of a default must be a length-0 or length-1 vector, or a scalar.");
    }
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, c.input_shape(0));
  return absl::OkStatus();
}

}  // namespace

void RegisterParsingOps(OpRegistry& r) {
  r.Register(OpDefBuilder("DecodeCSV")
                 .Input("records: string")
                 .Input("record_defaults: OUT_TYPE")
                 .Output("output: OUT_TYPE")
                 .Attr("OUT_TYPE: list(type)")
                 .Attr("field_delim: string = ','")
                 .Attr("use_quote_delim: bool = true")
                 .Attr("na_value: string = ''")
                 .Attr("select_cols: list(int) = []")
                 .SetShapeFn(DecodeCsvShape));
  r.Register(OpDefBuilder("ParseExample")
                 .Input("serialized: string")
                 .Input("names: string")
                 .Input("sparse_keys: Nsparse * string")
                 .Input("dense_keys: Ndense * string")
                 .Input("dense_defaults: Tdense")
                 .Output("sparse_indices: Nsparse * int64")
                 .Output("sparse_values: sparse_types")
                 .Output("sparse_shapes: Nsparse * int64")
                 .Output("dense_values: Tdense")
                 .Attr("Nsparse: int >= 0")
                 .Attr("Ndense: int >= 0")
                 .Attr("sparse_types: list(type) = []")
                 .Attr("Tdense: list(type) = []")
                 .Attr("dense_shapes: list(shape) = []")
                 .SetShapeFn(ParseExampleShape));
  r.Register(OpDefBuilder("ParseExampleV2")
                 .Input("serialized: string")
                 .Input("names: string")
                 .Input("sparse_keys: string")
                 .Input("dense_keys: string")
                 .Input("ragged_keys: string")
                 .Input("dense_defaults: Tdense")
                 .Output("sparse_indices: num_sparse * int64")
                 .Output("sparse_values: sparse_types")
                 .Output("sparse_shapes: num_sparse * int64")
                 .Output("dense_values: Tdense")
                 .Output("ragged_values: ragged_value_types")
                 .Output("ragged_row_splits: ragged_split_types")
                 .Attr("Tdense: list(type) = []")
                 .Attr("num_sparse: int >= 0")
                 .Attr("sparse_types: list(type) = []")
                 .Attr("ragged_value_types: list(type) = []")
                 .Attr("ragged_split_types: list(type) = []")
                 .Attr("dense_shapes: list(shape) = []")
                 .SetShapeFn(ParseExampleV2Shape));
  r.Register(OpDefBuilder("ParseSingleExample")
                 .Input("serialized: string")
                 .Input("dense_defaults: Tdense")
                 .Output("sparse_indices: num_sparse * int64")
                 .Output("sparse_values: sparse_types")
                 .Output("sparse_shapes: num_sparse * int64")
                 .Output("dense_values: Tdense")
                 .Attr("num_sparse: int >= 0")
                 .Attr("sparse_keys: list(string) = []")
                 .Attr("dense_keys: list(string) = []")
                 .Attr("sparse_types: list(type) = []")
                 .Attr("Tdense: list(type) = []")
                 .Attr("dense_shapes: list(shape) = []")
                 .SetShapeFn(ParseSingleExampleShape));
}

}  // namespace tw
