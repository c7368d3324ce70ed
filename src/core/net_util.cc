#include "core/net_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tw {

namespace {

// A socket bound to a free port on 127.0.0.1, and that port.
absl::StatusOr<std::pair<int, int>> BindFreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    int err = errno;
    close(fd);
    return absl::UnavailableError(absl::StrCat("cannot pick a free port: ", std::strerror(err)));
  }
  return std::make_pair(fd, static_cast<int>(ntohs(addr.sin_port)));
}

}  // namespace

absl::StatusOr<int> PickFreeLoopbackPort() {
  auto bound = BindFreeLoopbackPort();
  if (!bound.ok()) return bound.status();
  close(bound->first);
  return bound->second;
}

absl::StatusOr<std::map<std::string, std::vector<std::string>>> FreeLoopbackAddresses(
    const std::map<std::string, int>& jobs) {
  std::vector<int> fds;
  std::map<std::string, std::vector<std::string>> addresses;
  absl::Status status;
  for (const auto& [job, tasks] : jobs) {
    for (int t = 0; t < tasks && status.ok(); ++t) {
      auto bound = BindFreeLoopbackPort();
      if (!bound.ok()) {
        status = bound.status();
        break;
      }
      fds.push_back(bound->first);
      addresses[job].push_back(absl::StrCat("localhost:", bound->second));
    }
  }
  for (int fd : fds) close(fd);
  if (!status.ok()) return status;
  return addresses;
}

}  // namespace tw
