// Helpers for AttrValue (the typed attribute values of a NodeDef).
#ifndef TENSORWEAVE_SRC_GRAPH_ATTR_VALUE_H_
#define TENSORWEAVE_SRC_GRAPH_ATTR_VALUE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tensorweave/proto/graph.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensor.h"

namespace tw {

// Sorted by name so that NodeDefs print deterministically.
using AttrMap = std::map<std::string, AttrValue>;

AttrValue MakeAttr(int64_t v);
AttrValue MakeAttr(int v);
AttrValue MakeAttr(float v);
AttrValue MakeAttr(bool v);
AttrValue MakeAttr(const char* v);
AttrValue MakeAttr(const std::string& v);
AttrValue MakeAttr(DType v);
AttrValue MakeAttr(const PartialShape& v);
AttrValue MakeAttr(const TensorShape& v);
AttrValue MakeAttr(const Tensor& v);
AttrValue MakeAttr(absl::Span<const int64_t> v);
AttrValue MakeAttr(absl::Span<const DType> v);
AttrValue MakeAttr(absl::Span<const PartialShape> v);
AttrValue MakeAttr(absl::Span<const std::string> v);

// The attr type name ("int", "list(int)", "type", ...) of a value, as used in OpDefs.
std::string AttrValueTypeName(const AttrValue& value);
// A short rendering for error messages and log output.
std::string AttrValueToString(const AttrValue& value);

// Typed reads: an error names the attr and what it holds instead.
absl::StatusOr<int64_t> GetIntAttr(const AttrMap& attrs, const std::string& name);
absl::StatusOr<float> GetFloatAttr(const AttrMap& attrs, const std::string& name);
absl::StatusOr<bool> GetBoolAttr(const AttrMap& attrs, const std::string& name);
absl::StatusOr<std::string> GetStringAttr(const AttrMap& attrs, const std::string& name);
absl::StatusOr<DType> GetTypeAttr(const AttrMap& attrs, const std::string& name);
absl::StatusOr<PartialShape> GetShapeAttr(const AttrMap& attrs, const std::string& name);
absl::StatusOr<Tensor> GetTensorAttr(const AttrMap& attrs, const std::string& name);
absl::StatusOr<std::vector<int64_t>> GetIntListAttr(const AttrMap& attrs, const std::string& name);
absl::StatusOr<std::vector<std::string>> GetStringListAttr(const AttrMap& attrs,
                                                           const std::string& name);
absl::StatusOr<std::vector<DType>> GetTypeListAttr(const AttrMap& attrs, const std::string& name);
absl::StatusOr<std::vector<PartialShape>> GetShapeListAttr(const AttrMap& attrs,
                                                           const std::string& name);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_GRAPH_ATTR_VALUE_H_
