// Device names: "/job:local/replica:0/task:1/device:CPU:0" and the short forms
// "/job:local/task:1", "/cpu:0", "/gpu:0", "/device:GPU:1", "/job:ps/task:0/gpu:0".
// Any field may be absent (a partial spec); nested device scopes merge field by field.
#ifndef TENSORWEAVE_SRC_GRAPH_DEVICE_NAME_H_
#define TENSORWEAVE_SRC_GRAPH_DEVICE_NAME_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tw {

struct DeviceName {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;  // Upper case: "CPU", "GPU".
  bool has_id = false;
  int id = 0;

  // Parses a full or partial name; "" parses to an empty spec. Errors name the bad part.
  static absl::StatusOr<DeviceName> Parse(absl::string_view name);
  // "/job:local/replica:0/task:1/device:CPU:0" for the fields that are set.
  std::string ToString() const;
  // True when no field set in both names differs.
  bool IsCompatibleWith(const DeviceName& other) const;
  // True when `full` (a concrete device) satisfies every field set here.
  bool Matches(const DeviceName& full) const { return IsCompatibleWith(full); }
  // Fields set in `inner` override ours (an inner device scope refines an outer one).
  void MergeFrom(const DeviceName& inner);
  bool IsFullySpecified() const { return has_job && has_replica && has_task && has_type && has_id; }
  bool operator==(const DeviceName& o) const = default;
};

// Parses both and merges `inner` into `outer`: the device of a nested scope.
absl::StatusOr<std::string> MergeDeviceNames(absl::string_view outer, absl::string_view inner);
// Canonical form of a (possibly partial) name, or the parse error.
absl::StatusOr<std::string> CanonicalDeviceName(absl::string_view name);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_DEVICE_NAME_H_
