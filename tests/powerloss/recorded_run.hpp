// tests/powerloss/recorded_run.hpp: what every power-loss workload runs in
// (powerloss_test.cpp, powerloss_json.cpp): a fresh directory in memory, the
// recording around the workload, its commits, and the check of every crash
// state a power cut could leave, with the counts printed.
#pragma once

#include "crash_states.hpp"
#include "recorder.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <stdlib.h>

namespace fl_powerloss {

namespace fs = std::filesystem;

inline unsigned scale() {
  const char* s = std::getenv("FL_POWERLOSS_SCALE");
  const int v = s ? std::atoi(s) : 1;
  return v > 0 ? static_cast<unsigned>(v) : 1u;
}

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fresh directory, in /dev/shm where it can be made (the states are
// written and read back thousands of times; memory is the right place for
// them, and nothing here needs a disk), else under $TMPDIR.
class shm_dir {
 public:
  shm_dir() {
    std::string tmpl = "/dev/shm/fl_powerloss_XXXXXX";
    if (::mkdtemp(tmpl.data()) != nullptr) {
      path_ = tmpl;
    } else {
      fallback_.emplace("fl_powerloss_");
      path_ = fallback_->path();
    }
  }
  ~shm_dir() {
    if (fallback_) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  std::optional<fl_test::temp_dir> fallback_;
};

// A workload's directory, its commits and the recording around it.
class recorded_run {
 public:
  // A run in an empty directory, or in one holding `initial` (a state to
  // recover; its value is set with initial_value()).
  explicit recorded_run(const files& initial = {}) {
    skip_flushes(true);
    commits_.push_back({0, 0, "absent"});
    if (!initial.empty()) write_state(work_.path(), initial);
    start_recording(work_.path());
  }
  ~recorded_run() {
    if (recording_) stop_recording();
    skip_flushes(false);
  }

  const fs::path& dir() const { return work_.path(); }
  void begin() { commits_.push_back({recorded_ops(), 0, {}}); }
  void ack(std::string value) {
    commits_.back().ack = recorded_ops();
    commits_.back().value = std::move(value);
  }
  const std::vector<commit>& commits() const { return commits_; }
  // The value of the state the run started in.
  void initial_value(std::string value) { commits_.front().value = std::move(value); }

  // Stops recording and checks the recorder saw every change (the files
  // equal the trace replayed).
  const trace& stop() {
    trace_ = stop_recording();
    recording_ = false;
    const trace& t = trace_;
    for (const std::string& u : t.unmodelled) ADD_FAILURE() << "not modelled: " << u;
    std::size_t real_files = 0;
    for (const auto& e : fs::directory_iterator(work_.path()))  // a reader table is not recorded
      real_files += !e.path().filename().string().ends_with("-readers");
    const auto final = final_state(t);
    EXPECT_EQ(final.size(), real_files) << "files the recording did not see created or removed";
    for (const auto& [name, bytes] : final)
      EXPECT_TRUE(read_file(work_.path() / name) == bytes)
          << name << ": the replayed trace differs from the file (a write was not recorded)";
    return trace_;
  }

  // stop(), then checks every crash state with `reopen` and prints the counts
  // (`store` null: prints only failures).
  check_report finish(const char* store,
                      const std::function<reopened(const fs::path&)>& reopen) {
    const trace& t = stop();
    check_options o;
    o.scale = scale();
    o.seed = fl_test::test_seed();
    o.print_trace = std::getenv("FL_POWERLOSS_TRACE") != nullptr;
    if (const char* k = std::getenv("FL_POWERLOSS_KEEP")) {
      o.keep_point = static_cast<std::size_t>(std::strtoull(k, nullptr, 10));
      o.keep_dir = fs::temp_directory_path() / "fl_powerloss_kept";
      std::printf("keeping the states of crash point %zu in %s\n", o.keep_point,
                  o.keep_dir.c_str());
    }
    const check_report r = check_crash_states(t, commits_, states_.path(), reopen, o);
    if (store) std::printf(
        "powerloss %s: %zu operations, %zu commits, %zu crash points, %zu states built, %zu "
        "distinct states opened, %zu failures (seed %llu)\n",
        store, t.ops.size(), commits_.size() - 1, r.crash_points, r.states,
        r.distinct_states, r.failures, static_cast<unsigned long long>(o.seed));
    for (const std::string& f : r.first_failures) std::printf("  %s\n", f.c_str());
    return r;
  }

  // Runs of logs (files named "*-log") before trace position `before`:
  // their writes at offset 0 (each run after a checkpoint starts there).
  // Log restarts beside a lagging reader: renames of "<log>.next-*" over
  // the log (lagging_file.cpp), from trace position `from` on.
  std::size_t log_restarts(std::size_t from = 0) const {
    std::size_t n = 0;
    for (std::size_t i = from; i < trace_.ops.size(); ++i) {
      const op& o = trace_.ops[i];
      n += o.kind == op_kind::rename && o.to.ends_with("-log") &&
           o.name.find("-log.next-") != std::string::npos;
    }
    return n;
  }

  std::size_t log_runs(std::size_t before) const {
    std::size_t n = 0;
    for (std::size_t i = 0; i < before && i < trace_.ops.size(); ++i) {
      const op& o = trace_.ops[i];
      if (o.kind != op_kind::write || o.offset != 0) continue;
      const std::string& name = trace_.inode_names[static_cast<std::size_t>(o.inode)];
      n += name.size() > 4 && name.compare(name.size() - 4, 4, "-log") == 0;
    }
    return n;
  }

 private:
  shm_dir work_, states_;
  std::vector<commit> commits_;
  trace trace_;
  bool recording_ = true;
};

// Runs `fn`, turning an exception into the reason of a failed reopen.
template <class Fn>
reopened guarded(Fn fn) {
  reopened r;
  try {
    fn(r);
  } catch (const std::exception& e) {
    r.error += e.what();
  }
  return r;
}

// guarded() for the reopen of the store at `f`: "absent" when the crash left
// no file there (its creation never reached the disk), else fn(out).
template <class Fn>
reopened reopen_present(const fs::path& f, Fn fn) {
  return guarded([&](reopened& out) {
    if (!fs::exists(f)) {
      out.value = "absent";
      return;
    }
    fn(out);
  });
}

}  // namespace fl_powerloss
