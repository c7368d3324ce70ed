// Small network helpers.
#ifndef TENSORWEAVE_SRC_CORE_NET_UTIL_H_
#define TENSORWEAVE_SRC_CORE_NET_UTIL_H_

#include "absl/status/statusor.h"

namespace tw {

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's choice for port 0).
absl::StatusOr<int> PickFreeLoopbackPort();

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_NET_UTIL_H_
