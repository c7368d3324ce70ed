// GraphDef text as TensorFlow's Python writes it (google.protobuf.text_format, which
// tf.io.write_graph and most TF1 programs use): protobuf's C++ printer, except that floats
// and doubles are printed the way Python's text_format prints them ("0.0" where C++ writes "0").
#ifndef TW_TOOLS_TW_GRAPH_TEXT_H_
#define TW_TOOLS_TW_GRAPH_TEXT_H_

#include <set>
#include <string>

#include "google/protobuf/message.h"

namespace tw::cli {

// The text; fields this build's protos do not model are left out (text cannot carry them).
std::string TensorFlowText(const google::protobuf::Message& message);

// "NodeDef field 7", once each, for the fields of `message` and its submessages that this
// build's protos do not model.
void CollectUnknownFields(const google::protobuf::Message& message, std::set<std::string>* found);

// Python's repr of a double ("0.0", "1e-05", "1.5e+16", "inf", "nan").
std::string PythonRepr(double value);
// What Python's text_format prints for a float field: the shortest "%.{6..9}g" that reads
// back as the same float32, then that number's repr.
std::string PythonFloatText(float value);

}  // namespace tw::cli

#endif  // TW_TOOLS_TW_GRAPH_TEXT_H_
