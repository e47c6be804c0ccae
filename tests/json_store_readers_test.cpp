// One writer and many readers of a store (fl::open_mode::read_only), in this
// process and in others: a reader sees exactly one committed state until
// refresh(), whatever the writer does meanwhile (in-place number sets, string
// and container path copies, growth, commits by the thousand); a reader that
// is killed holds nothing; a reader cannot write.
//
// The process test runs 2 s here; FL_READERS_SECONDS=30 runs it for 30 s,
// FL_READERS_PROCESSES=n with n readers, and FL_READERS_REPORT=1 prints its
// figures (commits, reads, refreshes).
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "child_process.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using clock_type = std::chrono::steady_clock;

// The document of commit n: every value is a function of n, so a reader can
// check each one against the /n it sees. /n and /ring/i are numbers set in
// place; /text and /list are strings and arrays path-copied; /grow gains a
// member now and then, so the file grows while readers read.
std::string text_of(std::uint64_t n) {
  std::string s(static_cast<std::size_t>(20 + (n * 2654435761u) % 700), 'x');
  for (std::size_t i = 0; i < s.size(); i += 5) s[i] = static_cast<char>('a' + (n + i) % 26);
  return s;
}
std::string list_of(std::uint64_t n) {
  std::string s = "[";
  for (std::uint64_t i = 0; i < 1 + n % 9; ++i) s += (i ? "," : "") + std::to_string(n * 10 + i);
  return s + "]";
}
constexpr std::uint64_t ring = 16;

const char* initial_doc() {
  return R"({"n":0,"ring":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"text":"","list":[],"grow":{},"m":0})";
}

// Commit n's edits (not synced).
void edit(fl::json_store& s, std::uint64_t n) {
  const std::string v = std::to_string(n);
  s.set("/n", v);
  s.set("/ring/" + std::to_string(n % ring), v);
  s.set("/text", "\"" + text_of(n) + "\"");
  s.set("/list", list_of(n));
  if (n % 50 == 0) s.set("/grow/k" + v, "\"" + text_of(n) + "\"");
  s.set("/m", v);
}

// Checks that `s` shows exactly commit n = /n; returns "" or what differs.
std::string check(const fl::json_store& s, std::uint64_t* seen = nullptr) {
  const auto n = static_cast<std::uint64_t>(s.find("/n")->as_int64());
  if (seen) *seen = n;
  if (static_cast<std::uint64_t>(s.find("/m")->as_int64()) != n) return "/m differs from /n";
  if (n > 0) {
    for (std::uint64_t k = 0; k < ring && k < n; ++k) {
      const std::uint64_t last = n - (n + ring - k) % ring;  // the last commit <= n writing k
      const auto v = static_cast<std::uint64_t>(s.find("/ring/" + std::to_string(k))->as_int64());
      if (v != last)
        return "/ring/" + std::to_string(k) + " = " + std::to_string(v) + " at commit " +
               std::to_string(n);
    }
    if (s.find("/text")->as_string_view() != text_of(n)) return "/text is not commit n's";
    if (*s.at("/list") != list_of(n)) return "/list is not commit n's";
  }
  const std::size_t grown = s.find("/grow")->size();
  if (grown != n / 50) return "/grow has " + std::to_string(grown) + " members";
  return {};
}

fl::json_store make_store(const std::filesystem::path& file) {
  fl::json_store s = fl::json_store::import(initial_doc(), file);
  s.sync();
  return s;
}

TEST(StoreReaders, ReadOnlyRefusesWritesWithAClearError) {
  fl_test::temp_dir d;
  const auto file = d.path() / "doc.fl";
  fl::json_store w = make_store(file);
  fl::json_store r = fl::json_store::open(file, fl::open_mode::read_only);
  for (auto call : {+[](fl::json_store& s) { s.set("/n", "1"); },
                    +[](fl::json_store& s) { s.erase("/m"); }, +[](fl::json_store& s) { s.sync(); }}) {
    try {
      call(r);
      FAIL() << "a read-only store accepted a change";
    } catch (const fl::persist_error& e) {
      EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("doc.fl"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(r.find("/n")->as_int64(), 0);
  fl::mapped_space sp = fl::mapped_space::open(file, fl::open_mode::read_only);
  EXPECT_TRUE(sp.read_only());
  EXPECT_THROW(sp.allocate(16), fl::persist_error);
  EXPECT_THROW(sp.set_root(fl::fptr<void>()), fl::persist_error);
  EXPECT_THROW(sp.sync(), fl::persist_error);
  EXPECT_THROW(fl::json_store::open(file, fl::open_mode::create_new), std::invalid_argument);
  EXPECT_THROW(fl::json_store::open(d.path() / "missing", fl::open_mode::read_only),
               fl::persist_error);
}

TEST(StoreReaders, AReaderOpeningBesideUncommittedEditsSeesTheLastCommit) {
  fl_test::temp_dir d;
  const auto file = d.path() / "doc.fl";
  fl::json_store w = make_store(file);
  edit(w, 1);
  w.sync();
  edit(w, 2);  // not synced
  fl::json_store r = fl::json_store::open(file, fl::open_mode::read_only);
  std::uint64_t n = 0;
  EXPECT_EQ(check(r, &n), "");
  EXPECT_EQ(n, 1u);
  w.sync();
  r.refresh();
  EXPECT_EQ(check(r, &n), "");
  EXPECT_EQ(n, 2u);
  r.refresh();  // nothing new
  EXPECT_EQ(check(r, &n), "");
  EXPECT_EQ(n, 2u);
}

// Readers in this process, each holding its commit while the writer commits
// hundreds more (in-place sets included) and the file lags behind them.
TEST(StoreReaders, ReadersInThisProcessKeepTheirCommit) {
  fl_test::temp_dir d;
  const auto file = d.path() / "doc.fl";
  fl::json_store w = make_store(file);
  std::vector<fl::json_store> readers;
  std::vector<std::uint64_t> at;
  std::uint64_t n = 0;
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 60; ++k) {
      edit(w, ++n);
      w.sync();
    }
    readers.push_back(fl::json_store::open(file, fl::open_mode::read_only));
    at.push_back(n);
    for (std::size_t i = 0; i < readers.size(); ++i) {
      std::uint64_t seen = 0;
      ASSERT_EQ(check(readers[i], &seen), "") << "reader " << i;
      EXPECT_EQ(seen, at[i]) << "reader " << i;
    }
  }
  // Refreshed one by one: each reaches the newest commit.
  for (std::size_t i = 0; i < readers.size(); ++i) {
    readers[i].refresh();
    std::uint64_t seen = 0;
    ASSERT_EQ(check(readers[i], &seen), "");
    EXPECT_EQ(seen, n);
  }
  // Closed: the writer's file catches up and a new reader needs no log.
  readers.clear();
  edit(w, ++n);
  w.sync();
  fl::mapped_space::open(file, fl::open_mode::read_only);  // opens and closes
  fl::json_store r = fl::json_store::open(file, fl::open_mode::read_only);
  std::uint64_t seen = 0;
  EXPECT_EQ(check(r, &seen), "");
  EXPECT_EQ(seen, n);
}

// A writer whose file lags a reader rolls back to its last commit, not the file's.
TEST(StoreReaders, RollbackWhileAReaderLagsRestoresTheLastCommit) {
  fl_test::temp_dir d;
  const auto file = d.path() / "space.fl";
  fl::mapped_space w(file);
  const fl::fptr<std::uint64_t> v = w.make<std::uint64_t>(1);
  w.set_root(v);
  w.sync();
  fl::mapped_space r = fl::mapped_space::open(file, fl::open_mode::read_only);
  *w.get(v) = 2;
  w.sync();
  EXPECT_EQ(w.stats().pinned_generation, r.stats().generation);
  *w.get(v) = 3;
  w.rollback();
  EXPECT_EQ(*w.get(v), 2u);
  EXPECT_EQ(*r.get(r.root<std::uint64_t>()), 1u);
  r.refresh();
  EXPECT_EQ(*r.get(r.root<std::uint64_t>()), 2u);
}

// The writer closes while a reader holds an older commit: the log keeps the
// commits the file lacks, and the reader still moves to the last one.
TEST(StoreReaders, AWriterClosingBesideALaggingReaderKeepsItsLog) {
  fl_test::temp_dir d;
  const auto file = d.path() / "doc.fl";
  std::uint64_t n = 0;
  fl::json_store r = [&] {
    fl::json_store w = make_store(file);
    edit(w, ++n);
    w.sync();
    fl::json_store reader = fl::json_store::open(file, fl::open_mode::read_only);
    for (int k = 0; k < 30; ++k) {
      edit(w, ++n);
      w.sync();
    }
    return reader;
  }();  // the writer is closed here
  std::uint64_t seen = 0;
  ASSERT_EQ(check(r, &seen), "");
  EXPECT_EQ(seen, 1u);
  r.refresh();
  ASSERT_EQ(check(r, &seen), "");
  EXPECT_EQ(seen, n);
  // A new reader, with no writer: the same commit.
  fl::json_store r2 = fl::json_store::open(file, fl::open_mode::read_only);
  ASSERT_EQ(check(r2, &seen), "");
  EXPECT_EQ(seen, n);
}

// compact() and a re-import replace the file under the path: a reader's
// refresh() moves to the newest commit of the file the path names (before,
// it stayed on the replaced file's last commit, or failed reading a log the
// replacement removed).
TEST(StoreReaders, RefreshFollowsACompactionAndAReimport) {
  fl_test::temp_dir d;
  const auto file = d.path() / "doc.fl";
  std::uint64_t n = 0;
  std::optional<fl::json_store> w(make_store(file));
  edit(*w, ++n);
  w->sync();
  fl::json_store r = fl::json_store::open(file, fl::open_mode::read_only);
  std::uint64_t seen = 0;
  for (int round = 0; round < 2; ++round) {
    w->compact();
    edit(*w, ++n);
    w->sync();  // publishes the compacted file
    edit(*w, ++n);
    w->sync();
    ASSERT_EQ(check(r, &seen), "");
    EXPECT_EQ(seen, n - 2) << "before refresh()";
    r.refresh();
    ASSERT_EQ(check(r, &seen), "") << "round " << round;
    EXPECT_EQ(seen, n) << "round " << round;
  }
  w.reset();
  fl::json_store::import(initial_doc(), file).sync();  // replaces the store
  r.refresh();
  ASSERT_EQ(check(r, &seen), "");
  EXPECT_EQ(seen, 0u);
}

// ---- processes ----

struct figures {
  std::uint64_t reads = 0, refreshes = 0, errors = 0, newest_seen = 0;
};

// A reader process: refreshes and checks every value until `until`, then
// reports its figures through `fd`. `hold` > 0: keeps each commit for that
// long, re-checking it, so the writer's file lags behind it.
[[noreturn]] void reader_process(const std::filesystem::path& file, clock_type::time_point until,
                                 std::chrono::milliseconds hold, int fd) {
  figures f;
  try {
    fl::json_store r = fl::json_store::open(file, fl::open_mode::read_only);
    std::uint64_t last = 0;
    while (clock_type::now() < until) {
      const auto held_from = clock_type::now();
      do {
        std::uint64_t n = 0;
        const std::string why = check(r, &n);
        ++f.reads;
        if (!why.empty() || n < last) {
          std::fprintf(stderr, "reader %d: %s (n %llu, before %llu)\n", static_cast<int>(::getpid()),
                       why.c_str(), static_cast<unsigned long long>(n),
                       static_cast<unsigned long long>(last));
          ++f.errors;
        }
        last = n;
      } while (clock_type::now() - held_from < hold);
      r.refresh();
      ++f.refreshes;
    }
    f.newest_seen = last;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "reader %d: %s\n", static_cast<int>(::getpid()), e.what());
    ++f.errors;
  }
  (void)!::write(fd, &f, sizeof f);
  ::_exit(0);
}

double seconds_to_run() {
  const char* s = std::getenv("FL_READERS_SECONDS");
  return s != nullptr ? std::atof(s) : 2.0;
}

// FL_READERS_PROCESSES sets the number of reader processes (3 by default;
// more for a stress run): every third holds its commit 20 ms at a time.
int reader_processes() {
  const char* s = std::getenv("FL_READERS_PROCESSES");
  const int n = s != nullptr ? std::atoi(s) : 3;
  return n > 0 ? n : 3;
}

TEST(StoreReaders, OneWriterThreeReaderProcesses) {
  fl_test::temp_dir d;
  const auto file = d.path() / "doc.fl";
  fl::json_store w = make_store(file);
  const auto run = std::chrono::duration_cast<clock_type::duration>(
      std::chrono::duration<double>(seconds_to_run()));
  const auto until = clock_type::now() + run;
  const int readers = reader_processes();
  std::vector<std::array<int, 2>> pipes(static_cast<std::size_t>(readers));
  std::vector<pid_t> pids(static_cast<std::size_t>(readers));
  for (std::size_t i = 0; i < pipes.size(); ++i) {
    ASSERT_EQ(::pipe(pipes[i].data()), 0);
    pids[i] = ::fork();
    ASSERT_GE(pids[i], 0);
    const auto hold = std::chrono::milliseconds(i % 3 == 2 ? 20 : 0);
    if (pids[i] == 0) reader_process(file, until, hold, pipes[i][1]);
    ::close(pipes[i][1]);
  }
  std::uint64_t n = 0;
  while (clock_type::now() < until) {
    edit(w, ++n);
    w.sync();
  }
  figures total;
  for (std::size_t i = 0; i < pipes.size(); ++i) {
    figures f;
    ASSERT_EQ(::read(pipes[i][0], &f, sizeof f), static_cast<ssize_t>(sizeof f)) << "reader " << i;
    ::close(pipes[i][0]);
    int status = 0;
    ASSERT_EQ(::waitpid(pids[i], &status, 0), pids[i]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(f.errors, 0u) << "reader " << i;
    EXPECT_GT(f.refreshes, 0u) << "reader " << i;
    total.reads += f.reads;
    total.refreshes += f.refreshes;
    total.errors += f.errors;
  }
  EXPECT_GT(n, 10u);
  EXPECT_EQ(check(w), "");
  w = fl::json_store::open(file, fl::open_mode::read_only);  // the writer closed: a reader
  EXPECT_EQ(check(w), "");
  if (std::getenv("FL_READERS_REPORT") != nullptr)
    std::printf("readers: %d processes, %.1f s, %llu commits, %llu reads, %llu refreshes, "
                "%llu errors\n",
                readers, seconds_to_run(), static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(total.reads),
                static_cast<unsigned long long>(total.refreshes),
                static_cast<unsigned long long>(total.errors));
}

// A reader killed by SIGKILL in the middle of its reads holds the file back
// while it lives and not at all once it is gone.
TEST(StoreReaders, AReaderKilledMidReadHoldsNothing) {
  fl_test::temp_dir d;
  const auto file = d.path() / "doc.fl";
  fl::json_store w = make_store(file);
  std::uint64_t n = 0;
  edit(w, ++n);
  w.sync();
  for (int round = 0; round < 3; ++round) {
    const fl_test::piped_child reader = fl_test::fork_piped([&](int ready) {
      try {
        fl::json_store r = fl::json_store::open(file, fl::open_mode::read_only);
        const char c = 1;
        (void)!::write(ready, &c, 1);
        for (;;) {
          if (!check(r).empty()) ::_exit(2);
        }
      } catch (...) {
        ::_exit(3);
      }
    });
    char c = 0;
    ASSERT_EQ(::read(reader.from_child, &c, 1), 1);
    ::close(reader.from_child);
    // A second reader opened now holds the same commit as the child.
    std::uint64_t held = 0;
    {
      fl::mapped_space a = fl::mapped_space::open(file, fl::open_mode::read_only);
      held = a.stats().generation;
      for (int k = 0; k < 20; ++k) {
        edit(w, ++n);
        w.sync();
      }
    }
    fl::mapped_space b = fl::mapped_space::open(file, fl::open_mode::read_only);
    EXPECT_GT(b.stats().generation, held);
    EXPECT_EQ(b.stats().pinned_generation, held);  // the child's, while it lives
    ASSERT_TRUE(fl_test::kill_and_reap(reader.pid));
    EXPECT_EQ(b.stats().pinned_generation, b.stats().generation);  // nobody's
    edit(w, ++n);
    w.sync();
    EXPECT_EQ(check(w), "");
  }
}

}  // namespace
