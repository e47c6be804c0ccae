// tests/powerloss/crash_states.hpp: the states a power cut can leave, built
// from a recorded trace, and the check that reopens each one.
//
// The model (the guarantees POSIX gives, the weakest a journaling file system
// keeps, as in ALICE and CrashMonkey):
// - a file's data and size are durable as of its last fsync/fdatasync; every
//   write and size change since then reaches the disk or not, independently
//   of the others, and a write that reaches it may be torn: any subset of its
//   512-byte sectors (an extending write may also leave its new size with
//   zeros where its sectors did not land);
// - the directory's entries (create, link, rename, unlink) are durable as of
//   its last fsync; each one since then is applied or not, in program order.
// A crash point is a prefix of the trace: the crash comes after its last
// operation. For each, the state with nothing unflushed, the state with
// everything (what a kill -9 leaves), every prefix of the unflushed
// operations (three, sampled, when there are more), a prefix whose last
// write is torn, all but one, and two random subsets with random tears are
// built (check_options::scale times as many when asked).
//
// The check: the workload lists its commits (the trace position where each
// began, where sync()/flush() returned, and the store's value then). At a
// crash point, the reopened value must be exactly the last acknowledged
// commit's or that of a later commit already begun: nothing acknowledged
// lost, nothing torn or mixed. A state is materialized as a real directory
// and given to the store's reopen function, which also continues the store
// (commits more, checks it) so that damage that only shows later is seen.
// Identical states met at several crash points are opened once.
#pragma once

#include "recorder.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace fl_powerloss {

struct commit {
  std::size_t begin = 0;  // recorded_ops() before its first change
  std::size_t ack = 0;    // recorded_ops() when sync()/flush() returned
  std::string value;      // the store's value after it
};

// What reopening one state gave: the value read at the first open, and the
// reason anything failed (empty if nothing did).
struct reopened {
  std::string value;
  std::string error;
};

struct check_options {
  // Multiplies the number of sampled subsets and prefixes per crash point.
  unsigned scale = 1;
  std::uint64_t seed = 0;
  std::size_t max_failures_kept = 8;
  // For a failure's diagnosis: print every operation of the trace, numbered
  // as "crash after op N" counts them; copy each distinct state of crash
  // point `keep_point` into keep_dir/<point>-<n> before it is reopened.
  bool print_trace = false;
  std::size_t keep_point = static_cast<std::size_t>(-1);
  std::filesystem::path keep_dir;
};

struct check_report {
  std::size_t crash_points = 0;
  std::size_t states = 0;           // states built (crash point and selection)
  std::size_t distinct_states = 0;  // states opened (identical ones once)
  std::size_t failures = 0;
  std::vector<std::string> first_failures;
};

using files = std::vector<std::pair<std::string, std::string>>;

// The state every operation of `t` leaves (no crash): file name -> bytes.
files final_state(const trace& t);
// The state at crash point `c`: only what was flushed, or everything (what
// a kill -9 leaves).
files state_at(const trace& t, std::size_t c, bool flushed_only);
// Writes `state` as the only files of `dir`.
void write_state(const std::filesystem::path& dir, const files& state);

// Builds the crash states of `t`, writes each into `state_dir` (emptied
// first) and calls `reopen(state_dir)`; `commits` must begin with the state
// before the first (begin = ack = 0, e.g. the value of a missing store).
check_report check_crash_states(const trace& t, const std::vector<commit>& commits,
                                const std::filesystem::path& state_dir,
                                const std::function<reopened(const std::filesystem::path&)>& reopen,
                                const check_options& options);

}  // namespace fl_powerloss
