// Where (tf.where with one argument): the int64 coordinates, row-major, of the non-zero
// elements of its input; boolean_mask gathers with them.
#include <type_traits>

#include "kernels/cpu/array_kernels.h"

namespace tw {
namespace {

class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    std::vector<int64_t> hits;  // Flat indices of the true elements.
    VisitAllPod(in.dtype(), [&](auto tag) {
      using T = TypeOf<decltype(tag)>;
      const T* v = in.data<T>();
      for (int64_t i = 0; i < in.NumElements(); ++i) {
        bool nonzero;
        if constexpr (std::is_same_v<T, half>) {
          nonzero = (v[i].bits & 0x7fff) != 0;  // -0 is zero.
        } else {
          nonzero = v[i] != T(0);
        }
        if (nonzero) hits.push_back(i);
      }
    });
    const int rank = in.rank();
    TW_ASSIGN_OR_RETURN(Tensor * out,
                        ctx.allocate_output(0, TensorShape({static_cast<int64_t>(hits.size()), rank}), DType::kInt64));
    const DimVector strides = array_kernels::RowMajorStrides(in.shape().dims());
    int64_t* o = out->data<int64_t>();
    for (int64_t flat : hits) {
      for (int d = 0; d < rank; ++d) {
        *o++ = flat / strides[d];
        flat %= strides[d];
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterArrayWhereKernels(KernelRegistry& r) {
  array_kernels::RegisterPod(r, "Where", Factory<WhereOp>());
}

}  // namespace tw
