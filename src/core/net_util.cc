#include "core/net_util.h"

#include <arpa/inet.h>
#include <netdb.h>
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

bool IsLoopbackHost(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* results = nullptr;
  if (host.empty() || getaddrinfo(host.c_str(), nullptr, &hints, &results) != 0) return false;
  bool all_loopback = results != nullptr;
  for (addrinfo* a = results; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      uint32_t ip = ntohl(reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr.s_addr);
      all_loopback &= (ip >> 24) == 127;
    } else if (a->ai_family == AF_INET6) {
      all_loopback &= IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr) != 0;
    } else {
      all_loopback = false;
    }
  }
  freeaddrinfo(results);
  return all_loopback;
}

std::string HostOfAddress(const std::string& address) {
  if (!address.empty() && address[0] == '[') {
    auto close = address.find(']');
    return close == std::string::npos ? address : address.substr(1, close - 1);
  }
  auto colon = address.rfind(':');
  if (colon == std::string::npos || address.find(':') != colon) return address;
  return address.substr(0, colon);
}

bool AddressInUse(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) return false;
  const std::string host = HostOfAddress(address), port = address.substr(colon + 1);
  if (port.empty() || port == "0") return false;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* results = nullptr;
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &results) != 0) return false;
  bool in_use = false;
  for (addrinfo* a = results; a != nullptr && !in_use; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    in_use = bind(fd, a->ai_addr, a->ai_addrlen) != 0 && errno == EADDRINUSE;
    close(fd);
  }
  freeaddrinfo(results);
  return in_use;
}

}  // namespace tw
