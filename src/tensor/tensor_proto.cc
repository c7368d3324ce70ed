#include "tensor/tensor_proto.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tensor/bytes_variant.h"
#include "tensor/tf_dtype_name.h"
#include "tensorweave/status.h"

namespace tw {

absl::StatusOr<DType> DTypeFromProto(int value) {
  if (!IsValidDType(value)) {
    return absl::InvalidArgumentError(absl::StrCat("dtype ", TfDTypeName(value), " is not supported"));
  }
  return static_cast<DType>(value);
}

TensorShapeProto ShapeToProto(const PartialShape& shape) {
  TensorShapeProto proto;
  if (!shape.known_rank()) {
    proto.set_unknown_rank(true);
    return proto;
  }
  for (int64_t d : shape.dims()) proto.add_dim()->set_size(d);
  return proto;
}

absl::StatusOr<PartialShape> PartialShapeFromProto(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) {
      return absl::InvalidArgumentError("shape has unknown_rank set but lists dims");
    }
    return PartialShape::UnknownRank();
  }
  if (proto.dim_size() > kMaxRank) {
    return absl::InvalidArgumentError(absl::StrCat("shape has rank ", proto.dim_size(),
                                                   ", more than the limit of ", kMaxRank));
  }
  DimVector dims;
  for (const auto& d : proto.dim()) {
    if (d.size() < -1) {
      return absl::InvalidArgumentError(absl::StrCat("shape has invalid dimension ", d.size()));
    }
    dims.push_back(d.size());
  }
  return PartialShape(dims);
}

absl::StatusOr<TensorShape> TensorShapeFromProto(const TensorShapeProto& proto) {
  TW_ASSIGN_OR_RETURN(PartialShape partial, PartialShapeFromProto(proto));
  return partial.ToTensorShape();
}

namespace {

template <typename T, typename Repeated>
absl::Status FillFromTyped(const Repeated& values, Tensor* t) {
  T* out = t->data<T>();
  const int64_t n = t->NumElements();
  const int64_t in_n = values.size();
  if (in_n > n && in_n != 1) {
    return absl::InvalidArgumentError(absl::StrCat("TensorProto has ", in_n,
                                                   " values for shape ", t->shape().DebugString()));
  }
  if (in_n == 0) {
    std::fill(out, out + n, T{});  // No payload at all: zeros, as TensorFlow does.
    return absl::OkStatus();
  }
  // Fewer values than elements: the last one repeats (TensorFlow's rule, which its
  // constant compression relies on; a single value fills the whole shape).
  auto value = [&](int64_t i) {
    if constexpr (std::is_same_v<T, half>) {
      return half::FromBits(static_cast<uint16_t>(values.Get(i)));
    } else {
      return static_cast<T>(values.Get(i));  // Small integers keep the low bits, as TF.
    }
  };
  const int64_t given = std::min(in_n, n);
  for (int64_t i = 0; i < given; ++i) out[i] = value(i);
  std::fill(out + given, out + n, value(in_n - 1));
  return absl::OkStatus();
}

// Complex values come as (real, imaginary) pairs of a float or double field, with the
// same repeat-the-last rule.
template <typename C, typename Repeated>
absl::Status FillFromComplexPairs(const Repeated& values, Tensor* t) {
  if (values.size() % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat("TensorProto of ", DTypeName(t->dtype()), " has ", values.size(),
                                                   " parts, not (real, imaginary) pairs"));
  }
  C* out = t->data<C>();
  const int64_t n = t->NumElements();
  const int64_t in_n = values.size() / 2;
  if (in_n > n && in_n != 1) {
    return absl::InvalidArgumentError(absl::StrCat("TensorProto has ", in_n,
                                                   " values for shape ", t->shape().DebugString()));
  }
  if (in_n == 0) {
    std::fill(out, out + n, C{});
    return absl::OkStatus();
  }
  auto value = [&](int64_t i) { return C(values.Get(2 * i), values.Get(2 * i + 1)); };
  const int64_t given = std::min(in_n, n);
  for (int64_t i = 0; i < given; ++i) out[i] = value(i);
  std::fill(out + given, out + n, value(in_n - 1));
  return absl::OkStatus();
}

// TensorFlow's tensor_content for strings (port::EncodeStringList): the varint32
// length of every element, then all the bytes.
absl::Status DecodeStringContent(absl::string_view content, Tensor* t) {
  const int64_t n = t->NumElements();
  std::string* out = t->data<std::string>();
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  size_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t len = 0;
    int shift = 0;
    while (true) {
      if (pos >= content.size() || shift > 28) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorProto string tensor_content is truncated or malformed in the length of element ", i));
      }
      const uint8_t b = static_cast<uint8_t>(content[pos++]);
      len |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) == 0) break;
    }
    lengths[i] = len;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (lengths[i] > content.size() - pos) {
      return absl::InvalidArgumentError(absl::StrCat("TensorProto string tensor_content is ",
                                                     content.size(), " bytes, too short for element ", i));
    }
    out[i].assign(content.data() + pos, lengths[i]);
    pos += lengths[i];
  }
  if (pos != content.size()) {
    return absl::InvalidArgumentError(absl::StrCat("TensorProto string tensor_content has ",
                                                   content.size() - pos, " bytes after the last element"));
  }
  return absl::OkStatus();
}

}  // namespace

TensorProto TensorToProto(const Tensor& tensor) {
  TensorProto proto;
  proto.set_dtype(DTypeToProto(tensor.dtype()));
  *proto.mutable_tensor_shape() = ShapeToProto(tensor.shape());
  // A variant holds a runtime object, not bytes: it travels as its dtype and shape only,
  // unless it is serialized bytes (string_val, as a string scalar).
  if (tensor.dtype() == DType::kVariant) {
    if (const std::string* bytes = BytesOfVariant(tensor)) proto.add_string_val(*bytes);
    return proto;
  }
  if (tensor.dtype() == DType::kResource) {
    const ResourceHandle& h = tensor.resource();
    auto* p = proto.add_resource_handle_val();
    p->set_device(h.device);
    p->set_container(h.container);
    p->set_name(h.name);
  } else if (tensor.dtype() == DType::kBool) {
    for (bool b : tensor.flat<bool>()) proto.add_bool_val(b);
  } else if (tensor.dtype() == DType::kString) {
    for (const std::string& v : tensor.flat<std::string>()) proto.add_string_val(v);  // As TensorFlow writes them.
  } else {
    proto.set_tensor_content(tensor.raw_data(), tensor.TotalBytes());
  }
  return proto;
}

absl::Status CheckTensorBytes(DType dtype, const TensorShape& shape, int64_t max_bytes,
                              absl::string_view what) {
  // num_elements() saturates rather than wraps, so the product is checked, not assumed.
  int64_t bytes;
  const bool overflow = __builtin_mul_overflow(shape.num_elements(), static_cast<int64_t>(DTypeSize(dtype)), &bytes);
  if (!overflow && bytes <= max_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat(what, ": ", DTypeName(dtype), " ", shape.DebugString(), " tensor of ",
                   overflow ? absl::StrCat("more than ", std::numeric_limits<int64_t>::max()) : absl::StrCat(bytes),
                   " bytes is over the max_tensor_bytes limit of ", max_bytes));
}

absl::Status CheckTensorProtoBytes(const TensorProto& proto, int64_t max_bytes) {
  TW_ASSIGN_OR_RETURN(DType dtype, DTypeFromProto(proto.dtype()));
  TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShapeFromProto(proto.tensor_shape()));
  return CheckTensorBytes(dtype, shape, max_bytes, "TensorProto");
}

absl::StatusOr<Tensor> TensorFromProto(const TensorProto& proto, int64_t max_bytes) {
  TW_ASSIGN_OR_RETURN(DType dtype, DTypeFromProto(proto.dtype()));
  TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShapeFromProto(proto.tensor_shape()));
  TW_RETURN_IF_ERROR(CheckTensorBytes(dtype, shape, max_bytes, "TensorProto"));
  if (dtype == DType::kResource) {
    if (shape.num_elements() != 1 || proto.resource_handle_val_size() != 1) {
      return absl::InvalidArgumentError("a resource TensorProto must hold one scalar handle");
    }
    const auto& p = proto.resource_handle_val(0);
    return Tensor::Resource(ResourceHandle{p.device(), p.container(), p.name()});
  }
  if (dtype == DType::kVariant) {
    if (shape.num_elements() != 1 || proto.string_val_size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a variant TensorProto (", shape.DebugString(), ") carries no serialized value: only a scalar of serialized "
          "bytes (an iterator's saved state) can be decoded; runtime objects such as datasets stay on their task"));
    }
    return BytesVariant(proto.string_val(0));
  }
  TW_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, shape));
  if (dtype == DType::kString && !proto.tensor_content().empty()) {
    TW_RETURN_IF_ERROR(DecodeStringContent(proto.tensor_content(), &t));
    return t;
  }
  if (!proto.tensor_content().empty()) {
    if (proto.tensor_content().size() != t.TotalBytes()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto tensor_content has ", proto.tensor_content().size(), " bytes but ",
          DTypeName(dtype), " ", shape.DebugString(), " needs ", t.TotalBytes()));
    }
    if (dtype == DType::kBool) {
      // Normalize bytes so every bool is exactly 0 or 1.
      bool* out = t.data<bool>();
      for (size_t i = 0; i < t.TotalBytes(); ++i) out[i] = proto.tensor_content()[i] != 0;
    } else {
      std::memcpy(t.raw_data(), proto.tensor_content().data(), t.TotalBytes());
    }
    return t;
  }
  absl::Status s;
  switch (dtype) {
    case DType::kFloat: s = FillFromTyped<float>(proto.float_val(), &t); break;
    case DType::kDouble: s = FillFromTyped<double>(proto.double_val(), &t); break;
    case DType::kInt32: s = FillFromTyped<int32_t>(proto.int_val(), &t); break;
    // TensorFlow keeps the small integers in int_val, one per int32, and half in
    // half_val as bit patterns.
    case DType::kUint8: s = FillFromTyped<uint8_t>(proto.int_val(), &t); break;
    case DType::kInt16: s = FillFromTyped<int16_t>(proto.int_val(), &t); break;
    case DType::kInt8: s = FillFromTyped<int8_t>(proto.int_val(), &t); break;
    case DType::kInt64: s = FillFromTyped<int64_t>(proto.int64_val(), &t); break;
    case DType::kBool: s = FillFromTyped<bool>(proto.bool_val(), &t); break;
    case DType::kUint16: s = FillFromTyped<uint16_t>(proto.int_val(), &t); break;
    case DType::kHalf: s = FillFromTyped<half>(proto.half_val(), &t); break;
    case DType::kString: s = FillFromTyped<std::string>(proto.string_val(), &t); break;
    case DType::kComplex64: s = FillFromComplexPairs<complex64>(proto.scomplex_val(), &t); break;
    case DType::kComplex128: s = FillFromComplexPairs<complex128>(proto.dcomplex_val(), &t); break;
    default: return absl::InvalidArgumentError("unsupported dtype in TensorProto");
  }
  TW_RETURN_IF_ERROR(s);
  return t;
}

}  // namespace tw
