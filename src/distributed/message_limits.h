// The largest message a call may carry, and the check a reply must pass before it is
// serialized: protobuf cannot encode a message of 2 GiB or more (gRPC then aborts the
// process), so a step whose reply would not fit fails with ResourceExhausted instead.
#ifndef TENSORWEAVE_SRC_DISTRIBUTED_MESSAGE_LIMITS_H_
#define TENSORWEAVE_SRC_DISTRIBUTED_MESSAGE_LIMITS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tw {

inline constexpr int kMaxMessageBytes = 2047 * 1024 * 1024;

// ResourceExhausted when a reply of `bytes` cannot be sent; `what` names its tensors
// with their sizes ("'x:0' (1.2 GiB)"), the largest first, for the message.
absl::Status CheckReplyFits(const char* reply, int64_t bytes,
                            std::vector<std::pair<std::string, int64_t>> what);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_DISTRIBUTED_MESSAGE_LIMITS_H_
