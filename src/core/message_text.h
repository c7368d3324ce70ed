// Input echoed in an error message is cut short: a client's 1 MB session handle or device
// string in a status message made its gRPC library refuse the reply ("received initial
// metadata size exceeds limit") instead of showing the error.
#ifndef TENSORWEAVE_SRC_CORE_MESSAGE_TEXT_H_
#define TENSORWEAVE_SRC_CORE_MESSAGE_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tw {

inline constexpr size_t kMaxEchoedChars = 200;

// `text` itself when short; else its start, then "... (N bytes)".
std::string TruncateForMessage(absl::string_view text, size_t max_chars = kMaxEchoedChars);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_MESSAGE_TEXT_H_
