// fl::json_store crash test: a child process edits a store and syncs in a
// loop, reporting each sync() that returned through a pipe; the parent kills
// it with SIGKILL at a random moment, then reopens the store. What reopens
// must be one complete synced state (every value written by one commit
// agrees), never older than the last reported sync, and at most the one
// commit that was in flight newer. The next round's child continues from
// that file, so recovery is exercised again and again.
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "child_process.hpp"
#include "json_test_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// The text every commit n writes at /blob: its length and bytes depend on n.
std::string blob(std::uint64_t n) {
  std::string s(static_cast<std::size_t>((n * 2654435761u) % 3000), 'a');
  for (std::size_t i = 0; i < s.size(); i += 7) s[i] = static_cast<char>('a' + (n + i) % 26);
  return s;
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

// The child: never returns.
[[noreturn]] void writer(const std::filesystem::path& file, int report_fd) {
  try {
    std::uint64_t n = 0;
    fl::json_store s = std::filesystem::exists(file)
                           ? fl::json_store::open(file)
                           : fl::json_store::import(
                                 R"({"n":0,"copy":0,"ring":[0,0,0,0,0,0,0,0],"blob":""})", file);
    n = static_cast<std::uint64_t>(s.find("/n")->as_int64());
    for (;;) {
      ++n;
      const std::string v = std::to_string(n);
      s.set("/n", v);
      s.set("/ring/" + std::to_string(n % 8), v);
      s.set("/blob", quoted(blob(n)));
      s.set("/copy", v);
      s.sync();
      if (::write(report_fd, &n, sizeof n) != static_cast<ssize_t>(sizeof n)) ::_exit(3);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writer: %s\n", e.what());
    ::_exit(2);
  }
}

TEST(JsonStoreCrash, SigkillDuringSyncLoopsLeavesTheLastCommit) {
  fl_test::temp_dir dir;
  const std::filesystem::path file = dir / "crash.fljson";
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  std::uint64_t committed = 0;  // the state verified after the previous round
  bool exists = false;
  int rounds = 0, kills_mid_commit = 0;
  std::uint64_t syncs = 0;
  for (int round = 0; round < 100; ++round, ++rounds) {
    const fl_test::piped_child child = fl_test::fork_piped([&](int fd) { writer(file, fd); });
    const int from_writer = child.from_child;
    // Read reports until a random deadline, then kill.
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::microseconds(rng() % 60'000);
    std::uint64_t last = 0;
    bool reported = false;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{from_writer, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      std::uint64_t n;
      if (::read(from_writer, &n, sizeof n) != static_cast<ssize_t>(sizeof n)) break;
      last = n;
      reported = true;
      ++syncs;
    }
    ASSERT_TRUE(fl_test::kill_and_reap(child.pid)) << "the writer failed, seed " << seed;
    std::uint64_t n;  // reports written before the kill
    while (::read(from_writer, &n, sizeof n) == static_cast<ssize_t>(sizeof n)) {
      last = n;
      reported = true;
      ++syncs;
    }
    ::close(from_writer);

    if (!exists && !reported && !std::filesystem::exists(file))
      continue;  // killed before the first commit
    exists = true;
    // The space opens (completing an interrupted commit from its log) and
    // every committed page and block checks out.
    fl::mapped_space(file).verify();
    auto s = fl::json_store::open(file);
    const auto got = static_cast<std::uint64_t>(s.find("/n")->as_int64());
    const std::uint64_t floor = reported ? last : committed;
    EXPECT_GE(got, floor) << "a reported sync was lost, seed " << seed << " round " << round;
    EXPECT_LE(got, floor + 1) << "seed " << seed << " round " << round;
    if (got == floor + 1) ++kills_mid_commit;
    // One complete commit: every value it wrote is there.
    EXPECT_EQ(static_cast<std::uint64_t>(s.find("/copy")->as_int64()), got) << "seed " << seed;
    if (got > 0) {
      EXPECT_EQ(static_cast<std::uint64_t>(s.find("/ring/" + std::to_string(got % 8))->as_int64()),
                got);
      EXPECT_EQ(s.find("/blob")->as_string_view(), blob(got)) << "seed " << seed;
    }
    committed = got;
  }
  std::printf(
      "crash: %d SIGKILL rounds, %llu syncs reported, %d reopened one commit past the last report "
      "(killed inside sync), final n = %llu, seed %llu\n",
      rounds, static_cast<unsigned long long>(syncs), kills_mid_commit,
      static_cast<unsigned long long>(committed), static_cast<unsigned long long>(seed));
}

}  // namespace
