// tf.data's datasets: an immutable description of a sequence of elements (each a fixed
// list of tensors with output_types and output_shapes), held in a DT_VARIANT scalar, and
// the iterators that walk it. Each dataset kernel (src/kernels/cpu/dataset_*_kernels.cc)
// makes one dataset from its inputs; IteratorGetNext pulls elements through the chain of
// iterators. Iterators are used by one thread at a time (their IteratorResource locks);
// some (prefetch, parallel map) run their own threads, stopped and joined on destruction.
#ifndef TENSORWEAVE_SRC_KERNELS_DATASET_H_
#define TENSORWEAVE_SRC_KERNELS_DATASET_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/function_runtime.h"
#include "kernels/op_kernel.h"
#include "tensorweave/tensor.h"

namespace tw {

using Element = std::vector<Tensor>;

class DatasetIterator {
 public:
  virtual ~DatasetIterator() = default;
  // The next element in *out, or *end = true when there is none (and every later call).
  virtual absl::Status GetNext(Element* out, bool* end) = 0;
};

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

// The iterator as one closure: each call yields the next element (its state lives in
// what the closure captures; a captured object's destructor stops its threads).
using NextFn = std::function<absl::Status(Element* out, bool* end)>;
// A dataset whose iterators are made by `make` (each call: a fresh closure at the start).
DatasetPtr MakeClosureDataset(std::vector<DType> types, std::vector<PartialShape> shapes,
                              std::function<absl::StatusOr<NextFn>()> make);

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
