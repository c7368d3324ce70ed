// String kernels. StringJoin: element i of the output joins element i of every input
// (a scalar input repeats), separated by the attr `separator`, as TensorFlow's.
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"

namespace tw {
namespace {

class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction& c) : OpKernel(c) { c.GetAttr("separator", &separator_); }
  absl::Status Compute(OpKernelContext& ctx) override {
    TensorShape shape;  // Scalar unless some input is not.
    bool have_shape = false;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      if (in.rank() == 0) continue;
      if (have_shape && in.shape() != shape) {
        return absl::InvalidArgumentError(absl::StrCat("Input shapes do not match: ", shape.DebugString(),
                                                       " vs. ", in.shape().DebugString()));
      }
      shape = in.shape();
      have_shape = true;
    }
    TW_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape, DType::kString));
    std::string* o = out->data<std::string>();
    for (int64_t e = 0; e < out->NumElements(); ++e) {
      for (int i = 0; i < ctx.num_inputs(); ++i) {
        const Tensor& in = ctx.input(i);
        if (i > 0) o[e].append(separator_);
        o[e].append(in.data<std::string>()[in.rank() == 0 ? 0 : e]);
      }
    }
    return absl::OkStatus();
  }

 private:
  std::string separator_;
};

}  // namespace

void RegisterStringKernels(KernelRegistry& r) { r.Register("StringJoin", kDeviceCpu, Factory<StringJoinOp>()); }

}  // namespace tw
