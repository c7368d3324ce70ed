// Saver: writes variables to checkpoint files and reads them back, as TensorFlow 1.x's
// tf.train.Saver.
//
//   tw::Saver saver(g);                                 // every global variable
//   std::string path = saver.save(sess, "/ckpt/model", step);  // "/ckpt/model-<step>"
//   ...
//   saver.restore(sess, tw::latest_checkpoint("/ckpt"));
//
// Variables may live on several devices or tasks (e.g. placed by replica_device_setter):
// each is read where it lives and the values are written by one SaveTensors op; one
// RestoreTensors op reads and checks the whole file, and each value is assigned where its
// variable lives. Those two ops run on the session's default device (the CPU of the task
// the session talks to). The path is an attr of those ops, so each distinct path adds a
// few ops to the graph (one save op, or one restore op and an assign per variable; reused
// when the same path is saved or restored again). They are added outside any name,
// device or control-dependency scope active at the call. The file paths are those of the
// session's task; the "checkpoint" state file and the deletion of old checkpoints happen
// in this process, so on a cluster they assume a shared file system.
#ifndef TENSORWEAVE_SAVER_H_
#define TENSORWEAVE_SAVER_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "tensorweave/graph.h"
#include "tensorweave/session.h"
#include "tensorweave/variables.h"

namespace tw {

struct NodeInput;

// The name of the state file a Saver keeps beside its checkpoints.
inline constexpr char kCheckpointStateFile[] = "checkpoint";

class Saver {
 public:
  // Something saved beside the variables (TF's SaveableObject), e.g. a tf.data iterator's
  // position: `tensor` (SerializeIterator's output) is written under `name`; a restore
  // runs `restore_op` (e.g. "DeserializeIterator") on (`handle`, the value read back).
  struct Saveable {
    std::string name;
    Output tensor;
    Output handle;
    std::string restore_op;
  };

  // Saves the global variables that exist now (later ones are not included).
  explicit Saver(Graph& g, int max_to_keep = 5);
  // Saves `var_list`, each under its variable's name. Throws InvalidArgument when the list
  // is empty. max_to_keep <= 0 keeps every checkpoint.
  Saver(Graph& g, std::vector<Variable> var_list, int max_to_keep = 5);
  // Saves `var_list` and `saveables` (either may be empty, not both).
  Saver(Graph& g, std::vector<Variable> var_list, std::vector<Saveable> saveables, int max_to_keep = 5);
  // Saves each variable under the name paired with it (TF's Saver(var_list=dict)), e.g.
  // to read a checkpoint written by a graph whose variables are named differently.
  // `slice_specs` (none, or one per variable) makes shards of a partitioned variable
  // slices of it, as TensorFlow saves them: each shard is paired with the whole variable's
  // name and its spec (TF's Variable.SaveSliceInfo.spec, e.g. "10 4 5,5:0,4" for rows 5..9
  // of a 10 x 4 variable; "" for a whole variable). A restore gives each shard its block
  // of the saved variable, whatever shards it was saved from. InvalidArgument for an empty
  // list, an empty name, a name and spec given twice, or a bad spec or one whose block is
  // not the variable's shape.
  Saver(Graph& g, const std::vector<std::pair<std::string, Variable>>& named_vars, int max_to_keep = 5,
        const std::vector<std::string>& slice_specs = {});

  // Writes every variable to the checkpoint "<prefix>-<global_step>" (just `prefix` when
  // global_step < 0) in TensorFlow's V2 format (<path>.index and
  // <path>.data-00000-of-00001, which TensorFlow reads), atomically, and returns that path. Then deletes this Saver's checkpoints beyond the
  // newest max_to_keep and rewrites "<dir of prefix>/checkpoint" (atomically) naming the
  // newest and the kept ones. Throws StatusError: FailedPrecondition for an uninitialized
  // variable, NotFound when the directory does not exist, other I/O errors by kind; on
  // error no checkpoint file is left behind.
  std::string save(Session& sess, const std::string& prefix, int64_t global_step = -1);

  // Assigns every variable its value in the checkpoint at `path`: a V2 checkpoint
  // (TensorFlow's or ours; a partitioned variable TensorFlow saved in slices is read whole) or a
  // TWCKPT01 file. Everything is checked
  // before anything is assigned, so on error every variable keeps its value. Throws
  // StatusError: NotFound for a missing file or tensor, DataLoss for a corrupted or
  // truncated file, InvalidArgument naming the tensor for a dtype or shape mismatch.
  void restore(Session& sess, const std::string& path);

  // Adds a saveable to what later saves write and restores read. InvalidArgument when its
  // name is a variable's or another saveable's, or its tensors are not of this graph.
  void add_saveable(Saveable saveable);
  const std::vector<Saveable>& saveables() const { return saveables_; }

  // The checkpoints this Saver wrote and still keeps, oldest first.
  std::vector<std::string> last_checkpoints() const;
  const std::vector<Variable>& var_list() const { return var_list_; }

 private:
  Operation SaveOp(const std::string& path);
  Operation RestoreOp(const std::string& path);  // The op grouping the assignments.
  Node* AddNode(const std::string& name, const std::string& op, const std::vector<NodeInput>& inputs,
                std::map<std::string, AttrValue> attrs);
  // path, names and dtypes of the variables, for SaveTensors and RestoreTensors.
  std::map<std::string, AttrValue> TensorListAttrs(const std::string& path) const;
  void RecordCheckpoint(const std::string& path);

  Graph* graph_;
  std::vector<Variable> var_list_;
  std::vector<std::string> names_;  // The checkpoint name of each of var_list_.
  std::vector<std::string> slice_specs_;  // Empty, or the slice spec of each of var_list_.
  std::vector<Saveable> saveables_;  // Saved after the variables, in this order.
  int max_to_keep_;
  // save/restore may be called from several threads (a Supervisor's checkpoint thread
  // and the training thread); guards the members below. Steps run outside it.
  mutable std::mutex mu_;
  std::map<std::string, Operation> save_ops_, restore_ops_;
  std::vector<Output> reads_;  // One read per variable, shared by the save ops.
  std::vector<std::string> last_checkpoints_;
};

// The newest checkpoint recorded in "<dir>/checkpoint" whose file still exists (the
// recorded latest, else the newest kept one that exists); "" when there is none or no
// state file. Throws DataLoss when the state file is malformed.
std::string latest_checkpoint(const std::string& dir);

}  // namespace tw

#endif  // TENSORWEAVE_SAVER_H_
