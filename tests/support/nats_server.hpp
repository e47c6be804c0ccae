// tests/support/nats_server.hpp: a nats-server with JetStream for the tests
// and benchmarks of fl::replica, started on 127.0.0.1 at a free port with its
// store directory under a temporary directory, and killed (SIGKILL, reaped)
// when the object goes, a failed assertion included; the child also dies
// with the process that started it (PR_SET_PDEATHSIG), so no server outlives
// a crashed test. Cluster nodes take the routes of their peers.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fl_test {

// The nats-server program, or "" when it is not installed.
inline std::string nats_server_binary() {
  for (const char* p : {"/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"}) {
    if (::access(p, X_OK) == 0) return p;
  }
  return "";
}

// Whether `call` (bind or connect) succeeds for a fresh TCP socket and
// 127.0.0.1:`port`; the socket is closed either way.
template <class Call>
bool on_loopback(int port, Call call) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = call(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// A loopback port nothing listens on now, below the kernel's ephemeral range
// (ip_local_port_range): a port the kernel chose for port 0 may be handed out
// again as the source port of another test's outgoing connection before the
// server binds it, and a cluster node that cannot bind its route port leaves
// the cluster one server short for good. Never the same port twice in a process.
inline int free_port() {
  static std::mutex m;
  static std::set<int> given;
  static std::mt19937 rng(std::random_device{}());
  int low = 32768;
  if (std::FILE* f = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    if (std::fscanf(f, "%d", &low) != 1) low = 32768;
    std::fclose(f);
  }
  const int first = 10000, last = std::max(first + 1000, low) - 1;
  std::lock_guard<std::mutex> lock(m);
  for (int tries = 0; tries < 1000; ++tries) {
    const int port = first + static_cast<int>(rng() % static_cast<unsigned>(last - first + 1));
    if (given.count(port) != 0) continue;
    if (on_loopback(port, ::bind)) {
      given.insert(port);
      return port;
    }
  }
  return 0;
}

// Something listens on the loopback port.
inline bool port_open(int port) { return on_loopback(port, ::connect); }

class nats_server {
 public:
  // A node: `dir` holds its JetStream store and its log. With a cluster
  // port, it joins the cluster "fl" through `routes` (the peers' cluster ports).
  nats_server(const std::filesystem::path& dir, int port, int cluster_port = 0,
              const std::vector<int>& routes = {})
      : port_(port) {
    std::filesystem::create_directories(dir);
    std::vector<std::string> args = {nats_server_binary(), "-js", "-a", "127.0.0.1", "-p",
                                     std::to_string(port), "-sd", (dir / "js").string()};
    if (cluster_port != 0) {
      std::string r;
      for (int p : routes) r += (r.empty() ? "" : ",") + std::string("nats://127.0.0.1:") + std::to_string(p);
      args.insert(args.end(), {"-n", "n" + std::to_string(port), "--cluster_name", "fl", "--cluster",
                               "nats://127.0.0.1:" + std::to_string(cluster_port), "--routes", r});
    }
    log_ = dir / "server.log";
    const std::string log = log_.string();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    for (int i = 0; i < 400 && running() && !port_open(port_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  nats_server(const nats_server&) = delete;
  nats_server& operator=(const nats_server&) = delete;
  ~nats_server() { kill9(); }

  // SIGKILL, reaped; nothing when already stopped.
  void kill9() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  // Whether the server process still runs (a server that could not bind its
  // ports exits at once).
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) pid_ = -1;
    return pid_ > 0;
  }
  // The last `bytes` of the server's log, for a failed test's message.
  std::string log_tail(std::size_t bytes = 4000) const {
    std::ifstream in(log_);
    std::stringstream all;
    all << in.rdbuf();
    const std::string s = all.str();
    return s.size() > bytes ? s.substr(s.size() - bytes) : s;
  }
  std::string url() const { return "nats://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

 private:
  int port_;
  pid_t pid_ = -1;
  std::filesystem::path log_;
};

}  // namespace fl_test
