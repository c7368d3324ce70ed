// What an op's shape function sees: input dtypes, partial shapes, constant input values
// (when an input comes straight from a Const) and the node's attrs; it sets output shapes.
#ifndef TENSORWEAVE_SRC_GRAPH_SHAPE_INFERENCE_H_
#define TENSORWEAVE_SRC_GRAPH_SHAPE_INFERENCE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/attr_value.h"
#include "tensorweave/tensor.h"

namespace tw {

class InferenceContext {
 public:
  InferenceContext(const AttrMap* attrs, std::vector<DType> input_types,
                   std::vector<PartialShape> input_shapes, std::vector<const Tensor*> input_tensors,
                   int num_outputs)
      : attrs_(attrs),
        input_types_(std::move(input_types)),
        input_shapes_(std::move(input_shapes)),
        input_tensors_(std::move(input_tensors)),
        output_shapes_(num_outputs) {}

  int num_inputs() const { return static_cast<int>(input_shapes_.size()); }
  int num_outputs() const { return static_cast<int>(output_shapes_.size()); }
  DType input_type(int i) const { return input_types_[i]; }
  const PartialShape& input_shape(int i) const { return input_shapes_[i]; }
  // The value of input i when it is known while building the graph (a Const), else null.
  const Tensor* input_tensor(int i) const { return input_tensors_[i]; }
  const AttrMap& attrs() const { return *attrs_; }
  // For a resource input, the declared shape of the variable it names when the graph
  // shows it (TF's handle shape data), else unknown rank.
  PartialShape input_handle_shape(int i) const {
    return i < static_cast<int>(input_handle_shapes_.size()) ? input_handle_shapes_[i] : PartialShape::UnknownRank();
  }
  void set_input_handle_shapes(std::vector<PartialShape> shapes) { input_handle_shapes_ = std::move(shapes); }

  void set_output(int i, PartialShape shape) { output_shapes_[i] = std::move(shape); }
  const PartialShape& output(int i) const { return output_shapes_[i]; }
  std::vector<PartialShape> TakeOutputs() { return std::move(output_shapes_); }

  // Errors if input i's rank is known and differs from `rank`.
  absl::Status WithRank(int i, int rank) const;
  absl::Status WithRankAtLeast(int i, int rank) const;
  // Reads an int list input (int32 or int64) known at graph-build time: a Const.
  // Returns false when the value is not known yet.
  bool ConstantIntVector(int i, std::vector<int64_t>* out) const;

 private:
  const AttrMap* attrs_;
  std::vector<DType> input_types_;
  std::vector<PartialShape> input_shapes_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<PartialShape> input_handle_shapes_;
  std::vector<PartialShape> output_shapes_;
};

using ShapeFn = std::function<absl::Status(InferenceContext& c)>;

// Common shape functions.
absl::Status UnchangedShape(InferenceContext& c);     // output 0 = input 0
absl::Status ScalarShape(InferenceContext& c);        // every output is a scalar
absl::Status UnknownShape(InferenceContext& c);       // every output unknown
absl::Status BroadcastBinaryShape(InferenceContext& c);  // NumPy broadcast of inputs 0 and 1

// NumPy broadcasting of two partial shapes; error names both shapes.
absl::StatusOr<PartialShape> BroadcastShapes(const PartialShape& a, const PartialShape& b);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_SHAPE_INFERENCE_H_
