#include "testing/graph_session.h"

#include "runtime/local_session.h"

namespace tw::testing {

GraphSession::GraphSession() : session_(std::make_unique<LocalSession>(SessionOptions{})) {}
GraphSession::~GraphSession() = default;

absl::Status GraphSession::Extend(const GraphDef& graph) { return session_->Extend(graph); }

absl::Status GraphSession::Run(const Feeds& feeds, const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
  return session_->Run(feeds, fetches, targets, outputs);
}

}  // namespace tw::testing
