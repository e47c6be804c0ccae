// tests/persist_crash_test.cpp: crashes and damaged files.
//
// Crash tests: a child process commits (persist<T>::flush, mapped_space::sync)
// in a loop and reports each commit's sequence number through a pipe once the
// call has returned; the parent kills it with SIGKILL at a random moment,
// reopens the file and checks that it holds one complete committed state, no
// older than the last reported commit (a newer one is allowed: the child may
// die after a commit and before reporting it). 500 rounds each (100 in
// sanitizer builds).
//
// Damaged files: truncation at every 1/16 of the file, single-byte flips at
// 500 random offsets (100 in sanitizer builds), a zero-length file, garbage,
// another kind's file and a newer format version must each throw
// fl::persist_error (mapped_space: at open or from verify()). Each load runs
// in a child process, so a crash is a failed check, and the file's bytes must
// be unchanged afterwards.
//
// Each test prints its counts (rounds, states checked, states lost, files
// refused) on stdout.
#include "persist/persist_format.hpp"
#include <fl/persist.hpp>

#include "persist_support.hpp"
#include "seq_words.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include <fcntl.h>
#include <poll.h>

namespace {

using fl_test::scratch_dir;

// Sanitizer builds fork slowly (every child copies the shadow memory's page
// tables), so they run a fifth of the rounds and flips; the plain build of
// `make test` runs them all.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif
constexpr int crash_rounds = sanitized ? 100 : 500;
constexpr int byte_flips = sanitized ? 100 : 500;

// 128 bytes whose every word derives from its sequence number: a torn or
// mixed save is not intact().
using seq_value = fl_test::seq_words<15>;

// Starts `child_loop(report_fd)` in a child, waits until it has reported
// at least one commit (or a short while), sleeps a random 0..max_delay_us,
// kills it with SIGKILL and returns the last reported sequence number
// (0 if none).
template <class Loop>
std::uint64_t run_and_kill(std::mt19937_64& rng, int max_delay_us, Loop child_loop) {
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) std::abort();
  if (pid == 0) {
    ::close(fds[0]);
    try {
      child_loop(fds[1]);
    } catch (...) { ::_exit(3); }
    ::_exit(0);
  }
  ::close(fds[1]);
  // Wait (up to 2 s) for the first report, then a random extra delay.
  pollfd pfd{fds[0], POLLIN, 0};
  ::poll(&pfd, 1, 2000);
  std::this_thread::sleep_for(
      std::chrono::microseconds(rng() % static_cast<std::uint64_t>(max_delay_us)));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::uint64_t last = 0, v = 0;
  while (::read(fds[0], &v, sizeof v) == static_cast<ssize_t>(sizeof v)) last = v;
  ::close(fds[0]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "child ended by itself, status " << status;
  return last;
}

void report(int fd, std::uint64_t seq) {
  if (::write(fd, &seq, sizeof seq) != static_cast<ssize_t>(sizeof seq)) ::_exit(4);
}

// The crash test of one kind of file, crash_rounds times: run_and_kill on
// `child_loop(report_fd, child_seed)` (a seed of its own each round), then
// `reopen()`, which returns the sequence number of the complete state it
// found or throws when the state is damaged. A state is lost when reopen
// throws or finds one older than the last reported commit. Prints the counts
// under `what`; every state must be kept.
template <class Loop, class Reopen>
void expect_crash_safe(const char* what, Loop child_loop, Reopen reopen) {
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  int rounds = 0, states_checked = 0, killed_before_first_report = 0;
  int states_lost = 0;  // older than the last reported commit, or damaged
  std::uint64_t expect_at_least = 0, newer_than_report = 0;
  for (int round = 0; round < crash_rounds; ++round) {
    const std::uint64_t child_seed = rng();
    const std::uint64_t last =
        run_and_kill(rng, 15000, [&](int fd) { child_loop(fd, child_seed); });
    ++rounds;
    if (last == 0) ++killed_before_first_report;
    expect_at_least = std::max(expect_at_least, last);
    try {
      const std::uint64_t seq = reopen();
      ++states_checked;
      if (seq < expect_at_least) {
        ++states_lost;
        ADD_FAILURE() << what << ": seed " << seed << " round " << round << ": seq " << seq
                      << ", last reported " << expect_at_least;
      }
      if (seq > last) ++newer_than_report;
      expect_at_least = std::max(expect_at_least, seq);
    } catch (const std::exception& e) {
      ++states_lost;
      ADD_FAILURE() << what << ": seed " << seed << " round " << round << ": " << e.what();
    }
  }
  std::printf(
      "%s crash test: %d rounds, %d states checked, %d states lost, %d kills before the first "
      "commit report, %llu opens found a commit newer than the last report, final seq %llu\n",
      what, rounds, states_checked, states_lost, killed_before_first_report,
      static_cast<unsigned long long>(newer_than_report),
      static_cast<unsigned long long>(expect_at_least));
  EXPECT_EQ(states_lost, 0);
}

TEST(PersistCrash, KilledWriterLeavesACompleteCommittedValue) {
  scratch_dir d;
  const auto path = d / "v";
  expect_crash_safe(
      "persist<T>",
      [&](int fd, std::uint64_t) {
        fl::persist<seq_value> p(path);
        for (std::uint64_t s = p->seq + 1;; ++s) {
          p->set(s);
          p.flush();
          report(fd, s);
        }
      },
      [&] {
        fl::persist<seq_value> p(path);  // throws if the file is damaged
        if (!p->intact()) throw std::runtime_error("value torn, seq " + std::to_string(p->seq));
        return p->seq;
      });
}

// The space's state: a root with a sequence number and 16 slots; each commit
// replaces 3 slots with new items (random size up to ~200 KiB, so the file
// grows and the checksum table is replaced now and then) whose bytes and name
// derive from (sequence, slot).
struct crash_root {
  std::uint64_t seq;
  fl::fptr<std::uint64_t> items[16];
  fl::fptr<fl::pstring> names[16];
};

std::uint64_t item_word(std::uint64_t seq, std::uint64_t slot, std::uint64_t i) {
  return (seq * 1315423911u + slot * 2654435761u) ^ (i * 0x9E3779B97F4A7C15ull);
}

std::string item_name(std::uint64_t seq, std::uint64_t slot) {
  return "item " + std::to_string(seq) + " of slot " + std::to_string(slot);
}

// Checks one reopened space; returns its sequence number or throws.
std::uint64_t check_space(fl::mapped_space& s) {
  s.verify();
  const crash_root* r = s.get(s.root<crash_root>());
  if (r == nullptr) return 0;
  for (std::uint64_t slot = 0; slot < 16; ++slot) {
    if (!r->items[slot]) continue;
    const std::uint64_t* w = s.get(r->items[slot]);
    const std::uint64_t seq = w[0], words = w[1];
    if (seq > r->seq) throw std::runtime_error("item newer than the root");
    for (std::uint64_t i = 0; i < words; ++i)
      if (w[2 + i] != item_word(seq, slot, i)) throw std::runtime_error("item bytes torn");
    if (s.get(r->names[slot])->view(s) != item_name(seq, slot))
      throw std::runtime_error("item name torn");
  }
  return r->seq;
}

TEST(MappedSpaceCrash, KilledWriterLeavesACompleteCommittedState) {
  scratch_dir d;
  const auto path = d / "s";
  expect_crash_safe(
      "mapped_space",
      [&](int fd, std::uint64_t child_seed) {
        std::mt19937_64 crng(child_seed);
        fl::mapped_space s(path);
        fl::fptr<crash_root> root = s.root<crash_root>();
        if (!root) {
          root = s.make<crash_root>();
          s.set_root(root);
        }
        for (std::uint64_t seq = s.get(root)->seq + 1;; ++seq) {
          for (int k = 0; k < 3; ++k) {
            const std::uint64_t slot = crng() % 16;
            crash_root* r = s.get(root);
            s.deallocate(r->items[slot]);
            fl::pstring::destroy(s, r->names[slot]);
            const std::uint64_t words = crng() % 16 == 0 ? crng() % 25000 : crng() % 64;
            const fl::fptr<std::uint64_t> item = s.allocate((2 + words) * 8).cast<std::uint64_t>();
            std::uint64_t* w = s.get(item);
            w[0] = seq;
            w[1] = words;
            for (std::uint64_t i = 0; i < words; ++i) w[2 + i] = item_word(seq, slot, i);
            const fl::fptr<fl::pstring> name = fl::pstring::make(s, item_name(seq, slot));
            r = s.get(root);  // the allocations may have moved the mapping
            r->items[slot] = item;
            r->names[slot] = name;
          }
          s.get(root)->seq = seq;
          s.sync();
          report(fd, seq);
        }
      },
      [&] {
        fl::mapped_space s(path);
        return check_space(s);
      });
}

// ---- damaged files -------------------------------------------------------------

struct damage_counts {
  int refused = 0;
  int accepted = 0;  // loaded without an error: a failure
  int crashed = 0;   // the child died: a failure
  int changed = 0;   // the file's bytes changed: a failure
};

// Writes `bytes` to `path`, runs `load` in a child (0: persist_error thrown,
// 1: no error, 2: another exception), and checks the outcome and the bytes.
void expect_refused(const std::filesystem::path& path, const std::vector<unsigned char>& bytes,
                    const std::function<void()>& load, damage_counts& c, const std::string& what) {
  fl_test::write_bytes(path, bytes);
  const int rc = fl_test::run_in_child([&] {
    try {
      load();
    } catch (const fl::persist_error&) { return 0; } catch (...) {
      return 2;
    }
    return 1;
  });
  if (rc == 0) {
    ++c.refused;
  } else if (rc >= 128) {
    ++c.crashed;
    ADD_FAILURE() << what << ": the loader crashed (signal " << rc - 128 << ")";
  } else {
    ++c.accepted;
    ADD_FAILURE() << what << ": " << (rc == 1 ? "loaded without an error" : "threw something else");
  }
  if (fl_test::read_bytes(path) != bytes) {
    ++c.changed;
    ADD_FAILURE() << what << ": the file's bytes changed";
  }
}

// The damage every loader gets: truncations, flips, empty, garbage.
void damage_suite(const std::filesystem::path& path, const std::vector<unsigned char>& good,
                  const std::function<void()>& load, damage_counts& c, std::mt19937_64& rng,
                  std::uint64_t seed) {
  for (std::size_t k = 0; k < 16; ++k) {
    const std::vector<unsigned char> cut(good.begin(),
                                         good.begin() + static_cast<long>(good.size() * k / 16));
    expect_refused(path, cut, load, c,
                   "truncated to " + std::to_string(k) + "/16, seed " + std::to_string(seed));
  }
  for (int i = 0; i < byte_flips; ++i) {
    std::vector<unsigned char> bad = good;
    const std::size_t at = rng() % bad.size();
    bad[at] ^= static_cast<unsigned char>(1u << (rng() % 8));
    expect_refused(path, bad, load, c,
                   "flip at byte " + std::to_string(at) + ", seed " + std::to_string(seed));
  }
  expect_refused(path, {}, load, c, "zero-length file");
  std::vector<unsigned char> garbage(good.size());
  for (unsigned char& b : garbage) b = static_cast<unsigned char>(rng());
  expect_refused(path, garbage, load, c, "garbage");
}

void print_counts(const char* what, const damage_counts& c) {
  std::printf(
      "%s damaged files: %d refused with persist_error, %d accepted, %d crashed, %d changed\n",
      what, c.refused, c.accepted, c.crashed, c.changed);
}

TEST(PersistDamage, EveryDamagedFileIsRefusedAndLeftUnchanged) {
  scratch_dir d;
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  const auto good_path = d / "good";
  {
    fl::persist<seq_value> p(good_path, 77);
    p->set(12345);
  }
  const std::vector<unsigned char> good = fl_test::read_bytes(good_path);
  ASSERT_EQ(good.size(), sizeof(fl::detail::value_header) + sizeof(seq_value));
  const auto path = d / "bad";
  const auto load = [&] { fl::persist<seq_value> p(path, 77); };
  damage_counts c;
  damage_suite(path, good, load, c, rng, seed);

  // Another type's file: other size, other tag, a mapped_space file.
  {
    fl::persist<std::uint32_t> other(d / "other", 77);
    *other = 5;
  }
  expect_refused(path, fl_test::read_bytes(d / "other"), load, c, "a persist<uint32_t> file");
  {
    fl::persist<seq_value> other(d / "tag", 78);
    other->set(1);
  }
  expect_refused(path, fl_test::read_bytes(d / "tag"), load, c, "another type tag");
  { fl::mapped_space s(d / "space"); }
  expect_refused(path, fl_test::read_bytes(d / "space"), load, c, "a mapped_space file");
  // A newer format version, with a correct checksum.
  std::vector<unsigned char> newer = good;
  fl::detail::value_header h;
  std::memcpy(&h, newer.data(), sizeof h);
  h.format_version = fl::detail::value_format_version + 1;
  h.crc = fl::detail::crc32c(newer.data() + sizeof h, sizeof(seq_value),
                             fl::detail::crc32c(&h, fl::detail::value_crc_span));
  std::memcpy(newer.data(), &h, sizeof h);
  expect_refused(path, newer, load, c, "newer format version");

  print_counts("persist<T>", c);
  EXPECT_EQ(c.refused, 16 + byte_flips + 2 + 4);
}

TEST(MappedSpaceDamage, EveryDamagedFileIsRefusedAndLeftUnchanged) {
  scratch_dir d;
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  const auto good_path = d / "good";
  {
    fl::mapped_space s(good_path);
    std::mt19937_64 fill(seed);
    std::vector<fl::fptr<void>> blocks;
    for (int i = 0; i < 300; ++i) {
      const std::size_t n = fill() % 600;
      const fl::fptr<void> p = s.allocate(n);
      std::memset(s.get(p.cast<char>()), static_cast<int>(fill() & 0xFF), n);
      blocks.push_back(p);
    }
    for (int i = 0; i < 100; ++i) s.deallocate(blocks[static_cast<std::size_t>(i * 3)]);
    s.set_root(blocks[1]);
    s.sync();
    s.get(blocks[2].cast<char>())[0] = 'x';
    s.sync();  // two commits: both meta slots hold real states
  }
  const std::vector<unsigned char> good = fl_test::read_bytes(good_path);
  // The damaged copies have no log beside them: the file alone must tell.
  const auto path = d / "bad";
  const auto load = [&] {
    fl::mapped_space s(path, {.mode = fl::open_mode::open_existing});
    s.verify();
  };
  // The good file passes the same load.
  fl_test::write_bytes(path, good);
  ASSERT_EQ(fl_test::run_in_child([&] {
              load();
              return 0;
            }),
            0);
  damage_counts c;
  damage_suite(path, good, load, c, rng, seed);

  {
    fl::persist<seq_value> other(d / "value");
    other->set(3);
  }
  expect_refused(path, fl_test::read_bytes(d / "value"), load, c, "a persist<T> file");
  // A newer format version in both meta slots, with correct checksums.
  std::vector<unsigned char> newer = good;
  for (int slot = 0; slot < 2; ++slot) {
    fl::detail::space_meta m;
    std::memcpy(&m, newer.data() + slot * fl::detail::space_page, sizeof m);
    m.format_version = fl::detail::space_format_version + 1;
    m.crc = fl::detail::crc32c(&m, fl::detail::meta_crc_span);
    std::memcpy(newer.data() + slot * fl::detail::space_page, &m, sizeof m);
  }
  expect_refused(path, newer, load, c, "newer format version");
  std::vector<unsigned char> tail_cut = good;
  tail_cut.resize(good.size() - fl::detail::space_page);
  expect_refused(path, tail_cut, load, c, "last page missing");

  print_counts("mapped_space", c);
  EXPECT_EQ(c.refused, 16 + byte_flips + 2 + 3);
}

}  // namespace
