// tests/json_store_reader_first_test.cpp: a read-only reader process that
// opens a store before its writer process does, or while the writer opens
// and makes its first commits, beside a writer that commits in a loop and
// compacts (compact(), then sync()) every 50 commits. The reader refreshes
// without pause and checks every snapshot it sees: each commit writes its
// number into several members and a long string derived from it, so a mix of
// two commits, or pages changing under a snapshot, shows as members that
// disagree.
//
// Each run draws its timing from the seed (FL_TEST_SEED replays it): the
// reader opens first and the writer starts 0 to 30 ms later, or both start
// together and the reader opens 0 to 20 ms in. FL_READER_FIRST_RUNS sets the
// number of runs (24 by default; 300 for a stress run) and
// FL_READER_FIRST_REPORT=1 prints the figures. A second test makes the
// window these runs hit (a reader opening between a publication's two
// renames, the data file's and its reader table's) by hand.
#include <fl/json_store.hpp>

#include "child_process.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using clock_type = std::chrono::steady_clock;

constexpr std::uint64_t commits = 160;       // compactions after 50, 100 and 150
constexpr std::uint64_t compact_every = 50;

// Commit n's long string: about 5 KiB, so it spans pages, every byte a
// function of n.
std::string text_of(std::uint64_t n) {
  std::string s(static_cast<std::size_t>(4800 + n % 400), ' ');
  for (std::size_t i = 0; i < s.size(); ++i)
    s[i] = static_cast<char>('a' + (n * 7 + i * 13 + i / 26) % 26);
  return s;
}

// What the reader saw of one snapshot: "" when it is commit n whole.
std::string check(const fl::json_store& r, std::uint64_t& n, bool& done) {
  n = r.find("/n")->as_uint64();
  const std::uint64_t copy = r.find("/copy")->as_uint64();
  const std::uint64_t copy2 = r.find("/more/copy")->as_uint64();
  const fl::json_value log = *r.find("/log");
  const std::uint64_t last_log = log.size() == 0 ? ~std::uint64_t{0} : log[log.size() - 1].as_uint64();
  done = r.find("/done")->as_bool();
  if (copy != n || copy2 != n || log.size() != n + 1 || last_log != n)
    return "n=" + std::to_string(n) + " copy=" + std::to_string(copy) +
           " more/copy=" + std::to_string(copy2) + " log size=" + std::to_string(log.size()) +
           " lastlog=" + std::to_string(last_log);
  if (r.find("/text")->as_string_view() != text_of(n))
    return "n=" + std::to_string(n) + ": /text is not commit n's";
  return {};
}

// The reader's figures, sent to the parent through a pipe.
struct figures {
  std::uint64_t snapshots = 0, refreshes = 0, torn = 0, errors = 0, last = 0;
  bool saw_done = false;
  char first_fault[240] = {};
};

void note(figures& f, const std::string& what) {
  if (f.first_fault[0] == '\0')
    std::snprintf(f.first_fault, sizeof f.first_fault, "%s", what.c_str());
}

// The reader: opens, says so (one byte on `opened`), then refreshes and
// checks until it has seen the writer's last commit or `stop` is set.
[[noreturn]] void reader(const std::filesystem::path& file, std::chrono::microseconds delay,
                         int opened, int out, const std::atomic<int>& stop) {
  figures f;
  std::this_thread::sleep_for(delay);
  try {
    fl::json_store r = fl::json_store::open(file, fl::open_mode::read_only);
    const char c = 1;
    (void)!::write(opened, &c, 1);
    while (!f.saw_done && stop.load() == 0) {
      try {
        std::uint64_t n = 0, again = 0;
        bool done = false;
        std::string why = check(r, n, done);
        // The same snapshot read again: a reader's commit never changes
        // until refresh().
        if (why.empty() && (!check(r, again, done).empty() || again != n))
          why = "n=" + std::to_string(n) + " changed under the snapshot";
        if (why.empty() && n < f.last)
          why = "n=" + std::to_string(n) + " after " + std::to_string(f.last);
        ++f.snapshots;
        if (!why.empty()) {
          ++f.torn;
          note(f, "torn: " + why);
        } else {
          f.last = n;
          f.saw_done = done;
        }
      } catch (const std::exception& e) {
        ++f.errors;
        note(f, std::string("read: ") + e.what());
      }
      if (f.saw_done) break;
      try {
        r.refresh();
        ++f.refreshes;
      } catch (const std::exception& e) {
        ++f.errors;
        note(f, std::string("refresh: ") + e.what());
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    }
  } catch (const std::exception& e) {
    ++f.errors;
    note(f, std::string("open: ") + e.what());
    const char c = 0;
    (void)!::write(opened, &c, 1);
  }
  (void)!::write(out, &f, sizeof f);
  ::_exit(0);
}

// The writer: opens after `delay`, commits `commits` times (commit n writes
// n into /n, /copy, /more/copy and the end of /log, and text_of(n) into
// /text), compacts every compact_every commits, and ends with /done.
[[noreturn]] void writer(const std::filesystem::path& file, std::chrono::microseconds delay) {
  std::this_thread::sleep_for(delay);
  try {
    fl::json_store w = fl::json_store::open(file, fl::open_mode::read_write);
    for (std::uint64_t n = 1; n <= commits; ++n) {
      const std::string v = std::to_string(n);
      w.set("/n", v);
      w.set("/text", "\"" + text_of(n) + "\"");
      w.insert("/log/-", v);
      w.set("/more/copy", v);
      w.set("/copy", v);
      w.sync();
      if (n % compact_every == 0) {
        w.compact();
        w.sync();
      }
    }
    w.set("/done", "true");
    w.sync();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writer: %s\n", e.what());
    ::_exit(1);
  }
  ::_exit(0);
}

int runs_to_do() {
  const char* s = std::getenv("FL_READER_FIRST_RUNS");
  const int n = s != nullptr ? std::atoi(s) : 24;
  return n > 0 ? n : 24;
}

int wait_exit(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(StoreReaderFirst, AReaderOpenedBeforeTheWriterSeesOnlyWholeCommits) {
  const std::uint64_t seed = fl_test::test_seed();
  const int runs = runs_to_do();
  // Set by this process when the writer is done and the reader had time to
  // see its last commit; shared with the children.
  void* shared = ::mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  auto* stop = new (shared) std::atomic<int>(0);
  figures total;
  int faulty_runs = 0;
  for (int run = 0; run < runs; ++run) {
    std::mt19937_64 rng(seed + static_cast<std::uint64_t>(run));
    const bool reader_first = rng() % 2 == 0;
    const auto reader_delay = std::chrono::microseconds(reader_first ? 0 : rng() % 20000);
    const auto writer_delay = std::chrono::microseconds(rng() % (reader_first ? 30000 : 2000));
    fl_test::temp_dir d;
    const auto file = d / "doc.fl";
    // The store is made by a process of its own, which closes it: neither
    // child inherits anything of it.
    const fl_test::piped_child maker = fl_test::fork_piped([&](int) {
      try {
        fl::json_store s = fl::json_store::import(
            R"({"n":0,"copy":0,"more":{"copy":0},"log":[0],"text":")" + text_of(0) +
                R"(","done":false})",
            file);
        s.sync();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "import: %s\n", e.what());
        ::_exit(1);
      }
    });
    ::close(maker.from_child);
    ASSERT_EQ(wait_exit(maker.pid), 0);
    stop->store(0);
    int opened[2];
    ASSERT_EQ(::pipe(opened), 0);
    const fl_test::piped_child r = fl_test::fork_piped([&](int out) {
      ::close(opened[0]);
      reader(file, reader_delay, opened[1], out, *stop);
    });
    ::close(opened[1]);
    if (reader_first) {
      char c = 0;
      ASSERT_EQ(::read(opened[0], &c, 1), 1);
    }
    const fl_test::piped_child w = fl_test::fork_piped([&](int) { writer(file, writer_delay); });
    ::close(w.from_child);
    const int writer_status = wait_exit(w.pid);
    // The reader has a second to see the last commit, then is told to stop.
    const auto grace = clock_type::now() + std::chrono::seconds(1);
    figures f;
    for (;;) {
      pollfd p{r.from_child, POLLIN, 0};
      if (::poll(&p, 1, 10) == 1) break;
      if (clock_type::now() > grace) stop->store(1);
    }
    const bool reported = ::read(r.from_child, &f, sizeof f) == static_cast<ssize_t>(sizeof f);
    ::close(r.from_child);
    ::close(opened[0]);  // open until now: the reader's byte never meets a closed pipe
    const int reader_status = wait_exit(r.pid);
    if (!reported || reader_status != 0) {  // died: by a signal, reading its mapping
      ++f.errors;
      note(f, "the reader ended with status " + std::to_string(reader_status) +
                  (reader_status > 128 ? " (signal " + std::to_string(reader_status - 128) + ")"
                                       : std::string()));
    }
    EXPECT_EQ(writer_status, 0) << "run " << run;
    const bool faulty = f.torn != 0 || f.errors != 0 || !f.saw_done;
    faulty_runs += faulty ? 1 : 0;
    EXPECT_FALSE(faulty) << "run " << run << " (seed " << seed << ", "
                         << (reader_first ? "reader first" : "together") << ", reader +"
                         << reader_delay.count() << " us, writer +" << writer_delay.count()
                         << " us): " << f.torn << " torn snapshots, " << f.errors
                         << " errors in " << f.snapshots << " snapshots, last commit seen "
                         << f.last << (f.saw_done ? "" : " (not the writer's last)") << "; first: "
                         << f.first_fault;
    total.snapshots += f.snapshots;
    total.refreshes += f.refreshes;
    total.torn += f.torn;
    total.errors += f.errors;
  }
  if (std::getenv("FL_READER_FIRST_REPORT") != nullptr)
    std::printf("reader first: %d runs (seed %llu), %d faulty; %llu snapshots, %llu refreshes, "
                "%llu torn, %llu errors\n",
                runs, static_cast<unsigned long long>(seed), faulty_runs,
                static_cast<unsigned long long>(total.snapshots),
                static_cast<unsigned long long>(total.refreshes),
                static_cast<unsigned long long>(total.torn),
                static_cast<unsigned long long>(total.errors));
  ::munmap(shared, sizeof(std::atomic<int>));
}

// The two renames of a publication done by hand, with the target's reader
// table locked between them as mapped_space::rename locks it: a reader that
// opens the store in between waits, then joins the new file's table, where a
// writer sees its commit. (Before, it rebuilt the replaced table for the new
// file and pinned its commit there, unseen: the writer went on in place.)
TEST(StoreReaderFirst, AReaderOpeningBetweenTheTwoRenamesJoinsTheNewTable) {
  fl_test::temp_dir d;
  const auto file = d / "doc.fl", fresh = d / "fresh.fl";
  auto table_of = [](std::filesystem::path p) { return p += "-readers"; };
  fl::json_store::import(R"({"n":1})", file).sync();
  fl::json_store::import(R"({"n":2})", fresh).sync();
  const int held = ::open(table_of(file).c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(held, 0);
  ASSERT_EQ(::flock(held, LOCK_EX), 0);
  ASSERT_EQ(::rename(fresh.c_str(), file.c_str()), 0);  // the data file's rename
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  const fl_test::piped_child r = fl_test::fork_piped([&](int out) {
    ::close(go[1]);
    try {
      fl::json_store s = fl::json_store::open(file, fl::open_mode::read_only);
      const auto n = static_cast<char>(s.find("/n")->as_int64());
      (void)!::write(out, &n, 1);
      char c = 0;
      if (::read(go[0], &c, 1) != 1) ::_exit(3);
      // The writer committed meanwhile: this reader's commit is unchanged.
      if (s.find("/n")->as_int64() != n) ::_exit(4);
      s.refresh();
      const auto now = static_cast<char>(s.find("/n")->as_int64());
      (void)!::write(out, &now, 1);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "reader: %s\n", e.what());
      ::_exit(2);
    }
  });
  ::close(go[0]);
  // The reader waits for the table while its lock is held.
  pollfd p{r.from_child, POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 200), 0) << "the reader opened beside the replaced table";
  ASSERT_EQ(::rename(table_of(fresh).c_str(), table_of(file).c_str()), 0);  // the table's
  ::flock(held, LOCK_UN);
  ::close(held);
  char n = 0;
  ASSERT_EQ(::read(r.from_child, &n, 1), 1);
  EXPECT_EQ(n, 2);
  {
    fl::json_store w = fl::json_store::open(file);
    for (int k = 3; k <= 5; ++k) {
      w.set("/n", std::to_string(k));
      w.sync();
    }
    // The reader's pin is in the table the writer reads: the file waits for it.
    EXPECT_LT(w.stats().pinned_generation, w.stats().generation);
    const char c = 1;
    ASSERT_EQ(::write(go[1], &c, 1), 1);
    ::close(go[1]);
    ASSERT_EQ(::read(r.from_child, &n, 1), 1);
    EXPECT_EQ(n, 5);
  }
  ::close(r.from_child);
  EXPECT_EQ(wait_exit(r.pid), 0);
}

}  // namespace
