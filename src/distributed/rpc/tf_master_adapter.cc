#include "distributed/rpc/tf_master_adapter.h"

#include <memory>
#include <utility>

#include "absl/hash/hash.h"
#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tw {
namespace {

// Our request and response, alive until the step ends.
struct StepCall {
  RunStepRequest req;
  RunStepResponse resp;
};

// TensorFlow's master answers a failed step inside the response when asked to (its
// clients read the error from there); otherwise as the call's status.
absl::Status StepStatus(const absl::Status& s, bool in_body, tfwire::RunStepResponse* resp) {
  if (s.ok() || !in_body) return s;
  resp->Clear();
  resp->set_status_code(static_cast<int>(s.code()));
  resp->set_status_error_message(std::string(s.message()));
  return absl::OkStatus();
}

absl::Status NoSession(const std::string& handle) {
  return absl::NotFoundError(absl::StrCat("session '", handle, "' does not exist (closed or never created)"));
}

}  // namespace

TfMasterAdapter::TfMasterAdapter(Master* master, std::string job, int task)
    : master_(master),
      local_prefix_(absl::StrCat("/job:", job, "/replica:0/task:", task, "/")),
      incarnation_seed_(absl::Uniform<uint64_t>(absl::BitGen())) {}

absl::Status TfMasterAdapter::CreateSession(const tfwire::CreateSessionRequest& req,
                                            tfwire::CreateSessionResponse* resp) {
  CreateSessionRequest ours;
  *ours.mutable_graph_def() = req.graph_def();
  SessionConfigProto* config = ours.mutable_config();
  config->set_allow_soft_placement(req.config().allow_soft_placement());
  config->set_log_device_placement(req.config().log_device_placement());
  if (req.config().operation_timeout_in_ms() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("ConfigProto.operation_timeout_in_ms is negative (",
                                                   req.config().operation_timeout_in_ms(), ")"));
  }
  config->set_step_timeout_ms(req.config().operation_timeout_in_ms());
  *config->mutable_device_filters() = req.config().device_filters();
  CreateSessionResponse created;
  TW_RETURN_IF_ERROR(master_->CreateSession(ours, &created));
  absl::MutexLock lock(&mu_);
  sessions_[created.session_handle()] = SessionState{};
  resp->set_session_handle(created.session_handle());
  resp->set_graph_version(0);
  return absl::OkStatus();
}

absl::Status TfMasterAdapter::ExtendSession(const tfwire::ExtendSessionRequest& req,
                                            tfwire::ExtendSessionResponse* resp) {
  // Held while the master imports the nodes (local work, no RPC): two clients extending
  // the same version cannot both succeed.
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(req.session_handle());
  if (it == sessions_.end()) {
    return NoSession(req.session_handle());
  }
  // TensorFlow's contract: extend only the version the client last saw.
  if (req.current_graph_version() != it->second.graph_version) {
    return absl::FailedPreconditionError(absl::StrCat("current_graph_version ", req.current_graph_version(),
                                                      " is not the session's graph version ",
                                                      it->second.graph_version));
  }
  ExtendSessionRequest ours;
  ours.set_session_handle(req.session_handle());
  *ours.mutable_graph_def() = req.graph_def();
  ours.set_current_graph_version(req.current_graph_version());  // the master checks it too
  ExtendSessionResponse ignored;
  TW_RETURN_IF_ERROR(master_->ExtendSession(ours, &ignored));
  resp->set_new_graph_version(++it->second.graph_version);
  return absl::OkStatus();
}

void TfMasterAdapter::RunStepAsync(const tfwire::RunStepRequest* req, tfwire::RunStepResponse* resp,
                                   CancellationManager* client_cancel, StepDone done) {
  const bool in_body = req->store_errors_in_response_body();
  auto finish = [resp, in_body, done](const absl::Status& s) { done(StepStatus(s, in_body, resp)); };
  if (!req->partial_run_handle().empty()) {
    return finish(absl::UnimplementedError("partial runs (Session.partial_run) are not supported by tensorweave"));
  }
  auto call = std::make_shared<StepCall>();
  call->req.set_session_handle(req->session_handle());
  *call->req.mutable_feed() = req->feed();
  *call->req.mutable_fetch() = req->fetch();
  *call->req.mutable_target() = req->target();
  master_->RunStepAsync(&call->req, &call->resp, client_cancel, [call, req, resp, finish](const absl::Status& s) {
    if (s.ok()) {
      // Our fetches come back in the order asked; TensorFlow's client finds them by the
      // names it asked for.
      for (int i = 0; i < call->resp.tensor_size(); ++i) {
        NamedTensor* t = resp->add_tensor();
        t->set_name(i < req->fetch_size() ? req->fetch(i) : call->resp.tensor(i).name());
        t->mutable_tensor()->Swap(call->resp.mutable_tensor(i)->mutable_tensor());
      }
    }
    finish(s);
  });
}

absl::Status TfMasterAdapter::CloseSession(const tfwire::CloseSessionRequest& req, tfwire::CloseSessionResponse*) {
  {
    absl::MutexLock lock(&mu_);
    sessions_.erase(req.session_handle());
  }
  CloseSessionRequest ours;
  ours.set_session_handle(req.session_handle());
  CloseSessionResponse ignored;
  return master_->CloseSession(ours, &ignored);
}

absl::Status TfMasterAdapter::ListDevices(const tfwire::ListDevicesRequest&, tfwire::ListDevicesResponse* resp) {
  ListDevicesResponse ours;
  TW_RETURN_IF_ERROR(master_->ListDevices(ListDevicesRequest(), &ours));
  for (const std::string& name : ours.device()) {
    tfwire::DeviceAttributes* d =
        absl::StartsWith(name, local_prefix_) ? resp->add_local_device() : resp->add_remote_device();
    d->set_name(name);
    d->set_device_type("CPU");
    // TensorFlow's clients take 0 for "unknown incarnation"; any other stable number will do.
    d->set_incarnation(absl::HashOf(name, incarnation_seed_) | 1);
    d->set_physical_device_desc("tensorweave CPU device");
  }
  return absl::OkStatus();
}

absl::Status TfMasterAdapter::Reset(const tfwire::ResetRequest& req, tfwire::ResetResponse*) {
  if (!req.device_filters().empty()) {
    return absl::UnimplementedError(
        "Reset with device_filters is not supported by tensorweave (reset the whole cluster)");
  }
  ResetRequest ours;
  *ours.mutable_container() = req.container();
  // TensorFlow resets only the default container ("") when none is named; ours, all of them.
  if (ours.container().empty()) ours.add_container("");
  ResetResponse ignored;
  return master_->Reset(ours, &ignored);
}

absl::Status TfMasterAdapter::MakeCallable(const tfwire::MakeCallableRequest& req, tfwire::MakeCallableResponse* resp) {
  if (!req.options().tensor_connection().empty()) {
    return absl::UnimplementedError("CallableOptions.tensor_connection is not supported by tensorweave");
  }
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(req.session_handle());
  if (it == sessions_.end()) {
    return NoSession(req.session_handle());
  }
  const int64_t handle = it->second.next_callable++;
  it->second.callables[handle] = req.options();
  resp->set_handle(handle);
  return absl::OkStatus();
}

void TfMasterAdapter::RunCallableAsync(const tfwire::RunCallableRequest* req, tfwire::RunCallableResponse* resp,
                                       CancellationManager* client_cancel, StepDone done) {
  auto call = std::make_shared<StepCall>();
  {
    absl::MutexLock lock(&mu_);
    auto session = sessions_.find(req->session_handle());
    if (session == sessions_.end()) {
      return done(NoSession(req->session_handle()));
    }
    auto callable = session->second.callables.find(req->handle());
    if (callable == session->second.callables.end()) {
      return done(absl::InvalidArgumentError(absl::StrCat("no callable with handle ", req->handle(), " in session '",
                                                          req->session_handle(), "' (released or never made)")));
    }
    const tfwire::CallableOptions& options = callable->second;
    if (req->feed_size() != options.feed_size()) {
      return done(absl::InvalidArgumentError(absl::StrCat("the callable takes ", options.feed_size(),
                                                          " feeds, the call gave ", req->feed_size())));
    }
    for (int i = 0; i < options.feed_size(); ++i) {
      NamedTensor* feed = call->req.add_feed();
      feed->set_name(options.feed(i));
      *feed->mutable_tensor() = req->feed(i);
    }
    *call->req.mutable_fetch() = options.fetch();
    *call->req.mutable_target() = options.target();
  }
  call->req.set_session_handle(req->session_handle());
  master_->RunStepAsync(&call->req, &call->resp, client_cancel, [call, resp, done](const absl::Status& s) {
    if (s.ok()) {
      for (NamedTensor& t : *call->resp.mutable_tensor()) resp->add_fetch()->Swap(t.mutable_tensor());
    }
    done(s);
  });
}

absl::Status TfMasterAdapter::ReleaseCallable(const tfwire::ReleaseCallableRequest& req,
                                              tfwire::ReleaseCallableResponse*) {
  absl::MutexLock lock(&mu_);
  auto it = sessions_.find(req.session_handle());
  if (it == sessions_.end() || it->second.callables.erase(req.handle()) == 0) {
    return absl::InvalidArgumentError(absl::StrCat("no callable with handle ", req.handle(), " in session '",
                                                   req.session_handle(), "' to release"));
  }
  return absl::OkStatus();
}

}  // namespace tw
