#include "testing/never_reading_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace tw::testing {
namespace {

bool WriteAll(int fd, const std::string& bytes) {
  size_t at = 0;
  while (at < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

// An HTTP/2 frame: 24-bit length, type, flags, 31-bit stream id, payload.
std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  const uint32_t n = static_cast<uint32_t>(payload.size());
  std::string f = {static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n),
                   static_cast<char>(type), static_cast<char>(flags),
                   static_cast<char>(stream >> 24), static_cast<char>(stream >> 16),
                   static_cast<char>(stream >> 8), static_cast<char>(stream)};
  return f + payload;
}

// HPACK: a literal header field without indexing, new name, no Huffman (short strings).
std::string Header(const std::string& name, const std::string& value) {
  return std::string(1, '\0') + static_cast<char>(name.size()) + name + static_cast<char>(value.size()) + value;
}

constexpr uint8_t kData = 0, kHeaders = 1, kSettings = 4, kPing = 6;
constexpr uint8_t kEndStream = 1, kAck = 1, kEndHeaders = 4;

}  // namespace

bool NeverReadingClient::Call(const std::string& host, int port, const std::string& method,
                              const std::string& request) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host.c_str(), &addr.sin_addr);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return false;
  // SETTINGS_INITIAL_WINDOW_SIZE (4) = 0: the server may send no DATA on our streams.
  const std::string settings = {0, 4, 0, 0, 0, 0};
  std::string out = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + Frame(kSettings, 0, 0, settings);
  out += Frame(kHeaders, kEndHeaders, 1,
               Header(":method", "POST") + Header(":scheme", "http") + Header(":path", method) +
                   Header(":authority", host) + Header("content-type", "application/grpc") + Header("te", "trailers"));
  const uint32_t n = static_cast<uint32_t>(request.size());
  std::string message = {0, static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                         static_cast<char>(n)};
  out += Frame(kData, kEndStream, 1, message + request);
  if (!WriteAll(fd_, out)) return false;
  reader_ = std::thread([this] {
    std::string buf;
    char chunk[65536];
    while (!stop_.load()) {
      ssize_t got = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (got <= 0) return;
      buf.append(chunk, static_cast<size_t>(got));
      while (buf.size() >= 9) {
        const uint32_t len = (uint8_t(buf[0]) << 16) | (uint8_t(buf[1]) << 8) | uint8_t(buf[2]);
        if (buf.size() < 9 + len) break;
        const uint8_t type = buf[3], flags = buf[4];
        if (type == kSettings && !(flags & kAck)) WriteAll(fd_, Frame(kSettings, kAck, 0, ""));
        if (type == kPing && !(flags & kAck)) WriteAll(fd_, Frame(kPing, kAck, 0, buf.substr(9, len)));
        if (type == kHeaders) {
          // The reply's headers (then its bytes wait for a window that never opens), or
          // trailers that ended the call at once: an error.
          (flags & kEndStream ? ended_ : replying_).store(true);
        }
        buf.erase(0, 9 + len);
      }
    }
  });
  return true;
}

bool NeverReadingClient::WaitReplying(int timeout_ms) const {
  for (int waited = 0; waited < timeout_ms; waited += 10) {
    if (ended_.load()) return false;
    if (replying_.load()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

NeverReadingClient::~NeverReadingClient() {
  stop_.store(true);
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  if (reader_.joinable()) reader_.join();
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace tw::testing
