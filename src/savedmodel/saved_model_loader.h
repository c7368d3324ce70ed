// Loading a SavedModel written by TensorFlow (TF1 builder / simple_save) or by us:
// saved_model.pb (or .pbtxt), one MetaGraphDef per tag set, and the variables checkpoint
// variables/variables.{index,data-*} in TF's V2 bundle format.
//
// TF's saver subgraph (SaveV2/RestoreV2, ShardedFilename, ...) is dropped at import: its
// RestoreV2 ops name the checkpoint keys and the variables they go to, and one
// RestoreTensors (our checkpoint op) + AssignVariableOp per variable restores them.
#ifndef TENSORWEAVE_SRC_SAVEDMODEL_SAVED_MODEL_LOADER_H_
#define TENSORWEAVE_SRC_SAVEDMODEL_SAVED_MODEL_LOADER_H_

#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tensorweave/graph.h"
#include "tensorweave/proto/saved_model.pb.h"
#include "tensorweave/session.h"
#include "core/proto_namespace.h"

namespace tw {

inline constexpr char kSavedModelTagServe[] = "serve";
inline constexpr char kDefaultServingSignatureDefKey[] = "serving_default";

// A loaded model: its graph, a session with the variables restored (and the main op run)
// and the MetaGraphDef of the tag set. The session refers to the graph: it goes first.
struct SavedModelBundle {
  std::unique_ptr<Graph> graph;
  std::unique_ptr<Session> session;
  MetaGraphDef meta_graph_def;
};

// The SavedModel of a directory: NotFound when it has neither file, DataLoss naming the
// file when it does not parse.
absl::StatusOr<SavedModel> ReadSavedModel(const std::string& export_dir);
// The MetaGraphDef whose tag set is `tags`; NotFound listing the tag sets present.
absl::StatusOr<const MetaGraphDef*> FindMetaGraph(const SavedModel& model, const std::set<std::string>& tags);
// The GraphDef to import: saver subgraphs dropped, TF2's function calls inlined
// (function_inliner.h; *renamed, if given, gets the tensor names that moved), and when
// the saver restores variables, a restore subgraph reading `variables_prefix` appended
// under a fresh scope whose NoOp is named in *restore_op ("" when nothing is restored).
// Unimplemented for a function body op we lack, InvalidArgument for a saver naming an
// unknown variable.
absl::StatusOr<GraphDef> GraphDefForLoad(const MetaGraphDef& meta, const std::string& variables_prefix,
                                         std::string* restore_op,
                                         std::map<std::string, std::string>* renamed = nullptr);
// Reads, imports, restores and runs the main op. Errors name the directory.
absl::StatusOr<SavedModelBundle> LoadSavedModel(const std::string& export_dir, const std::set<std::string>& tags,
                                                const std::string& target = "", const SessionConfig& config = {});
// One signature of a MetaGraph; NotFound listing the signatures present.
absl::StatusOr<const SignatureDef*> FindSignature(const MetaGraphDef& meta, const std::string& key);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_SAVEDMODEL_SAVED_MODEL_LOADER_H_
