// SessionConfig: the one session configuration, taken by tw::Session and by the local
// and grpc sessions of the runtime. Header-only, so that the runtime below the client
// layer can use it without the client's Session (docs/ARCHITECTURE.md, "Layers").
#ifndef TENSORWEAVE_SESSION_CONFIG_H_
#define TENSORWEAVE_SESSION_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tensorweave/resource_limits.h"
#include "tensorweave/security.h"

namespace tw {

struct SessionConfig {
  bool log_device_placement = false;  // Print where every node runs (to stderr).
  bool allow_soft_placement = false;  // Place ops whose device does not exist elsewhere.
  int inter_op_threads = 0;           // <= 0: one per core.
  int intra_op_threads = 0;           // <= 0: one per core.
  int cpu_device_count = 1;           // Local CPU devices /cpu:0 .. /cpu:n-1.
  // grpc:// targets: the devices the session may see and place nodes on (partial device
  // names, "/job:ps"; empty: all), as TF's ConfigProto.device_filters keeps workers apart.
  // The master's own task is always included.
  std::vector<std::string> device_filters;
  // A step running longer fails with DeadlineExceeded (0: no limit), as TF's
  // ConfigProto.operation_timeout_in_ms.
  int64_t operation_timeout_ms = 0;
  // grpc:// targets: the TLS files and cluster token to present (tensorweave/security.h);
  // each empty field is taken from TW_TLS_CERT, TW_TLS_KEY, TW_TLS_CA, TW_CLUSTER_TOKEN_FILE
  // or TW_CLUSTER_TOKEN when set.
  TransportSecurity security;
  // Target "": the largest tensor one kernel may make (Fill of a fed shape, Tile...); a
  // bigger one fails the run with ResourceExhausted. grpc:// targets: the server's limits.
  int64_t max_tensor_bytes = ResourceLimits{}.max_tensor_bytes;
};

}  // namespace tw

#endif  // TENSORWEAVE_SESSION_CONFIG_H_
