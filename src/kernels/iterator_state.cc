#include "kernels/iterator_state.h"

#include "absl/strings/str_cat.h"
#include "tensor/bytes_variant.h"
#include "tensor/tensor_proto.h"
#include "tensorweave/proto/iterator_state.pb.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

Tensor Int64Scalar(int64_t v) {
  Tensor t(DType::kInt64, TensorShape());
  t.scalar<int64_t>() = v;
  return t;
}

Tensor StringScalar(std::string s) {
  Tensor t(DType::kString, TensorShape());
  t.scalar<std::string>() = std::move(s);
  return t;
}

absl::Status Mismatch(const std::string& key, const char* what) {
  return absl::InvalidArgumentError(absl::StrCat("iterator state: '", key, "' is not ", what,
                                                 " (was the state saved from another pipeline?)"));
}

}  // namespace

IteratorStateWriter IteratorStateWriter::Child(absl::string_view name) const {
  return IteratorStateWriter(entries_, Key(name));
}

std::string IteratorStateWriter::Key(absl::string_view key) const { return absl::StrCat(prefix_, "::", key); }

void IteratorStateWriter::WriteInt(absl::string_view key, int64_t value) { (*entries_)[Key(key)] = Int64Scalar(value); }

void IteratorStateWriter::WriteString(absl::string_view key, std::string value) {
  (*entries_)[Key(key)] = StringScalar(std::move(value));
}

void IteratorStateWriter::WriteTensor(absl::string_view key, Tensor value) { (*entries_)[Key(key)] = std::move(value); }

void IteratorStateWriter::WriteElements(absl::string_view key, const std::vector<Element>& elements) {
  IteratorStateWriter w = Child(key);
  w.WriteInt("size", static_cast<int64_t>(elements.size()));
  for (size_t i = 0; i < elements.size(); ++i) {
    IteratorStateWriter e = w.Child(absl::StrCat(i));
    e.WriteInt("components", static_cast<int64_t>(elements[i].size()));
    for (size_t c = 0; c < elements[i].size(); ++c) e.WriteTensor(absl::StrCat(c), elements[i][c]);
  }
}

void IteratorStateWriter::WriteStatus(absl::string_view key, const absl::Status& status) {
  IteratorStateWriter w = Child(key);
  w.WriteInt("code", static_cast<int64_t>(status.code()));
  w.WriteString("message", std::string(status.message()));
}

IteratorStateReader IteratorStateReader::Child(absl::string_view name) const {
  return IteratorStateReader(entries_, Key(name));
}

std::string IteratorStateReader::Key(absl::string_view key) const { return absl::StrCat(prefix_, "::", key); }

bool IteratorStateReader::Contains(absl::string_view key) const { return entries_->count(Key(key)) > 0; }

absl::StatusOr<Tensor> IteratorStateReader::ReadTensor(absl::string_view key) const {
  const std::string k = Key(key);
  auto it = entries_->find(k);
  if (it == entries_->end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("iterator state has no '", k, "' (was the state saved from another pipeline?)"));
  }
  return it->second;
}

absl::StatusOr<int64_t> IteratorStateReader::ReadInt(absl::string_view key) const {
  TW_ASSIGN_OR_RETURN(Tensor t, ReadTensor(key));
  if (t.dtype() != DType::kInt64 || t.NumElements() != 1) return Mismatch(Key(key), "an int64 scalar");
  return t.data<int64_t>()[0];
}

absl::StatusOr<std::string> IteratorStateReader::ReadString(absl::string_view key) const {
  TW_ASSIGN_OR_RETURN(Tensor t, ReadTensor(key));
  if (t.dtype() != DType::kString || t.NumElements() != 1) return Mismatch(Key(key), "a string scalar");
  return t.data<std::string>()[0];
}

absl::StatusOr<std::vector<Element>> IteratorStateReader::ReadElements(absl::string_view key) const {
  IteratorStateReader r = Child(key);
  TW_ASSIGN_OR_RETURN(int64_t size, r.ReadInt("size"));
  // Each element has its own entries: a larger count is a damaged state, not an allocation.
  if (size < 0 || size > static_cast<int64_t>(entries_->size())) return Mismatch(r.Key("size"), "a count");
  std::vector<Element> elements(size);
  for (int64_t i = 0; i < size; ++i) {
    IteratorStateReader e = r.Child(absl::StrCat(i));
    TW_ASSIGN_OR_RETURN(int64_t n, e.ReadInt("components"));
    for (int64_t c = 0; c < n; ++c) {
      TW_ASSIGN_OR_RETURN(Tensor t, e.ReadTensor(absl::StrCat(c)));
      elements[i].push_back(std::move(t));
    }
  }
  return elements;
}

absl::StatusOr<absl::Status> IteratorStateReader::ReadStatus(absl::string_view key) const {
  IteratorStateReader r = Child(key);
  TW_ASSIGN_OR_RETURN(int64_t code, r.ReadInt("code"));
  TW_ASSIGN_OR_RETURN(std::string message, r.ReadString("message"));
  if (code < 0 || code > 16) return Mismatch(r.Key("code"), "a status code");
  return absl::Status(static_cast<absl::StatusCode>(code), message);
}

std::string SerializeIteratorState(const IteratorStateMap& state) {
  IteratorStateProto proto;
  for (const auto& [key, value] : state) (*proto.mutable_entries())[key] = TensorToProto(value);
  std::string bytes;
  proto.SerializeToString(&bytes);
  return bytes;
}

absl::StatusOr<IteratorStateMap> ParseIteratorState(const std::string& bytes) {
  IteratorStateProto proto;
  if (!proto.ParseFromString(bytes)) {
    return absl::InvalidArgumentError("the serialized iterator state is not an IteratorStateProto");
  }
  IteratorStateMap state;
  for (const auto& [key, value] : proto.entries()) {
    absl::StatusOr<Tensor> t = TensorFromProto(value);
    if (!t.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("iterator state '", key, "': ", t.status().message()));
    }
    state.emplace(key, *std::move(t));
  }
  return state;
}

Tensor SerializedVariant(std::string bytes) { return BytesVariant(std::move(bytes)); }

absl::StatusOr<std::string> SerializedVariantBytes(const Tensor& t) {
  if (t.NumElements() == 1 && t.dtype() == DType::kString) return t.data<std::string>()[0];
  if (const std::string* bytes = BytesOfVariant(t)) return *bytes;
  return absl::InvalidArgumentError(absl::StrCat("expected a serialized iterator state (a variant scalar from ",
                                                 "SerializeIterator), got ", DTypeName(t.dtype()), " ",
                                                 t.shape().DebugString()));
}

}  // namespace tw
