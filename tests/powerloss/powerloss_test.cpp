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
// first, then a writer beside it (json_store's workloads are in
// powerloss_json.cpp, the harness in recorded_run.hpp). Each test prints its counts: crash
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
// To diagnose a failure: FL_POWERLOSS_TRACE=1 prints the trace, numbered as
// "crash after op N" counts; FL_POWERLOSS_KEEP=N copies every distinct state
// of crash point N into $TMPDIR/fl_powerloss_kept/ before it is reopened.
//
// Three protocol bugs this test found are fixed: an import's publication
// renamed the data file before its log (json_store's imports); pages
// write_fresh put past the committed size outlived a crash before the
// commit's log flush (mapped_space's growth blocks); a log restart beside a
// reader trusted the file to hold, durably, what an earlier writer had
// written there without a flush (ALogRestartAfterAReopenBesideAReader...).
// Each fails here without its fix.
#include "persist/crc32c.hpp"
#include "persist/persist_format.hpp"
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>
#include <fl/persist.hpp>

#include "recorded_run.hpp"
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
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace fl_powerloss;

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
    const fs::path f = dir / "value";
    return reopen_present(f, [&](reopened& out) {
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
  const fs::path f = dir / "space";
  return reopen_present(f, [&](reopened& out) {
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
  const fs::path f = dir / "space";
  return reopen_present(f, [&](reopened& out) {
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
  // 56 commits: the operations vary with the seed's sizes (about 150-170
  // crash points at 48 commits when the file lags for most of the run, a
  // hair above the floor below), so the floor holds for every seed.
  const std::uint64_t rounds = 56 * scale();
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

// The file moved forward by one writer and relied on by the next. Reader A
// pins the first commit while the writer logs 4 MiB of commits; A refreshes
// two commits before the writer's clean close, whose catch-up writes the
// file forward to A's commit without a flush (a reader still lags, so no
// checkpoint); the writer reopens beside A, and its next commit restarts the
// log with only the pages the file lacks beyond A's commit. That restart
// must first make the file's state durable, though this writer wrote none of
// it: a power cut after the new log's rename lost the pages of the
// catch-up, and the space reopened with pages that failed their checksums.
TEST(PowerLoss, ALogRestartAfterAReopenBesideAReaderKeepsTheFileWhole) {
  recorded_run run;
  const fs::path f = run.dir() / "space";
  std::optional<fl::mapped_space> w;
  std::uint64_t tag = 1;
  // Commit k: the root's seq, and 96 KiB of the ballast, at a place that
  // moves, rewritten: about 100 KiB of log.
  const auto commit = [&](std::uint64_t k) {
    run.begin();
    ms_root* r = w->get(w->root<ms_root>());
    r->seq = k;
    const std::size_t len = std::size_t{96} << 10;
    fill(w->get(r->ballast) + (k * 40960) % (ballast_bytes - len), len, tag++);
    w->sync();
    run.ack(space_value(*w));
  };
  run.begin();
  w.emplace(f);
  run.ack(space_value(*w));
  run.begin();
  {
    const auto root = w->make<ms_root>();
    w->set_root(root);
    const auto ballast = w->allocate(ballast_bytes).cast<unsigned char>();
    fill(w->get(ballast), ballast_bytes, tag++);
    w->get(root)->ballast = ballast;
  }
  w->sync();
  run.ack(space_value(*w));
  held_reader a;
  a.open(f);
  // Commits until the log passes its bound (4 MiB), A refreshed one or two
  // commits before: no sync() has seen the log full yet, so the first one
  // after the reopen restarts it, before it commits anything of its own. The
  // log's run began with the root's commit.
  using fl::detail::log_bound;
  std::uint64_t logged = 0;
  const auto count_record = [&] { logged += w->stats().last_sync_log_bytes; };
  count_record();
  std::uint64_t k = 0;
  bool refreshed = false;
  while (logged < log_bound) {
    commit(++k);
    count_record();
    if (!refreshed && logged + (std::uint64_t{200} << 10) >= log_bound) {
      a.refresh();
      refreshed = true;
    }
  }
  w.reset();  // the log stays for A
  const std::size_t reopened_at = recorded_ops();
  w.emplace(f, fl::mapped_space_options{.mode = fl::open_mode::open_existing});
  // Commits until one restarts the log (renames a new one over it).
  const auto log_inode = [&] {
    struct stat sb {};
    return ::stat((f.string() + "-log").c_str(), &sb) == 0 ? sb.st_ino : ino_t{0};
  };
  const auto before = log_inode();
  const std::uint64_t last_before = k;
  while (log_inode() == before && k < last_before + 30) commit(++k);
  commit(++k);
  w.reset();
  ASSERT_EQ(space_value(*a.sp), a.value);
  a.sp.reset();
  const check_report r =
      run.finish("mapped_space log restart after a reopen", reopen_space_beside_reader);
  EXPECT_EQ(run.log_restarts(), run.log_restarts(reopened_at)) << "a restart before the reopen";
  EXPECT_EQ(k, last_before + 2) << "the first commit after the reopen restarted no log";
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
