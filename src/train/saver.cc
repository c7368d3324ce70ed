#include "tensorweave/saver.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/attr_value.h"
#include "graph/graph.h"
#include "checkpoint/checkpoint_writer.h"
#include "checkpoint/tensor_bundle.h"

namespace tw {
namespace {

constexpr char kLatestKey[] = "model_checkpoint_path";
constexpr char kAllKey[] = "all_model_checkpoint_paths";

// The state file, in TensorFlow's text format:
//   model_checkpoint_path: "model-3"
//   all_model_checkpoint_paths: "model-2"
//   all_model_checkpoint_paths: "model-3"
// Paths are relative to the state file's directory unless absolute.
struct CheckpointState {
  std::string latest;
  std::vector<std::string> all;
};

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string JoinPath(const std::string& dir, const std::string& file) {
  if (absl::StartsWith(file, "/")) return file;
  if (absl::EndsWith(dir, "/")) return dir + file;
  return absl::StrCat(dir, "/", file);
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string FormatState(const CheckpointState& state) {
  auto line = [](const char* key, const std::string& value) {
    return absl::StrCat(key, ": \"", absl::CEscape(value), "\"\n");
  };
  std::string out = line(kLatestKey, state.latest);
  for (const std::string& p : state.all) out += line(kAllKey, p);
  return out;
}

absl::StatusOr<CheckpointState> ParseState(const std::string& path, const std::string& text) {
  CheckpointState state;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    auto bad = [&] {
      return absl::DataLossError(absl::StrCat("checkpoint state file '", path, "' line ", line_no,
                                              " is malformed: '", line.substr(0, 200), "'"));
    };
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(line, absl::MaxSplits(':', 1));
    absl::string_view key = absl::StripAsciiWhitespace(kv.first);
    absl::string_view quoted = absl::StripAsciiWhitespace(kv.second);
    if (quoted.size() < 2 || quoted.front() != '"' || quoted.back() != '"') return bad();
    std::string value;
    if (!absl::CUnescape(quoted.substr(1, quoted.size() - 2), &value)) return bad();
    if (key == kLatestKey) {
      state.latest = std::move(value);
    } else if (key == kAllKey) {
      state.all.push_back(std::move(value));
    } else {
      return bad();
    }
  }
  return state;
}

}  // namespace

Saver::Saver(Graph& g, int max_to_keep) : Saver(g, global_variables(g), max_to_keep) {}

Saver::Saver(Graph& g, std::vector<Variable> var_list, int max_to_keep)
    : Saver(g, std::move(var_list), std::vector<Saveable>(), max_to_keep) {}

Saver::Saver(Graph& g, std::vector<Variable> var_list, std::vector<Saveable> saveables, int max_to_keep)
    : graph_(&g), var_list_(std::move(var_list)), max_to_keep_(max_to_keep) {
  if (var_list_.empty() && saveables.empty()) {
    throw StatusError(absl::InvalidArgumentError("Saver: no variables to save"));
  }
  for (const Variable& v : var_list_) {
    if (v.handle().graph() != &g) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("Saver: variable '", v.handle().op().valid() ? v.name() : "<empty>",
                       "' is not from this graph")));
    }
    names_.push_back(v.name());
  }
  for (Saveable& saveable : saveables) add_saveable(std::move(saveable));
}

void Saver::add_saveable(Saveable saveable) {
  if (saveable.name.empty()) throw StatusError(absl::InvalidArgumentError("Saver: a saveable's name is empty"));
  if (!saveable.tensor.op().valid() || saveable.tensor.op().graph() != graph_ || !saveable.handle.op().valid() ||
      saveable.handle.op().graph() != graph_) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("Saver: saveable '", saveable.name, "' is not from this graph")));
  }
  std::lock_guard<std::mutex> lock(mu_);
  bool taken = std::find(names_.begin(), names_.end(), saveable.name) != names_.end();
  for (const Saveable& s : saveables_) taken = taken || s.name == saveable.name;
  if (taken) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat("Saver: the name '", saveable.name,
                                                              "' is given twice")));
  }
  saveables_.push_back(std::move(saveable));
  save_ops_.clear();  // Ops built before now lack it.
  restore_ops_.clear();
}

Saver::Saver(Graph& g, const std::vector<std::pair<std::string, Variable>>& named_vars, int max_to_keep,
             const std::vector<std::string>& slice_specs)
    : Saver(g,
            [&] {
              std::vector<Variable> vars;
              for (const auto& [name, v] : named_vars) vars.push_back(v);
              return vars;
            }(),
            max_to_keep) {
  if (!slice_specs.empty() && slice_specs.size() != named_vars.size()) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat("Saver: ", slice_specs.size(), " slice specs for ",
                                                              named_vars.size(), " variables")));
  }
  names_.clear();
  for (size_t i = 0; i < named_vars.size(); ++i) {
    const auto& [name, v] = named_vars[i];
    const std::string spec = slice_specs.empty() ? "" : slice_specs[i];
    if (name.empty()) throw StatusError(absl::InvalidArgumentError("Saver: a variable's name is empty"));
    for (size_t j = 0; j < names_.size(); ++j) {
      if (names_[j] == name && (slice_specs.empty() ? "" : slice_specs[j]) == spec) {
        throw StatusError(absl::InvalidArgumentError(absl::StrCat(
            "Saver: the name '", name, "' is given twice", spec.empty() ? "" : absl::StrCat(" with slice '", spec, "'"))));
      }
    }
    absl::StatusOr<checkpoint::ShapeAndSlice> parsed = checkpoint::ParseShapeAndSlice(spec);
    if (!parsed.ok()) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat("Saver: variable '", v.name(), "': ",
                                                                parsed.status().message())));
    }
    if (!parsed->whole() && !v.shape().Matches(parsed->SliceShape())) {
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "Saver: variable '", v.name(), "' has shape ", v.shape().DebugString(), " but its slice '", spec,
          "' is ", parsed->SliceShape().DebugString())));
    }
    names_.push_back(name);
  }
  slice_specs_ = slice_specs;
}

// Why one SaveTensors/RestoreTensors op rather than one per device (TF's sharded
// Saver): one file, written atomically, and a restore validated as a whole before any
// variable changes, are the guarantees of this class. So, as TF's default (non-sharded)
// Saver: each variable is read where it lives (ReadVariableOp takes its handle, so the
// placer puts it with the variable) and the values go to one SaveTensors; one
// RestoreTensors checks the whole file and gives every value, each assigned where its
// variable lives by an AssignVariableOp. The save and restore ops have no device: they
// run on the session's default device (its task's CPU).
Node* Saver::AddNode(const std::string& name, const std::string& op,
                     const std::vector<NodeInput>& inputs, AttrMap attrs) {
  // No name, device or control scope of the caller applies; the checkpoint thread of a
  // Supervisor builds these while the training thread runs, hence the graph's lock.
  return graph_->AddUnscopedNode(NodeSpec{"save/" + name, op, inputs, "", std::move(attrs)}).node();
}

AttrMap Saver::TensorListAttrs(const std::string& path) const {
  std::vector<DType> dtypes;
  for (const Variable& v : var_list_) dtypes.push_back(v.dtype());
  std::vector<std::string> names = names_;
  for (const Saveable& s : saveables_) {
    dtypes.push_back(s.tensor.dtype());
    names.push_back(s.name);
  }
  AttrMap attrs = {{"path", MakeAttr(path)},
                   {"names", MakeAttr(absl::Span<const std::string>(names))},
                   {"dtypes", MakeAttr(absl::Span<const DType>(dtypes))}};
  if (!slice_specs_.empty()) {
    std::vector<std::string> specs = slice_specs_;
    specs.resize(names.size());  // Saveables are whole ("").
    attrs["shape_and_slices"] = MakeAttr(absl::Span<const std::string>(specs));
  }
  return attrs;
}

Operation Saver::SaveOp(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = save_ops_.find(path); it != save_ops_.end()) return it->second;
  if (reads_.empty()) {
    for (const Variable& v : var_list_) {
      Node* read = AddNode("read", "ReadVariableOp", {{v.handle().op().node(), v.handle().index()}},
                           {{"dtype", MakeAttr(v.dtype())}});
      reads_.push_back(Operation(graph_, read).output(0));
    }
  }
  std::vector<NodeInput> values;
  for (const Output& read : reads_) values.push_back(NodeInput{read.op().node(), 0});
  for (const Saveable& s : saveables_) values.push_back(NodeInput{s.tensor.op().node(), s.tensor.index()});
  Operation save(graph_, AddNode("SaveTensors", "SaveTensors", values, TensorListAttrs(path)));
  save_ops_.emplace(path, save);
  return save;
}

Operation Saver::RestoreOp(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = restore_ops_.find(path); it != restore_ops_.end()) return it->second;
  AttrMap attrs = TensorListAttrs(path);
  std::vector<PartialShape> shapes;
  for (const Variable& v : var_list_) shapes.push_back(v.shape());
  for (size_t i = 0; i < saveables_.size(); ++i) shapes.push_back(PartialShape::UnknownRank());
  attrs["shapes"] = MakeAttr(absl::Span<const PartialShape>(shapes));
  Node* restore = AddNode("RestoreTensors", "RestoreTensors", {}, std::move(attrs));
  std::vector<NodeInput> assigns;
  for (size_t i = 0; i < var_list_.size(); ++i) {
    const Variable& v = var_list_[i];
    Node* assign = AddNode("Assign", "AssignVariableOp",
                           {{v.handle().op().node(), v.handle().index()},
                            {restore, static_cast<int>(i)}},
                           {{"dtype", MakeAttr(v.dtype())}});
    assigns.push_back(NodeInput{assign, kControlSlot});
  }
  for (size_t i = 0; i < saveables_.size(); ++i) {
    const Saveable& s = saveables_[i];
    Node* take = AddNode("restore_saveable", s.restore_op,
                         {{s.handle.op().node(), s.handle.index()},
                          {restore, static_cast<int>(var_list_.size() + i)}},
                         {});
    assigns.push_back(NodeInput{take, kControlSlot});
  }
  Operation restore_all(graph_, AddNode("restore_all", "NoOp", assigns, {}));
  restore_ops_.emplace(path, restore_all);
  return restore_all;
}

std::string Saver::save(Session& sess, const std::string& prefix, int64_t global_step) {
  if (prefix.empty()) throw StatusError(absl::InvalidArgumentError("Saver::save: empty prefix"));
  const std::string path = global_step >= 0 ? absl::StrCat(prefix, "-", global_step) : prefix;
  sess.run(SaveOp(path));
  RecordCheckpoint(path);
  return path;
}

void Saver::restore(Session& sess, const std::string& path) {
  if (path.empty()) {
    throw StatusError(absl::InvalidArgumentError(
        "Saver::restore: empty path (latest_checkpoint returns \"\" when there is none)"));
  }
  sess.run(RestoreOp(path));
}

std::vector<std::string> Saver::last_checkpoints() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_checkpoints_;
}

void Saver::RecordCheckpoint(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  last_checkpoints_.erase(std::remove(last_checkpoints_.begin(), last_checkpoints_.end(), path),
                          last_checkpoints_.end());
  last_checkpoints_.push_back(path);
  if (max_to_keep_ > 0) {
    while (static_cast<int>(last_checkpoints_.size()) > max_to_keep_) {
      // A checkpoint already gone (removed by hand) is no reason to fail the save.
      checkpoint::RemoveCheckpoint(last_checkpoints_.front());
      last_checkpoints_.erase(last_checkpoints_.begin());
    }
  }
  // The state file lists the kept checkpoints of its own directory, relative to it.
  const std::string dir = checkpoint::DirName(path);
  CheckpointState state;
  state.latest = BaseName(path);
  for (const std::string& p : last_checkpoints_) {
    if (checkpoint::DirName(p) == dir) state.all.push_back(BaseName(p));
  }
  ThrowIfError(
      checkpoint::WriteFileAtomically(JoinPath(dir, kCheckpointStateFile), FormatState(state)));
}

std::string latest_checkpoint(const std::string& dir) {
  const std::string state_path = JoinPath(dir, kCheckpointStateFile);
  std::ifstream in(state_path, std::ios::binary);
  if (!in) return "";
  std::stringstream text;
  text << in.rdbuf();
  CheckpointState state = ValueOrThrow(ParseState(state_path, text.str()));
  // The recorded latest first, then the kept ones newest first; skip files now missing.
  std::vector<std::string> candidates;
  if (!state.latest.empty()) candidates.push_back(state.latest);
  candidates.insert(candidates.end(), state.all.rbegin(), state.all.rend());
  for (const std::string& c : candidates) {
    const std::string full = JoinPath(dir, c);
    if (checkpoint::IsTensorBundle(full) || IsRegularFile(full)) return full;
  }
  return "";
}

}  // namespace tw
