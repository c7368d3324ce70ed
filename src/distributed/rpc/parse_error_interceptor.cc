#include "distributed/rpc/parse_error_interceptor.h"

#include <string>

namespace tw {
namespace {

using grpc::experimental::InterceptionHookPoints;

class ParseErrorInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit ParseErrorInterceptor(const char* method) : method_(method == nullptr ? "" : method) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    // The server hands interceptors no message when the request's bytes did not parse.
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::POST_RECV_MESSAGE) &&
        methods->GetRecvMessage() == nullptr) {
      unparsed_ = true;
    }
    if (unparsed_ && methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS) &&
        !methods->GetSendStatus().ok()) {
      methods->ModifySendStatus(grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          "cannot parse " + RequestType() + ": the request's bytes are not that protobuf message"));
    }
    methods->Proceed();
  }

 private:
  // "/tensorweave.MasterService/RunStep" -> "RunStepRequest" (every service names its
  // request types so).
  std::string RequestType() const {
    const size_t slash = method_.rfind('/');
    return (slash == std::string::npos ? method_ : method_.substr(slash + 1)) + "Request";
  }

  const std::string method_;
  bool unparsed_ = false;
};

class ParseErrorInterceptorFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo* info) override {
    return new ParseErrorInterceptor(info->method());
  }
};

}  // namespace

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> MakeParseErrorInterceptorFactory() {
  return std::make_unique<ParseErrorInterceptorFactory>();
}

}  // namespace tw
