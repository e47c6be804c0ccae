// tests/powerloss/powerloss_test.cpp: the stores against power loss.
//
// Each test runs a workload on one store type (persist<T>, mapped_space,
// json_store) in a fresh directory while the recording layer
// (recorder.hpp) records every change it makes to the files there, and
// notes each commit: where it began, where sync()/flush() returned, and the
// store's value then. It then builds the states a power cut at each point of
// the run could leave (crash_states.hpp: only flushed data is sure, the rest
// in any subset, writes torn at 512-byte sectors, directory entries durable
// only after a directory fsync), reopens each one and requires exactly the
// last acknowledged commit or a later one in flight, then continues the
// reopened store (more commits, verify(), another reopen), so that damage
// that shows only later is seen too. MappedSpaceRecovery crashes the
// recovery itself. The *BesideReaders workloads hold readers (in this
// process) across checkpoints, compactions, replacements and the log
// restarts their pins force, and open every crash state with a reader
// first, then a writer beside it. Each test prints its counts: crash
// points, states built, distinct states opened, failures.
//
// Registered only in the build without sanitizers (tests/powerloss/
// CMakeLists.txt): ASan and UBSan intercept the same calls.
//
// The model is itself tested: toy protocols with a known flaw (a value
// rewritten in place, a rename never made durable) must fail, the correct
// one must pass.
//
// Environment: FL_POWERLOSS_SCALE=n (default 1) runs n times the commits and
// samples n times the subsets per crash point; FL_TEST_SEED replays a run.
//
// Two protocol bugs this test found are fixed: an import's publication
// renamed the data file before its log (json_store's imports), and pages
// write_fresh put past the committed size outlived a crash before the
// commit's log flush (mapped_space's growth blocks); both fail here without
// the fix.
#include "../../src/crc32c.hpp"
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>
#include <fl/persist.hpp>

#include "crash_states.hpp"
#include "recorder.hpp"
#include "seq_words.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace fl_powerloss;

unsigned scale() {
  const char* s = std::getenv("FL_POWERLOSS_SCALE");
  const int v = s ? std::atoi(s) : 1;
  return v > 0 ? static_cast<unsigned>(v) : 1u;
}

std::string read_file(const fs::path& p) {
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
  // the log (lagging_file.cpp).
  std::size_t log_restarts() const {
    std::size_t n = 0;
    for (const op& o : trace_.ops)
      n += o.kind == op_kind::rename && o.to.ends_with("-log") &&
           o.name.find("-log.next-") != std::string::npos;
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

// ---- persist<T> ----------------------------------------------------------------

// 512 bytes: with the 40-byte header the file spans two sectors, so a torn
// save can mix two values.
struct counter : fl_test::seq_words<63> {
  std::string value() const { return (intact() ? "seq " : "mixed ") + std::to_string(seq); }
};
static_assert(sizeof(counter) == 512);

// 40 saves, flush() and update() in turn, a new handle every 8th.
TEST(PowerLoss, PersistFlushAndUpdate) {
  recorded_run run;
  const fs::path file = run.dir() / "value";
  {
    std::optional<fl::persist<counter>> p(std::in_place, file);
    for (std::uint64_t k = 1; k <= 40 * scale(); ++k) {
      if (k % 8 == 0) p.emplace(file);  // a new handle: reads the file, opens the directory
      run.begin();
      if (k % 2) {
        (*p)->set(k);
        p->flush();
      } else {  // the locked read-modify-write: the file holds k - 1
        p->update([](counter& c) { c.set(c.seq + 1); });
      }
      ASSERT_EQ((*p)->value(), "seq " + std::to_string(k));
      run.ack((*p)->value());
    }
  }
  const check_report r = run.finish("persist<T>", [](const fs::path& dir) {
    return guarded([&](reopened& out) {
      const fs::path f = dir / "value";
      if (!fs::exists(f)) {
        out.value = "absent";
        return;
      }
      {
        const fl::persist<counter> p(f);
        out.value = p->value();
      }
      // The state must take the next save, and keep it.
      {
        fl::persist<counter> p(f);
        p->set(1'000'000);
        p.flush();
      }
      const fl::persist<counter> again(f);
      if (again->value() != "seq 1000000") out.error = "the save after reopening was not kept";
    });
  });
  EXPECT_GE(r.crash_points, 200u);
  EXPECT_EQ(r.failures, 0u);
}

// ---- mapped_space --------------------------------------------------------------

// The space's root: numbered blocks of varied sizes that commits replace, and
// a 256 KiB ballast of which each commit rewrites a part, so that the log
// passes its bound (log_bound, 4 MiB) and a checkpoint runs inside the run.
constexpr int slots = 12;
constexpr std::size_t ballast_bytes = std::size_t{256} << 10;
struct ms_root {
  std::uint64_t seq;
  fl::fptr<unsigned char> block[slots];
  std::uint64_t size[slots];
  fl::fptr<unsigned char> ballast;
};

void fill(unsigned char* p, std::size_t n, std::uint64_t tag) {
  std::uint64_t x = tag * 0x9E3779B97F4A7C15ull + 1;
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    p[i] = static_cast<unsigned char>(x);
  }
}

// The space's value: its sequence number and a CRC of each block, every byte
// read through checked() (so pages failing their checksum throw).
std::string space_value(const fl::mapped_space& sp) {
  const auto root = sp.root<ms_root>();
  if (!root) return "empty";
  ms_root r;
  std::memcpy(&r, sp.checked(root, sizeof r), sizeof r);
  std::string v = "seq " + std::to_string(r.seq);
  for (int i = 0; i < slots; ++i) {
    if (!r.block[i]) continue;
    const std::byte* b = sp.checked(r.block[i], r.size[i]);
    v += " " + std::to_string(i) + ":" + std::to_string(r.size[i]) + ":" +
         std::to_string(fl::detail::crc32c(b, r.size[i]));
  }
  if (r.ballast)
    v += " ballast:" +
         std::to_string(fl::detail::crc32c(sp.checked(r.ballast, ballast_bytes), ballast_bytes));
  return v;
}

// Opens the space in `dir`, reads its value, verifies it, then commits a
// block written with write_fresh and a small one, verifies, reopens and
// checks everything again.
reopened reopen_space(const fs::path& dir) {
  return guarded([&](reopened& out) {
    const fs::path f = dir / "space";
    if (!fs::exists(f)) {
      out.value = "absent";
      return;
    }
    std::vector<unsigned char> extra(3 * 4096 + 100);
    fill(extra.data(), extra.size(), 77);
    fl::fptr<void> fresh, small;
    {
      fl::mapped_space sp(f, {.mode = fl::open_mode::open_existing});
      out.value = space_value(sp);
      try {
        sp.verify();
      } catch (const std::exception& e) {
        const fl::space_stats st = sp.stats();
        throw std::runtime_error(std::string("as reopened (top ") + std::to_string(st.top) +
                                 ", file " + std::to_string(st.file_bytes) + ", generation " +
                                 std::to_string(st.generation) + "): " + e.what());
      }
      fresh = sp.allocate_end(extra.size());
      sp.write_fresh(fresh, extra.data(), extra.size());
      small = sp.allocate(200);
      std::memcpy(sp.get(small.cast<unsigned char>()), extra.data(), 200);
      sp.sync();
      sp.verify();
    }
    const fl::mapped_space sp(f, {.mode = fl::open_mode::open_existing});
    sp.verify();
    if (space_value(sp) != out.value) out.error = "the value changed after a commit and a reopen; ";
    if (std::memcmp(sp.checked(fresh, extra.size()), extra.data(), extra.size()) != 0 ||
        std::memcmp(sp.checked(small, 200), extra.data(), 200) != 0)
      out.error += "a block committed after reopening was not kept";
  });
}

// What space_workload did: the trace position of its clean close, and how
// many compactions made the file smaller.
struct space_run {
  std::size_t closed_at_op = 0;
  std::size_t compactions = 0;
};

// Called after commit k was acknowledged (k = 0: the space's creation), with
// the writer: the reader workloads open, check and refresh readers there.
using space_hook = std::function<void(std::uint64_t k, fl::mapped_space& writer)>;

// `rounds` commits on a new space in the run's directory, with a clean close
// and reopen 8 commits before the end and two compactions.
space_run space_workload(recorded_run& run, std::uint64_t rounds, const space_hook& after = {}) {
  const fs::path f = run.dir() / "space";
  std::mt19937_64 rng(fl_test::test_seed() ^ 0x5A);
  std::optional<fl::mapped_space> sp;
  run.begin();
  sp.emplace(f);
  run.ack(space_value(*sp));
  if (after) after(0, *sp);
  std::uint64_t tag = 1;
  const std::uint64_t close_at = rounds - 8;
  space_run out;
  for (std::uint64_t k = 1; k <= rounds; ++k) {
    if (k == close_at) {
      out.closed_at_op = recorded_ops();
      sp.reset();  // a clean close: a checkpoint
      sp.emplace(f, fl::mapped_space_options{.mode = fl::open_mode::open_existing});
    }
    run.begin();
    if (!sp->root<ms_root>()) {
      const auto root = sp->make<ms_root>();
      sp->set_root(root);
      const auto ballast = sp->allocate(ballast_bytes).cast<unsigned char>();
      fill(sp->get(ballast), ballast_bytes, tag++);
      sp->get(root)->ballast = ballast;
    }
    ms_root* r = sp->get(sp->root<ms_root>());
    r->seq = k;
    // Every third commit carves its big blocks at the end and writes them
    // with write_fresh, as an import does.
    const bool fresh = k % 3 == 0;
    for (std::uint64_t n = 1 + rng() % 3; n-- > 0;) {
      const int i = static_cast<int>(rng() % (slots - 1));  // the last: growth blocks
      if (r->block[i]) sp->deallocate(r->block[i]);
      const std::size_t size =
          rng() % 10 < 6 ? 16 + rng() % 3000 : 3 * 4096 + rng() % (40 * 1024);
      std::vector<unsigned char> bytes(size);
      fill(bytes.data(), size, tag++);
      fl::fptr<unsigned char> b;
      if (fresh && size >= 3 * 4096) {
        b = sp->allocate_end(size).cast<unsigned char>();
        sp->write_fresh(b, bytes.data(), size);
      } else {
        b = sp->allocate(size).cast<unsigned char>();
        std::memcpy(sp->get(b), bytes.data(), size);
      }
      r = sp->get(sp->root<ms_root>());  // growth may have moved the mapping
      r->block[i] = b;
      r->size[i] = size;
    }
    // Twice a run, a block carved at the end that reaches 32-64 KiB past the
    // file's end: the file grows and write_fresh writes those pages to it
    // directly, before the commit's log.
    if (k == 6 || k == 21) {
      const int i = slots - 1;
      if (r->block[i]) sp->deallocate(r->block[i]);
      const fl::space_stats st = sp->stats();
      const std::size_t size =
          static_cast<std::size_t>(st.file_bytes - st.top) + (32 + rng() % 32) * 1024;
      std::vector<unsigned char> bytes(size);
      fill(bytes.data(), size, tag++);
      const auto b = sp->allocate_end(size).cast<unsigned char>();
      sp->write_fresh(b, bytes.data(), size);
      r = sp->get(sp->root<ms_root>());
      r->block[i] = b;
      r->size[i] = size;
    }
    // Three commits after each growth, a compaction: the blocks from the
    // growth's block on are freed, compact() drops them (and the page-CRC
    // table when growth left it among them) and the commit cuts the file
    // after its log is durable.
    const bool compacting = k == 9 || k == 24;
    if (compacting && r->block[slots - 1]) {
      const std::uint64_t from = r->block[slots - 1].offset();
      for (int i = 0; i < slots; ++i) {
        if (r->block[i] && r->block[i].offset() >= from) {
          sp->deallocate(r->block[i]);
          r->block[i] = {};
          r->size[i] = 0;
        }
      }
    }
    const std::uint64_t bytes_before = sp->stats().file_bytes;
    if (compacting) sp->compact();
    // Part of the ballast, 64-256 KiB: with the blocks about 200 KiB of log
    // per commit, so the log passes 4 MiB before the close.
    const std::size_t len = (64 + rng() % 193) * 1024;
    const std::size_t at = rng() % (ballast_bytes - len + 1);
    fill(sp->get(r->ballast) + at, len, tag++);
    sp->sync();
    run.ack(space_value(*sp));
    if (compacting && fs::file_size(f) < bytes_before) ++out.compactions;
    if (after) after(k, *sp);
  }
  sp.reset();
  return out;
}

TEST(PowerLoss, MappedSpace) {
  recorded_run run;
  const space_run did = space_workload(run, 40 * scale());
  const check_report r = run.finish("mapped_space", reopen_space);
  // The first run, one after the checkpoint at the log's bound (at least),
  // and one after the close.
  EXPECT_GE(run.log_runs(did.closed_at_op), 2u)
      << "no checkpoint at the log's bound before the close";
  std::printf("powerloss mapped_space: %zu compactions shrank the file\n", did.compactions);
  EXPECT_EQ(did.compactions, 2u);
  EXPECT_GE(r.crash_points, 200u);
  EXPECT_EQ(r.failures, 0u);
}

// Power loss during recovery. States a crash left in a short mapped_space
// run (after every other commit with only the flushed data: the log must
// be replayed; in the middle of the others with everything: pages of a
// commit that never became durable, some past the committed size, must be
// cut) are
// opened under the recording; the crash states of that open (its replay,
// its truncation, its checkpoint) must each reopen to the value the open
// gave.
TEST(PowerLoss, MappedSpaceRecovery) {
  recorded_run run;
  space_workload(run, 14 * scale());
  const trace& t = run.stop();
  std::vector<std::pair<std::size_t, bool>> points;  // crash point, flushed only
  for (std::size_t k = 1; k < run.commits().size(); ++k) {
    const commit& c = run.commits()[k];
    if (k % 2)
      points.emplace_back(c.ack, true);
    else
      points.emplace_back((c.begin + c.ack) / 2, false);
  }
  check_report sum;
  std::size_t recoveries = 0;
  for (const auto& [c, flushed_only] : points) {
    const files state = state_at(t, c, flushed_only);
    bool has_space = false;
    for (const auto& f : state) has_space = has_space || f.first == "space";
    if (!has_space) continue;  // before the space's creation was durable
    recorded_run again(state);
    std::string value;
    try {
      const fl::mapped_space sp(again.dir() / "space", {.mode = fl::open_mode::open_existing});
      value = space_value(sp);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "crash point " << c << ": " << e.what();
      continue;
    }
    again.initial_value(value);
    const check_report r = again.finish(nullptr, reopen_space);
    if (r.crash_points > 1) ++recoveries;
    sum.crash_points += r.crash_points;
    sum.states += r.states;
    sum.distinct_states += r.distinct_states;
    sum.failures += r.failures;
  }
  std::printf(
      "powerloss mapped_space recovery: %zu states recovered under the recording (%zu wrote), "
      "%zu crash points, %zu states built, %zu distinct states opened, %zu failures\n",
      points.size(), recoveries, sum.crash_points, sum.states, sum.distinct_states, sum.failures);
  EXPECT_GE(recoveries, 5u);
  EXPECT_EQ(sum.failures, 0u);
}

// ---- mapped_space beside readers ---------------------------------------------

// Opens the space in `dir` as a reader first (no writer has it open: the
// reader builds its table from the meta slots and the log's run), then as
// the writer, which must recover the same commit without changing a page
// of the reader's; the writer commits a block and closes beside the reader
// (whose commit is now older: the log stays), a writer reopens beside it,
// the reader refreshes to the new commit, and the space verifies once the
// reader is gone. The value is the reader's.
reopened reopen_space_beside_reader(const fs::path& dir) {
  return guarded([&](reopened& out) {
    const fs::path f = dir / "space";
    if (!fs::exists(f)) {
      out.value = "absent";
      return;
    }
    std::optional<fl::mapped_space> reader(fl::mapped_space::open(f, fl::open_mode::read_only));
    out.value = space_value(*reader);
    const auto reader_kept = [&](const char* when) {
      const std::string v = space_value(*reader);
      if (v != out.value) out.error += std::string("the reader's commit changed ") + when + "; ";
    };
    std::vector<unsigned char> extra(3 * 4096 + 100);
    fill(extra.data(), extra.size(), 78);
    fl::fptr<void> fresh;
    {
      fl::mapped_space w(f, {.mode = fl::open_mode::open_existing});
      if (const std::string v = space_value(w); v != out.value)
        out.error += "the writer recovered [" + v + "] beside a reader of another commit; ";
      reader_kept("when the writer recovered");
      w.verify();
      fresh = w.allocate_end(extra.size());
      w.write_fresh(fresh, extra.data(), extra.size());
      w.sync();
      reader_kept("under the writer's commit");
    }
    reader_kept("when the writer closed");
    {
      fl::mapped_space w(f, {.mode = fl::open_mode::open_existing});
      reader_kept("when a writer reopened beside it");
      if (space_value(w) != out.value) out.error += "the value changed after a commit; ";
      if (std::memcmp(w.checked(fresh, extra.size()), extra.data(), extra.size()) != 0)
        out.error += "a block committed beside the reader was not kept; ";
      reader->refresh();
      reader_kept("after refresh()");
      if (std::memcmp(reader->checked(fresh, extra.size()), extra.data(), extra.size()) != 0)
        out.error += "the refreshed reader does not see the block; ";
      reader.reset();
      w.sync();  // nothing to commit: the file catches up with no reader left
    }
    const fl::mapped_space w(f, {.mode = fl::open_mode::open_existing});
    w.verify();
    const fl::mapped_space late = fl::mapped_space::open(f, fl::open_mode::read_only);
    if (space_value(late) != out.value) out.error += "a reader opened at the end differs";
  });
}

// A reader held beside the writer: its value when opened, checked again
// after every later commit until it lets go.
struct held_reader {
  std::optional<fl::mapped_space> sp;
  std::string value;

  void open(const fs::path& f) {
    sp.emplace(fl::mapped_space::open(f, fl::open_mode::read_only));
    value = space_value(*sp);
  }
  void refresh() {
    sp->refresh();
    value = space_value(*sp);
  }
};

// The mapped_space workload with readers in this process (their reads and
// opens change no file; the writer's calls are recorded as before): reader
// A opens after the first commit and is held, never refreshed, through both
// growths and compactions and the log restarts its pin forces, refreshes
// (following the restarts), and holds again across the writer's clean close
// and reopen; reader B opens near the end. Every held reader must show its
// commit after every later one, and the newest after refresh().
TEST(PowerLoss, MappedSpaceBesideReaders) {
  recorded_run run;
  const fs::path f = run.dir() / "space";
  const std::uint64_t rounds = 48 * scale();
  held_reader a, b;
  std::size_t checks = 0;
  const auto check = [&](held_reader& r, const char* name, std::uint64_t k) {
    if (!r.sp) return;
    ASSERT_EQ(space_value(*r.sp), r.value) << "reader " << name << " after commit " << k;
    ++checks;
  };
  space_workload(run, rounds, [&](std::uint64_t k, fl::mapped_space& w) {
    check(a, "A", k);
    check(b, "B", k);
    if (k == 1) a.open(f);
    if (k == rounds - 12) {
      a.refresh();
      ASSERT_EQ(a.value, space_value(w)) << "reader A refreshed to another commit";
    }
    if (k == rounds - 4) b.open(f);
  });
  // The writer closed beside both: they still hold their commits, and the
  // newest after refresh().
  ASSERT_EQ(space_value(*a.sp), a.value);
  ASSERT_EQ(space_value(*b.sp), b.value);
  const std::string last = run.commits().back().value;
  a.refresh();
  b.refresh();
  EXPECT_EQ(a.value, last);
  EXPECT_EQ(b.value, last);
  a.sp.reset();
  b.sp.reset();
  const check_report r = run.finish("mapped_space beside readers", reopen_space_beside_reader);
  std::printf("powerloss mapped_space beside readers: %zu log restarts, %zu reader checks\n",
              run.log_restarts(), checks);
  EXPECT_GE(run.log_restarts(), 1u) << "the reader's pin forced no log restart";
  // Fewer operations than without readers (180-210: the file lags, so the
  // commits write the log only): still every one a crash point.
  EXPECT_GE(r.crash_points, 150u);
  EXPECT_EQ(r.failures, 0u);
}

// ---- json_store ----------------------------------------------------------------

std::string json_string(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string letters(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, 'a');
  for (char& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

std::string document(std::mt19937_64& rng, int items) {
  std::string d = "{\"name\":" + json_string(letters(rng, 12)) + ",\"items\":[";
  for (int i = 0; i < items; ++i) {
    if (i) d += ',';
    d += "{\"id\":" + std::to_string(i) + ",\"name\":" + json_string(letters(rng, 8 + rng() % 40)) +
         ",\"tags\":[1,2,3]}";
  }
  d += "],\"counts\":[";
  for (int i = 0; i < 64; ++i) d += (i ? "," : "") + std::to_string(rng() % 1000);
  d += "],\"text\":" + json_string(letters(rng, 20000)) + "}";
  return d;
}

reopened reopen_json(const fs::path& dir) {
  return guarded([&](reopened& out) {
    const fs::path f = dir / "store";
    if (!fs::exists(f)) {
      out.value = "absent";
      return;
    }
    const std::string extra = json_string(std::string(9000, 'x'));
    {
      fl::json_store s = fl::json_store::open(f);
      out.value = std::string(s.dump());
      s.set("/powerloss_extra", extra);
      s.sync();
    }
    {
      // The store's space, every page against its checksum.
      const fl::mapped_space sp(f, {.mode = fl::open_mode::open_existing});
      sp.verify();
    }
    fl::json_store s = fl::json_store::open(f);
    const auto got = s.at("/powerloss_extra");
    if (!got || std::string(*got) != extra) out.error = "a member set after reopening was lost; ";
    s.erase("/powerloss_extra");
    s.sync();
    if (std::string(s.dump()) != out.value) out.error += "the document changed after reopening";
  });
}

// The commits of json_workload (k = 0: the import; the re-import is
// reimport_at's first), its rounds, and where things happen in it.
struct json_plan {
  std::uint64_t rounds, reimport_at, blobs_at;
  explicit json_plan(std::uint64_t r) : rounds(r), reimport_at(r / 3), blobs_at(r - 10) {}
};

// Called after commit k was acknowledged (k = 0: the import), with the
// writer; `reimported`: the commit was the re-import's.
using json_hook = std::function<void(std::uint64_t k, bool reimported, fl::json_store& writer)>;

struct json_run {
  std::size_t blobs_op = 0, compactions = 0;
};

// Edits of every kind, one or two per commit: numbers in place, small and
// multi-page strings, appended and erased elements. After a third of the
// commits the store is closed and a new document imported over it; near the
// end four commits of a 1.1 MiB string each take the log past its bound.
// compact() runs twice, each published by its commit's sync().
json_run json_workload(recorded_run& run, const json_plan& plan, const json_hook& after = {}) {
  const fs::path f = run.dir() / "store";
  std::mt19937_64 rng(fl_test::test_seed() ^ 0x15);
  std::optional<fl::json_store> s;
  run.begin();
  s.emplace(fl::json_store::import(document(rng, 20), f));
  s->sync();
  run.ack(std::string(s->dump()));
  if (after) after(0, false, *s);
  const std::uint64_t rounds = plan.rounds;
  const std::uint64_t reimport_at = plan.reimport_at, blobs_at = plan.blobs_at;
  std::size_t blobs_op = 0, compactions = 0;
  int items = 20;
  for (std::uint64_t k = 1; k <= rounds; ++k) {
    if (k == reimport_at) {
      s.reset();  // a clean close: a checkpoint
      run.begin();
      items = 10;
      s.emplace(fl::json_store::import(document(rng, items), f));
      s->sync();
      run.ack(std::string(s->dump()));
      if (after) after(k, true, *s);
    }
    if (k == blobs_at) blobs_op = recorded_ops();
    run.begin();
    // Two compactions, each committed and published by its sync(): one
    // amid small edits (which then go to the compacted copy), one after the
    // blob is made small, which brings the file down by megabytes.
    const bool compacting = k == rounds / 2 || k == blobs_at + 5;
    const std::uintmax_t bytes_before = fs::file_size(f);
    if (k == blobs_at + 5) s->set("/blob", json_string("small"));
    if (compacting) s->compact();
    if (k >= blobs_at && k < blobs_at + 4) {
      s->set("/blob", json_string(letters(rng, 1100 * 1024)));
    } else {
      for (std::uint64_t n = 1 + rng() % 2; n-- > 0;) {
        switch (rng() % 6) {
          case 0: s->set("/counts/" + std::to_string(rng() % 64), std::to_string(rng())); break;
          case 1:
            s->set("/items/" + std::to_string(rng() % static_cast<std::uint64_t>(items)) + "/name",
                   json_string(letters(rng, 30)));
            break;
          case 2:
            s->set("/big" + std::to_string(rng() % 4),
                   json_string(letters(rng, 8000 + rng() % 50000)));
            break;
          case 3:
            s->set("/items/-", "{\"id\":" + std::to_string(k) + ",\"name\":\"appended\"}");
            ++items;
            break;
          case 4:
            if (items > 2 && s->erase("/items/0")) --items;
            break;
          default: s->set("/name", json_string(letters(rng, 1 + rng() % 100))); break;
        }
      }
    }
    s->sync();
    run.ack(std::string(s->dump()));
    if (compacting && fs::file_size(f) < bytes_before) ++compactions;
    if (after) after(k, false, *s);
  }
  s.reset();
  return {blobs_op, compactions};
}

TEST(PowerLoss, JsonStore) {
  recorded_run run;
  const json_run did = json_workload(run, json_plan(48 * scale()));
  const check_report r = run.finish("json_store", reopen_json);
  std::printf("powerloss json_store: %zu compactions shrank the file\n", did.compactions);
  EXPECT_GE(did.compactions, 1u);  // the blob's, at least
  // The import's run, the re-import's, and one after the checkpoint at the
  // log's bound (before the close at the end).
  EXPECT_GE(run.log_runs(~std::size_t{0}) - run.log_runs(did.blobs_op), 1u)
      << "no checkpoint at the log's bound";
  EXPECT_GE(r.crash_points, 200u);
  EXPECT_EQ(r.failures, 0u);
}

// The json_store's crash states opened as reopen_json does, with a reader
// opened first (no writer: its table is built from the file and the log)
// and held while the writer recovers, commits a member, closes beside it
// (the log stays), and a writer reopens beside it; the reader must show its
// commit throughout, and the member after refresh(). The value is the
// reader's.
reopened reopen_json_beside_reader(const fs::path& dir) {
  return guarded([&](reopened& out) {
    const fs::path f = dir / "store";
    if (!fs::exists(f)) {
      out.value = "absent";
      return;
    }
    std::optional<fl::json_store> reader(fl::json_store::open(f, fl::open_mode::read_only));
    out.value = std::string(reader->dump());
    const auto reader_kept = [&](const char* when) {
      if (std::string(reader->dump()) != out.value)
        out.error += std::string("the reader's commit changed ") + when + "; ";
    };
    const std::string extra = json_string(std::string(9000, 'y'));
    {
      fl::json_store s = fl::json_store::open(f);
      if (std::string(s.dump()) != out.value)
        out.error += "the writer recovered another commit than a reader before it; ";
      reader_kept("when the writer recovered");
      s.set("/powerloss_extra", extra);
      s.sync();
      reader_kept("under the writer's commit");
    }
    reader_kept("when the writer closed");
    {
      fl::json_store s = fl::json_store::open(f);
      reader_kept("when a writer reopened beside it");
      reader->refresh();
      const auto got = reader->at("/powerloss_extra");
      if (!got || std::string(*got) != extra)
        out.error += "the refreshed reader does not see the member; ";
      reader.reset();
      s.erase("/powerloss_extra");
      s.sync();
      if (std::string(s.dump()) != out.value) out.error += "the document changed; ";
    }
    {
      const fl::mapped_space sp(f, {.mode = fl::open_mode::open_existing});
      sp.verify();
    }
    const fl::json_store late = fl::json_store::open(f, fl::open_mode::read_only);
    if (std::string(late.dump()) != out.value) out.error += "a reader opened at the end differs";
  });
}

// A json_store reader held beside the writer.
struct held_json_reader {
  std::optional<fl::json_store> s;
  std::string value;
  void open(const fs::path& f) {
    s.emplace(fl::json_store::open(f, fl::open_mode::read_only));
    value = std::string(s->dump());
  }
  void refresh() {
    s->refresh();
    value = std::string(s->dump());
  }
};

// The json_store workload with readers in this process: reader A opens on
// the import and holds it across the close; the re-import replaces the file
// under it (it keeps its commit, and its refresh() says the store was
// replaced); reopened on the new store, it holds the re-import's commit,
// never refreshed, through the first compaction and the 1.1 MiB blobs that
// take the log past its bound (restarted, since the file cannot move past
// A), then refreshes; reader B opens before the second compaction and is
// held to the end. Every held reader must show its commit after every later
// one.
TEST(PowerLoss, JsonStoreBesideReaders) {
  recorded_run run;
  const fs::path f = run.dir() / "store";
  const json_plan plan(48 * scale());
  held_json_reader a, b;
  std::size_t checks = 0;
  const auto check = [&](held_json_reader& r, const char* name, std::uint64_t k) {
    if (!r.s) return;
    ASSERT_EQ(std::string(r.s->dump()), r.value) << "reader " << name << " after commit " << k;
    ++checks;
  };
  // The writer replaces the file (re-import, compaction): a reader's
  // refresh() opens the file the path names then.
  const auto refresh_to_writer = [&](held_json_reader& r, fl::json_store& w) {
    r.refresh();
    ASSERT_EQ(r.value, std::string(w.dump())) << "a reader refreshed to another commit";
  };
  const std::uint64_t first_compaction_at = plan.rounds / 2,
                      second_compaction_at = plan.blobs_at + 5;
  const json_run did = json_workload(run, plan, [&](std::uint64_t k, bool reimported,
                                                    fl::json_store& w) {
    check(a, "A", k);
    check(b, "B", k);
    if (k == 0) a.open(f);
    if (reimported || k == first_compaction_at || k == second_compaction_at)
      refresh_to_writer(a, w);
    if (k == plan.blobs_at + 4) {  // the log restarted beside A: refresh() follows it
      a.refresh();
      ASSERT_EQ(a.value, std::string(w.dump())) << "reader A refreshed to another commit";
    }
    if (k == plan.blobs_at + 6) b.open(f);
  });
  ASSERT_EQ(std::string(a.s->dump()), a.value);
  ASSERT_EQ(std::string(b.s->dump()), b.value);
  const std::string last = run.commits().back().value;
  a.refresh();
  b.refresh();
  EXPECT_EQ(a.value, last);
  EXPECT_EQ(b.value, last);
  a.s.reset();
  b.s.reset();
  const check_report r = run.finish("json_store beside readers", reopen_json_beside_reader);
  std::printf(
      "powerloss json_store beside readers: %zu log restarts, %zu compactions shrank the file, "
      "%zu reader checks\n",
      run.log_restarts(), did.compactions, checks);
  EXPECT_GE(run.log_restarts(), 1u) << "the reader's pin forced no log restart";
  EXPECT_GE(r.crash_points, 200u);
  EXPECT_EQ(r.failures, 0u);
}

// ---- the model itself -------------------------------------------------------------

// Toy protocols on a 1 KiB value (two sectors). `in_place`: pwrite over the
// value and fdatasync; else write a temporary, fdatasync, rename over the
// value and fsync the directory unless `skip_dir_fsync`.
check_report toy_run(bool in_place, bool skip_dir_fsync) {
  recorded_run run;
  const fs::path f = run.dir() / "v", tmp = run.dir() / "v.tmp";
  const int dir = ::open(run.dir().c_str(), O_RDONLY | O_DIRECTORY);
  for (int k = 1; k <= 20; ++k) {
    const std::string bytes(1024, static_cast<char>('a' + k));
    run.begin();
    const int fd = ::open((in_place ? f : tmp).c_str(), O_WRONLY | O_CREAT, 0644);
    EXPECT_EQ(::pwrite(fd, bytes.data(), bytes.size(), 0), 1024);
    ::fdatasync(fd);
    ::close(fd);
    if (!in_place) {
      ::rename(tmp.c_str(), f.c_str());
      if (!skip_dir_fsync) ::fsync(dir);
    } else if (k == 1) {
      ::fsync(dir);
    }
    run.ack(bytes);
  }
  ::close(dir);
  return run.finish("toy", [](const fs::path& d) {
    reopened r;
    // An empty file is what a create leaves: the toy's missing value.
    r.value = fs::exists(d / "v") && fs::file_size(d / "v") > 0 ? read_file(d / "v") : "absent";
    return r;
  });
}

TEST(PowerLossModel, TornInPlaceWriteIsFound) {
  const check_report r = toy_run(true, false);
  ASSERT_GT(r.failures, 0u);
  EXPECT_NE(r.first_failures[0].find("a value no commit had"), std::string::npos)
      << r.first_failures[0];
}

TEST(PowerLossModel, RenameWithoutDirectoryFsyncIsFound) {
  const check_report r = toy_run(false, true);
  ASSERT_GT(r.failures, 0u);
  EXPECT_NE(r.first_failures[0].find("(acknowledged)"), std::string::npos) << r.first_failures[0];
}

TEST(PowerLossModel, RenameMadeDurablePasses) {
  const check_report r = toy_run(false, false);
  EXPECT_EQ(r.failures, 0u);
}

}  // namespace
