// tw_op_gen: writes the C++ builders and the Python wrappers of every registered op
// (run by CMake at build time; see docs/CONTRIBUTING.md).
//   tw_op_gen <gen_ops.h> <gen_ops.cc> <gen_ops.py>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tools/op_gen/cc_writer.h"
#include "tools/op_gen/py_writer.h"

namespace {

// Writes only when the text changed, so that unchanged output does not rebuild its users.
bool WriteIfChanged(const std::string& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    std::stringstream old;
    old << in.rdbuf();
    if (in && old.str() == text) return true;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: tw_op_gen <gen_ops.h> <gen_ops.cc> <gen_ops.py>\n";
    return 2;
  }
  const tw::OpRegistry& registry = tw::OpRegistry::Global();
  std::vector<std::string> names = registry.ListOps();
  std::sort(names.begin(), names.end());
  std::vector<tw::opgen::OpSignature> ops;
  for (const std::string& name : names) {
    if (!tw::opgen::IsPublicOp(name)) continue;
    ops.push_back(tw::opgen::SignatureOf(**registry.Find(name)));
  }
  std::string header, source, python;
  absl::Status status = tw::opgen::WriteCc(ops, &header, &source);
  if (status.ok()) status = tw::opgen::WritePython(ops, &python);
  if (!status.ok()) {
    std::cerr << "tw_op_gen: " << status << "\n";
    return 1;
  }
  const char* paths[] = {argv[1], argv[2], argv[3]};
  const std::string* texts[] = {&header, &source, &python};
  for (int i = 0; i < 3; ++i) {
    if (!WriteIfChanged(paths[i], *texts[i])) {
      std::cerr << "tw_op_gen: cannot write " << paths[i] << "\n";
      return 1;
    }
  }
  return 0;
}
