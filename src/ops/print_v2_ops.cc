// StringFormat (TensorFlow's string_ops) and PrintV2 (logging_ops): the ops of tf.print and
// tf.strings.format. Kernels in kernels/cpu/print_v2_kernels.cc.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/attr_value.h"
#include "ops/ops.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// As TensorFlow, a template whose placeholders do not match the inputs fails when the node is
// built, not when it runs.
absl::Status StringFormatShape(InferenceContext& c) {
  TW_ASSIGN_OR_RETURN(std::string tmpl, GetStringAttr(c.attrs(), "template"));
  TW_ASSIGN_OR_RETURN(std::string placeholder, GetStringAttr(c.attrs(), "placeholder"));
  const std::vector<std::string> pieces = absl::StrSplit(tmpl, placeholder);
  const int64_t placeholders = static_cast<int64_t>(pieces.size()) - 1;
  if (placeholders != c.num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat("num placeholders in template and num inputs must match: ",
                                                   placeholders, " vs. ", c.num_inputs()));
  }
  c.set_output(0, TensorShape());
  return absl::OkStatus();
}

absl::Status PrintV2Shape(InferenceContext& c) {
  const PartialShape& in = c.input_shape(0);
  if (in.known_rank() && in.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("input must be a scalar, but has rank: ", in.rank()));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterPrintV2Ops(OpRegistry& r) {
  r.Register(OpDefBuilder("StringFormat")
                 .Input("inputs: T")
                 .Output("output: string")
                 .Attr("T: list(type) >= 0")
                 .Attr("template: string = '%s'")
                 .Attr("placeholder: string = '%s'")
                 .Attr("summarize: int = 3")
                 .SetShapeFn(StringFormatShape));
  // Stateful: a print runs where it was placed, never pruned or merged with its twin.
  r.Register(OpDefBuilder("PrintV2")
                 .Input("input: string")
                 .Attr("output_stream: string = 'stderr'")
                 .Attr("end: string = '\n'")
                 .SetStateful()
                 .SetShapeFn(PrintV2Shape));
}

}  // namespace tw
