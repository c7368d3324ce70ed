// Rendezvous keys, shared by the _Send/_Recv kernels, the runtime's rendezvous and the
// worker: defined beside the interface so that kernels need nothing from above.
#include "kernels/rendezvous.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw {
namespace {
constexpr char kRootFrameIter[] = ";0:0";  // The last field of a key in the root frame, as TF's.
}  // namespace

std::string Rendezvous::CreateKey(const std::string& src_device, uint64_t src_incarnation,
                                  const std::string& dst_device, const std::string& tensor_name) {
  return absl::StrCat(src_device, ";", absl::Hex(src_incarnation), ";", dst_device, ";", tensor_name, kRootFrameIter);
}

std::string Rendezvous::KeyInFrame(const std::string& key, const std::string& frame_iter) {
  const absl::string_view base = absl::EndsWith(key, kRootFrameIter)
                                    ? absl::string_view(key).substr(0, key.size() - (sizeof(kRootFrameIter) - 1))
                                    : absl::string_view(key);
  return absl::StrCat(base, ";", frame_iter);
}

bool Rendezvous::IsInFrame(const std::string& key) { return !absl::EndsWith(key, kRootFrameIter); }

absl::StatusOr<std::string> Rendezvous::KeyFromAttrs(const AttrMap& attrs) {
  TW_ASSIGN_OR_RETURN(std::string send_device, GetStringAttr(attrs, "send_device"));
  TW_ASSIGN_OR_RETURN(int64_t incarnation, GetIntAttr(attrs, "send_device_incarnation"));
  TW_ASSIGN_OR_RETURN(std::string recv_device, GetStringAttr(attrs, "recv_device"));
  TW_ASSIGN_OR_RETURN(std::string tensor_name, GetStringAttr(attrs, "tensor_name"));
  return CreateKey(send_device, static_cast<uint64_t>(incarnation), recv_device, tensor_name);
}

}  // namespace tw
