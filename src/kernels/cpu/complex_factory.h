// A kernel factory for K<complex64> or K<complex128>, picked by a type attr: the complex
// counterpart of TypedFactory (op_kernel.h), for the kernels TensorFlow also registers on
// complex values.
#ifndef TENSORWEAVE_SRC_KERNELS_CPU_COMPLEX_FACTORY_H_
#define TENSORWEAVE_SRC_KERNELS_CPU_COMPLEX_FACTORY_H_

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/op_kernel.h"

namespace tw {

inline const std::vector<DType>& ComplexTypes() {
  static const auto* types = new std::vector<DType>{DType::kComplex64, DType::kComplex128};
  return *types;
}

// Fails unless the type attr `attr` is `expected`, the other half of a real/complex pair
// with the kernel's dtype `t` (Complex's Tout, Real's Tout, RFFT's Treal).
inline absl::Status CheckPair(OpKernelConstruction& c, const char* attr, DType t, DType expected) {
  DType other = DType::kInvalid;
  c.GetAttr(attr, &other);
  if (!c.status().ok()) return c.status();
  if (other == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("no ", c.op(), " kernel for T=", DTypeName(t), " and ", attr, "=",
                                                 DTypeName(other), " (", DTypeName(t), " goes with ",
                                                 DTypeName(expected), ")"));
}

template <template <typename> class K>
KernelFactory ComplexTypedFactory(const char* attr = "T") {
  return [attr](OpKernelConstruction& c) -> absl::StatusOr<std::unique_ptr<OpKernel>> {
    DType t = DType::kInvalid;
    c.GetAttr(attr, &t);
    if (!c.status().ok()) return c.status();
    std::unique_ptr<OpKernel> k;
    if (!VisitComplex(t, [&](auto tag) { k = std::make_unique<K<TypeOf<decltype(tag)>>>(c); })) {
      return absl::UnimplementedError(absl::StrCat("no ", c.op(), " kernel for ", DTypeName(t)));
    }
    if (!c.status().ok()) return c.status();
    return k;
  };
}

}  // namespace tw

#endif  // TENSORWEAVE_SRC_KERNELS_CPU_COMPLEX_FACTORY_H_
