#include "tensorweave/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>

#include "tensor/tensor_proto.h"
#include "testing/test_util.h"

namespace tw {
namespace {

constexpr int64_t kBig = int64_t{1} << 40;  // kMaxTensorElements

TEST(TensorShapeTest, ScalarVectorAndZeroSize) {
  TensorShape scalar;
  EXPECT_TRUE(scalar.IsScalar());
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_EQ(scalar.DebugString(), "[]");

  TensorShape s({2, 3, 4});
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(s.num_elements(), 24);
  EXPECT_EQ(s.dim(1), 3);
  EXPECT_EQ(s.DebugString(), "[2,3,4]");

  TensorShape empty({5, 0, 7});
  EXPECT_EQ(empty.num_elements(), 0);
  EXPECT_FALSE(empty.IsScalar());

  s.AddDim(5);
  EXPECT_EQ(s, TensorShape({2, 3, 4, 5}));
  EXPECT_EQ(s.num_elements(), 120);
  s.InsertDim(0, 2);
  EXPECT_EQ(s, TensorShape({2, 2, 3, 4, 5}));
  s.RemoveDim(2);
  EXPECT_EQ(s, TensorShape({2, 2, 4, 5}));
  s.set_dim(3, 0);
  EXPECT_EQ(s.num_elements(), 0);
  EXPECT_NE(s, TensorShape({2, 2, 4, 5}));
}

TEST(TensorShapeTest, HugeDimsBeforeAZeroDimCountZeroWithoutOverflow) {
  // Found by fuzzing (UBSan: signed overflow in the element count).
  auto shape = TensorShape::Build({int64_t{162784403965575000}, 105, 0});
  ASSERT_TRUE(shape.ok());
  EXPECT_EQ(shape->num_elements(), 0);
}

TEST(TensorShapeTest, BuildValidates) {
  auto ok = TensorShape::Build({3, 0, 2});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, TensorShape({3, 0, 2}));
  EXPECT_TRUE(TensorShape::Build({}).ok());
  EXPECT_TRUE(TensorShape::Build({kBig}).ok());  // Exactly the limit.
  EXPECT_TRUE(TensorShape::Build({1 << 20, 1 << 20}).ok());

  EXPECT_STATUS(TensorShape::Build({2, -1}).status(), absl::StatusCode::kInvalidArgument,
                "shape [2,-1] has a negative dimension");
  EXPECT_STATUS(TensorShape::Build({kBig + 1}).status(), absl::StatusCode::kResourceExhausted,
                "more than 1099511627776 elements");
  EXPECT_STATUS(TensorShape::Build({kBig, 2}).status(), absl::StatusCode::kResourceExhausted,
                "more than");
  // Products that overflow int64 must not wrap around to a small count.
  EXPECT_STATUS(TensorShape::Build({kBig, kBig}).status(), absl::StatusCode::kResourceExhausted,
                "more than");
  EXPECT_STATUS(TensorShape::Build({kBig, (int64_t{1} << 24) + 1}).status(),
                absl::StatusCode::kResourceExhausted, "more than");
  EXPECT_STATUS(TensorShape::Build({int64_t{1} << 32, int64_t{1} << 32}).status(),
                absl::StatusCode::kResourceExhausted, "more than");
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_STATUS(TensorShape::Build({max, max, max}).status(), absl::StatusCode::kResourceExhausted,
                "more than");
  // A zero anywhere makes the tensor empty, however large the other dims.
  EXPECT_TRUE(TensorShape::Build({max, max, 0}).ok());
  EXPECT_TRUE(TensorShape::Build({0, kBig * 2}).ok());
  // A negative dim is an error even after a zero.
  EXPECT_STATUS(TensorShape::Build({0, -3}).status(), absl::StatusCode::kInvalidArgument,
                "negative");
  std::vector<int64_t> rank33(33, 1);
  EXPECT_STATUS(TensorShape::Build(rank33).status(), absl::StatusCode::kInvalidArgument,
                "rank 33, more than the limit of 32");
}

TEST(PartialShapeTest, UnknownDimsAndRank) {
  PartialShape unknown;
  EXPECT_FALSE(unknown.known_rank());
  EXPECT_EQ(unknown.rank(), -1);
  EXPECT_EQ(unknown.DebugString(), "<unknown>");
  EXPECT_EQ(unknown.num_elements(), -1);
  PartialShape p({2, -1});
  EXPECT_EQ(p.DebugString(), "[2,?]");
  EXPECT_FALSE(p.IsFullyDefined());
  EXPECT_EQ(p.num_elements(), -1);
  EXPECT_STATUS(p.ToTensorShape().status(), absl::StatusCode::kInvalidArgument,
                "not fully defined");
  EXPECT_EQ(PartialShape::Unknown(2), PartialShape({-1, -1}));
  EXPECT_EQ(PartialShape({}).DebugString(), "[]");
  EXPECT_EQ(PartialShape({4, 0}).num_elements(), 0);
  EXPECT_EQ(PartialShape({kBig, kBig}).num_elements(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(PartialShape({kBig, kBig, 0}).num_elements(), 0);
  EXPECT_STATUS(PartialShape({kBig, kBig}).ToTensorShape().status(),
                absl::StatusCode::kResourceExhausted, "more than");

  EXPECT_TRUE(p.IsCompatibleWith(PartialShape({2, 7})));
  EXPECT_TRUE(p.IsCompatibleWith(unknown));
  EXPECT_FALSE(p.IsCompatibleWith(PartialShape({3, 7})));
  EXPECT_FALSE(p.IsCompatibleWith(PartialShape({2, 7, 1})));
  EXPECT_TRUE(p.Matches(TensorShape({2, 0})));
  auto merged = p.Merge(PartialShape({-1, 5}));
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(*merged, PartialShape({2, 5}));
  EXPECT_EQ(*unknown.Merge(p), p);
  EXPECT_STATUS(p.Merge(PartialShape({3, 5})).status(), absl::StatusCode::kInvalidArgument,
                "shapes [2,?] and [3,5] are incompatible");
}

TEST(TensorTest, DefaultIsUninitialized) {
  Tensor t;
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_EQ(t.dtype(), DType::kInvalid);
  EXPECT_EQ(t.raw_data(), nullptr);
  EXPECT_FALSE(t.RefCountIsOne());
  EXPECT_EQ(t.DebugString(), "invalid [] <uninitialized>");
  EXPECT_FALSE(t.Copy().IsInitialized());
}

TEST(TensorTest, DataIsAlignedForEveryShape) {
  for (DType dtype : {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64, DType::kBool}) {
    for (int64_t n : {0, 1, 3, 17, 1000}) {
      Tensor t(dtype, TensorShape({n}));
      ASSERT_NE(t.raw_data(), nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % kTensorAlignment, 0u)
          << DTypeName(dtype) << " x " << n;
      EXPECT_EQ(t.TotalBytes(), static_cast<size_t>(n) * DTypeSize(dtype));
      EXPECT_EQ(t.buffer()->size(), t.TotalBytes());
    }
  }
}

TEST(TensorTest, CopiesShareTheBuffer) {
  Tensor a = F32({2}, {1, 2});
  EXPECT_TRUE(a.RefCountIsOne());
  {
    Tensor b = a;
    EXPECT_TRUE(b.SharesBufferWith(a));
    EXPECT_FALSE(a.RefCountIsOne());
    b.data<float>()[0] = 9;  // Writes through the shared buffer.
    EXPECT_EQ(a.data<float>()[0], 9);
    Tensor c;
    c = b;
    EXPECT_TRUE(c.SharesBufferWith(a));
  }
  EXPECT_TRUE(a.RefCountIsOne());
  Tensor moved = std::move(a);
  EXPECT_FALSE(a.IsInitialized());  // NOLINT(bugprone-use-after-move): documented state.
  EXPECT_TRUE(moved.RefCountIsOne());
  EXPECT_TENSOR_EQ(moved, F32({2}, {9, 2}));
}

TEST(TensorTest, ReshapedSharesTheBuffer) {
  Tensor a = I32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = a.Reshaped(TensorShape({3, 2}));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->SharesBufferWith(a));
  EXPECT_EQ(r->shape(), TensorShape({3, 2}));
  r->data<int32_t>()[5] = 60;
  EXPECT_EQ(a.data<int32_t>()[5], 60);
  EXPECT_TRUE(a.Reshaped(TensorShape({6})).ok());
  EXPECT_TRUE(a.Reshaped(TensorShape({1, 6, 1})).ok());
  EXPECT_STATUS(a.Reshaped(TensorShape({4})).status(), absl::StatusCode::kInvalidArgument,
                "cannot reshape a tensor with 6 elements to shape [4] (4 elements)");
  Tensor empty(DType::kFloat, TensorShape({0, 3}));
  EXPECT_TRUE(empty.Reshaped(TensorShape({3, 0})).ok());
}

TEST(TensorTest, CopyIsDeep) {
  Tensor a = F64({3}, {1, 2, 3});
  Tensor b = a.Copy();
  EXPECT_FALSE(b.SharesBufferWith(a));
  EXPECT_TRUE(b.RefCountIsOne());
  b.data<double>()[0] = -1;
  EXPECT_EQ(a.data<double>()[0], 1);
  EXPECT_TRUE(Tensor(DType::kInt64, TensorShape({0})).Copy().IsInitialized());
  Tensor h = Tensor::Resource({"/cpu:0", "c", "v"});
  Tensor hc = h.Copy();
  EXPECT_FALSE(hc.SharesBufferWith(h));
  EXPECT_EQ(hc.resource(), h.resource());
}

TEST(TensorTest, Equals) {
  EXPECT_TRUE(F32({2}, {1, 2}).Equals(F32({2}, {1, 2})));
  EXPECT_FALSE(F32({2}, {1, 2}).Equals(F32({2}, {1, 3})));
  EXPECT_FALSE(F32({2}, {1, 2}).Equals(F32({1, 2}, {1, 2})));  // Shape.
  EXPECT_FALSE(F32({2}, {1, 2}).Equals(F64({2}, {1, 2})));     // Dtype.
  EXPECT_TRUE(I64({0}, {}).Equals(I64({0}, {})));
  EXPECT_TRUE(Bool({3}, {true, false, true}).Equals(Bool({3}, {true, false, true})));
  EXPECT_FALSE(Bool({3}, {true, false, true}).Equals(Bool({3}, {true, true, true})));
  EXPECT_TRUE(Tensor::Resource({"d", "c", "n"}).Equals(Tensor::Resource({"d", "c", "n"})));
  EXPECT_FALSE(Tensor::Resource({"d", "c", "n"}).Equals(Tensor::Resource({"d", "c", "m"})));
  EXPECT_TRUE(Tensor().Equals(Tensor()));
}

TEST(TensorTest, DebugString) {
  EXPECT_EQ(F32({2, 3}, {1, 2, 3, 4, 5, 6}).DebugString(), "float32 [2,3] [[1 2 3] [4 5 6]]");
  EXPECT_EQ(I64({}, {7}).DebugString(), "int64 [] 7");
  EXPECT_EQ(Bool({2}, {true, false}).DebugString(), "bool [2] [True False]");
  EXPECT_EQ(F64({2}, {0.5, -1.25}).DebugString(), "float64 [2] [0.5 -1.25]");
  EXPECT_EQ(I32({0}, {}).DebugString(), "int32 [0] []");
  EXPECT_EQ(Tensor(DType::kInt32, TensorShape({2, 0})).DebugString(), "int32 [2,0] [[] []]");
  // Empty sub-arrays count against max_entries (found by fuzzing: this never finished).
  EXPECT_EQ(Tensor(DType::kFloat, TensorShape({1000000, 1000000, 0})).ValueString(3), "[[[] [] []...]...]");
  EXPECT_EQ(I32({5}, {1, 2, 3, 4, 5}).DebugString(3), "int32 [5] [1 2 3...]");
  EXPECT_EQ(I32({2, 3}, {1, 2, 3, 4, 5, 6}).ValueString(4), "[[1 2 3] [4...]]");
  EXPECT_EQ(Tensor::Resource({"/cpu:0", "c", "v"}).DebugString(),
            "resource [] <resource c/v on /cpu:0>");
}

TEST(TensorTest, FactoriesCheckSizes) {
  EXPECT_STATUS(Tensor::Allocate(DType::kFloat, TensorShape({kBig + 1})).status(),
                absl::StatusCode::kResourceExhausted, "too large");
  EXPECT_STATUS(Tensor::Allocate(DType::kInvalid, TensorShape({1})).status(),
                absl::StatusCode::kInvalidArgument, "dtype invalid");
  EXPECT_STATUS(Tensor::Allocate(DType::kResource, TensorShape({1})).status(),
                absl::StatusCode::kInvalidArgument, "dtype resource");
  auto t = Tensor::Allocate(DType::kInt32, TensorShape({2, 2}));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->NumElements(), 4);
  std::vector<float> three = {1, 2, 3};
  EXPECT_STATUS(Tensor::FromVector<float>(three, TensorShape({2, 2})).status(),
                absl::StatusCode::kInvalidArgument, "3 values do not fill shape [2,2]");
  EXPECT_TENSOR_EQ(Tensor::Vector<int64_t>({4, 5}), I64({2}, {4, 5}));
  EXPECT_TENSOR_EQ(Tensor::Scalar<double>(2.5), F64({}, {2.5}));
}

// Serializes, parses the bytes back, and converts: what a GraphDef Const goes through.
absl::StatusOr<Tensor> RoundTrip(const Tensor& t) {
  std::string bytes;
  TensorToProto(t).SerializeToString(&bytes);
  TensorProto parsed;
  EXPECT_TRUE(parsed.ParseFromString(bytes));
  return TensorFromProto(parsed);
}

TEST(TensorProtoTest, RoundTripEveryDtype) {
  for (const Tensor& t :
       {F32({2, 2}, {1.5f, -2, 0, std::numeric_limits<float>::infinity()}),
        F64({3}, {1e300, -0.0, 3}), I32({2, 1}, {std::numeric_limits<int32_t>::min(), 7}),
        I64({}, {int64_t{1} << 62}), Bool({4}, {true, false, false, true}), F32({0, 3}, {}),
        I64({0}, {})}) {
    auto back = RoundTrip(t);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->Equals(t)) << t.DebugString() << " vs " << back->DebugString();
    EXPECT_EQ(back->shape(), t.shape());
  }
  // Numbers travel as raw bytes, bools as bool_val.
  EXPECT_EQ(TensorToProto(F32({2}, {1, 2})).tensor_content().size(), 8u);
  EXPECT_EQ(TensorToProto(Bool({2}, {true, false})).bool_val_size(), 2);
  EXPECT_TRUE(TensorToProto(Bool({2}, {true, false})).tensor_content().empty());

  Tensor h = Tensor::Resource({"/job:a/replica:0/task:0/device:CPU:0", "box", "w"});
  TensorProto hp = TensorToProto(h);
  EXPECT_EQ(hp.dtype(), DT_RESOURCE);
  ASSERT_EQ(hp.resource_handle_val_size(), 1);
  EXPECT_EQ(hp.resource_handle_val(0).name(), "w");
  auto back = RoundTrip(h);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dtype(), DType::kResource);
  EXPECT_EQ(back->resource(), h.resource());
}

Tensor FromProtoOk(const TensorProto& p) {
  auto t = TensorFromProto(p);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

TensorProto Typed(DataType dtype, std::initializer_list<int64_t> dims) {
  TensorProto p;
  p.set_dtype(dtype);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

TEST(TensorProtoTest, TypedValuesAndTheSplatRule) {
  TensorProto p = Typed(DT_FLOAT, {2, 2});
  for (float v : {1, 2, 3, 4}) p.add_float_val(v);
  EXPECT_TENSOR_EQ(FromProtoOk(p), F32({2, 2}, {1, 2, 3, 4}));
  // One value fills the shape.
  TensorProto one = Typed(DT_INT64, {3});
  one.add_int64_val(-7);
  EXPECT_TENSOR_EQ(FromProtoOk(one), I64({3}, {-7, -7, -7}));
  TensorProto d = Typed(DT_DOUBLE, {});
  d.add_double_val(0.25);
  EXPECT_TENSOR_EQ(FromProtoOk(d), F64({}, {0.25}));
  // A prefix: the last value repeats (TensorFlow's compressed constants).
  TensorProto prefix = Typed(DT_INT32, {5});
  prefix.add_int_val(1);
  prefix.add_int_val(2);
  EXPECT_TENSOR_EQ(FromProtoOk(prefix), I32({5}, {1, 2, 2, 2, 2}));
  TensorProto bools = Typed(DT_BOOL, {3});
  bools.add_bool_val(true);
  EXPECT_TENSOR_EQ(FromProtoOk(bools), Bool({3}, {true, true, true}));
  // No values: zeros.
  EXPECT_TENSOR_EQ(FromProtoOk(Typed(DT_FLOAT, {2})), F32({2}, {0, 0}));
  EXPECT_TENSOR_EQ(FromProtoOk(Typed(DT_BOOL, {1})), Bool({1}, {false}));
  // A scalar with no shape at all.
  TensorProto s;
  s.set_dtype(DT_INT32);
  s.add_int_val(4);
  EXPECT_TENSOR_EQ(FromProtoOk(s), I32({}, {4}));
  // Bool bytes in tensor_content are normalized to 0/1.
  TensorProto raw = Typed(DT_BOOL, {2});
  raw.set_tensor_content(std::string("\x02\x00", 2));
  Tensor b = FromProtoOk(raw);
  ASSERT_TRUE(b.IsInitialized());
  EXPECT_EQ(reinterpret_cast<const uint8_t*>(b.raw_data())[0], 1);
  EXPECT_TENSOR_EQ(b, Bool({2}, {true, false}));
}

TEST(TensorProtoTest, SmallDTypes) {
  // Raw bytes both ways.
  for (const Tensor& t : {testing::Make<int8_t>({3}, {-128, 0, 127}), testing::Make<uint8_t>({2}, {0, 255}),
                          testing::Make<int16_t>({2}, {-32768, 32767}),
                          testing::Make<uint16_t>({2, 1}, {0, 65535}),
                          testing::Make<half>({2}, {half(1.5f), half::FromBits(0x7E00)})}) {
    auto back = RoundTrip(t);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->Equals(t)) << t.DebugString() << " vs " << back->DebugString();
    EXPECT_EQ(TensorToProto(t).tensor_content().size(), t.TotalBytes());
  }
  // TensorFlow's typed fields: the small integers in int_val (low bits kept, as TF's
  // static_cast), half in half_val as bit patterns; the splat rule as for the others.
  TensorProto i8 = Typed(DT_INT8, {3});
  i8.add_int_val(-5);
  i8.add_int_val(300);
  EXPECT_TENSOR_EQ(FromProtoOk(i8), testing::Make<int8_t>({3}, {-5, 44, 44}));
  TensorProto u16 = Typed(DT_UINT16, {2});
  u16.add_int_val(65535);
  EXPECT_TENSOR_EQ(FromProtoOk(u16), testing::Make<uint16_t>({2}, {65535, 65535}));
  TensorProto h = Typed(DT_HALF, {2});
  h.add_half_val(0x3C00);
  h.add_half_val(0xC100);
  EXPECT_TENSOR_EQ(FromProtoOk(h), testing::Make<half>({2}, {half(1.0f), half(-2.5f)}));
  EXPECT_TENSOR_EQ(FromProtoOk(Typed(DT_HALF, {1})), testing::Make<half>({1}, {half(0.0f)}));
  EXPECT_EQ(FromProtoOk(Typed(DT_UINT8, {})).dtype(), DType::kUint8);
  // Complex values as (real, imaginary) pairs: scomplex_val for complex64, dcomplex_val for
  // complex128; the last pair repeats.
  TensorProto c64 = Typed(DT_COMPLEX64, {3});
  for (float v : {1.0f, -2.0f, 0.5f, 4.0f}) c64.add_scomplex_val(v);
  EXPECT_TENSOR_EQ(FromProtoOk(c64), testing::Make<complex64>({3}, {{1, -2}, {0.5f, 4}, {0.5f, 4}}));
  TensorProto c128 = Typed(DT_COMPLEX128, {1});
  c128.add_dcomplex_val(-1e300);
  c128.add_dcomplex_val(3.25);
  EXPECT_TENSOR_EQ(FromProtoOk(c128), testing::Make<complex128>({1}, {{-1e300, 3.25}}));
  const Tensor written = testing::Make<complex64>({2}, {{1, 2}, {3, -4}});
  auto back = RoundTrip(written);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TENSOR_EQ(*back, written);
}

TEST(TensorProtoTest, MalformedProtos) {
  TensorProto content = Typed(DT_FLOAT, {3});
  content.set_tensor_content(std::string(8, '\0'));
  EXPECT_STATUS(TensorFromProto(content).status(), absl::StatusCode::kInvalidArgument,
                "tensor_content has 8 bytes but float32 [3] needs 12");
  TensorProto empty_shape_content = Typed(DT_INT32, {0});
  empty_shape_content.set_tensor_content(std::string(4, '\0'));
  EXPECT_STATUS(TensorFromProto(empty_shape_content).status(), absl::StatusCode::kInvalidArgument,
                "needs 0");

  TensorProto too_many = Typed(DT_INT32, {2});
  for (int v : {1, 2, 3}) too_many.add_int_val(v);
  EXPECT_STATUS(TensorFromProto(too_many).status(), absl::StatusCode::kInvalidArgument,
                "TensorProto has 3 values for shape [2]");

  TensorProto bfloat16 = Typed(static_cast<DataType>(14), {1});
  EXPECT_STATUS(TensorFromProto(bfloat16).status(), absl::StatusCode::kInvalidArgument,
                "dtype DT_BFLOAT16 (14) is not supported");
  TensorProto half_a_complex = Typed(DT_COMPLEX64, {1});
  for (float v : {1.0f, 2.0f, 3.0f}) half_a_complex.add_scomplex_val(v);
  EXPECT_STATUS(TensorFromProto(half_a_complex).status(), absl::StatusCode::kInvalidArgument,
                "TensorProto of complex64 has 3 parts, not (real, imaginary) pairs");
  TensorProto bogus;
  bogus.set_dtype(static_cast<DataType>(99));
  EXPECT_STATUS(TensorFromProto(bogus).status(), absl::StatusCode::kInvalidArgument,
                "dtype 99 (not a TensorFlow dtype) is not supported");
  EXPECT_STATUS(TensorFromProto(TensorProto()).status(), absl::StatusCode::kInvalidArgument,
                "dtype DT_INVALID (0) is not supported");

  EXPECT_STATUS(TensorFromProto(Typed(DT_FLOAT, {2, -1})).status(),
                absl::StatusCode::kInvalidArgument, "not fully defined");
  EXPECT_STATUS(TensorFromProto(Typed(DT_FLOAT, {-5})).status(), absl::StatusCode::kInvalidArgument,
                "invalid dimension -5");
  TensorProto unknown_rank = Typed(DT_FLOAT, {});
  unknown_rank.mutable_tensor_shape()->set_unknown_rank(true);
  EXPECT_STATUS(TensorFromProto(unknown_rank).status(), absl::StatusCode::kInvalidArgument,
                "not fully defined");
  // Huge shapes are refused before anything is allocated.
  EXPECT_STATUS(TensorFromProto(Typed(DT_FLOAT, {kBig, kBig})).status(),
                absl::StatusCode::kResourceExhausted, "more than");

  TensorProto two_handles = Typed(DT_RESOURCE, {2});
  two_handles.add_resource_handle_val()->set_name("a");
  two_handles.add_resource_handle_val()->set_name("b");
  EXPECT_STATUS(TensorFromProto(two_handles).status(), absl::StatusCode::kInvalidArgument,
                "one scalar handle");
  EXPECT_STATUS(TensorFromProto(Typed(DT_RESOURCE, {})).status(),
                absl::StatusCode::kInvalidArgument, "one scalar handle");
}

TEST(TensorProtoTest, MaxBytesIsCheckedFromTheDeclaredShapeBeforeAllocating) {
  TensorProto splat = Typed(DT_FLOAT, {4, 4});
  splat.add_float_val(2);
  EXPECT_EQ(ValueOrThrow(TensorFromProto(splat, 64)).NumElements(), 16);
  EXPECT_STATUS(TensorFromProto(splat, 63).status(), absl::StatusCode::kResourceExhausted,
                "TensorProto: float32 [4,4] tensor of 64 bytes is over the max_tensor_bytes limit of 63");
  // A few bytes declaring 4 TiB: refused by the default limit, nothing allocated.
  TensorProto huge = Typed(DT_FLOAT, {int64_t{1} << 20, int64_t{1} << 20});
  huge.add_float_val(1);
  EXPECT_STATUS(TensorFromProto(huge).status(), absl::StatusCode::kResourceExhausted,
                "tensor of 4398046511104 bytes is over the max_tensor_bytes limit of 4294967296");
  EXPECT_STATUS(CheckTensorProtoBytes(huge, int64_t{1} << 50), absl::StatusCode::kOk, "");
}

TEST(TensorTest, AllocationBeyondMemoryIsResourceExhausted) {
  // Under overcommit mode 1 the kernel grants any mapping and touching it would OOM.
  std::ifstream overcommit("/proc/sys/vm/overcommit_memory");
  int mode = 0;
  if (overcommit >> mode && mode == 1) GTEST_SKIP() << "vm.overcommit_memory=1 grants any allocation";
  // 2^40 floats (4 TiB): a valid shape, but no machine here has the memory.
  EXPECT_STATUS(Tensor::Allocate(DType::kFloat, TensorShape({int64_t{1} << 20, int64_t{1} << 20})).status(),
                absl::StatusCode::kResourceExhausted, "out of memory allocating a float32 tensor of shape [1048576,1048576]");
}

TEST(TensorProtoTest, Shapes) {
  EXPECT_TRUE(ShapeToProto(PartialShape()).unknown_rank());
  auto p = PartialShapeFromProto(ShapeToProto(PartialShape({3, -1})));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(*p, PartialShape({3, -1}));
  EXPECT_EQ(*PartialShapeFromProto(ShapeToProto(PartialShape())), PartialShape());
  TensorShapeProto both;
  both.set_unknown_rank(true);
  both.add_dim()->set_size(1);
  EXPECT_STATUS(PartialShapeFromProto(both).status(), absl::StatusCode::kInvalidArgument,
                "unknown_rank set but lists dims");
  TensorShapeProto deep;
  for (int i = 0; i < 33; ++i) deep.add_dim()->set_size(1);
  EXPECT_STATUS(PartialShapeFromProto(deep).status(), absl::StatusCode::kInvalidArgument,
                "rank 33");
  EXPECT_EQ(*TensorShapeFromProto(ShapeToProto(TensorShape({4, 0}))), TensorShape({4, 0}));
}

TEST(DTypeTest, NamesAndSizes) {
  EXPECT_EQ(*DTypeFromName("float"), DType::kFloat);
  EXPECT_EQ(*DTypeFromName("DT_DOUBLE"), DType::kDouble);
  EXPECT_EQ(*DTypeFromName("int64"), DType::kInt64);
  EXPECT_EQ(*DTypeFromName("Bool"), DType::kBool);
  EXPECT_EQ(*DTypeFromName("DT_COMPLEX128"), DType::kComplex128);
  EXPECT_STATUS(DTypeFromName("bfloat16").status(), absl::StatusCode::kInvalidArgument,
                "unknown dtype 'bfloat16'");
  for (DType d : {DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64, DType::kBool, DType::kComplex64,
                  DType::kComplex128}) {
    EXPECT_EQ(*DTypeFromName(DTypeName(d)), d);
    EXPECT_TRUE(IsValidDType(static_cast<int>(d)));
  }
  EXPECT_EQ(DTypeSize(DType::kDouble), 8u);
  EXPECT_EQ(DTypeSize(DType::kBool), 1u);
  EXPECT_EQ(DTypeSize(DType::kInvalid), 0u);
  EXPECT_FALSE(IsValidDType(0));
  EXPECT_EQ(DTypeSize(DType::kComplex64), 8u);
  EXPECT_EQ(DTypeSize(DType::kComplex128), 16u);
  EXPECT_FALSE(IsValidDType(14));  // DT_BFLOAT16
  EXPECT_TRUE(IsComplex(DType::kComplex64));
  EXPECT_FALSE(IsNumeric(DType::kComplex64));
  EXPECT_TRUE(IsNumeric(DType::kInt32));
  EXPECT_FALSE(IsNumeric(DType::kBool));
  EXPECT_TRUE(IsFloating(DType::kDouble));
  EXPECT_FALSE(IsInteger(DType::kFloat));
}

}  // namespace
}  // namespace tw
