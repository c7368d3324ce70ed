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
#include "train/checkpoint_writer.h"

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
    : graph_(&g), var_list_(std::move(var_list)), max_to_keep_(max_to_keep) {
  if (var_list_.empty()) {
    throw StatusError(absl::InvalidArgumentError("Saver: no variables to save"));
  }
  for (const Variable& v : var_list_) {
    if (v.handle().graph() != &g) {
      throw StatusError(absl::InvalidArgumentError(
          absl::StrCat("Saver: variable '", v.handle().op().valid() ? v.name() : "<empty>",
                       "' is not from this graph")));
    }
  }
}

Operation Saver::OpFor(const std::string& op, const std::string& path,
                       std::map<std::string, Operation>& cache) {
  if (auto it = cache.find(path); it != cache.end()) return it->second;
  FlowGraph& fg = graph_->flow_graph();
  // Added to the FlowGraph directly: no name, device or control scope of the caller
  // applies, so the op is colocated with the variables and nothing else.
  NodeSpec spec{fg.UniqueName("save/" + op), op, {}, "", {}};
  std::vector<std::string> names;
  for (const Variable& v : var_list_) {
    spec.inputs.push_back(NodeInput{v.handle().op().node(), v.handle().index()});
    names.push_back(v.name());
  }
  spec.attrs["N"] = MakeAttr(static_cast<int64_t>(var_list_.size()));
  spec.attrs["path"] = MakeAttr(path);
  spec.attrs["names"] = MakeAttr(absl::Span<const std::string>(names));
  Node* node = ValueOrThrow(fg.AddNode(std::move(spec)));
  Operation result(graph_, node);
  cache.emplace(path, result);
  return result;
}

std::string Saver::save(Session& sess, const std::string& prefix, int64_t global_step) {
  if (prefix.empty()) throw StatusError(absl::InvalidArgumentError("Saver::save: empty prefix"));
  const std::string path = global_step >= 0 ? absl::StrCat(prefix, "-", global_step) : prefix;
  sess.run(OpFor("SaveVariables", path, save_ops_));
  RecordCheckpoint(path);
  return path;
}

void Saver::restore(Session& sess, const std::string& path) {
  if (path.empty()) {
    throw StatusError(absl::InvalidArgumentError(
        "Saver::restore: empty path (latest_checkpoint returns \"\" when there is none)"));
  }
  sess.run(OpFor("RestoreVariables", path, restore_ops_));
}

void Saver::RecordCheckpoint(const std::string& path) {
  last_checkpoints_.erase(std::remove(last_checkpoints_.begin(), last_checkpoints_.end(), path),
                          last_checkpoints_.end());
  last_checkpoints_.push_back(path);
  if (max_to_keep_ > 0) {
    while (static_cast<int>(last_checkpoints_.size()) > max_to_keep_) {
      // A checkpoint already gone (removed by hand) is no reason to fail the save.
      ::unlink(last_checkpoints_.front().c_str());
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
    if (IsRegularFile(full)) return full;
  }
  return "";
}

}  // namespace tw
