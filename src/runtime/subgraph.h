// What every session does before running a step, local or distributed: put the run's
// feeds, fetches and targets in a canonical order (the cache key), prune the graph to what
// they need with feeds as _Arg nodes and fetches as _Retval nodes, and check fed values.
#ifndef TENSORWEAVE_SRC_RUNTIME_SUBGRAPH_H_
#define TENSORWEAVE_SRC_RUNTIME_SUBGRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "runtime/session.h"

namespace tw {

// A run's arguments in canonical form: feeds sorted by "node:k" name (no duplicates),
// fetches as "node:k" in the caller's order, targets sorted.
struct RunSignature {
  std::vector<std::string> feeds;
  std::vector<const Tensor*> feed_values;  // Parallel to `feeds`, pointing into the caller's list.
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  std::string Key() const;  // Equal for runs that can share a prepared graph.
};
absl::StatusOr<RunSignature> CanonicalizeRun(const FeedList& feeds, const std::vector<std::string>& fetches,
                                             const std::vector<std::string>& targets);

struct PrunedGraph {
  std::unique_ptr<FlowGraph> graph;  // _Arg i feeds signature.feeds[i]; _Retval j is fetch j.
  std::vector<DType> feed_types;
  std::vector<PartialShape> feed_shapes;
};
// Errors name the feed, fetch or target that the graph does not have.
absl::StatusOr<PrunedGraph> BuildPrunedGraph(const FlowGraph& graph, const RunSignature& signature);

// Checks each fed value against the dtype and (partial) shape the graph expects there.
absl::Status ValidateFeeds(const RunSignature& signature, const PrunedGraph& pruned);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_RUNTIME_SUBGRAPH_H_
