// tests/support/child_process.hpp: a forked child with a pipe to its parent,
// for the tests that run a store's writer or readers in other processes and
// kill them (json_store_crash_test, json_store_readers_test).
#pragma once

#include <cerrno>
#include <string>
#include <system_error>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fl_test {

struct piped_child {
  pid_t pid;
  int from_child;  // the pipe's read end, the parent's to close
};

// Forks a child that runs body(write end of the pipe); the child exits with
// status 0 if body returns (body may _exit with its own status first). The
// parent gets the child's pid and the read end. Throws std::system_error
// when the pipe or the fork fails.
template <class Body>
piped_child fork_piped(const Body& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
  if (pid == 0) {
    ::close(fds[0]);
    body(fds[1]);
    ::_exit(0);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

// Kills `pid` with SIGKILL and reaps it: true when it died by a signal (not
// by an exit of its own before the kill).
inline bool kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return false;
  return WIFSIGNALED(status);
}

// Everything the child writes to the pipe until it closes it.
inline std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace fl_test
