// SparseToDense: numbers and strings, scalar values, inferred shape from a constant
// output_shape, and TensorFlow's messages for bad indices (the Python test compares the
// same with TensorFlow's kernel).
#include <gtest/gtest.h>

#include <string>

#include "testing/op_test_util.h"

namespace tw {
namespace {

using testing::Str;

TEST(SparseToDenseKernel, ScattersIntoTheDefault) {
  EXPECT_TENSOR_EQ(RunBoth1("SparseToDense", {I64({2, 2}, {0, 1, 1, 0}), I64({2}, {2, 3}), F32({2}, {5, 6}),
                                              Tensor::Scalar<float>(-1)}),
                   F32({2, 3}, {-1, 5, -1, 6, -1, -1}));
  EXPECT_TENSOR_EQ(RunBoth1("SparseToDense", {I32({2}, {0, 3}), I32({1}, {5}), Tensor::Scalar<int32_t>(7),
                                              Tensor::Scalar<int32_t>(0)}),
                   I32({5}, {7, 0, 0, 7, 0}));
  const std::string long_value(40, 'v');  // past the small-string buffer: must be assigned, not copied as bytes
  EXPECT_TENSOR_EQ(RunBoth1("SparseToDense", {I64({1, 2}, {1, 1}), I64({2}, {2, 2}), Str({1}, {long_value}),
                                              Tensor::Scalar<std::string>("-")}),
                   Str({2, 2}, {"-", "-", "-", long_value}));
  auto shape = InferShape("SparseToDense", {I64({1, 2}, {1, 1}), I64({2}, {2, 2}), F32({1}, {1}),
                                            Tensor::Scalar<float>(0)});
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(*shape, PartialShape({2, 2}));
}

TEST(SparseToDenseKernel, BadIndicesAreInvalidArgument) {
  const Tensor shape = I64({2}, {2, 3}), values = F32({2}, {5, 6}), dflt = Tensor::Scalar<float>(0);
  EXPECT_TRUE(FailsFed("SparseToDense", {I64({2, 2}, {0, 1, 2, 0}), shape, values, dflt}, {},
                       "indices[1] = [2,0] is out of bounds: need 0 <= index < [2,3]"));
  EXPECT_TRUE(FailsFed("SparseToDense", {I64({2, 2}, {1, 0, 0, 1}), shape, values, dflt}, {},
                       "indices[1] = [0,1] is out of order"));
  EXPECT_TRUE(FailsFed("SparseToDense", {I64({2, 2}, {0, 1, 0, 1}), shape, values, dflt}, {},
                       "indices[1] = [0,1] is repeated"));
  // Unvalidated indices may repeat, but are still bounds-checked.
  EXPECT_TENSOR_EQ(RunOpFedOk("SparseToDense", {I64({2, 2}, {0, 1, 0, 1}), shape, values, dflt},
                              {{"validate_indices", MakeAttr(false)}}),
                   F32({2, 3}, {0, 6, 0, 0, 0, 0}));
  EXPECT_TRUE(FailsFed("SparseToDense", {I64({1, 2}, {0, -1}), shape, F32({1}, {5}), dflt},
                       {{"validate_indices", MakeAttr(false)}}, "is out of bounds"));
  EXPECT_TRUE(FailsFed("SparseToDense", {I64({2, 2}, {0, 1, 1, 0}), shape, F32({3}, {1, 2, 3}), dflt}, {},
                       "sparse_values has incorrect shape [3], should be [] or [2]"));
}

}  // namespace
}  // namespace tw
