// tests/sketch/redis_server.hpp: a throwaway redis-server for tests, and a
// minimal binary-safe RESP client.
//
// The server binds 127.0.0.1 on a free port, runs in a temporary directory
// with persistence off, and is stopped by its PID (SIGTERM, then SIGKILL
// after 5 s). Every wait is bounded. When redis-server is missing the
// constructor throws, and the test fails saying to run scripts/install-deps.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace ringbloom::test {

/// One RESP reply: status/error/integer/bulk (nil when is_nil).
struct resp_reply {
  char type = 0;  // '+', '-', ':', '$', '*'
  std::string text;
  long long integer = 0;
  bool is_nil = false;
};

inline std::string find_redis_server() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/sbin"}) {
    const std::filesystem::path p = std::filesystem::path(dir) / "redis-server";
    if (std::filesystem::exists(p)) return p.string();
  }
  return {};
}

inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot bind a loopback socket to find a free port");
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

class redis_server {
 public:
  redis_server() {
    const std::string binary = find_redis_server();
    if (binary.empty()) {
      throw std::runtime_error(
          "redis-server is not installed; run scripts/install-deps (scripts/deps/sketch.txt "
          "lists redis-server) and run the test again");
    }
    char pattern[] = "/tmp/ringbloom-redis-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("cannot create a temp dir");
    dir_ = pattern;
    port_ = free_port();
    const std::string port = std::to_string(port_);
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("cannot fork redis-server");
    if (pid_ == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execl(binary.c_str(), binary.c_str(), "--port", port.c_str(), "--bind", "127.0.0.1",
              "--dir", dir_.c_str(), "--save", "", "--appendonly", "no", "--daemonize", "no",
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    connect_with_deadline(std::chrono::seconds(10));
  }

  redis_server(const redis_server&) = delete;
  redis_server& operator=(const redis_server&) = delete;

  ~redis_server() {
    if (fd_ >= 0) ::close(fd_);
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (::waitpid(pid_, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          ::kill(pid_, SIGKILL);
          ::waitpid(pid_, &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  /// Sends one command (binary-safe arguments) and reads its reply.
  resp_reply command(const std::vector<std::string>& args) {
    std::string out = "*" + std::to_string(args.size()) + "\r\n";
    for (const auto& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
    send_all(out);
    return read_reply();
  }

 private:
  void connect_with_deadline(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(static_cast<std::uint16_t>(port_));
      if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
        timeval tv{10, 0};  // every read is bounded
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        if (command({"PING"}).text == "PONG") return;
      }
      ::close(fd_);
      fd_ = -1;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error("redis-server exited at startup (port " + std::to_string(port_) +
                                 " taken?)");
      }
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("redis-server did not answer PING within 10 s");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  void send_all(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("cannot write to redis-server");
      data.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  char read_byte() {
    if (pos_ == buffer_.size()) {
      buffer_.resize(65536);
      const ssize_t n = ::recv(fd_, buffer_.data(), buffer_.size(), 0);
      if (n <= 0) throw std::runtime_error("redis-server closed the connection or timed out");
      buffer_.resize(static_cast<std::size_t>(n));
      pos_ = 0;
    }
    return buffer_[pos_++];
  }

  std::string read_line() {
    std::string line;
    for (char c = read_byte(); c != '\n'; c = read_byte()) line.push_back(c);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }

  resp_reply read_reply() {
    const std::string line = read_line();
    resp_reply r;
    r.type = line.empty() ? '?' : line[0];
    const std::string rest = line.substr(1);
    if (r.type == '+' || r.type == '-') {
      r.text = rest;
    } else if (r.type == ':') {
      r.integer = std::stoll(rest);
    } else if (r.type == '$') {
      const long long len = std::stoll(rest);
      if (len < 0) {
        r.is_nil = true;
      } else {
        r.text.reserve(static_cast<std::size_t>(len));
        for (long long i = 0; i < len; ++i) r.text.push_back(read_byte());
        read_byte();  // \r
        read_byte();  // \n
      }
    } else {
      throw std::runtime_error("unexpected RESP reply: " + line);
    }
    return r;
  }

  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buffer_;
  std::size_t pos_ = 0;
};

}  // namespace ringbloom::test
