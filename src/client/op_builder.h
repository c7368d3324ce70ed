// Shared plumbing of the client op functions.
#ifndef TENSORWEAVE_SRC_CLIENT_OP_BUILDER_H_
#define TENSORWEAVE_SRC_CLIENT_OP_BUILDER_H_

#include <string>
#include <vector>

#include "graph/attr_value.h"
#include "tensorweave/ops.h"

namespace tw::client {

// Adds `op` to the inputs' graph (type attrs inferred from the inputs) and returns it.
Operation AddOp(Graph& g, const std::string& op, const std::string& name,
                const std::vector<Output>& inputs, AttrMap attrs = {});
// Output 0 of AddOp on the graph of inputs[0].
Output Op(const std::string& op, const std::string& name, const std::vector<Output>& inputs,
          AttrMap attrs = {});
// An int32 vector constant (axes, shapes, begins...). Values outside int32 throw
// InvalidArgument naming `name`: the one checked narrowing that the client builders and the
// gradient functions (autodiff/grad_util.h) share.
Output IntVector(Graph& g, const Axes& values, const std::string& name);
// An int32 scalar constant, checked the same way.
Output IntScalar(Graph& g, int64_t value, const std::string& name);
// A scalar constant of `dtype` with `value` converted to it.
Output Scalar(Graph& g, DType dtype, double value, const std::string& name);

}  // namespace tw::client

#endif  // TENSORWEAVE_SRC_CLIENT_OP_BUILDER_H_
