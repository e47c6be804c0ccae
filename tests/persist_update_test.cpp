// fl::persist<T> between processes: saves hold the file's lock and use
// temporary files of their own, so concurrent flushes never show a reader an
// empty or partial file nor fail on each other's temporaries; update(fn) is a
// locked read-modify-write, so increments from 40 processes are all kept.
// Also the default type check (a different T of the same size is refused,
// files of tag 0 keep loading) and move assignment.
#include <fl/persist.hpp>

#include "persist_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using fl_test::scratch_dir;

// Sanitizer builds fork slowly (each child copies the shadow memory's page
// tables): fewer rounds there. FL_PERSIST_UPDATE_ROUNDS sets them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int default_rounds = 2;
#else
constexpr int default_rounds = 5;
#endif
int rounds() {
  const char* e = std::getenv("FL_PERSIST_UPDATE_ROUNDS");
  return e && *e ? std::max(1, std::atoi(e)) : default_rounds;
}

struct counter {
  std::uint64_t n;
  std::uint64_t check;  // always ~n: a torn or mixed value shows
};

// Starts `count` children running fn(i); returns their pids.
template <class Fn>
std::vector<pid_t> spawn(int count, Fn fn) {
  std::vector<pid_t> pids;
  std::fflush(nullptr);
  for (int i = 0; i < count; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) std::abort();
    if (pid == 0) {
      int rc = 97;
      try {
        rc = fn(i);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", i, e.what());
        rc = 98;
      }
      ::_exit(rc);
    }
    pids.push_back(pid);
  }
  return pids;
}

// Waits for every pid; returns how many did not exit with status 0.
int failures(const std::vector<pid_t>& pids) {
  int bad = 0;
  for (const pid_t pid : pids) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++bad;
  }
  return bad;
}

// Readers that load the file until `stop` exists: every load must succeed
// (never "empty file", never a partial or mixed value) and, if `monotonic`,
// never go back.
std::vector<pid_t> start_readers(const fs::path& file, const fs::path& stop, int count,
                                 bool monotonic) {
  return spawn(count, [&](int) {
    std::uint64_t last = 0;
    for (long loads = 0;; ++loads) {
      const bool last_round = fs::exists(stop);
      fl::persist<counter> p(file);
      if (p->check != ~p->n || (monotonic && p->n < last)) return 1;
      last = p->n;
      if (last_round) return loads > 0 ? 0 : 2;
    }
  });
}

// `writers` processes each running write(file, i, rounds) on one counter
// (set to 0 first) beside 3 readers of it (`monotonic`: the readers also
// check that it never goes back); expects every process to succeed (the
// messages name what failed) and no temporary file left beside it. Returns
// the counter's last value.
template <class Write>
counter race(int writers, bool monotonic, const Write& write, const char* writer_failed,
             const char* reader_failed) {
  scratch_dir d;
  const fs::path file = d / "counter";
  const int n = rounds();
  {
    fl::persist<counter> p(file);
    *p = counter{0, ~std::uint64_t{0}};
  }
  const auto readers = start_readers(file, d / "stop", 3, monotonic);
  const auto ws = spawn(writers, [&](int i) {
    write(file, i, n);
    return 0;
  });
  EXPECT_EQ(failures(ws), 0) << writer_failed;
  {
    std::FILE* f = std::fopen((d / "stop").c_str(), "w");
    std::fclose(f);
  }
  EXPECT_EQ(failures(readers), 0) << reader_failed;
  for (const auto& e : fs::directory_iterator(d.path()))
    EXPECT_TRUE(e.path().filename() == "counter" || e.path().filename() == "stop") << e.path();
  return *fl::persist<counter>(file);
}

TEST(PersistUpdate, FortyProcessesLoseNoIncrement) {
  const counter c = race(
      40, true,
      [](const fs::path& file, int, int n) {
        fl::persist<counter> p(file);
        for (int k = 0; k < n; ++k)
          p.update([](counter& x) {
            ++x.n;
            x.check = ~x.n;
          });
      },
      "an update failed", "a reader saw an invalid file or a value going back");
  EXPECT_EQ(c.n, 40u * static_cast<unsigned>(rounds()));
  EXPECT_EQ(c.check, ~c.n);
  std::printf("persist update: 40 processes x %d increments: %llu kept\n", rounds(),
              static_cast<unsigned long long>(c.n));
}

// Plain flushes from many processes: each leaves a whole file (the last one
// wins), none fails on another's temporary file, and readers never see an
// empty or partial file. Values may go back between read-then-flush writers
// (the last save wins); readers check that every file they load is whole.
TEST(PersistUpdate, ConcurrentFlushesNeverShowAPartialFile) {
  const counter c = race(
      20, false,
      [](const fs::path& file, int i, int n) {
        fl::persist<counter> p(file);
        for (int k = 0; k < n; ++k) {
          const std::uint64_t v = static_cast<std::uint64_t>(i) * 1000 + static_cast<unsigned>(k);
          *p = counter{std::max(v, p->n), ~std::max(v, p->n)};
          p.flush();
        }
      },
      "a flush failed", "a reader saw an empty, partial or mixed file");
  EXPECT_EQ(c.check, ~c.n);
}

TEST(PersistUpdate, UpdateOfAMissingFileStartsFromValueInitialized) {
  scratch_dir d;
  fl::persist<std::uint64_t> p(d / "n");
  p.update([](std::uint64_t& v) { v += 5; });
  EXPECT_EQ(*p, 5u);
  EXPECT_EQ(*fl::persist<std::uint64_t>(d / "n"), 5u);
  // A throwing fn changes nothing.
  EXPECT_THROW(p.update([](std::uint64_t& v) {
    v = 99;
    throw std::runtime_error("no");
  }),
               std::runtime_error);
  EXPECT_EQ(*p, 5u);
  EXPECT_EQ(*fl::persist<std::uint64_t>(d / "n"), 5u);
}

// A crash between writing a temporary file and renaming it leaves the
// temporary; the next save (of a handle's first) removes those of processes
// that no longer run, and leaves a running process's alone.
TEST(PersistUpdate, FirstSaveRemovesTemporariesOfDeadProcesses) {
  scratch_dir d;
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  int status = 0;
  while (::waitpid(dead, &status, 0) < 0) {}
  const fs::path stale = d / ("n.tmp-" + std::to_string(dead) + "-0");
  const fs::path live = d / ("n.tmp-" + std::to_string(::getppid()) + "-0");
  const fs::path other = d / ("m.tmp-" + std::to_string(dead) + "-0");
  for (const fs::path& p : {stale, live, other}) {
    std::FILE* f = std::fopen(p.c_str(), "w");
    std::fclose(f);
  }
  fl::persist<std::uint64_t> p(d / "n");
  *p = 1;
  p.flush();  // creates the file: nothing locked, nothing swept yet
  *p = 2;
  p.flush();
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
}

// ---- the default type check -------------------------------------------------

struct point2 {
  std::int32_t x, y;
};
struct range2 {
  std::int32_t lo, hi;
};

template <class Saved, class Loaded>
bool refused(const fs::path& file) {
  {
    fl::persist<Saved> p(file);
    p.flush();
  }
  try {
    fl::persist<Loaded> q(file);
  } catch (const fl::persist_error& e) {
    fs::remove(file);
    return e.reason().find("type tag") != std::string::npos;
  }
  fs::remove(file);
  return false;
}

TEST(PersistTypeCheck, ADifferentTypeOfTheSameSizeIsRefused) {
  scratch_dir d;
  const fs::path f = d / "v";
  EXPECT_TRUE((refused<float, std::int32_t>(f)));
  EXPECT_TRUE((refused<std::int32_t, std::uint32_t>(f)));
  EXPECT_TRUE((refused<double, std::uint64_t>(f)));
  EXPECT_TRUE((refused<std::int64_t, point2>(f)));
  EXPECT_TRUE((refused<point2, range2>(f)));
  EXPECT_TRUE((refused<std::array<std::int32_t, 2>, point2>(f)));
  EXPECT_TRUE((refused<std::int32_t[2], std::int16_t[4]>(f)));
  EXPECT_FALSE((refused<point2, point2>(f)));
}

TEST(PersistTypeCheck, FilesOfTagZeroKeepLoading) {
  scratch_dir d;
  {
    fl::persist<point2> old(d / "v", 0);
    *old = point2{3, 4};
  }  // as written before derived tags
  fl::persist<point2> p(d / "v");
  EXPECT_EQ(p->x, 3);
  p->y = 5;
  p.flush();  // now with the derived tag
  EXPECT_THROW(fl::persist<range2>(d / "v"), fl::persist_error);
  EXPECT_EQ(fl::persist<point2>(d / "v")->y, 5);
  // An explicit tag must match exactly.
  EXPECT_THROW(fl::persist<point2>(d / "v", 0), fl::persist_error);
}

TEST(PersistTypeCheck, MoveAssignmentSavesThenTakesOver) {
  scratch_dir d;
  fl::persist<std::uint64_t> a(d / "a");
  *a = 1;
  {
    fl::persist<std::uint64_t> b(d / "b");
    *b = 2;
    a = std::move(b);  // a's 1 is saved to "a"; a is now bound to "b" with 2
  }
  EXPECT_EQ(a.path(), d / "b");
  EXPECT_EQ(*a, 2u);
  *a = 3;
  a = fl::persist<std::uint64_t>(d / "c");
  EXPECT_EQ(*fl::persist<std::uint64_t>(d / "a"), 1u);
  EXPECT_EQ(*fl::persist<std::uint64_t>(d / "b"), 3u);
}

}  // namespace
