// tests/persist_faults_test.cpp: a failing file call is an error, never a
// crash or a lost commit (docs/persist.md, "Faults"): every file-changing
// call of a workload over persist<T>, mapped_space and json_store is made to
// fail in turn, with ENOSPC, then EIO. Running out of room for real (a file
// size limit, a small file system) is persist_full_disk_test.
// The program defines the file-changing POSIX calls itself (write, pwrite,
// pwritev, fsync, fdatasync, ftruncate, fallocate, rename, link, msync and
// their 64-bit names); a static libfl's calls bind to them (a shared one's
// too: ENABLE_EXPORTS). Each forwards to the C library's (dlsym RTLD_NEXT)
// unless the sweep has armed a failure for it.
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>
#include <fl/persist.hpp>

#include "persist_support.hpp"
#include "child_process.hpp"
#include "fault_store.hpp"
#include "real_function.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

// ---- the failure injector ------------------------------------------------------

namespace {

enum class call_kind : int { write, flush, truncate, allocate, rename, msync, count };
constexpr const char* kind_names[] = {"write", "flush", "truncate", "allocate", "rename", "msync"};
constexpr int kind_count = static_cast<int>(call_kind::count);

// While armed, every file-changing call on a descriptor above 2 (not the
// test's own output) or on a path is counted; from call number fail_at on,
// each fails with `err` (the disk stays full, or broken) until disarmed.
struct injector {
  bool armed = false;
  long calls = 0;
  long fail_at = -1;  // -1: none fails
  int err = 0;
  std::array<long, kind_count> by_kind{};
  int first_failed_kind = -1;  // the kind of call number fail_at
};

injector& inj() {
  static injector j;
  return j;
}

// FL_FAULTS_TRACE=1 prints every counted call to stderr (with FL_FAULTS_POINT
// to rerun one failure point in the test program itself).
bool tracing() {
  static const bool on = std::getenv("FL_FAULTS_TRACE") != nullptr;
  return on;
}

// True if this call must fail (errno is then set).
bool must_fail(int fd, call_kind k) {
  injector& j = inj();
  if (!j.armed || (fd >= 0 && fd <= 2)) return false;
  const long i = j.calls++;
  if (tracing()) {
    char link[256] = "-";
    if (fd >= 0) {
      const std::string proc = "/proc/self/fd/" + std::to_string(fd);
      const ssize_t n = ::readlink(proc.c_str(), link, sizeof link - 1);
      link[n > 0 ? n : 0] = '\0';
    }
    std::fprintf(stderr, "call %ld: %s %s%s\n", i, kind_names[static_cast<int>(k)], link,
                 j.fail_at >= 0 && i >= j.fail_at ? " FAILS" : "");
  }
  ++j.by_kind[static_cast<int>(k)];
  if (j.fail_at < 0 || i < j.fail_at) return false;
  if (i == j.fail_at) j.first_failed_kind = static_cast<int>(k);
  errno = j.err;
  return true;
}

void arm(long fail_at, int err) {
  injector& j = inj();
  j = injector{};
  j.fail_at = fail_at;
  j.err = err;
  j.armed = true;
}

void disarm() { inj().armed = false; }

}  // namespace

// The C library's `name`, typed as <unistd.h> and the others declare it.
#define FL_REAL(name) \
  static const auto real = fl_test::real_function<decltype(&::name)>("persist_faults_test", #name)
// Defines the C library's `ret name params` (with `noexcept` after, as the
// C library declares it): a call of `kind` on `fd` (-1: no descriptor) that
// fails with -1 and errno when the sweep says so, else the real call with
// `args`.
#define FL_FAILING(ret, name, params, fd, kind, args, ...) \
  ret name params __VA_ARGS__ {                            \
    FL_REAL(name);                                         \
    if (must_fail(fd, call_kind::kind)) return -1;         \
    return real args;                                      \
  }

extern "C" {

FL_FAILING(ssize_t, write, (int fd, const void* data, size_t n), fd, write, (fd, data, n))
FL_FAILING(ssize_t, pwrite, (int fd, const void* data, size_t n, off_t off), fd, write,
           (fd, data, n, off))
FL_FAILING(ssize_t, pwrite64, (int fd, const void* data, size_t n, off64_t off), fd, write,
           (fd, data, n, off))
FL_FAILING(ssize_t, writev, (int fd, const iovec* iov, int count), fd, write, (fd, iov, count))
FL_FAILING(ssize_t, pwritev, (int fd, const iovec* iov, int count, off_t off), fd, write,
           (fd, iov, count, off))
FL_FAILING(ssize_t, pwritev64, (int fd, const iovec* iov, int count, off64_t off), fd, write,
           (fd, iov, count, off))
FL_FAILING(int, fsync, (int fd), fd, flush, (fd))
FL_FAILING(int, fdatasync, (int fd), fd, flush, (fd))
FL_FAILING(int, ftruncate, (int fd, off_t size), fd, truncate, (fd, size), noexcept)
FL_FAILING(int, ftruncate64, (int fd, off64_t size), fd, truncate, (fd, size), noexcept)
FL_FAILING(int, fallocate, (int fd, int mode, off_t off, off_t len), fd, allocate,
           (fd, mode, off, len))
FL_FAILING(int, fallocate64, (int fd, int mode, off64_t off, off64_t len), fd, allocate,
           (fd, mode, off, len))
// posix_fallocate returns the error instead of setting errno.
int posix_fallocate(int fd, off_t off, off_t len) {
  FL_REAL(posix_fallocate);
  if (must_fail(fd, call_kind::allocate)) return errno;
  return real(fd, off, len);
}
int posix_fallocate64(int fd, off64_t off, off64_t len) {
  FL_REAL(posix_fallocate64);
  if (must_fail(fd, call_kind::allocate)) return errno;
  return real(fd, off, len);
}
FL_FAILING(int, rename, (const char* from, const char* to), -1, rename, (from, to), noexcept)
FL_FAILING(int, renameat, (int fromfd, const char* from, int tofd, const char* to), -1, rename,
           (fromfd, from, tofd, to), noexcept)
FL_FAILING(int, renameat2, (int fromfd, const char* from, int tofd, const char* to, unsigned flags),
           -1, rename, (fromfd, from, tofd, to, flags), noexcept)
FL_FAILING(int, link, (const char* from, const char* to), -1, rename, (from, to), noexcept)
FL_FAILING(int, linkat, (int fromfd, const char* from, int tofd, const char* to, int flags), -1,
           rename, (fromfd, from, tofd, to, flags), noexcept)
FL_FAILING(int, msync, (void* addr, size_t len, int flags), -1, msync, (addr, len, flags))

}  // extern "C"

namespace {

// ---- the stores and what they hold: tests/support/fault_store.hpp

using fl_test::check_error;
using fl_test::list_of;
using fl_test::node;
using fl_test::note_text;
using fl_test::push_note;
using fl_test::read_all;

using value_t = std::array<std::uint64_t, 8>;

// ---- the sweep's workload ------------------------------------------------------
//
// Three stores in one directory, each created with one commit before the
// sweep arms (state 0): a persist<value_t> "value", a mapped_space "space"
// (a list of 2-3 KiB notes, so that it grows) and a json_store "doc". Then
// the armed part opens the three and runs `steps` steps, step k committing
// edit number n (its store's count) to store k % 3. A store's state after
// n edits is known from a run without failures (the reference).

constexpr int store_count = 3;
constexpr const char* store_names[store_count] = {"value", "space", "doc"};
constexpr int steps = 12;

value_t value_after(int n) {
  value_t v{};
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint64_t>(n) * 1000 + i;
  return v;
}

struct world {
  std::filesystem::path dir;
  std::unique_ptr<fl::persist<value_t>> value;
  std::unique_ptr<fl::mapped_space> space;
  std::unique_ptr<fl::json_store> doc;

  void open(int store) {
    switch (store) {
      case 0: value = std::make_unique<fl::persist<value_t>>(dir / "value"); break;
      case 1: space = std::make_unique<fl::mapped_space>(dir / "space"); break;
      default: doc = std::make_unique<fl::json_store>(fl::json_store::open(dir / "doc")); break;
    }
  }
  // Edit number n of `store` (turning state n - 1 into state n), not committed.
  void edit(int store, int n) {
    switch (store) {
      case 0: **value = value_after(n); break;
      case 1:
        push_note(*space, n);
        // Every third edit also frees the oldest note but one: freed blocks
        // are reused, and the retired batch goes through a commit.
        if (n % 3 == 0) {
          fl::fptr<node> p = space->root<node>();
          while (p && space->get(p)->next && space->get(space->get(p)->next)->next)
            p = space->get(p)->next;
          if (p && space->get(p)->next) {
            const fl::fptr<node> last = space->get(p)->next;
            space->get(last)->text.clear(*space);
            space->get(p)->next = {};
            space->destroy(last);
          }
        }
        break;
      default:
        doc->set("/n" + std::to_string(n),
                 "{\"text\":\"" + note_text(n) + "\",\"n\":" + std::to_string(n) + "}");
        if (n % 4 == 0) doc->erase("/n" + std::to_string(n - 2));
        if (n % 5 == 0) doc->compact();  // the next sync() renames a new file over it
        break;
    }
  }
  void commit(int store) {
    switch (store) {
      case 0: value->flush(); break;
      case 1: space->sync(); break;
      default: doc->sync(); break;
    }
  }
  // The committed state of `store` as text (the handle must be open).
  std::string state(int store) const {
    switch (store) {
      case 0: {
        std::string s;
        for (const std::uint64_t x : **value) s += std::to_string(x) + ",";
        return s;
      }
      case 1: return list_of(*space);
      default: return std::string(std::string_view(doc->dump()));
    }
  }
  void close() {
    value.reset();
    space.reset();
    doc.reset();
  }
};

// Creates the three stores in `dir`, each with edit 1 committed.
void setup(const std::filesystem::path& dir) {
  world w{dir, {}, {}, {}};
  w.value = std::make_unique<fl::persist<value_t>>(dir / "value");
  w.space = std::make_unique<fl::mapped_space>(dir / "space");
  w.doc = std::make_unique<fl::json_store>(fl::json_store::create(dir / "doc"));
  for (int s = 0; s < store_count; ++s) {
    w.edit(s, 1);
    w.commit(s);
  }
}

// The reference: each store's state after n edits, n = 1 .. steps / 3 + 3.
using reference = std::array<std::vector<std::string>, store_count>;

reference make_reference(const std::filesystem::path& dir) {
  setup(dir);
  world w{dir, {}, {}, {}};
  reference ref;
  for (int s = 0; s < store_count; ++s) {
    w.open(s);
    ref[static_cast<std::size_t>(s)] = {std::string(), w.state(s)};  // [0] unused
    for (int n = 2; n <= steps / store_count + 3; ++n) {
      w.edit(s, n);
      w.commit(s);
      ref[static_cast<std::size_t>(s)].push_back(w.state(s));
    }
  }
  return ref;
}

struct point_result {
  bool threw = false;     // the workload got a persist_error
  bool absorbed = false;  // a call failed and every step still succeeded
  bool retried = false;   // the commit was retried on the same handle and succeeded
  bool refused = false;   // the same handle refused to commit again (reopen needed)
  bool landed = false;    // the failed commit turned out committed after all
  std::string problems;   // empty when every check passed
};

// One failure point: calls from number `fail_at` on fail with `err` until
// the workload sees an error; then the checks.
point_result run_point(const std::filesystem::path& dir, const reference& ref, long fail_at,
                       int err) {
  point_result r;
  setup(dir);
  std::array<int, store_count> done{1, 1, 1};  // edits committed per store
  world w{dir, {}, {}, {}};
  int store = -1;
  bool committing = false;
  arm(fail_at, err);
  try {
    for (store = 0; store < store_count; ++store) w.open(store);
    for (int k = 0; k < steps; ++k) {
      store = k % store_count;
      committing = false;
      w.edit(store, done[static_cast<std::size_t>(store)] + 1);
      committing = true;
      w.commit(store);
      ++done[static_cast<std::size_t>(store)];
    }
    store = -1;
  } catch (const fl::persist_error& e) {
    r.threw = true;
    r.problems += check_error(e, dir, err);
  } catch (const std::exception& e) {
    r.threw = true;
    r.problems += std::string("not a persist_error: ") + e.what() + ";";
  }
  const bool failed = inj().first_failed_kind >= 0;
  disarm();
  if (!failed) r.problems += " no call failed;";
  if (failed && !r.threw) r.absorbed = true;
  // The same handle commits again now that the disk works, or refuses
  // (after a failed flush of a mapped_space's file: reopen).
  int maybe = -1;  // a store whose failed commit may have landed
  if (r.threw && committing && store >= 0) {
    try {
      w.commit(store);
      ++done[static_cast<std::size_t>(store)];
      r.retried = true;
    } catch (const fl::persist_error& e) {
      r.refused = true;
      if (std::string(e.what()).find("reopen") == std::string::npos &&
          std::string(e.what()).find("superseded") == std::string::npos)
        r.problems += std::string(" a retry failed without asking for a reopen: ") + e.what() + ";";
      maybe = store;
    } catch (const std::exception& e) {
      r.problems += std::string(" a retry threw ") + e.what() + ";";
    }
  }
  if (r.threw && !committing && store == 0) maybe = 0;  // persist's destructor flushes
  w.close();
  // Reopened: every store holds its last commit (or, for the store whose
  // commit failed, possibly that commit: the failure came after its commit
  // point, as a crash there could leave it).
  auto check_states = [&](const char* when) {
    for (int s = 0; s < store_count; ++s) {
      const auto su = static_cast<std::size_t>(s);
      try {
        w.open(s);
        const std::string got = w.state(s);
        if (got == ref[su][static_cast<std::size_t>(done[su])]) continue;
        if (s == maybe && got == ref[su][static_cast<std::size_t>(done[su]) + 1]) {
          ++done[su];
          r.landed = true;
          continue;
        }
        r.problems += std::string(" ") + when + ": " + store_names[s] +
                      " holds none of its committed states (" + std::to_string(done[su]) +
                      " edits committed);";
      } catch (const std::exception& e) {
        r.problems +=
            std::string(" ") + when + ": reopening " + store_names[s] + " threw " + e.what() + ";";
      }
    }
    if (w.space) {
      try {
        w.space->verify();
      } catch (const std::exception& e) {
        r.problems += std::string(" ") + when + ": verify: " + e.what() + ";";
      }
    }
  };
  check_states("after the failure");
  // And every store commits again.
  for (int s = 0; s < store_count && r.problems.empty(); ++s) {
    const auto su = static_cast<std::size_t>(s);
    try {
      w.edit(s, done[su] + 1);
      w.commit(s);
      ++done[su];
    } catch (const std::exception& e) {
      r.problems +=
          std::string(" a further commit of ") + store_names[s] + " threw " + e.what() + ";";
    }
  }
  w.close();
  maybe = -1;
  if (r.problems.empty()) check_states("after a further commit");
  w.close();
  return r;
}

// The directory the sweep works in: /dev/shm when there is one (its flushes
// cost nothing, and what the sweep tests is the error paths, not the disk).
std::filesystem::path sweep_root() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0)
    return "/dev/shm";
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

std::filesystem::path make_dir(const std::filesystem::path& root, const char* what) {
  std::string tmpl = (root / (std::string("fl_faults_") + what + "_XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  return tmpl;
}

TEST(PersistFaults, SweepEveryFileCallFailsInTurn) {
  const std::filesystem::path root = sweep_root();
  // The reference, and the number of file-changing calls the armed part of
  // the workload makes.
  reference ref;
  long total = 0;
  std::array<long, kind_count> by_kind{};
  {
    const std::filesystem::path dir = make_dir(root, "ref");
    ref = make_reference(dir);
    std::filesystem::remove_all(dir);
    const std::filesystem::path dir2 = make_dir(root, "count");
    const point_result r = run_point(dir2, ref, -1, 0);
    total = inj().calls;
    by_kind = inj().by_kind;
    std::filesystem::remove_all(dir2);
    ASSERT_FALSE(r.threw) << r.problems;
    ASSERT_GT(total, 20) << "the injector sees too few calls: are the definitions bound?";
  }
  struct tally {
    long points = 0, crashes = 0, lost = 0, problems = 0, absorbed = 0, retried = 0, refused = 0,
         landed = 0;
    std::array<long, kind_count> by_kind{};
  };
  if (const char* one = std::getenv("FL_FAULTS_POINT")) {  // "<call> <errno>"
    long at = 0;
    int e = 0;
    ASSERT_EQ(std::sscanf(one, "%ld %d", &at, &e), 2);
    const std::filesystem::path dir = make_dir(root, "point");
    const point_result r = run_point(dir, ref, at, e);
    std::filesystem::remove_all(dir);
    EXPECT_EQ(r.problems, "");
    return;
  }
  std::array<tally, 2> tallies{};
  const int errs[2] = {ENOSPC, EIO};
  for (int ei = 0; ei < 2; ++ei) {
    tally& t = tallies[static_cast<std::size_t>(ei)];
    for (long i = 0; i < total; ++i) {
      const std::filesystem::path dir = make_dir(root, "point");
      // In a child: a crash is counted, not the end of the test program.
      const fl_test::piped_child c = fl_test::fork_piped([&](int out) {
        const point_result r = run_point(dir, ref, i, errs[ei]);
        const std::string line = std::to_string(inj().first_failed_kind) + " " +
                                 std::to_string(r.absorbed) + std::to_string(r.retried) +
                                 std::to_string(r.refused) + std::to_string(r.landed) + " " +
                                 r.problems;
        (void)!::write(out, line.data(), line.size());
        ::close(out);
        ::_exit(0);
      });
      const std::string line = read_all(c.from_child);
      ::close(c.from_child);
      int status = 0;
      ::waitpid(c.pid, &status, 0);
      std::filesystem::remove_all(dir);
      ++t.points;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        ++t.crashes;
        ADD_FAILURE() << strerror(errs[ei]) << " at call " << i << ": the child died ("
                      << (WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "exit status") << ")";
        continue;
      }
      int kind = -1;
      char flags[5] = {};
      int used = 0;
      if (std::sscanf(line.c_str(), "%d %4s %n", &kind, flags, &used) < 2) {
        ADD_FAILURE() << "unreadable report from the child: " << line;
        continue;
      }
      if (kind >= 0) ++t.by_kind[static_cast<std::size_t>(kind)];
      t.absorbed += flags[0] == '1';
      t.retried += flags[1] == '1';
      t.refused += flags[2] == '1';
      t.landed += flags[3] == '1';
      const std::string problems = line.substr(static_cast<std::size_t>(used));
      if (!problems.empty()) {
        ++t.problems;
        if (problems.find("holds none") != std::string::npos) ++t.lost;
        ADD_FAILURE() << strerror(errs[ei]) << " at call " << i << " ("
                      << (kind >= 0 ? kind_names[kind] : "?") << "):" << problems
                      << "\n  rerun: FL_FAULTS_TRACE=1 FL_FAULTS_POINT='" << i << " " << errs[ei]
                      << "' persist_faults_test";
      }
    }
  }
  std::printf("fault sweep: %ld file-changing calls in the workload (", total);
  for (int k = 0; k < kind_count; ++k)
    std::printf("%s%s %ld", k ? ", " : "", kind_names[k], by_kind[static_cast<std::size_t>(k)]);
  std::printf(")\n");
  for (int ei = 0; ei < 2; ++ei) {
    const tally& t = tallies[static_cast<std::size_t>(ei)];
    std::printf("  %s: %ld failure points (", ei == 0 ? "ENOSPC" : "EIO", t.points);
    for (int k = 0; k < kind_count; ++k)
      std::printf("%s%s %ld", k ? ", " : "", kind_names[k], t.by_kind[static_cast<std::size_t>(k)]);
    std::printf(
        "); crashes %ld, lost commits %ld, other failed checks %ld; same handle "
        "committed again %ld, refused until reopen %ld; failed commits found "
        "committed after all %ld; failures absorbed %ld\n",
        t.crashes, t.lost, t.problems - t.lost, t.retried, t.refused, t.landed, t.absorbed);
  }
}

}  // namespace
