// PyFunc, PyFuncStateless and EagerPyFunc: hand the inputs to the function registered in the
// client's Python process (kernels/script_callback.h) and check what comes back against
// Tout with TensorFlow's error texts.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"
#include "kernels/script_callback.h"

namespace tw {
namespace {

// TensorFlow's DataTypeString, which its messages use ("float", not "float32").
std::string TfTypeName(DType t) {
  switch (t) {
    case DType::kFloat: return "float";
    case DType::kDouble: return "double";
    case DType::kHalf: return "half";
    default: return DTypeName(t);
  }
}

class PyFuncOp : public OpKernel {
 public:
  explicit PyFuncOp(OpKernelConstruction& c) : OpKernel(c), eager_(c.op() == "EagerPyFunc") {
    c.GetAttr("token", &token_);
    c.GetAttr("Tout", &out_types_);
  }

  absl::Status Compute(OpKernelContext& ctx) override {
    ScriptCallback callback = GetScriptCallback();
    if (!callback) {
      return absl::FailedPreconditionError(absl::StrCat(
          op(), " calls the Python function '", token_,
          "', which lives in the client process that built the graph; this process has no Python "
          "(place the op on the client, e.g. under tf.device of its own task, or run the graph locally)"));
    }
    ScriptCall call;
    call.token = token_;
    call.eager = eager_;
    call.out_types = out_types_;
    call.inputs.reserve(ctx.num_inputs());
    // Moved, not copied: a buffer nothing else holds reaches NumPy without a copy.
    for (int i = 0; i < ctx.num_inputs(); ++i) call.inputs.push_back(std::move(ctx.params().inputs[i]));
    TW_RETURN_IF_ERROR(callback(call));
    if (call.outputs.size() != out_types_.size()) {
      return absl::InvalidArgumentError(absl::StrCat(token_, " returns ", call.outputs.size(),
                                                     " values, but expects to see ", out_types_.size(), " values."));
    }
    for (size_t i = 0; i < call.outputs.size(); ++i) {
      if (call.outputs[i].dtype() != out_types_[i]) {
        return absl::InvalidArgumentError(absl::StrCat(i, "-th value returned by ", token_, " is ",
                                                       TfTypeName(call.outputs[i].dtype()), ", but expects ",
                                                       TfTypeName(out_types_[i])));
      }
      ctx.set_output(static_cast<int>(i), std::move(call.outputs[i]));
    }
    return absl::OkStatus();
  }

 private:
  const bool eager_;
  std::string token_;
  std::vector<DType> out_types_;
};

}  // namespace

void RegisterPyFuncKernels(KernelRegistry& r) {
  for (const char* op : {"PyFunc", "PyFuncStateless", "EagerPyFunc"}) r.Register(op, kDeviceCpu, Factory<PyFuncOp>());
}

}  // namespace tw
