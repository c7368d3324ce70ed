// A gRPC client that sends one unary call and then never reads the reply: an HTTP/2
// connection whose stream window is 0, so the server cannot send the reply's bytes and
// must hold them (what a stalled or hostile client does; a gRPC library client always
// reads). For tests of what a server holds for such clients (issue 14 item 8).
#ifndef TENSORWEAVE_TESTS_TESTING_NEVER_READING_CLIENT_H_
#define TENSORWEAVE_TESTS_TESTING_NEVER_READING_CLIENT_H_

#include <atomic>
#include <string>
#include <thread>

namespace tw::testing {

class NeverReadingClient {
 public:
  // Connects to `host:port` and sends `request` (a serialized message) to `method`
  // ("/tensorweave.MasterService/RunStep"); false if it cannot connect.
  bool Call(const std::string& host, int port, const std::string& method, const std::string& request);
  // True once the server started the reply (its headers came; its bytes cannot), within
  // `timeout_ms`; false if the call ended (an error) or nothing came.
  bool WaitReplying(int timeout_ms) const;
  // Closes the connection (the server then drops the call).
  ~NeverReadingClient();

 private:
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<bool> replying_{false}, ended_{false};
  std::thread reader_;  // Answers SETTINGS and PING; takes no DATA.
};

}  // namespace tw::testing

#endif  // TENSORWEAVE_TESTS_TESTING_NEVER_READING_CLIENT_H_
