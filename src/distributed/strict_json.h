// A strict check of JSON syntax (RFC 8259) before a lenient parser reads it: protobuf's
// JsonStringToMessage accepts a trailing comma, and its errors give no position. TF_CONFIG
// is checked so: a bad one is refused naming the line, the column and what was expected.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_STRICT_JSON_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_STRICT_JSON_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tw {

// OK for exactly one JSON value with optional whitespace around it; otherwise
// InvalidArgument "line L, column C: expected ..., found ...". Nesting deeper than 64 is refused.
absl::Status CheckStrictJson(absl::string_view text);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_STRICT_JSON_H_
