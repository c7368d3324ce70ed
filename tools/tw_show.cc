// `tw show FILE_OR_DIR`: what a user needs to call a model file. For a SavedModel directory
// and a MetaGraph, each tag set's SignatureDefs printed as TensorFlow's
// `saved_model_cli show --all` prints them; for every graph (what `summarize_graph` prints)
// its inputs (placeholders with dtype and shape), outputs (nodes nothing consumes, less
// initializers, savers and assignments), an op histogram marking the ops this build lacks,
// and its variables with shapes and bytes; for a checkpoint its tensors.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/op_registry.h"
#include "savedmodel/saved_model_loader.h"
#include "checkpoint/tensor_bundle.h"
#include "tensorweave/status.h"
#include "tw_commands.h"
#include "tw_flags.h"
#include "tw_graph_files.h"

namespace tw::cli {
namespace {

constexpr char kUsage[] =
    "usage: tw show FILE_OR_DIR\n"
    "  FILE_OR_DIR: a GraphDef (.pb binary, .pbtxt text), a MetaGraph (.meta), a SavedModel\n"
    "  directory, a checkpoint prefix (model.ckpt-7, or its .index file) or a directory of\n"
    "  checkpoints (its latest).\n"
    "  Prints the inputs, outputs, op histogram (ops this build lacks marked), variables and,\n"
    "  for SavedModels and MetaGraphs, the signatures with their keys, dtypes and shapes.\n";

// "DT_FLOAT", as SignatureDefs are printed.
std::string EnumName(int dtype) {
  const std::string name = DataType_Name(static_cast<DataType>(dtype));
  return name.empty() ? absl::StrCat("DT_", dtype) : name;
}

// "float32", as TensorFlow's Python names dtypes.
std::string PythonName(int dtype) {
  std::string name = EnumName(dtype);
  if (absl::StartsWith(name, "DT_")) name = name.substr(3);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  if (name == "float") return "float32";
  if (name == "double") return "float64";
  if (name == "half") return "float16";
  return name;
}

// Bytes per element, 0 where the size is not fixed (string, resource, variant).
int64_t ElementBytes(int dtype) {
  switch (dtype) {
    case 4: case 6: case 10: return 1;    // uint8 int8 bool
    case 5: case 14: case 17: case 19: return 2;  // int16 bfloat16 uint16 half
    case 1: case 3: case 22: return 4;    // float int32 uint32
    case 2: case 8: case 9: case 23: return 8;    // double complex64 int64 uint64
    case 18: return 16;                   // complex128
    default: return 0;
  }
}

// "[?,3]" (summarize_graph's form); "<unknown>" for an unknown rank.
std::string ShapeText(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  std::vector<std::string> dims;
  for (const auto& dim : shape.dim()) dims.push_back(dim.size() < 0 ? "?" : absl::StrCat(dim.size()));
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// "(-1, 3)", "(3)", "()" or "unknown_rank": saved_model_cli's form (its own join, not a tuple).
std::string TupleText(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "unknown_rank";
  std::vector<std::string> dims;
  for (const auto& dim : shape.dim()) dims.push_back(absl::StrCat(dim.size()));
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

// Bytes of a fixed shape, -1 when a dim is unknown or the dtype has no fixed size.
int64_t ShapeBytes(int dtype, const TensorShapeProto& shape) {
  int64_t bytes = ElementBytes(dtype);
  if (bytes == 0 || shape.unknown_rank()) return -1;
  for (const auto& dim : shape.dim()) {
    if (dim.size() < 0) return -1;
    if (dim.size() > 0 && bytes > (int64_t{1} << 62) / dim.size()) return -1;  // a file's absurd shape
    bytes *= dim.size();
  }
  return bytes;
}

std::string NodeNameOf(const std::string& input) {
  std::string name = input.empty() || input[0] != '^' ? input : input.substr(1);
  return name.substr(0, name.rfind(':') == std::string::npos ? name.size() : name.rfind(':'));
}

// Nodes nobody consumes that are not what a user calls: running the graph's bookkeeping.
bool IsBookkeeping(const NodeDef& node) {
  static const std::set<std::string> kOps = {
      "NoOp", "Assign", "AssignAdd", "AssignSub", "AssignVariableOp", "AssignAddVariableOp",
      "AssignSubVariableOp", "SaveV2", "RestoreV2", "Save", "SaveSlices", "Restore", "RestoreSlice",
      "MergeV2Checkpoints", "SaveTensors", "RestoreTensors", "Const", "VarIsInitializedOp",
      "IsVariableInitialized", "VariableV2", "Variable", "VarHandleOp"};
  if (node.op() == "Placeholder") return false;  // what a user feeds, wherever it is
  if (kOps.count(node.op())) return true;
  // TF's Saver puts its nodes under "save/", "save_1/", ...
  const std::string scope = node.name().substr(0, node.name().find('/'));
  return scope != node.name() && (scope == "save" || (absl::StartsWith(scope, "save_") &&
                                                      scope.find_first_not_of("0123456789", 5) == std::string::npos));
}

const AttrValue* Attr(const NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? nullptr : &it->second;
}

void PrintGraph(const GraphDef& def, const std::string& indent) {
  std::cout << indent << "nodes: " << def.node_size() << "\n";
  std::cout << indent << "inputs:\n";
  int inputs = 0;
  for (const NodeDef& node : def.node()) {
    if (node.op() != "Placeholder" && node.op() != "PlaceholderWithDefault" && node.op() != "PlaceholderV2") continue;
    if (IsBookkeeping(node)) continue;  // the saver's filename
    const AttrValue* dtype = Attr(node, "dtype");
    const AttrValue* shape = Attr(node, "shape");
    std::cout << indent << "  " << node.name() << ": " << (dtype ? PythonName(dtype->type()) : "?") << " "
              << (shape ? ShapeText(shape->shape()) : "<unknown>")
              << (node.op() == "PlaceholderWithDefault" ? " (with default)" : "") << "\n";
    ++inputs;
  }
  if (inputs == 0) std::cout << indent << "  (none)\n";
  std::set<std::string> consumed;
  for (const NodeDef& node : def.node()) {
    for (const std::string& input : node.input()) consumed.insert(NodeNameOf(input));
  }
  std::cout << indent << "outputs:\n";
  int outputs = 0;
  for (const NodeDef& node : def.node()) {
    if (consumed.count(node.name()) || IsBookkeeping(node)) continue;
    std::cout << indent << "  " << node.name() << " (" << node.op() << ")\n";
    ++outputs;
  }
  if (outputs == 0) std::cout << indent << "  (none)\n";
  std::map<std::string, int> histogram;
  for (const NodeDef& node : def.node()) ++histogram[node.op()];
  std::vector<std::pair<std::string, int>> ops(histogram.begin(), histogram.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> missing;
  std::cout << indent << "ops:\n";
  for (const auto& [op, count] : ops) {
    const bool known = OpRegistry::Global().Find(op).ok();
    if (!known) missing.push_back(op);
    std::cout << indent << "  " << count << " " << op << (known ? "" : "  (not in this build)") << "\n";
  }
  if (!missing.empty()) {
    std::cout << indent << "ops this build lacks: " << absl::StrJoin(missing, ", ") << "\n";
  }
  std::cout << indent << "variables:\n";
  int64_t total = 0;
  int variables = 0;
  for (const NodeDef& node : def.node()) {
    if (!IsFreezableVariableOp(node.op())) continue;
    const AttrValue* dtype = Attr(node, "dtype");
    const AttrValue* shape = Attr(node, "shape");
    const int type = dtype ? dtype->type() : 0;
    const int64_t bytes = shape ? ShapeBytes(type, shape->shape()) : -1;
    std::cout << indent << "  " << node.name() << ": " << PythonName(type) << " "
              << (shape ? ShapeText(shape->shape()) : "<unknown>") << " "
              << (bytes < 0 ? "? bytes" : absl::StrCat(bytes, " bytes")) << " (" << node.op() << ")\n";
    total += std::max<int64_t>(bytes, 0);
    ++variables;
  }
  if (variables == 0) {
    std::cout << indent << "  (none)\n";
  } else {
    std::cout << indent << "  total: " << variables << " variables, " << total << " bytes\n";
  }
  int64_t const_bytes = 0;
  int consts = 0;
  for (const NodeDef& node : def.node()) {
    if (node.op() != "Const") continue;
    const AttrValue* value = Attr(node, "value");
    if (value) const_bytes += ShapeBytes(value->tensor().dtype(), value->tensor().tensor_shape()) > 0
                                  ? ShapeBytes(value->tensor().dtype(), value->tensor().tensor_shape())
                                  : 0;
    ++consts;
  }
  std::cout << indent << "constants: " << consts << " (" << const_bytes << " bytes)\n";
}

void PrintTensorInfo(const std::string& kind, const std::string& key, const TensorInfo& info) {
  std::cout << "    " << kind << "['" << key << "'] tensor_info:\n"
            << "        dtype: " << EnumName(info.dtype()) << "\n"
            << "        shape: " << TupleText(info.tensor_shape()) << "\n";
  if (info.has_coo_sparse()) {
    std::cout << "        SparseTensor: indices " << info.coo_sparse().indices_tensor_name() << ", values "
              << info.coo_sparse().values_tensor_name() << ", dense_shape "
              << info.coo_sparse().dense_shape_tensor_name() << "\n";
  } else {
    std::cout << "        name: " << info.name() << "\n";
  }
}

void PrintMetaGraph(const MetaGraphDef& meta) {
  const auto& tags = meta.meta_info_def().tags();
  std::cout << "\nMetaGraphDef with tag-set: '" << absl::StrJoin(tags, ", ")
            << "' contains the following SignatureDefs:\n";
  std::map<std::string, const SignatureDef*> sorted;
  for (const auto& [key, sig] : meta.signature_def()) sorted[key] = &sig;
  for (const auto& [key, sig] : sorted) {
    std::cout << "\nsignature_def['" << key << "']:\n"
              << "  The given SavedModel SignatureDef contains the following input(s):\n";
    for (const auto& [k, info] : std::map<std::string, TensorInfo>(sig->inputs().begin(), sig->inputs().end())) {
      PrintTensorInfo("inputs", k, info);
    }
    std::cout << "  The given SavedModel SignatureDef contains the following output(s):\n";
    for (const auto& [k, info] : std::map<std::string, TensorInfo>(sig->outputs().begin(), sig->outputs().end())) {
      PrintTensorInfo("outputs", k, info);
    }
    std::cout << "  Method name is: " << sig->method_name() << "\n";
  }
  std::cout << "Graph of tag-set '" << absl::StrJoin(tags, ", ") << "':\n";
  PrintGraph(meta.graph_def(), "  ");
}

absl::Status ShowCheckpoint(const std::string& prefix) {
  TW_ASSIGN_OR_RETURN(std::unique_ptr<CheckpointFile> file, CheckpointFile::Open(prefix));
  std::cout << "Checkpoint: " << file->prefix() << "\n";
  int64_t total = 0;
  std::vector<CheckpointEntry> entries = file->Entries();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const CheckpointEntry& entry : entries) {
    const int64_t bytes = static_cast<int64_t>(DTypeSize(entry.dtype)) * entry.shape.num_elements();
    std::cout << "  " << entry.name << ": " << DTypeName(entry.dtype) << " " << entry.shape.DebugString() << " "
              << bytes << " bytes\n";
    total += bytes;
  }
  std::cout << "  total: " << entries.size() << " tensors, " << total << " bytes\n";
  return absl::OkStatus();
}

absl::Status Show(std::string path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::is_directory(path, error)) {
    // A directory of checkpoints (with TF's "checkpoint" state file) shows its latest one.
    if (!fs::exists(path + "/saved_model.pb", error) && !fs::exists(path + "/saved_model.pbtxt", error)) {
      if (fs::exists(path + "/checkpoint", error)) return ShowCheckpoint(path);
      return absl::NotFoundError(absl::StrCat("'", path, "' is neither a SavedModel (no saved_model.pb or ",
                                              "saved_model.pbtxt) nor a checkpoint directory (no checkpoint file)"));
    }
    TW_ASSIGN_OR_RETURN(SavedModel model, ReadSavedModel(path));
    std::cout << "SavedModel: " << path << "\n";
    // By tag list, as saved_model_cli orders them.
    std::vector<const MetaGraphDef*> metas;
    for (const MetaGraphDef& meta : model.meta_graphs()) metas.push_back(&meta);
    auto tags = [](const MetaGraphDef* m) {
      return std::vector<std::string>(m->meta_info_def().tags().begin(), m->meta_info_def().tags().end());
    };
    std::stable_sort(metas.begin(), metas.end(), [&](auto* a, auto* b) { return tags(a) < tags(b); });
    for (const MetaGraphDef* meta : metas) PrintMetaGraph(*meta);
    return absl::OkStatus();
  }
  if (absl::EndsWith(path, ".index")) path.resize(path.size() - 6);
  if (checkpoint::IsTensorBundle(path)) return ShowCheckpoint(path);
  TW_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(path));
  if (absl::StartsWith(bytes, "TWCKPT01")) return ShowCheckpoint(path);
  if (absl::EndsWith(path, ".meta") || absl::EndsWith(path, ".meta.pbtxt")) {
    TW_ASSIGN_OR_RETURN(MetaGraphDef meta, ReadMetaGraph(path));
    std::cout << "MetaGraph: " << path << "\n";
    PrintMetaGraph(meta);
    return absl::OkStatus();
  }
  absl::StatusOr<GraphDef> def = ReadGraphDef(path);
  // A MetaGraph under another name can parse as a GraphDef whose "nodes" lack ops.
  const bool odd = !def.ok() || std::any_of(def->node().begin(), def->node().end(),
                                            [](const NodeDef& n) { return n.op().empty(); });
  if (odd) {
    absl::StatusOr<MetaGraphDef> meta = ReadMetaGraph(path);
    if (meta.ok() && meta->graph_def().node_size() > 0) {
      std::cout << "MetaGraph: " << path << "\n";
      PrintMetaGraph(*meta);
      return absl::OkStatus();
    }
  }
  if (!def.ok()) return def.status();
  std::cout << "GraphDef: " << path << "\n";
  PrintGraph(*def, "");
  return absl::OkStatus();
}

}  // namespace

int ShowMain(int argc, char** argv) {
  QuietProtobufLog();
  if (WantsHelp(argc, argv)) {
    std::cout << kUsage;
    return 0;
  }
  if (argc != 1 || argv[0][0] == '-') {
    std::cerr << "tw show: give one FILE_OR_DIR\n" << kUsage;
    return 2;
  }
  absl::Status status = Show(argv[0]);
  if (!status.ok()) {
    std::cerr << "tw show: " << status.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace tw::cli
