// Writes tensorweave/gen_ops.py: one snake_case function per public op (inputs, attrs with
// their defaults, name=None) and the keyword-only CamelCase ones behind tf.raw_ops.
#ifndef TENSORWEAVE_TOOLS_OP_GEN_PY_WRITER_H_
#define TENSORWEAVE_TOOLS_OP_GEN_PY_WRITER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/op_gen/op_signature.h"

namespace tw::opgen {

absl::Status WritePython(const std::vector<OpSignature>& ops, std::string* module);

}  // namespace tw::opgen

#endif  // TENSORWEAVE_TOOLS_OP_GEN_PY_WRITER_H_
