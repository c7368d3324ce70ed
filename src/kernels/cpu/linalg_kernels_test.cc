#include <gtest/gtest.h>

#include <random>

#include "testing/op_test_util.h"

namespace tw {
namespace {

AttrMap Transposes(bool a, bool b) {
  return {{"transpose_a", MakeAttr(a)}, {"transpose_b", MakeAttr(b)}};
}
AttrMap Adjoints(bool x, bool y) { return {{"adj_x", MakeAttr(x)}, {"adj_y", MakeAttr(y)}}; }

// [[1,2,3],[4,5,6]] x [[7,8],[9,10],[11,12]] = [[58,64],[139,154]].
TEST(MatMul, EveryDtype) {
  EXPECT_TENSOR_EQ(
      RunOpOk("MatMul", {F32({2, 3}, {1, 2, 3, 4, 5, 6}), F32({3, 2}, {7, 8, 9, 10, 11, 12})}),
      F32({2, 2}, {58, 64, 139, 154}));
  EXPECT_TENSOR_EQ(
      RunOpOk("MatMul", {F64({2, 3}, {1, 2, 3, 4, 5, 6}), F64({3, 2}, {7, 8, 9, 10, 11, 12})}),
      F64({2, 2}, {58, 64, 139, 154}));
  EXPECT_TENSOR_EQ(
      RunOpOk("MatMul", {I32({2, 3}, {1, 2, 3, 4, 5, 6}), I32({3, 2}, {7, 8, 9, 10, 11, 12})}),
      I32({2, 2}, {58, 64, 139, 154}));
  EXPECT_TENSOR_EQ(RunOpOk("MatMul", {I64({1, 2}, {1 << 20, 1}), I64({2, 1}, {1 << 20, -1})}),
                   I64({1, 1}, {(int64_t{1} << 40) - 1}));
}

TEST(MatMul, Transposes) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor at = F32({3, 2}, {1, 4, 2, 5, 3, 6});
  Tensor b = F32({3, 2}, {7, 8, 9, 10, 11, 12});
  Tensor bt = F32({2, 3}, {7, 9, 11, 8, 10, 12});
  Tensor expected = F32({2, 2}, {58, 64, 139, 154});
  EXPECT_TENSOR_EQ(RunOpOk("MatMul", {at, b}, Transposes(true, false)), expected);
  EXPECT_TENSOR_EQ(RunOpOk("MatMul", {a, bt}, Transposes(false, true)), expected);
  EXPECT_TENSOR_EQ(RunOpOk("MatMul", {at, bt}, Transposes(true, true)), expected);
  // a^T a is [3,3].
  EXPECT_TENSOR_EQ(RunOpOk("MatMul", {a, a}, Transposes(true, false)),
                   F32({3, 3}, {17, 22, 27, 22, 29, 36, 27, 36, 45}));
}

TEST(MatMul, ZeroSizeDims) {
  EXPECT_TENSOR_EQ(RunOpOk("MatMul", {F32({0, 3}, {}), F32({3, 2}, {1, 2, 3, 4, 5, 6})}),
                   F32({0, 2}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("MatMul", {F32({2, 0}, {}), F32({0, 3}, {})}),
                   F32({2, 3}, {0, 0, 0, 0, 0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("MatMul", {I32({0, 2}, {}), I32({2, 0}, {})}, Transposes(true, true)),
                   I32({2, 2}, {0, 0, 0, 0}));
}

// Naive product in double of a [m,k] (row-major) and b [k,n].
std::vector<double> NaiveMatMul(const std::vector<double>& a, const std::vector<double>& b, int m,
                                int k, int n) {
  std::vector<double> c(m * n, 0);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
  return c;
}

Tensor RandomF64(const std::vector<int64_t>& shape, std::vector<double>* values, int seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  Tensor t(DType::kDouble, TensorShape(absl::Span<const int64_t>(shape)));
  values->resize(t.NumElements());
  for (auto& v : *values) v = dist(rng);
  std::copy(values->begin(), values->end(), t.data<double>());
  return t;
}

TEST(MatMul, LargeProductsSplitAcrossThreads) {
  // Tall (split by rows), wide (split by columns), with transposes against a naive product.
  for (auto [m, k, n] : {std::tuple{300, 200, 150}, std::tuple{40, 300, 700}}) {
    std::vector<double> av, bv;
    Tensor a = RandomF64({m, k}, &av, 1);
    Tensor b = RandomF64({k, n}, &bv, 2);
    std::vector<double> expected = NaiveMatMul(av, bv, m, k, n);
    Tensor c = RunOpOk("MatMul", {a, b});
    ASSERT_EQ(c.shape(), TensorShape({m, n}));
    for (int i = 0; i < m * n; ++i) ASSERT_NEAR(c.data<double>()[i], expected[i], 1e-9) << i;
    // The same product from transposed operands.
    Tensor at(DType::kDouble, TensorShape({k, m})), bt(DType::kDouble, TensorShape({n, k}));
    for (int i = 0; i < m; ++i)
      for (int p = 0; p < k; ++p) at.data<double>()[p * m + i] = av[i * k + p];
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) bt.data<double>()[j * k + p] = bv[p * n + j];
    c = RunOpOk("MatMul", {at, bt}, Transposes(true, true));
    for (int i = 0; i < m * n; ++i) ASSERT_NEAR(c.data<double>()[i], expected[i], 1e-9) << i;
  }
}

TEST(MatMul, Errors) {
  Tensor a = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = F32({4, 5}, std::vector<float>(20, 1));
  EXPECT_STATUS(RunOp("MatMul", {a, b}).status(), absl::StatusCode::kInvalidArgument,
                "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
  EXPECT_STATUS(RunOpFed("MatMul", {a, b}).status(), absl::StatusCode::kInvalidArgument,
                "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]");
  EXPECT_STATUS(RunOpFed("MatMul", {a, a}, Transposes(false, false)).status(),
                absl::StatusCode::kInvalidArgument,
                "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3]");
  Tensor v = F32({3}, {1, 2, 3});
  EXPECT_STATUS(RunOp("MatMul", {v, a}).status(), absl::StatusCode::kInvalidArgument,
                "In[0] is not a matrix. Instead it has shape [3]");
  EXPECT_STATUS(RunOpFed("MatMul", {a, F32({1, 3, 1}, {1, 2, 3})}).status(),
                absl::StatusCode::kInvalidArgument,
                "In[1] is not a matrix. Instead it has shape [1,3,1]");
}

TEST(MatMul, Shape) {
  auto s = InferShape("MatMul",
                      {OpInput(DType::kFloat, PartialShape({-1, 3})),
                       OpInput(DType::kFloat, PartialShape({5, 3}))},
                      Transposes(false, true));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({-1, 5}));
  s = InferShape("MatMul", {OpInput(DType::kFloat, PartialShape()),
                            OpInput(DType::kFloat, PartialShape({5, 3}))});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({-1, 3}));
}

// --- BatchMatMul / BatchMatMulV2 ---------------------------------------------------------

TEST(BatchMatMul, EqualBatchesAndAdjoints) {
  // Two batches: identity-like and a plain product.
  Tensor x = F32({2, 2, 3}, {1, 0, 0, 0, 1, 0, 1, 2, 3, 4, 5, 6});
  Tensor y = F32({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Tensor expected = F32({2, 2, 2}, {1, 2, 3, 4, 58, 64, 139, 154});
  for (const char* op : {"BatchMatMul", "BatchMatMulV2"}) {
    EXPECT_TENSOR_EQ(RunOpOk(op, {x, y}), expected);
    Tensor xt = F32({2, 3, 2}, {1, 0, 0, 1, 0, 0, 1, 4, 2, 5, 3, 6});
    Tensor yt = F32({2, 2, 3}, {1, 3, 5, 2, 4, 6, 7, 9, 11, 8, 10, 12});
    EXPECT_TENSOR_EQ(RunOpOk(op, {xt, y}, Adjoints(true, false)), expected);
    EXPECT_TENSOR_EQ(RunOpOk(op, {x, yt}, Adjoints(false, true)), expected);
    EXPECT_TENSOR_EQ(RunOpOk(op, {xt, yt}, Adjoints(true, true)), expected);
  }
  // Rank 2 is a single product; int dtypes work.
  EXPECT_TENSOR_EQ(RunOpOk("BatchMatMul", {I64({1, 2}, {2, 3}), I64({2, 1}, {4, 5})}),
                   I64({1, 1}, {23}));
  EXPECT_TENSOR_EQ(RunOpOk("BatchMatMulV2", {F64({1, 1, 2}, {2, 3}), F64({1, 2, 1}, {4, 5})}),
                   F64({1, 1, 1}, {23}));
}

TEST(BatchMatMulV2, BroadcastsBatchDims) {
  // x: [2,1,1,2] (two row vectors), y: [3,2,1] (three column vectors) -> [2,3,1,1].
  Tensor x = I32({2, 1, 1, 2}, {1, 2, 3, 4});
  Tensor y = I32({3, 2, 1}, {1, 0, 0, 1, 1, 1});
  EXPECT_TENSOR_EQ(RunOpOk("BatchMatMulV2", {x, y}), I32({2, 3, 1, 1}, {1, 2, 3, 3, 4, 7}));
  // A plain matrix broadcasts against a batch.
  Tensor m = F32({2, 2}, {0, 1, 1, 0});  // Swaps columns.
  Tensor batch = F32({3, 1, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_TENSOR_EQ(RunOpOk("BatchMatMulV2", {batch, m}), F32({3, 1, 2}, {2, 1, 4, 3, 6, 5}));
  auto s = InferShape("BatchMatMulV2", {OpInput(DType::kFloat, PartialShape({2, 1, -1, 4})),
                                        OpInput(DType::kFloat, PartialShape({3, 4, 5}))});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, PartialShape({2, 3, -1, 5}));
}

TEST(BatchMatMulV2, ManyBatchesAgainstNaive) {
  std::vector<double> xv, yv;
  Tensor x = RandomF64({64, 1, 20, 30}, &xv, 5);
  Tensor y = RandomF64({3, 30, 10}, &yv, 6);
  Tensor out = RunOpOk("BatchMatMulV2", {x, y});
  ASSERT_EQ(out.shape(), TensorShape({64, 3, 20, 10}));
  for (int b = 0; b < 64; ++b) {
    for (int c = 0; c < 3; ++c) {
      std::vector<double> xa(xv.begin() + b * 600, xv.begin() + (b + 1) * 600);
      std::vector<double> ya(yv.begin() + c * 300, yv.begin() + (c + 1) * 300);
      std::vector<double> e = NaiveMatMul(xa, ya, 20, 30, 10);
      const double* got = out.data<double>() + (b * 3 + c) * 200;
      for (int i = 0; i < 200; ++i) ASSERT_NEAR(got[i], e[i], 1e-9) << b << "," << c << "," << i;
    }
  }
}

TEST(BatchMatMul, ZeroSize) {
  EXPECT_TENSOR_EQ(RunOpOk("BatchMatMul", {F32({0, 2, 3}, {}), F32({0, 3, 4}, {})}),
                   F32({0, 2, 4}, {}));
  EXPECT_TENSOR_EQ(RunOpOk("BatchMatMulV2", {F32({2, 1, 0}, {}), F32({0, 2}, {})}),
                   F32({2, 1, 2}, {0, 0, 0, 0}));
  EXPECT_TENSOR_EQ(RunOpOk("BatchMatMulV2", {F32({0, 1, 2}, {}), F32({1, 2, 2}, {1, 2, 3, 4})}),
                   F32({0, 1, 2}, {}));
}

TEST(BatchMatMul, Errors) {
  Tensor x = F32({2, 2, 3}, std::vector<float>(12, 1));
  EXPECT_STATUS(RunOp("BatchMatMul", {x, F32({2, 4, 2}, std::vector<float>(16, 1))}).status(),
                absl::StatusCode::kInvalidArgument,
                "Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,2]");
  EXPECT_STATUS(RunOpFed("BatchMatMulV2", {x, F32({2, 4, 2}, std::vector<float>(16, 1))}).status(),
                absl::StatusCode::kInvalidArgument,
                "Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,2]");
  // V1 needs equal batch dims; V2 broadcasts but not 2 against 3.
  Tensor y3 = F32({3, 3, 2}, std::vector<float>(18, 1));
  EXPECT_STATUS(RunOp("BatchMatMul", {x, y3}).status(), absl::StatusCode::kInvalidArgument,
                "must have the same batch dims");
  EXPECT_STATUS(RunOpFed("BatchMatMul", {x, y3}).status(), absl::StatusCode::kInvalidArgument,
                "must have the same batch dims: [2,2,3] vs. [3,3,2]");
  EXPECT_STATUS(RunOpFed("BatchMatMul", {x, F32({3, 2}, std::vector<float>(6, 1))}).status(),
                absl::StatusCode::kInvalidArgument, "In[0] and In[1] have different ndims");
  EXPECT_STATUS(RunOp("BatchMatMulV2", {x, y3}).status(), absl::StatusCode::kInvalidArgument,
                "cannot be broadcast");
  EXPECT_STATUS(RunOpFed("BatchMatMulV2", {x, y3}).status(), absl::StatusCode::kInvalidArgument,
                "must have compatible batch dimensions: [2,2,3] vs. [3,3,2]");
  EXPECT_STATUS(RunOpFed("BatchMatMulV2", {F32({3}, {1, 2, 3}), x}).status(),
                absl::StatusCode::kInvalidArgument, "In[0] ndims must be >= 2, got shape [3]");
  EXPECT_STATUS(RunOp("BatchMatMul", {x, F32({3}, {1, 2, 3})}).status(),
                absl::StatusCode::kInvalidArgument, "In[1] ndims must be >= 2, got shape [3]");
}

}  // namespace
}  // namespace tw
