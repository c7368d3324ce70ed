// TensorFlow's names of DataType enum values, for messages about dtypes tensorweave does
// not support ("DT_STRING (7)" instead of "value 7").
#ifndef TENSORWEAVE_SRC_TENSOR_TF_DTYPE_NAME_H_
#define TENSORWEAVE_SRC_TENSOR_TF_DTYPE_NAME_H_

#include <string>

namespace tw {

// "DT_STRING (7)", "DT_FLOAT_REF (101)"; "999 (not a TensorFlow dtype)" for values TF lacks.
std::string TfDTypeName(int value);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_TENSOR_TF_DTYPE_NAME_H_
