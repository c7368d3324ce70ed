// Reading the files the graph commands (freeze, show, convert) take: GraphDefs and
// MetaGraphDefs in binary or text, and checkpoints in either of our formats. Errors name
// the file: NotFound when it is missing, InvalidArgument/DataLoss when it does not parse.
#ifndef TW_TOOLS_TW_GRAPH_FILES_H_
#define TW_TOOLS_TW_GRAPH_FILES_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/freeze_graph.h"
#include "tensorweave/proto/meta_graph.pb.h"
#include "core/proto_namespace.h"

namespace tw::cli {

// Keeps libprotobuf's own log lines (e.g. "invalid UTF-8" while parsing a damaged file) off
// stderr: the commands report each bad file in one line of their own.
void QuietProtobufLog();

// The whole file; NotFound naming it when it cannot be opened.
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);
// Whether the path names text (.pbtxt / .txt).
bool IsTextPath(const std::string& path);
// A GraphDef: text for .pbtxt/.txt, else binary (falling back to text); `binary` forces binary.
absl::StatusOr<GraphDef> ReadGraphDef(const std::string& path, bool binary = false);
// A MetaGraphDef, binary or text, same rules.
absl::StatusOr<MetaGraphDef> ReadMetaGraph(const std::string& path);

// Writes `def` to `path` as text (TensorFlow's Python text form, tw_graph_text.h; a warning
// "<command>: warning: ..." on stderr names the fields that text leaves out) or binary
// (deterministic: map entries by key, so the same graph always gives the same bytes).
// Returns the bytes written; Internal naming the file when it cannot be written.
absl::StatusOr<size_t> WriteGraph(const GraphDef& def, const std::string& path, bool text, const std::string& command);

// The checkpoint prefix a directory's "checkpoint" state file names as the latest (what
// tf.train.latest_checkpoint returns; relative paths are under `dir`); NotFound when the
// directory has no such file, DataLoss naming it when it names nothing.
absl::StatusOr<std::string> LatestCheckpoint(const std::string& dir);

// One tensor of a checkpoint, as a checkpoint lists it.
struct CheckpointEntry {
  std::string name;
  DType dtype;
  TensorShape shape;
};
// A checkpoint at `path`: a prefix (TF's V2 bundle <prefix>.index, or a TWCKPT01 file) or a
// directory, whose latest checkpoint it opens.
class CheckpointFile {
 public:
  static absl::StatusOr<std::unique_ptr<CheckpointFile>> Open(const std::string& path);
  virtual const std::string& prefix() const = 0;
  virtual ~CheckpointFile() = default;
  virtual std::vector<CheckpointEntry> Entries() const = 0;
  // NotFound "checkpoint '<prefix>' has no tensor '<name>'" when absent.
  virtual absl::StatusOr<Tensor> Read(const std::string& name) const = 0;
};

}  // namespace tw::cli

#endif  // TW_TOOLS_TW_GRAPH_FILES_H_
