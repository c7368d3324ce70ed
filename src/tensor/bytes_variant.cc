#include "tensor/bytes_variant.h"

#include <memory>

namespace tw {

Tensor BytesVariant(std::string bytes) {
  auto object = std::make_shared<const std::string>(std::move(bytes));
  return Tensor::Variant(VariantValue{kBytesVariantType, std::shared_ptr<const void>(object, object.get())});
}

const std::string* BytesOfVariant(const Tensor& t) {
  if (t.dtype() != DType::kVariant || t.NumElements() != 1 || t.variant().type_name != kBytesVariantType) {
    return nullptr;
  }
  return static_cast<const std::string*>(t.variant().object.get());
}

}  // namespace tw
