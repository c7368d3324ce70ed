// The saved position of a tf.data iterator: tensors under string keys. Each iterator of a
// chain writes under its own prefix ("Iterator", its input "Iterator::input", ...) and
// records which dataset it iterates ("<prefix>::kind"), so restoring a state into a
// pipeline of another structure fails naming the first place they differ.
#ifndef TENSORWEAVE_SRC_KERNELS_ITERATOR_STATE_H_
#define TENSORWEAVE_SRC_KERNELS_ITERATOR_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tensorweave/tensor.h"

namespace tw {

using Element = std::vector<Tensor>;
using IteratorStateMap = std::map<std::string, Tensor>;

class IteratorStateWriter {
 public:
  IteratorStateWriter(IteratorStateMap* entries, std::string prefix)
      : entries_(entries), prefix_(std::move(prefix)) {}
  IteratorStateWriter Child(absl::string_view name) const;
  const std::string& prefix() const { return prefix_; }

  void WriteInt(absl::string_view key, int64_t value);
  void WriteString(absl::string_view key, std::string value);
  void WriteTensor(absl::string_view key, Tensor value);
  // "<key>::size" and each element's components ("<key>::<i>::<c>").
  void WriteElements(absl::string_view key, const std::vector<Element>& elements);
  void WriteStatus(absl::string_view key, const absl::Status& status);

 private:
  std::string Key(absl::string_view key) const;
  IteratorStateMap* entries_;
  std::string prefix_;
};

class IteratorStateReader {
 public:
  IteratorStateReader(const IteratorStateMap* entries, std::string prefix)
      : entries_(entries), prefix_(std::move(prefix)) {}
  IteratorStateReader Child(absl::string_view name) const;
  const std::string& prefix() const { return prefix_; }

  bool Contains(absl::string_view key) const;
  // InvalidArgument naming the key when it is missing or of another type.
  absl::StatusOr<int64_t> ReadInt(absl::string_view key) const;
  absl::StatusOr<std::string> ReadString(absl::string_view key) const;
  absl::StatusOr<Tensor> ReadTensor(absl::string_view key) const;
  absl::StatusOr<std::vector<Element>> ReadElements(absl::string_view key) const;
  absl::StatusOr<absl::Status> ReadStatus(absl::string_view key) const;

 private:
  std::string Key(absl::string_view key) const;
  const IteratorStateMap* entries_;
  std::string prefix_;
};

// The state map as a serialized IteratorStateProto, and back (InvalidArgument for bytes
// that are not one).
std::string SerializeIteratorState(const IteratorStateMap& state);
absl::StatusOr<IteratorStateMap> ParseIteratorState(const std::string& bytes);

// A DT_VARIANT scalar carrying serialized bytes (SerializeIterator's output; a
// tensor/bytes_variant.h): checkpoint writers store it as a string scalar, and restore it
// as this variant again; it may cross tasks.
Tensor SerializedVariant(std::string bytes);
// The bytes of such a variant, or of a string scalar; InvalidArgument for anything else.
absl::StatusOr<std::string> SerializedVariantBytes(const Tensor& t);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_ITERATOR_STATE_H_
