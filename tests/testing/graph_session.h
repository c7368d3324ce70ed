// A session for tests that build FlowGraphs node by node (kernel tests): the same
// LocalSession the runtime gives, behind a helper so that tests of layers below the
// runtime include only their own layer, the public API and tests/testing.
#ifndef TENSORWEAVE_TESTS_TESTING_GRAPH_SESSION_H_
#define TENSORWEAVE_TESTS_TESTING_GRAPH_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "tensorweave/proto/graph.pb.h"
#include "core/proto_namespace.h"
#include "tensorweave/tensor.h"

namespace tw {

class LocalSession;

namespace testing {

using Feeds = std::vector<std::pair<std::string, Tensor>>;

// LocalSession with default options: Extend adds nodes, Run runs fetches and targets.
class GraphSession {
 public:
  GraphSession();
  ~GraphSession();
  absl::Status Extend(const GraphDef& graph);
  absl::Status Run(const Feeds& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs);

 private:
  std::unique_ptr<LocalSession> session_;
};

}  // namespace testing
}  // namespace tw

#endif  // TENSORWEAVE_TESTS_TESTING_GRAPH_SESSION_H_
