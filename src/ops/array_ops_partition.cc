// Schemas of the ops that split and merge rows by index, the plumbing of an embedding
// lookup over several shards: Gather (v1, axis 0), DynamicPartition, DynamicStitch /
// ParallelDynamicStitch, and Unique (each distinct id fetched once).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ops/array_ops_gather.h"
#include "ops/array_ops_internal.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// indices.shape + params.shape[1:].
absl::Status GatherV1Shape(InferenceContext& c) {
  const PartialShape& params = c.input_shape(0);
  const PartialShape& indices = c.input_shape(1);
  if (params.known_rank() && params.rank() == 0) {
    return absl::InvalidArgumentError("params must be at least 1 dimensional");
  }
  if (!params.known_rank() || !indices.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  c.set_output(0, PartialShape(array_util::GatherDims(params.dims(), indices.dims(), 0)));
  return absl::OkStatus();
}

// Output p: [rows routed to p] + data.shape[partitions.rank:].
absl::Status DynamicPartitionShape(InferenceContext& c) {
  const PartialShape& data = c.input_shape(0);
  const PartialShape& parts = c.input_shape(1);
  PartialShape out = PartialShape::UnknownRank();
  if (data.known_rank() && parts.known_rank()) {
    if (parts.rank() > data.rank()) {
      return absl::InvalidArgumentError(absl::StrCat("partitions ", parts.DebugString(),
                                                     " has more dimensions than data ", data.DebugString()));
    }
    for (int d = 0; d < parts.rank(); ++d) {
      if (parts.dim(d) >= 0 && data.dim(d) >= 0 && parts.dim(d) != data.dim(d)) {
        return absl::InvalidArgumentError(absl::StrCat("partitions ", parts.DebugString(),
                                                       " is not a prefix of data's shape ", data.DebugString()));
      }
    }
    DimVector dims = {-1};
    dims.insert(dims.end(), data.dims().begin() + parts.rank(), data.dims().end());
    out = PartialShape(dims);
  }
  for (int i = 0; i < c.num_outputs(); ++i) c.set_output(i, out);
  return absl::OkStatus();
}

// [max index + 1] + data[0].shape[indices[0].rank:]; the first dim is known only from
// constant indices.
absl::Status DynamicStitchShape(InferenceContext& c) {
  const int n = c.num_inputs() / 2;
  const PartialShape& idx0 = c.input_shape(0);
  const PartialShape& data0 = c.input_shape(n);
  if (!idx0.known_rank() || !data0.known_rank()) {
    c.set_output(0, PartialShape::UnknownRank());
    return absl::OkStatus();
  }
  if (idx0.rank() > data0.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("indices[0] ", idx0.DebugString(),
                                                   " has more dimensions than data[0] ", data0.DebugString()));
  }
  int64_t rows = 0;
  for (int i = 0; i < n && rows >= 0; ++i) {
    std::vector<int64_t> values;
    if (!c.ConstantIntVector(i, &values)) {
      rows = -1;
      break;
    }
    for (int64_t v : values) rows = std::max(rows, v + 1);
  }
  DimVector dims = {rows};
  dims.insert(dims.end(), data0.dims().begin() + idx0.rank(), data0.dims().end());
  c.set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status UniqueShape(InferenceContext& c) {
  TW_RETURN_IF_ERROR(c.WithRank(0, 1));
  c.set_output(0, PartialShape({-1}));
  c.set_output(1, c.input_shape(0));
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayPartitionOps(OpRegistry& r) {
  r.Register(OpDefBuilder("Gather")
                 .Input("params: Tparams")
                 .Input("indices: Tindices")
                 .Output("output: Tparams")
                 .Attr("validate_indices: bool = true")
                 .Attr("Tparams: type")
                 .Attr("Tindices: {int32, int64}")
                 .SetShapeFn(GatherV1Shape));
  r.Register(OpDefBuilder("DynamicPartition")
                 .Input("data: T")
                 .Input("partitions: int32")
                 .Output("outputs: num_partitions * T")
                 .Attr("num_partitions: int >= 1")
                 .Attr("T: type")
                 .SetShapeFn(DynamicPartitionShape));
  for (const char* op : {"DynamicStitch", "ParallelDynamicStitch"}) {
    r.Register(OpDefBuilder(op)
                   .Input("indices: N * int32")
                   .Input("data: N * T")
                   .Output("merged: T")
                   .Attr("N: int >= 1")
                   .Attr("T: type")
                   .SetShapeFn(DynamicStitchShape));
  }
  r.Register(OpDefBuilder("Unique")
                 .Input("x: T")
                 .Output("y: T")
                 .Output("idx: out_idx")
                 .Attr("T: type")
                 .Attr("out_idx: {int32, int64} = int32")
                 .SetShapeFn(UniqueShape));
}

}  // namespace tw
