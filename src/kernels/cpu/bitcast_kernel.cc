// Bitcast: the input's bytes copied unchanged into a tensor of the other dtype, its shape
// from the shared rule (ops/array_ops_bitcast.h).
#include <cstring>

#include "kernels/cpu/array_kernels.h"
#include "ops/array_ops_bitcast.h"

namespace tw {
namespace {

class BitcastOp : public OpKernel {
 public:
  explicit BitcastOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("type", &to_); }

  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TW_ASSIGN_OR_RETURN(DimVector dims, array_util::BitcastDims(x.shape().dims(), DTypeSize(x.dtype()), DTypeSize(to_)));
    TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, to_));
    std::memcpy(out->raw_data(), x.raw_data(), x.NumElements() * DTypeSize(x.dtype()));
    return absl::OkStatus();
  }

 private:
  DType to_ = DType::kFloat;
};

}  // namespace

void RegisterBitcastKernel(KernelRegistry& r) {
  r.Register({"Bitcast", kDeviceCpu, Factory<BitcastOp>(), "T",
              {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt64, DType::kInt32, DType::kUint8, DType::kUint16,
               DType::kInt8, DType::kInt16, DType::kComplex64, DType::kComplex128}});
}

}  // namespace tw
