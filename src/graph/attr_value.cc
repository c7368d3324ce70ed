#include "graph/attr_value.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/status.h"

namespace tw {

AttrValue MakeAttr(int64_t v) {
  AttrValue a;
  a.set_i(v);
  return a;
}
AttrValue MakeAttr(int v) { return MakeAttr(static_cast<int64_t>(v)); }
AttrValue MakeAttr(float v) {
  AttrValue a;
  a.set_f(v);
  return a;
}
AttrValue MakeAttr(bool v) {
  AttrValue a;
  a.set_b(v);
  return a;
}
AttrValue MakeAttr(const char* v) { return MakeAttr(std::string(v)); }
AttrValue MakeAttr(const std::string& v) {
  AttrValue a;
  a.set_s(v);
  return a;
}
AttrValue MakeAttr(DType v) {
  AttrValue a;
  a.set_type(DTypeToProto(v));
  return a;
}
AttrValue MakeAttr(const PartialShape& v) {
  AttrValue a;
  *a.mutable_shape() = ShapeToProto(v);
  return a;
}
AttrValue MakeAttr(const TensorShape& v) { return MakeAttr(PartialShape(v)); }
AttrValue MakeAttr(const Tensor& v) {
  AttrValue a;
  *a.mutable_tensor() = TensorToProto(v);
  return a;
}
AttrValue MakeAttr(absl::Span<const int64_t> v) {
  AttrValue a;
  auto* list = a.mutable_list();
  for (int64_t x : v) list->add_i(x);
  return a;
}
AttrValue MakeAttr(absl::Span<const DType> v) {
  AttrValue a;
  auto* list = a.mutable_list();
  for (DType x : v) list->add_type(DTypeToProto(x));
  return a;
}
AttrValue MakeAttr(absl::Span<const PartialShape> v) {
  AttrValue a;
  auto* list = a.mutable_list();
  for (const PartialShape& x : v) *list->add_shape() = ShapeToProto(x);
  return a;
}
AttrValue MakeAttr(absl::Span<const std::string> v) {
  AttrValue a;
  auto* list = a.mutable_list();
  for (const auto& x : v) list->add_s(x);
  return a;
}

std::string AttrValueTypeName(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS: return "string";
    case AttrValue::kI: return "int";
    case AttrValue::kF: return "float";
    case AttrValue::kB: return "bool";
    case AttrValue::kType: return "type";
    case AttrValue::kShape: return "shape";
    case AttrValue::kTensor: return "tensor";
    case AttrValue::kFunc: return "func";
    case AttrValue::kList: {
      const auto& l = value.list();
      if (l.s_size()) return "list(string)";
      if (l.f_size()) return "list(float)";
      if (l.b_size()) return "list(bool)";
      if (l.type_size()) return "list(type)";
      if (l.shape_size()) return "list(shape)";
      if (l.tensor_size()) return "list(tensor)";
      return "list(int)";  // Also an empty list, which fits every list type.
    }
    case AttrValue::VALUE_NOT_SET: return "nothing";
  }
  return "unknown";
}

std::string AttrValueToString(const AttrValue& value) {
  switch (value.value_case()) {
    case AttrValue::kS: return absl::StrCat("\"", value.s(), "\"");
    case AttrValue::kI: return absl::StrCat(value.i());
    case AttrValue::kF: return absl::StrCat(value.f());
    case AttrValue::kB: return value.b() ? "true" : "false";
    case AttrValue::kType: return DTypeName(static_cast<DType>(value.type()));
    case AttrValue::kShape: {
      auto s = PartialShapeFromProto(value.shape());
      return s.ok() ? s->DebugString() : "<invalid shape>";
    }
    case AttrValue::kFunc: return absl::StrCat("func ", value.func().name());
    case AttrValue::kTensor: {
      auto t = TensorFromProto(value.tensor());
      return t.ok() ? t->DebugString(6) : "<invalid tensor>";
    }
    case AttrValue::kList: {
      const auto& l = value.list();
      if (l.s_size()) return absl::StrCat("[", absl::StrJoin(l.s(), ","), "]");
      if (l.type_size()) {
        return absl::StrCat("[",
                            absl::StrJoin(l.type(), ",",
                                          [](std::string* out, int t) {
                                            out->append(DTypeName(static_cast<DType>(t)));
                                          }),
                            "]");
      }
      if (l.f_size()) return absl::StrCat("[", absl::StrJoin(l.f(), ","), "]");
      if (l.shape_size()) {
        return absl::StrCat("[",
                            absl::StrJoin(l.shape(), ",",
                                          [](std::string* out, const TensorShapeProto& p) {
                                            auto s = PartialShapeFromProto(p);
                                            out->append(s.ok() ? s->DebugString() : "<invalid shape>");
                                          }),
                            "]");
      }
      return absl::StrCat("[", absl::StrJoin(l.i(), ","), "]");
    }
    case AttrValue::VALUE_NOT_SET: return "<unset>";
  }
  return "<unknown>";
}

namespace {

absl::StatusOr<const AttrValue*> Find(const AttrMap& attrs, const std::string& name,
                                      AttrValue::ValueCase want, const char* want_name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return absl::InvalidArgumentError(absl::StrCat("missing attr '", name, "'"));
  if (it->second.value_case() != want) {
    return absl::InvalidArgumentError(absl::StrCat("attr '", name, "' should be ", want_name,
                                                   " but holds ", AttrValueTypeName(it->second)));
  }
  return &it->second;
}

}  // namespace

absl::StatusOr<int64_t> GetIntAttr(const AttrMap& attrs, const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kI, "int"));
  return v->i();
}
absl::StatusOr<float> GetFloatAttr(const AttrMap& attrs, const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kF, "float"));
  return v->f();
}
absl::StatusOr<bool> GetBoolAttr(const AttrMap& attrs, const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kB, "bool"));
  return v->b();
}
absl::StatusOr<std::string> GetStringAttr(const AttrMap& attrs, const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kS, "string"));
  return v->s();
}
absl::StatusOr<DType> GetTypeAttr(const AttrMap& attrs, const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kType, "type"));
  return DTypeFromProto(v->type());
}
absl::StatusOr<PartialShape> GetShapeAttr(const AttrMap& attrs, const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kShape, "shape"));
  return PartialShapeFromProto(v->shape());
}
absl::StatusOr<Tensor> GetTensorAttr(const AttrMap& attrs, const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kTensor, "tensor"));
  return TensorFromProto(v->tensor());
}
absl::StatusOr<std::vector<int64_t>> GetIntListAttr(const AttrMap& attrs, const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kList, "list(int)"));
  return std::vector<int64_t>(v->list().i().begin(), v->list().i().end());
}
absl::StatusOr<std::vector<std::string>> GetStringListAttr(const AttrMap& attrs,
                                                           const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kList, "list(string)"));
  return std::vector<std::string>(v->list().s().begin(), v->list().s().end());
}

absl::StatusOr<std::vector<DType>> GetTypeListAttr(const AttrMap& attrs, const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kList, "list(type)"));
  std::vector<DType> types;
  for (int t : v->list().type()) {
    TW_ASSIGN_OR_RETURN(DType d, DTypeFromProto(t));
    types.push_back(d);
  }
  return types;
}
absl::StatusOr<std::vector<PartialShape>> GetShapeListAttr(const AttrMap& attrs,
                                                           const std::string& name) {
  TW_ASSIGN_OR_RETURN(const AttrValue* v, Find(attrs, name, AttrValue::kList, "list(shape)"));
  std::vector<PartialShape> shapes;
  for (const TensorShapeProto& proto : v->list().shape()) {
    TW_ASSIGN_OR_RETURN(PartialShape shape, PartialShapeFromProto(proto));
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

}  // namespace tw
