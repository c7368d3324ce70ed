#include "kernels/cpu/example_parser.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "tensorweave/proto/example_wire.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// TensorFlow's DataTypeString for the three Example dtypes (its messages name them so).
const char* TypeName(DType t) {
  switch (t) {
    case DType::kFloat: return "float";
    case DType::kInt64: return "int64";
    case DType::kString: return "string";
    default: return "invalid";
  }
}

// "bytes" / "float" / "int64": how TensorFlow's count messages name a list's values.
const char* ValuesName(DType t) { return t == DType::kString ? "bytes" : TypeName(t); }
const char* ListName(DType t) {
  return t == DType::kString ? "bytes_list" : t == DType::kFloat ? "float_list" : "int64_list";
}

DType FeatureDType(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kBytesList: return DType::kString;
    case Feature::kFloatList: return DType::kFloat;
    case Feature::kInt64List: return DType::kInt64;
    default: return DType::kInvalid;
  }
}

int64_t FeatureSize(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kBytesList: return f.bytes_list().value_size();
    case Feature::kFloatList: return f.float_list().value_size();
    case Feature::kInt64List: return f.int64_list().value_size();
    default: return 0;
  }
}

// "[?,2]" as TensorFlow prints partial shapes in its messages.
std::string ShapeString(const PartialShape& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) {
    absl::StrAppend(&out, i ? "," : "", s.dim(i) < 0 ? "?" : std::to_string(s.dim(i)));
  }
  return out + "]";
}

// Copies the feature's values (dtype already checked) to dst.
void CopyValues(const Feature& f, Tensor& dst, int64_t offset) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      std::copy(f.float_list().value().begin(), f.float_list().value().end(), dst.data<float>() + offset);
      break;
    case Feature::kInt64List:
      std::copy(f.int64_list().value().begin(), f.int64_list().value().end(), dst.data<int64_t>() + offset);
      break;
    case Feature::kBytesList:
      std::copy(f.bytes_list().value().begin(), f.bytes_list().value().end(), dst.data<std::string>() + offset);
      break;
    default:
      break;
  }
}

// Copies n elements of src starting at src_offset to dst at dst_offset (same dtype).
void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset, int64_t n) {
  switch (src.dtype()) {
    case DType::kFloat:
      std::copy_n(src.data<float>() + src_offset, n, dst.data<float>() + dst_offset);
      break;
    case DType::kInt64:
      std::copy_n(src.data<int64_t>() + src_offset, n, dst.data<int64_t>() + dst_offset);
      break;
    case DType::kString:
      std::copy_n(src.data<std::string>() + src_offset, n, dst.data<std::string>() + dst_offset);
      break;
    default:
      break;
  }
}

// Sets every element of dst to element 0 of value (zero / "" when value is empty).
void FillWith(const Tensor& value, Tensor& dst) {
  const bool has = value.IsInitialized() && value.NumElements() > 0;
  switch (dst.dtype()) {
    case DType::kFloat: std::fill_n(dst.data<float>(), dst.NumElements(), has ? value.data<float>()[0] : 0.f); break;
    case DType::kInt64:
      std::fill_n(dst.data<int64_t>(), dst.NumElements(), has ? value.data<int64_t>()[0] : int64_t{0});
      break;
    case DType::kString:
      std::fill_n(dst.data<std::string>(), dst.NumElements(), has ? value.data<std::string>()[0] : std::string());
      break;
    default:
      break;
  }
}

// One feature over the batch: each example's Feature (null when absent), its value
// count, and after Accumulate() where each example's values end in the output.
struct Gathered {
  std::vector<const Feature*> features;
  std::vector<int64_t> counts, ends;
  void Resize(int64_t batch) {
    features.assign(static_cast<size_t>(batch), nullptr);
    counts.assign(static_cast<size_t>(batch), 0);
  }
  void Accumulate() {
    ends.resize(counts.size());
    int64_t total = 0;
    for (size_t i = 0; i < counts.size(); ++i) ends[i] = total += counts[i];
  }
};

absl::StatusOr<Tensor> NewTensor(DType dtype, absl::Span<const int64_t> dims, int64_t max_bytes) {
  TW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
  const int64_t elem = dtype == DType::kString ? 1 : static_cast<int64_t>(DTypeSize(dtype));
  if (shape.num_elements() > max_bytes / std::max<int64_t>(elem, 1)) {
    return absl::ResourceExhaustedError(absl::StrCat("parsed Example output of shape ", shape.DebugString(),
                                                     " exceeds the tensor size limit of ", max_bytes, " bytes"));
  }
  return Tensor::Allocate(dtype, shape);
}

// Who an error is about, worded as TensorFlow words it for a batch or for one example.
struct ErrorContext {
  bool single;
  const std::string& name;
  int64_t index;
  absl::Status Key(const std::string& key, const std::string& msg) const {
    if (single) return absl::InvalidArgumentError(absl::StrCat("Key: ", key, ".  ", msg));
    return absl::InvalidArgumentError(absl::StrCat("Name: ", name, ", Key: ", key, ", Index: ", index, ".  ", msg));
  }
  absl::Status Required(const std::string& key, DType dtype) const {
    return absl::InvalidArgumentError(absl::StrCat(single ? "" : absl::StrCat("Name: ", name, ", "), "Feature: ", key,
                                                   " (data type: ", TypeName(dtype),
                                                   ") is required but could not be found."));
  }
};

bool IsVariableLength(const DenseFeatureSpec& d) { return d.shape.rank() > 0 && d.shape.dim(0) < 0; }

// Elements of one example's value (fixed) or of one step (variable length).
int64_t Stride(const DenseFeatureSpec& d) {
  int64_t n = 1;
  for (int i = IsVariableLength(d) ? 1 : 0; i < d.shape.rank(); ++i) n *= d.shape.dim(i);
  return n;
}

bool IsExampleDType(DType t) { return t == DType::kFloat || t == DType::kInt64 || t == DType::kString; }

}  // namespace

absl::Status ValidateExampleParserConfig(const ExampleParserConfig& config) {
  for (const SparseFeatureSpec& s : config.sparse) {
    if (!IsExampleDType(s.dtype)) {
      return absl::InvalidArgumentError(absl::StrCat("Feature ", s.key, ": unsupported dtype ", DTypeName(s.dtype),
                                                     " (float, int64 or string)"));
    }
  }
  for (const DenseFeatureSpec& d : config.dense) {
    if (!IsExampleDType(d.dtype)) {
      return absl::InvalidArgumentError(absl::StrCat("Feature ", d.key, ": unsupported dtype ", DTypeName(d.dtype),
                                                     " (float, int64 or string)"));
    }
    if (!d.shape.known_rank()) {
      return absl::InvalidArgumentError(absl::StrCat("Feature ", d.key, ": dense shape must have a known rank"));
    }
    for (int i = IsVariableLength(d) ? 1 : 0; i < d.shape.rank(); ++i) {
      if (d.shape.dim(i) < 0) {
        return absl::InvalidArgumentError(absl::StrCat("Feature ", d.key, ": dense shape ", ShapeString(d.shape),
                                                       " may only have an unknown first dimension"));
      }
    }
    if (auto built = TensorShape::Build(d.shape.dims().subspan(IsVariableLength(d) ? 1 : 0)); !built.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("Feature ", d.key, ": ", built.status().message()));
    }
    if (d.default_value.IsInitialized() && d.default_value.dtype() != d.dtype) {
      return absl::InvalidArgumentError(absl::StrCat("dense_defaults for ", d.key, " has dtype ",
                                                     DTypeName(d.default_value.dtype()), ", expected ",
                                                     DTypeName(d.dtype)));
    }
    const int64_t given = d.default_value.IsInitialized() ? d.default_value.NumElements() : 0;
    if (IsVariableLength(d) ? given > 1 : (given != 0 && given != Stride(d))) {
      return absl::InvalidArgumentError(absl::StrCat("dense_defaults for ", d.key, " has ", given,
                                                     " elements; the dense shape ", ShapeString(d.shape),
                                                     IsVariableLength(d) ? " pads with one" : " needs none or all"));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseExamples(const ExampleParserConfig& config, const Tensor& serialized, const Tensor* names,
                           int64_t max_tensor_bytes, ExampleParserOutput* out,
                           const ExampleParallelFor& parallel_for) {
  TW_RETURN_IF_ERROR(ValidateExampleParserConfig(config));
  if (serialized.dtype() != DType::kString || serialized.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat("Expected serialized to be a scalar or vector of strings, got shape: ",
                                                   serialized.shape().DebugString()));
  }
  const bool single = serialized.rank() == 0;
  const int64_t batch = serialized.NumElements();
  const bool have_names = !single && names != nullptr && names->NumElements() > 0;
  if (have_names && names->NumElements() != batch) {
    return absl::InvalidArgumentError(absl::StrCat("Expected len(names) == len(serialized), but got: ",
                                                   names->NumElements(), " vs. ", batch));
  }
  // The batch dimension, absent for one Example.
  auto with_batch = [&](absl::Span<const int64_t> dims) {
    std::vector<int64_t> v;
    if (!single) v.push_back(batch);
    v.insert(v.end(), dims.begin(), dims.end());
    return v;
  };

  // Fixed-shape dense outputs are written as examples are parsed.
  const size_t num_dense = config.dense.size(), num_sparse = config.sparse.size();
  out->dense_values.assign(num_dense, Tensor());
  for (size_t d = 0; d < num_dense; ++d) {
    if (IsVariableLength(config.dense[d])) continue;
    TW_ASSIGN_OR_RETURN(out->dense_values[d],
                        NewTensor(config.dense[d].dtype, with_batch(config.dense[d].shape.dims()), max_tensor_bytes));
  }
  // Per feature of variable size, per example: the feature (null when absent) and how
  // many values it has; filled in parallel, one slot per example.
  std::vector<Gathered> varlen(num_dense), sparse(num_sparse);
  for (size_t d = 0; d < num_dense; ++d) {
    if (IsVariableLength(config.dense[d])) varlen[d].Resize(batch);
  }
  for (Gathered& g : sparse) g.Resize(batch);
  // One arena for every parsed message: they live until their values are copied out, and
  // an Example's many small messages allocate far less this way.
  google::protobuf::Arena arena;
  std::vector<absl::Status> errors(static_cast<size_t>(batch));
  // Which configured feature each key is (a key may be both dense and sparse).
  absl::flat_hash_map<std::string, std::pair<int, int>> slot_of;  // key -> (dense, sparse), -1 for none
  for (size_t d = 0; d < num_dense; ++d) slot_of.try_emplace(config.dense[d].key, -1, -1).first->second.first = d;
  for (size_t s = 0; s < num_sparse; ++s) slot_of.try_emplace(config.sparse[s].key, -1, -1).first->second.second = s;

  auto parse_one = [&](int64_t i) -> absl::Status {
    const std::string& bytes = serialized.data<std::string>()[i];
    ExampleWire* ex = google::protobuf::Arena::CreateMessage<ExampleWire>(&arena);
    if (!ex->ParseFromString(bytes)) {
      return absl::InvalidArgumentError(absl::StrCat("Could not parse example input, value: '",
                                                     absl::CHexEscape(bytes.substr(0, 256)),
                                                     bytes.size() > 256 ? "...'" : "'"));
    }
    // The configured features this example has; a later entry of the same key replaces an
    // earlier one, as a map would.
    absl::InlinedVector<const Feature*, 8> dense_found(num_dense, nullptr), sparse_found(num_sparse, nullptr);
    for (const FeatureWireEntry& entry : ex->features().feature()) {
      auto it = slot_of.find(entry.key());
      if (it == slot_of.end()) continue;
      // A Feature with no list set counts as absent, as in TensorFlow.
      const Feature* f = entry.value().kind_case() == Feature::KIND_NOT_SET ? nullptr : &entry.value();
      if (it->second.first >= 0) dense_found[it->second.first] = f;
      if (it->second.second >= 0) sparse_found[it->second.second] = f;
    }
    static const std::string kUnknown = "<unknown>";
    const ErrorContext err{single, have_names ? names->data<std::string>()[i] : kUnknown, i};

    for (size_t d = 0; d < num_dense; ++d) {
      const DenseFeatureSpec& spec = config.dense[d];
      const Feature* f = dense_found[d];
      if (f != nullptr && FeatureDType(*f) != spec.dtype) {
        return err.Key(spec.key, absl::StrCat("Data types don't match. Data type: ", TypeName(FeatureDType(*f)),
                                              " but expected type: ", TypeName(spec.dtype)));
      }
      const int64_t stride = Stride(spec);
      const int64_t size = f ? FeatureSize(*f) : 0;
      if (IsVariableLength(spec)) {
        if (stride == 0 ? size != 0 : size % stride != 0) {
          if (single) {
            return absl::InvalidArgumentError(absl::StrCat("Error while parsing feature with key ", spec.key,
                                                           ": number of elements should be divisible by ", stride,
                                                           ", found ", size, " instead"));
          }
          return err.Key(spec.key, absl::StrCat("Number of ", ValuesName(spec.dtype),
                                                " values is not a multiple of stride length. Saw ", size,
                                                " values but output shape is: ", ShapeString(spec.shape)));
        }
        varlen[d].features[i] = f;
        varlen[d].counts[i] = size;
        continue;
      }
      Tensor& dst = out->dense_values[d];
      if (f == nullptr) {
        if (!spec.default_value.IsInitialized() || spec.default_value.NumElements() == 0) {
          return err.Required(spec.key, spec.dtype);
        }
        CopyElements(spec.default_value, 0, dst, i * stride, stride);
        continue;
      }
      if (size != stride) {
        if (single) {
          return err.Key(spec.key, spec.dtype == DType::kString
                                       ? std::string("Can't parse serialized Example: Parsing bytes_list failed.")
                                       : absl::StrCat("Can't parse serialized Example: Some ", ListName(spec.dtype),
                                                      " slice was not parsed."));
        }
        if (spec.dtype == DType::kString) return err.Key(spec.key, "Can't parse serialized Example.");
        return err.Key(spec.key, absl::StrCat("Number of ", ValuesName(spec.dtype), " values != expected.  Values size: ",
                                              size, " but output shape: ", ShapeString(spec.shape)));
      }
      CopyValues(*f, dst, i * stride);
    }

    for (size_t s = 0; s < num_sparse; ++s) {
      const SparseFeatureSpec& spec = config.sparse[s];
      const Feature* f = sparse_found[s];
      if (f != nullptr && FeatureDType(*f) != spec.dtype) {
        return err.Key(spec.key, absl::StrCat("Data types don't match. Expected type: ", TypeName(spec.dtype),
                                              ", Actual type: ", TypeName(FeatureDType(*f))));
      }
      sparse[s].features[i] = f;
      sparse[s].counts[i] = f ? FeatureSize(*f) : 0;
    }
    return absl::OkStatus();
  };
  auto parse_range = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) errors[i] = parse_one(i);
  };
  if (parallel_for && batch > 1) {
    parallel_for(batch, 20000, parse_range);  // a few microseconds per Example
  } else {
    parse_range(0, batch);
  }
  for (const absl::Status& e : errors) TW_RETURN_IF_ERROR(e);
  for (Gathered& g : varlen) g.Accumulate();
  for (Gathered& g : sparse) g.Accumulate();

  // Variable-length dense features: padded with the default to the longest example.
  for (size_t d = 0; d < num_dense; ++d) {
    const DenseFeatureSpec& spec = config.dense[d];
    if (!IsVariableLength(spec)) continue;
    const int64_t stride = Stride(spec);
    int64_t max_len = 0;
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t count = varlen[d].ends[i] - (i ? varlen[d].ends[i - 1] : 0);
      if (stride > 0) max_len = std::max(max_len, count / stride);
    }
    std::vector<int64_t> dims = {max_len};
    dims.insert(dims.end(), spec.shape.dims().begin() + 1, spec.shape.dims().end());
    TW_ASSIGN_OR_RETURN(Tensor dst, NewTensor(spec.dtype, with_batch(dims), max_tensor_bytes));
    FillWith(spec.default_value, dst);
    for (int64_t i = 0; i < batch; ++i) {
      if (const Feature* f = varlen[d].features[i]) CopyValues(*f, dst, i * max_len * stride);
    }
    out->dense_values[d] = std::move(dst);
  }

  // VarLen features: (indices, values, dense_shape) with one index column per dim.
  out->sparse_indices.clear();
  out->sparse_values.clear();
  out->sparse_shapes.clear();
  const int64_t index_cols = single ? 1 : 2;
  for (size_t s = 0; s < num_sparse; ++s) {
    const SparseFeatureSpec& spec = config.sparse[s];
    const int64_t total = batch ? sparse[s].ends.back() : 0;
    TW_ASSIGN_OR_RETURN(Tensor indices, NewTensor(DType::kInt64, {total, index_cols}, max_tensor_bytes));
    TW_ASSIGN_OR_RETURN(Tensor values, NewTensor(spec.dtype, {total}, max_tensor_bytes));
    TW_ASSIGN_OR_RETURN(Tensor shape, NewTensor(DType::kInt64, {index_cols}, max_tensor_bytes));
    int64_t* idx = indices.data<int64_t>();
    int64_t max_len = 0;
    for (int64_t i = 0; i < batch; ++i) {
      const int64_t begin = i ? sparse[s].ends[i - 1] : 0, count = sparse[s].ends[i] - begin;
      max_len = std::max(max_len, count);
      if (const Feature* f = sparse[s].features[i]) CopyValues(*f, values, begin);
      for (int64_t j = 0; j < count; ++j) {
        int64_t* row = idx + (begin + j) * index_cols;
        if (single) {
          row[0] = j;
        } else {
          row[0] = i;
          row[1] = j;
        }
      }
    }
    int64_t* sh = shape.data<int64_t>();
    if (single) {
      sh[0] = max_len;
    } else {
      sh[0] = batch;
      sh[1] = max_len;
    }
    out->sparse_indices.push_back(std::move(indices));
    out->sparse_values.push_back(std::move(values));
    out->sparse_shapes.push_back(std::move(shape));
  }
  return absl::OkStatus();
}

}  // namespace tw
