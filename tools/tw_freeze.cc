// `tw freeze`: TensorFlow's freeze_graph. The graph comes from a GraphDef (--input_graph), a
// MetaGraph (--input_meta_graph) or a SavedModel (--input_saved_model_dir), the variables'
// values from a checkpoint (--input_checkpoint; a SavedModel's own variables by default),
// and the frozen GraphDef (graph/freeze_graph.h) is written in binary to --output_graph.
#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/freeze_graph.h"
#include "savedmodel/saved_model_loader.h"
#include "tensorweave/status.h"
#include "tw_commands.h"
#include "tw_flags.h"
#include "tw_graph_files.h"

ABSL_FLAG(std::string, input_graph, "", "the GraphDef to freeze (text for .pbtxt/.txt, else binary)");
ABSL_FLAG(bool, input_binary, false, "read --input_graph as binary whatever its name");
ABSL_FLAG(std::string, input_meta_graph, "", "take the graph from this MetaGraphDef instead of --input_graph");
ABSL_FLAG(std::string, input_saved_model_dir, "",
          "take the graph and (without --input_checkpoint) the variables from this SavedModel");
ABSL_FLAG(std::string, saved_model_tags, "serve", "the SavedModel's tag set, comma-separated");
ABSL_FLAG(std::string, input_checkpoint, "",
          "the checkpoint prefix holding the variables' values (a directory: its latest checkpoint)");
ABSL_FLAG(std::string, output_node_names, "", "the nodes the frozen graph must compute, comma-separated");
ABSL_FLAG(std::string, output_graph, "", "where to write the frozen GraphDef (binary; text for .pbtxt/.txt)");
ABSL_FLAG(bool, clear_devices, true, "clear every node's device (--clear_devices=false keeps them)");
ABSL_FLAG(std::string, variable_names_whitelist, "", "convert only these variables, comma-separated");
ABSL_FLAG(std::string, variable_names_blacklist, "", "never convert these variables, comma-separated");

namespace tw::cli {
namespace {

constexpr char kUsage[] =
    "usage: tw freeze (--input_graph G [--input_binary] | --input_meta_graph M) --input_checkpoint CKPT\n"
    "                 --output_node_names a,b --output_graph OUT\n"
    "       tw freeze --input_saved_model_dir DIR [--saved_model_tags serve] --output_node_names a,b\n"
    "                 --output_graph OUT\n"
    "  Writes a GraphDef with only what the outputs need, every variable a Const of its value.\n"
    "flags:\n";

std::vector<FlagBinding> FreezeBindings() {
  return {Bind(FLAGS_input_graph),         Bind(FLAGS_input_binary),      Bind(FLAGS_input_meta_graph),
          Bind(FLAGS_input_saved_model_dir), Bind(FLAGS_saved_model_tags), Bind(FLAGS_input_checkpoint),
          Bind(FLAGS_output_node_names),   Bind(FLAGS_output_graph),      Bind(FLAGS_clear_devices),
          Bind(FLAGS_variable_names_whitelist), Bind(FLAGS_variable_names_blacklist)};
}

std::vector<std::string> SplitList(const std::string& text) {
  return absl::StrSplit(text, ',', absl::SkipWhitespace());
}

// A SavedModel's graph as the loader prepares it (savedmodel/saved_model_loader.h): TF2's
// function calls inlined, and a restore subgraph whose RestoreTensors names, for each
// variable handle it assigns, the checkpoint key (TF2's object-based keys differ from the
// handles' names).
// A graph the loader cannot prepare (a TF1 one on reference variables) is taken as it is.
absl::StatusOr<GraphDef> SavedModelGraph(const MetaGraphDef& meta, const std::string& prefix,
                                         std::vector<std::string>* outputs, std::map<std::string, std::string>* keys) {
  std::string restore_op;
  std::map<std::string, std::string> renamed;
  absl::StatusOr<GraphDef> def = GraphDefForLoad(meta, prefix, &restore_op, &renamed);
  if (!def.ok()) {
    const auto& nodes = meta.graph_def().node();
    const bool calls = std::any_of(nodes.begin(), nodes.end(), [](const NodeDef& n) {
      return n.op() == "StatefulPartitionedCall" || n.op() == "PartitionedCall";
    });
    if (calls) return def.status();  // TF2: without inlining its variables cannot be found
    return meta.graph_def();
  }
  // A call inlined keeps its name for output 0; its outputs 1..N-1 moved to Identities
  // "<call>/_output_k" (function_inliner.h), which an output naming the call keeps too.
  std::vector<std::string> kept = *outputs;
  for (const std::string& output : *outputs) {
    for (const auto& [from, to] : renamed) {
      if (from.rfind(output + ":", 0) == 0) kept.push_back(to.substr(0, to.rfind(':')));
    }
  }
  *outputs = kept;
  if (restore_op.empty()) return def;
  const std::string scope = restore_op.substr(0, restore_op.rfind('/'));
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& node : def->node()) by_name[node.name()] = &node;
  auto restore = by_name.find(scope + "/RestoreTensors");
  if (restore == by_name.end()) return def;
  const auto& names = restore->second->attr().at("names").list().s();
  for (const NodeDef& node : def->node()) {
    if (node.op() != "AssignVariableOp" || node.input_size() != 2 ||
        node.name().rfind(scope + "/", 0) != 0 || node.input(1).rfind(restore->first + ":", 0) != 0) {
      continue;
    }
    int index = 0;
    if (!absl::SimpleAtoi(node.input(1).substr(restore->first.size() + 1), &index) || index < 0 ||
        index >= names.size()) {
      continue;
    }
    (*keys)[node.input(0)] = names[index];
  }
  return def;
}

absl::Status Freeze() {
  const std::string graph_path = absl::GetFlag(FLAGS_input_graph);
  const std::string meta_path = absl::GetFlag(FLAGS_input_meta_graph);
  const std::string saved_model = absl::GetFlag(FLAGS_input_saved_model_dir);
  std::string checkpoint = absl::GetFlag(FLAGS_input_checkpoint);
  std::vector<std::string> outputs = SplitList(absl::GetFlag(FLAGS_output_node_names));
  std::map<std::string, std::string> checkpoint_keys;  // variable node -> its checkpoint key, where they differ
  const std::string output_path = absl::GetFlag(FLAGS_output_graph);
  if (!graph_path.empty() + !meta_path.empty() + !saved_model.empty() != 1) {
    return absl::InvalidArgumentError("give one of --input_graph, --input_meta_graph or --input_saved_model_dir");
  }
  if (outputs.empty()) return absl::InvalidArgumentError("--output_node_names is required");
  if (output_path.empty()) return absl::InvalidArgumentError("--output_graph is required");
  GraphDef def;
  if (!graph_path.empty()) {
    TW_ASSIGN_OR_RETURN(def, ReadGraphDef(graph_path, absl::GetFlag(FLAGS_input_binary)));
  } else if (!meta_path.empty()) {
    TW_ASSIGN_OR_RETURN(MetaGraphDef meta, ReadMetaGraph(meta_path));
    def = meta.graph_def();
  } else {
    TW_ASSIGN_OR_RETURN(SavedModel model, ReadSavedModel(saved_model));
    const std::vector<std::string> tag_list = SplitList(absl::GetFlag(FLAGS_saved_model_tags));
    TW_ASSIGN_OR_RETURN(const MetaGraphDef* meta, FindMetaGraph(model, {tag_list.begin(), tag_list.end()}));
    if (checkpoint.empty()) checkpoint = absl::StrCat(saved_model, "/variables/variables");
    TW_ASSIGN_OR_RETURN(def, SavedModelGraph(*meta, checkpoint, &outputs, &checkpoint_keys));
  }
  if (checkpoint.empty()) return absl::InvalidArgumentError("--input_checkpoint is required");
  TW_ASSIGN_OR_RETURN(std::unique_ptr<CheckpointFile> values, CheckpointFile::Open(checkpoint));
  FreezeOptions options;
  for (const std::string& name : SplitList(absl::GetFlag(FLAGS_variable_names_whitelist))) {
    options.whitelist.insert(name);
  }
  for (const std::string& name : SplitList(absl::GetFlag(FLAGS_variable_names_blacklist))) {
    options.blacklist.insert(name);
  }
  options.clear_devices = absl::GetFlag(FLAGS_clear_devices);
  int converted = 0;
  auto value_of = [&](const std::string& name) -> absl::StatusOr<Tensor> {
    ++converted;
    const auto key = checkpoint_keys.find(name);
    return values->Read(key == checkpoint_keys.end() ? name : key->second);
  };
  TW_ASSIGN_OR_RETURN(GraphDef frozen, FreezeGraphDef(def, value_of, outputs, options));
  TW_RETURN_IF_ERROR(WriteGraph(frozen, output_path, IsTextPath(output_path), "tw freeze").status());
  std::cout << "Converted " << converted << " variables to const ops.\n"
            << frozen.node_size() << " ops in the final graph.\n";
  return absl::OkStatus();
}

}  // namespace

int FreezeMain(int argc, char** argv) {
  QuietProtobufLog();
  if (WantsHelp(argc, argv)) {
    std::cout << kUsage << FlagsUsage(FreezeBindings());
    return 0;
  }
  if (absl::Status parsed = ParseFlags(FreezeBindings(), argc, argv); !parsed.ok()) {
    std::cerr << "tw freeze: " << parsed.message() << "\n";
    return 2;
  }
  absl::Status status = Freeze();
  if (!status.ok()) {
    std::cerr << "tw freeze: " << status.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace tw::cli
