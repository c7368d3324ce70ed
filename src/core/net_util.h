// Small network helpers.
#ifndef TENSORWEAVE_SRC_CORE_NET_UTIL_H_
#define TENSORWEAVE_SRC_CORE_NET_UTIL_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tw {

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's choice for port 0).
absl::StatusOr<int> PickFreeLoopbackPort();

// "localhost:PORT" for every task of `jobs` (job -> task count), on distinct free ports
// (each probe socket stays bound until all are picked, so no port comes twice).
absl::StatusOr<std::map<std::string, std::vector<std::string>>> FreeLoopbackAddresses(
    const std::map<std::string, int>& jobs);

// Whether `host` (a name, an IPv4 address or an IPv6 address without brackets) resolves
// to loopback addresses only (127.0.0.0/8, ::1). False when it does not resolve.
bool IsLoopbackHost(const std::string& host);

// The host of "host:port" or "[v6]:port" (brackets dropped); the whole string when it
// has no port.
std::string HostOfAddress(const std::string& address);

// Whether another socket holds the TCP port of "host:port" on any address the host
// resolves to (a bind with SO_REUSEADDR, as gRPC's, fails with EADDRINUSE). Lets a server
// say so plainly before gRPC logs its own error blob. False for port 0 or an unparsable
// address (gRPC reports those).
bool AddressInUse(const std::string& address);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_NET_UTIL_H_
