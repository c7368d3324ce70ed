#include "savedmodel/saved_model_loader.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/text_format.h"
#include "savedmodel/function_inliner.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

constexpr char kSavedModelPb[] = "saved_model.pb";
constexpr char kSavedModelPbtxt[] = "saved_model.pbtxt";
// Ops of TensorFlow's checkpoint subgraphs: the scope holding one is a saver's.
const std::set<std::string>& SaverOps() {
  static const auto* ops = new std::set<std::string>{"SaveV2", "RestoreV2", "MergeV2Checkpoints", "SaveSlices",
                                                     "Save", "Restore", "RestoreSlice"};
  return *ops;
}

// What a TF saver restores into: a resource variable's handle or a TF1 reference variable.
bool IsRestorableVariable(const std::string& op) { return op == "VarHandleOp" || op == "VariableV2" || op == "Variable"; }

bool ReadFile(const std::string& path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  *bytes = s.str();
  return true;
}

std::string NodeOf(const std::string& input) {
  std::string name = absl::StartsWith(input, "^") ? input.substr(1) : input;
  return name.substr(0, name.find(':'));
}

std::string ScopeOf(const std::string& name) {
  const size_t slash = name.rfind('/');
  return slash == std::string::npos ? "" : name.substr(0, slash);
}

std::string TagList(const google::protobuf::RepeatedPtrField<std::string>& tags) {
  std::vector<std::string> quoted;
  for (const std::string& t : tags) quoted.push_back(absl::StrCat("'", t, "'"));
  return absl::StrJoin(quoted, ", ");
}

}  // namespace

absl::StatusOr<SavedModel> ReadSavedModel(const std::string& export_dir) {
  SavedModel model;
  std::string bytes;
  const std::string pb = absl::StrCat(export_dir, "/", kSavedModelPb);
  const std::string pbtxt = absl::StrCat(export_dir, "/", kSavedModelPbtxt);
  if (ReadFile(pb, &bytes)) {
    if (!model.ParseFromString(bytes)) {
      return absl::DataLossError(absl::StrCat("cannot parse ", pb, " as a SavedModel (corrupt or truncated)"));
    }
  } else if (ReadFile(pbtxt, &bytes)) {
    if (!google::protobuf::TextFormat::ParseFromString(bytes, &model)) {
      return absl::DataLossError(absl::StrCat("cannot parse ", pbtxt, " as a text SavedModel"));
    }
  } else {
    return absl::NotFoundError(absl::StrCat("SavedModel file does not exist at: ", export_dir, "/{", kSavedModelPbtxt,
                                            "|", kSavedModelPb, "}"));
  }
  return model;
}

absl::StatusOr<const MetaGraphDef*> FindMetaGraph(const SavedModel& model, const std::set<std::string>& tags) {
  std::vector<std::string> available;
  for (const MetaGraphDef& meta : model.meta_graphs()) {
    const auto& have = meta.meta_info_def().tags();
    if (std::set<std::string>(have.begin(), have.end()) == tags) return &meta;
    available.push_back(absl::StrCat("{", TagList(have), "}"));
  }
  std::vector<std::string> wanted;
  for (const std::string& t : tags) wanted.push_back(absl::StrCat("'", t, "'"));
  return absl::NotFoundError(absl::StrCat("MetaGraphDef associated with tags ", absl::StrJoin(wanted, ", "),
                                          " could not be found in SavedModel, with available tags '[",
                                          absl::StrJoin(available, ", "), "]'"));
}

// TF2's saver is two function calls (restore_op_name and the node of save_tensor_name):
// the restore function's body gives, for each AssignVariableOp, the checkpoint key
// (RestoreV2's tensor_names, through Identities) and the handle (the call's input).
absl::Status Tf2Restores(const GraphDef& graph, const MetaGraphDef& meta, const FunctionDefLibrary& library,
                         std::vector<std::pair<std::string, std::string>>* restored) {
  const NodeDef* call = nullptr;
  for (const NodeDef& n : graph.node()) {
    if (n.name() == meta.saver_def().restore_op_name() && IsFunctionCall(n)) call = &n;
  }
  if (call == nullptr) return absl::OkStatus();
  absl::StatusOr<std::string> name = CalledFunction(*call);
  if (!name.ok()) return name.status();
  const FunctionDef* fn = nullptr;
  for (const FunctionDef& f : library.function()) {
    if (f.signature().name() == *name) fn = &f;
  }
  if (fn == nullptr) return absl::NotFoundError(absl::StrCat("the restore function '", *name, "' is missing"));
  std::map<std::string, const NodeDef*> body;
  for (const NodeDef& n : fn->node_def()) body[n.name()] = &n;
  std::map<std::string, std::string> arg_to_input;
  for (int i = 0; i < fn->signature().input_arg_size() && i < call->input_size(); ++i) {
    arg_to_input[fn->signature().input_arg(i).name()] = NodeOf(call->input(i));
  }
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("restore function '", *name, "': ", why));
  };
  for (const NodeDef& n : fn->node_def()) {
    if (n.op() != "AssignVariableOp" || n.input_size() < 2) continue;
    auto handle = arg_to_input.find(n.input(0));
    if (handle == arg_to_input.end()) return bad(absl::StrCat("'", n.name(), "' assigns no argument"));
    // Back through Identities to "RestoreV2:tensors:i".
    std::string value = n.input(1);
    for (int hops = 0; hops < 8; ++hops) {
      auto src = body.find(NodeOf(value));
      if (src == body.end() || src->second->op() != "Identity" || src->second->input_size() == 0) break;
      value = src->second->input(0);
    }
    std::vector<std::string> parts = absl::StrSplit(value, ':');
    int index = 0;
    auto restore = body.find(parts[0]);
    if (parts.size() != 3 || restore == body.end() || restore->second->op() != "RestoreV2" ||
        !absl::SimpleAtoi(parts[2], &index) || restore->second->input_size() < 2) {
      return bad(absl::StrCat("'", n.name(), "' assigns '", value, "', not a RestoreV2 output"));
    }
    auto names = body.find(NodeOf(restore->second->input(1)));
    if (names == body.end() || !names->second->attr().count("value")) return bad("RestoreV2 has no tensor_names");
    const auto& keys = names->second->attr().at("value").tensor().string_val();
    if (index < 0 || index >= keys.size()) return bad(absl::StrCat("RestoreV2 has no output ", index));
    restored->emplace_back(keys[index], handle->second);
  }
  return absl::OkStatus();
}

absl::StatusOr<GraphDef> GraphDefForLoad(const MetaGraphDef& meta, const std::string& variables_prefix,
                                         std::string* restore_op, std::map<std::string, std::string>* renamed) {
  restore_op->clear();
  std::map<std::string, std::string> ignored_renames;
  if (renamed == nullptr) renamed = &ignored_renames;
  GraphDef in = meta.graph_def();
  // Checkpoint key -> variable handle's node name.
  std::vector<std::pair<std::string, std::string>> restored;
  if (std::any_of(in.node().begin(), in.node().end(), [](const NodeDef& n) { return IsFunctionCall(n); })) {
    // TF2: the saver's two calls go (restored by our own ops below), the rest is inlined.
    const FunctionDefLibrary library = LibraryOf(in);
    TW_RETURN_IF_ERROR(Tf2Restores(in, meta, library, &restored));
    const std::string save_node = NodeOf(meta.saver_def().save_tensor_name());
    GraphDef kept;
    *kept.mutable_versions() = in.versions();
    for (const NodeDef& n : in.node()) {
      if (IsFunctionCall(n) && (n.name() == meta.saver_def().restore_op_name() || n.name() == save_node)) continue;
      *kept.add_node() = n;
    }
    TW_RETURN_IF_ERROR(InlineFunctionCalls(&kept, library, renamed));
    in = std::move(kept);
  }
  std::set<std::string> saver_scopes;
  std::map<std::string, const NodeDef*> by_name;
  for (const NodeDef& node : in.node()) {
    if (SaverOps().count(node.op()) && node.name().find('/') != std::string::npos) {
      saver_scopes.insert(ScopeOf(node.name()));
    }
    by_name[node.name()] = &node;
  }
  auto in_saver = [&](const std::string& name) {
    for (const std::string& s : saver_scopes) {
      if (absl::StartsWith(name, s + "/")) return true;
    }
    return false;
  };
  // The MetaGraph's own saver (a graph may hold the savers of other MetaGraphs too: TF's
  // builder adds one per add_meta_graph), else every saver.
  std::set<std::string> restoring = saver_scopes;
  if (const std::string own = ScopeOf(meta.saver_def().restore_op_name()); saver_scopes.count(own)) {
    restoring = {own};
  }
  // TF1: checkpoint keys are the handles' names, listed by the RestoreV2 ops.
  for (const NodeDef& node : in.node()) {
    if (node.op() != "RestoreV2" || !restoring.count(ScopeOf(node.name())) || node.input_size() < 2) continue;
    auto names = by_name.find(NodeOf(node.input(1)));
    if (names == by_name.end() || names->second->op() != "Const") continue;
    auto value = names->second->attr().find("value");
    if (value == names->second->attr().end()) continue;
    for (const std::string& key : value->second.tensor().string_val()) restored.emplace_back(key, key);
  }
  std::vector<std::pair<std::string, const NodeDef*>> restored_handles;
  std::set<std::string> keys;
  for (const auto& [key, handle_name] : restored) {
    auto handle = by_name.find(handle_name);
    if (handle == by_name.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the saver restores '", key, "' into '", handle_name, "', which is not a node of the graph"));
    }
    if (!IsRestorableVariable(handle->second->op())) {
      return absl::UnimplementedError(absl::StrCat("the saver restores '", key, "' into '", handle_name, "', a ",
                                                   handle->second->op(),
                                                   ": only variables (VarHandleOp, VariableV2, Variable) are restored"));
    }
    if (keys.insert(key).second) restored_handles.emplace_back(key, handle->second);
  }
  GraphDef out;
  *out.mutable_versions() = in.versions();
  std::set<std::string> names;
  for (const NodeDef& node : in.node()) {
    if (in_saver(node.name())) continue;
    for (const std::string& input : node.input()) {
      if (in_saver(NodeOf(input))) {
        return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' uses '", input,
                                                       "' of the saver subgraph"));
      }
    }
    *out.add_node() = node;
    names.insert(node.name());
  }
  if (restored_handles.empty()) return out;
  std::string scope = "tw_restore";
  for (int k = 1; names.count(scope) || std::any_of(names.begin(), names.end(), [&](const std::string& n) {
                    return absl::StartsWith(n, scope + "/");
                  });
       ++k) {
    scope = absl::StrCat("tw_restore_", k);
  }
  NodeDef* restore = out.add_node();
  restore->set_name(scope + "/RestoreTensors");
  restore->set_op("RestoreTensors");
  auto& attrs = *restore->mutable_attr();
  attrs["path"].set_s(variables_prefix);
  for (const auto& [key, handle] : restored_handles) {
    attrs["names"].mutable_list()->add_s(key);
    const auto& handle_attrs = handle->attr();
    if (!handle_attrs.count("dtype") || !handle_attrs.count("shape")) {
      return absl::InvalidArgumentError(
          absl::StrCat("variable '", key, "' (", handle->op(), ") has no dtype or shape attr"));
    }
    attrs["dtypes"].mutable_list()->add_type(handle_attrs.at("dtype").type());
    *attrs["shapes"].mutable_list()->add_shape() = handle_attrs.at("shape").shape();
  }
  NodeDef* all = nullptr;
  std::vector<std::string> assigns;
  for (size_t i = 0; i < restored_handles.size(); ++i) {
    NodeDef* assign = out.add_node();
    assign->set_name(absl::StrCat(scope, "/Assign_", i));
    assign->add_input(restored_handles[i].second->name());
    assign->add_input(absl::StrCat(restore->name(), ":", i));
    const DataType dtype = restored_handles[i].second->attr().at("dtype").type();
    if (restored_handles[i].second->op() == "VarHandleOp") {
      assign->set_op("AssignVariableOp");
      (*assign->mutable_attr())["dtype"].set_type(dtype);
    } else {  // a TF1 reference variable: TF's own saver assigns it (the import lowers both)
      assign->set_op("Assign");
      (*assign->mutable_attr())["T"].set_type(dtype);
    }
    assigns.push_back("^" + assign->name());
  }
  all = out.add_node();
  all->set_name(scope + "/restore_all");
  all->set_op("NoOp");
  for (const std::string& a : assigns) all->add_input(a);
  *restore_op = all->name();
  return out;
}

absl::StatusOr<SavedModelBundle> LoadSavedModel(const std::string& export_dir, const std::set<std::string>& tags,
                                                const std::string& target, const SessionConfig& config) {
  auto in_dir = [&](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("SavedModel ", export_dir, ": ", s.message()));
  };
  absl::StatusOr<SavedModel> model = ReadSavedModel(export_dir);
  if (!model.ok()) return model.status();
  absl::StatusOr<const MetaGraphDef*> meta = FindMetaGraph(*model, tags);
  if (!meta.ok()) return in_dir(meta.status());
  const std::string prefix = absl::StrCat(export_dir, "/variables/variables");
  std::string restore_op;
  std::map<std::string, std::string> renamed;
  absl::StatusOr<GraphDef> def = GraphDefForLoad(**meta, prefix, &restore_op, &renamed);
  if (!def.ok()) return in_dir(def.status());
  SavedModelBundle bundle;
  bundle.meta_graph_def = **meta;
  // Signatures name the outputs of inlined calls: point them where those outputs went.
  for (auto& [key, sig] : *bundle.meta_graph_def.mutable_signature_def()) {
    for (auto* infos : {sig.mutable_inputs(), sig.mutable_outputs()}) {
      for (auto& [k, info] : *infos) {
        if (auto r = renamed.find(info.name()); r != renamed.end()) info.set_name(r->second);
      }
    }
  }
  bundle.graph = std::make_unique<Graph>();
  try {
    bundle.graph->Import(*def);
    bundle.session = std::make_unique<Session>(*bundle.graph, target, config);
  } catch (const StatusError& e) {
    return in_dir(e.status());
  }
  std::vector<std::string> targets;
  if (!restore_op.empty()) {
    std::ifstream index(prefix + ".index");
    if (!index) {
      return in_dir(absl::NotFoundError(absl::StrCat("its variables checkpoint ", prefix, ".index is missing")));
    }
    targets.push_back(restore_op);
  }
  // The main op (or a TF1 legacy init op) runs once the variables are restored.
  std::vector<std::string> main_op;
  for (const char* key : {"saved_model_main_op", "legacy_init_op"}) {
    auto it = bundle.meta_graph_def.collection_def().find(key);
    if (it != bundle.meta_graph_def.collection_def().end() && it->second.node_list().value_size() > 0) {
      main_op.push_back(NodeOf(it->second.node_list().value(0)));
      break;
    }
  }
  // TF2's init op is a signature's only output.
  if (auto init = bundle.meta_graph_def.signature_def().find("__saved_model_init_op");
      main_op.empty() && init != bundle.meta_graph_def.signature_def().end() && init->second.outputs_size() == 1) {
    main_op.push_back(NodeOf(init->second.outputs().begin()->second.name()));
  }
  std::vector<Tensor> ignored;
  for (const auto& step : {targets, main_op}) {
    if (step.empty()) continue;
    absl::Status run = bundle.session->Run({}, {}, step, &ignored);
    if (!run.ok()) return in_dir(run);
  }
  return bundle;
}

absl::StatusOr<const SignatureDef*> FindSignature(const MetaGraphDef& meta, const std::string& key) {
  auto it = meta.signature_def().find(key);
  if (it != meta.signature_def().end()) return &it->second;
  std::set<std::string> keys;
  for (const auto& [k, unused] : meta.signature_def()) keys.insert(k);
  return absl::NotFoundError(absl::StrCat("signature '", key, "' is not in the MetaGraph; it has: [",
                                          absl::StrJoin(keys, ", "), "]"));
}

}  // namespace tw
