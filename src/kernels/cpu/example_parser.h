// Parses serialized tf.train.Example records into the tensors of ParseExample,
// ParseExampleV2 and ParseSingleExample, with TensorFlow's semantics and error messages:
// dense features (fixed shape, a default or required; or variable length, padded) and
// VarLen features as sparse (indices, values, dense_shape) triples.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_EXAMPLE_PARSER_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_EXAMPLE_PARSER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tensorweave/tensor.h"

namespace tw {

struct DenseFeatureSpec {
  std::string key;
  DType dtype = DType::kFloat;  // kFloat, kInt64 or kString
  // The shape of one example's value; a first dim of -1 makes it variable length (a
  // FixedLenSequenceFeature): examples are padded with the default to the longest.
  PartialShape shape;
  // Fixed: empty (the feature is required) or shape's element count. Variable length:
  // the padding value, one element.
  Tensor default_value;
};

struct SparseFeatureSpec {
  std::string key;
  DType dtype = DType::kFloat;
};

struct ExampleParserConfig {
  std::vector<SparseFeatureSpec> sparse;
  std::vector<DenseFeatureSpec> dense;
};

struct ExampleParserOutput {
  std::vector<Tensor> sparse_indices, sparse_values, sparse_shapes, dense_values;
};

// Checks dtypes, shapes and defaults of `config` (InvalidArgument naming the feature).
absl::Status ValidateExampleParserConfig(const ExampleParserConfig& config);

// Runs fn over [0, n) split in ranges, maybe on several threads (a kernel passes its
// context's ParallelFor); cost is an estimate per unit.
using ExampleParallelFor =
    std::function<void(int64_t n, int64_t cost, const std::function<void(int64_t, int64_t)>& fn)>;

// `serialized` is a string scalar (one Example: no batch dim in the outputs, sparse
// indices [N, 1], TensorFlow's single-example messages) or a vector (a batch; `names`
// empty or one per example, used in messages). No output may exceed `max_tensor_bytes`.
// Examples are parsed in parallel when `parallel_for` is given; the error reported is
// that of the first bad example.
absl::Status ParseExamples(const ExampleParserConfig& config, const Tensor& serialized, const Tensor* names,
                           int64_t max_tensor_bytes, ExampleParserOutput* out,
                           const ExampleParallelFor& parallel_for = nullptr);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_EXAMPLE_PARSER_H_
