// The master's RunStep handler, called in process with a fuzzed RunStepRequest against a
// session on SessionGraph() (feeds, fetches and targets naming any node, any tensors).
// Without a session handle the input runs in a fresh session, closed afterwards.
#include <set>
#include <string>

#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tw::fuzz::OneTaskCluster* cluster = new tw::fuzz::OneTaskCluster();
  static const tw::GraphDef* graph = new tw::GraphDef(tw::fuzz::SessionGraph());
  tw::RunStepRequest req;
  if (!req.ParseFromArray(data, static_cast<int>(size))) return 0;
  tw::Master& master = cluster->master();
  tw::CreateSessionRequest create;
  *create.mutable_graph_def() = *graph;
  tw::CreateSessionResponse session;
  TW_FUZZ_CHECK(master.CreateSession(create, &session).ok());
  if (req.session_handle().empty()) req.set_session_handle(session.session_handle());
  tw::RunStepResponse resp;
  if (master.RunStep(req, &resp).ok()) {
    // A fetch asked twice is returned once.
    const std::set<std::string> distinct(req.fetch().begin(), req.fetch().end());
    TW_FUZZ_CHECK(resp.tensor_size() == static_cast<int>(distinct.size()));
  }
  tw::CloseSessionRequest close;
  close.set_session_handle(session.session_handle());
  tw::CloseSessionResponse closed;
  TW_FUZZ_CHECK(master.CloseSession(close, &closed).ok());
  return 0;
}
