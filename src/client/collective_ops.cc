// The collective op builders of tensorweave/collective_ops.h.
#include "tensorweave/collective_ops.h"

#include <vector>

#include "client/op_builder.h"

namespace tw {
namespace {

AttrMap KeyAttrs(const CollectiveKeys& k) {
  return {{"group_size", MakeAttr(static_cast<int64_t>(k.group_size))},
          {"group_key", MakeAttr(k.group_key)},
          {"instance_key", MakeAttr(k.instance_key)},
          {"communication_hint", MakeAttr("auto")},
          {"timeout_seconds", MakeAttr(k.timeout_seconds)}};
}

}  // namespace

Output collective_all_reduce(const Output& x, const CollectiveKeys& keys, const std::string& merge_op,
                             const std::string& final_op, const std::string& name) {
  AttrMap attrs = KeyAttrs(keys);
  attrs["merge_op"] = MakeAttr(merge_op);
  attrs["final_op"] = MakeAttr(final_op);
  const std::vector<int64_t> offsets = {0};
  attrs["subdiv_offsets"] = MakeAttr(absl::Span<const int64_t>(offsets));
  return client::Op("CollectiveReduce", name, {x}, attrs);
}

Output collective_broadcast_send(const Output& x, const CollectiveKeys& keys, const std::string& name) {
  AttrMap attrs = KeyAttrs(keys);
  attrs["shape"] = MakeAttr(PartialShape::UnknownRank());
  return client::Op("CollectiveBcastSend", name, {x}, attrs);
}

Output collective_broadcast_recv(Graph& g, DType dtype, const TensorShape& shape, const CollectiveKeys& keys,
                                 const std::string& name) {
  AttrMap attrs = KeyAttrs(keys);
  attrs["T"] = MakeAttr(dtype);
  attrs["shape"] = MakeAttr(shape);
  return client::AddOp(g, "CollectiveBcastRecv", name, {}, attrs).output(0);
}

}  // namespace tw
