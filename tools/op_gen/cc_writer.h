// Writes the C++ builders (one function per public op, namespace tw::ops::gen).
#ifndef TENSORWEAVE_TOOLS_OP_GEN_CC_WRITER_H_
#define TENSORWEAVE_TOOLS_OP_GEN_CC_WRITER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/op_gen/op_signature.h"

namespace tw::opgen {

// Fills `header` (tensorweave/gen_ops.h) and `source`; an attr type the writer cannot map
// to a C++ parameter is an error naming the op, so a new attr type is noticed at build time.
absl::Status WriteCc(const std::vector<OpSignature>& ops, std::string* header, std::string* source);

}  // namespace tw::opgen

#endif  // TENSORWEAVE_TOOLS_OP_GEN_CC_WRITER_H_
