// A rendezvous hands tensors from _Send to _Recv kernels within one step, keyed by
// "src_device;src_incarnation;dst_device;tensor_name;frame_iter". The local one is a
// table in this process; the remote one (distributed/) pulls from another task.
#ifndef TENSORWEAVE_SRC_KERNELS_RENDEZVOUS_H_
#define TENSORWEAVE_SRC_KERNELS_RENDEZVOUS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/cancellation.h"
#include "graph/attr_value.h"
#include "tensorweave/tensor.h"

namespace tw {

class Rendezvous {
 public:
  virtual ~Rendezvous() = default;

  // Makes `value` available under `key`; an error if the key was already sent. An
  // uninitialized `value` is a dead tensor (a while loop's last iteration sends them).
  virtual absl::Status Send(const std::string& key, const Tensor& value) = 0;

  using DoneCallback = std::function<void(const absl::Status&, const Tensor&)>;
  // Calls `done` with the tensor once it is sent (possibly right away, on this thread),
  // or with an error if the rendezvous is aborted or `cancellation` fires first.
  virtual void RecvAsync(const std::string& key, CancellationManager* cancellation, DoneCallback done) = 0;

  // Fails every pending and future Recv with `status` (the step failed elsewhere).
  virtual void StartAbort(const absl::Status& status) = 0;

  // The key of one cross-device edge in a step.
  static std::string CreateKey(const std::string& src_device, uint64_t src_incarnation,
                               const std::string& dst_device, const std::string& tensor_name);
  // The key of a _Send or _Recv node, from its send_device, send_device_incarnation,
  // recv_device and tensor_name attrs; an error for a missing or mistyped one.
  static absl::StatusOr<std::string> KeyFromAttrs(const AttrMap& attrs);
  // The key of a transfer running in a while loop's frame instance and iteration `frame_iter`
  // (OpKernelContext::frame_iter); `key` as it is in the root frame.
  static std::string KeyInFrame(const std::string& key, const std::string& frame_iter);
  // Whether the key is one of a transfer inside a while loop (pulled when asked for, not up front).
  static bool IsInFrame(const std::string& key);
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_RENDEZVOUS_H_
