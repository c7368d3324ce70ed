// Rendezvous keys, shared by the _Send/_Recv kernels, the runtime's rendezvous and the
// worker: defined beside the interface so that kernels need nothing from above.
#include "kernels/rendezvous.h"

#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"

namespace tw {

std::string Rendezvous::CreateKey(const std::string& src_device, uint64_t src_incarnation,
                                  const std::string& dst_device, const std::string& tensor_name) {
  return absl::StrCat(src_device, ";", absl::Hex(src_incarnation), ";", dst_device, ";", tensor_name, ";0:0");
}

absl::StatusOr<std::string> Rendezvous::KeyFromAttrs(const AttrMap& attrs) {
  TW_ASSIGN_OR_RETURN(std::string send_device, GetStringAttr(attrs, "send_device"));
  TW_ASSIGN_OR_RETURN(int64_t incarnation, GetIntAttr(attrs, "send_device_incarnation"));
  TW_ASSIGN_OR_RETURN(std::string recv_device, GetStringAttr(attrs, "recv_device"));
  TW_ASSIGN_OR_RETURN(std::string tensor_name, GetStringAttr(attrs, "tensor_name"));
  return CreateKey(send_device, static_cast<uint64_t>(incarnation), recv_device, tensor_name);
}

}  // namespace tw
