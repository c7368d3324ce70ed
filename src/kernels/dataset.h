// tf.data's datasets: an immutable description of a sequence of elements (each a fixed
// list of tensors with output_types and output_shapes), held in a DT_VARIANT scalar, and
// the iterators that walk it. Each dataset kernel (src/kernels/cpu/dataset_*_kernels.cc)
// makes one dataset from its inputs; IteratorGetNext pulls elements through the chain of
// iterators. Iterators are used by one thread at a time (their IteratorResource locks);
// some (prefetch, parallel map) run their own threads, stopped and joined on destruction.
// Every iterator can save its position (Save) and a fresh iterator of the same dataset can
// take it back (Restore): see kernels/iterator_state.h and docs/ARCHITECTURE.md.
#ifndef TENSORWEAVE_SRC_KERNELS_DATASET_H_
#define TENSORWEAVE_SRC_KERNELS_DATASET_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/function_runtime.h"
#include "kernels/iterator_state.h"
#include "kernels/op_kernel.h"
#include "tensorweave/tensor.h"

namespace tw {

class DatasetIterator {
 public:
  virtual ~DatasetIterator() = default;
  // The next element in *out, or *end = true when there is none (and every later call).
  virtual absl::Status GetNext(Element* out, bool* end) = 0;
  // Writes the position (and what it buffered) so that Restore on a fresh iterator of the
  // same dataset continues with the same elements. Not const: threads pause meanwhile.
  virtual absl::Status Save(IteratorStateWriter& writer) = 0;
  // Called on a fresh iterator (made by MakeIterator, nothing pulled yet).
  virtual absl::Status Restore(const IteratorStateReader& reader) = 0;
  // The dataset's op name without "Dataset" ("Range"), written beside the state.
  virtual std::string kind() const = 0;
};

// The input iterator's state under "<writer's prefix>::<name>", with its kind; restoring
// checks the kind so a state saved from another pipeline fails with InvalidArgument.
absl::Status SaveInput(IteratorStateWriter& writer, const std::string& name, DatasetIterator& input);
absl::Status RestoreInput(const IteratorStateReader& reader, const std::string& name, DatasetIterator& input);

class DatasetBase : public std::enable_shared_from_this<DatasetBase> {
 public:
  DatasetBase(std::vector<DType> types, std::vector<PartialShape> shapes)
      : types_(std::move(types)), shapes_(std::move(shapes)) {}
  virtual ~DatasetBase() = default;
  const std::vector<DType>& output_types() const { return types_; }
  const std::vector<PartialShape>& output_shapes() const { return shapes_; }
  // A fresh iterator at the first element; it keeps this dataset alive.
  virtual absl::StatusOr<std::unique_ptr<DatasetIterator>> MakeIterator() const = 0;

 private:
  std::vector<DType> types_;
  std::vector<PartialShape> shapes_;
};

using DatasetPtr = std::shared_ptr<const DatasetBase>;

// The iterator's state without the dataset: what a dataset's MakeIterator wraps (the
// wrapper keeps the dataset alive and names its kind).
class IteratorImpl {
 public:
  virtual ~IteratorImpl() = default;
  virtual absl::Status GetNext(Element* out, bool* end) = 0;
  virtual absl::Status Save(IteratorStateWriter& writer) = 0;
  virtual absl::Status Restore(const IteratorStateReader& reader) = 0;
};
using IteratorFactory = std::function<absl::StatusOr<std::unique_ptr<IteratorImpl>>()>;
// A dataset named `kind` ("Range") whose iterators `make` makes, each at the start.
DatasetPtr MakeIteratorDataset(std::string kind, std::vector<DType> types, std::vector<PartialShape> shapes,
                               IteratorFactory make);

using IteratorPtr = std::shared_ptr<DatasetIterator>;
// A fresh iterator of `d`.
absl::StatusOr<IteratorPtr> StartIterator(const DatasetPtr& d);

// An iterator whose only state is its input's (map, filter, batch): each element is
// next(input, out, end); saving saves the input.
using NextFromInput = std::function<absl::Status(DatasetIterator& input, Element* out, bool* end)>;
std::unique_ptr<IteratorImpl> MakeInputIterator(IteratorPtr input, NextFromInput next);

// The DT_VARIANT scalar holding `dataset`, and back (InvalidArgument naming what input i
// holds instead).
Tensor DatasetToTensor(DatasetPtr dataset);
absl::StatusOr<DatasetPtr> DatasetFromTensor(const Tensor& t);
absl::StatusOr<DatasetPtr> DatasetInput(const OpKernelContext& ctx, int i);

// A scalar input of type T ("count", "batch_size").
absl::StatusOr<int64_t> ScalarInt64Input(const OpKernelContext& ctx, int i, const char* what);

// Checks an element against the declared types and shapes (an error names the dataset).
absl::Status CheckElement(const Element& e, const std::vector<DType>& types,
                          const std::vector<PartialShape>& shapes, const std::string& where);

// A function of the library called on each element (map, filter, flat_map): the
// instantiated handle plus the captured tensors passed after the element's components.
struct CapturedFunction {
  FunctionLibraryRuntime* runtime = nullptr;
  FunctionLibraryRuntime::Handle handle = 0;
  std::vector<Tensor> captured;
  // Reads attr `attr` (a func) and instantiates it; the captured tensors are the inputs
  // from `first_captured` on.
  static absl::StatusOr<std::shared_ptr<const CapturedFunction>> Make(OpKernelConstruction* c, const std::string& attr);
  absl::Status Call(Element args, Element* out) const;
};

// What every dataset kernel shares: output_types / output_shapes read at construction,
// Compute wraps MakeDataset's result in the variant output.
class DatasetOpKernel : public OpKernel {
 public:
  explicit DatasetOpKernel(OpKernelConstruction& c);
  absl::Status Compute(OpKernelContext& ctx) final;
  bool IsExpensive() const override { return false; }

 protected:
  virtual absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext& ctx) = 0;
  std::vector<DType> types_;
  std::vector<PartialShape> shapes_;
};

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_DATASET_H_
