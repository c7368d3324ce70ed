// The array op schemas are split over a few files; RegisterArrayOps calls each part.
#ifndef TENSORWEAVE_SRC_OPS_ARRAY_OPS_INTERNAL_H_
#define TENSORWEAVE_SRC_OPS_ARRAY_OPS_INTERNAL_H_

#include <vector>

#include "graph/op_registry.h"

namespace tw {

void RegisterArrayShapeOps(OpRegistry& r);  // Shape, Size, Rank, Reshape, Squeeze, ExpandDims,
                                            // BroadcastTo, BroadcastGradientArgs
void RegisterArraySliceOps(OpRegistry& r);  // Slice, StridedSlice, Transpose, Tile
void RegisterArrayJoinOps(OpRegistry& r);   // Concat, ConcatV2, Pack, Unpack, Split, SplitV
void RegisterArrayFillOps(OpRegistry& r);   // Fill, ZerosLike, OnesLike, Range, OneHot

namespace array_util {

// Reads a constant scalar int input (int32 or int64); false when not known yet.
bool ConstantIntScalar(const InferenceContext& c, int i, int64_t* out);
// Reads a constant int vector input as dims.
bool ConstantDims(const InferenceContext& c, int i, DimVector* out);

}  // namespace array_util
}  // namespace tw

#endif  // TENSORWEAVE_SRC_OPS_ARRAY_OPS_INTERNAL_H_
