// tests/mapped_space_reported_writes_test.cpp: a space whose owner reports
// its writes (mapped_space_options::writes_reported). Its commits take the
// pages that may have changed from the reports, never from the page tables:
// a reported write is committed and survives a reopen (one that crosses
// pages too), pages that reads mapped are not committed, a kept page written again is committed again,
// and a failed commit's retry still commits what the failed one had set (the
// page checksums). Under FL_CHECK_WRITES=1 (ctest sets it) a write no report
// named is refused, naming its page, and nothing is committed.
// Such a writer leaves the data file behind by its own choice for a few
// commits (the log holds them): readers, a crash, a rollback and a close
// all still see the newest commit, and the lag ends within its bound.
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"
#include "persist/space.hpp"
#include "persist_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

namespace {

using fl_test::scratch_dir;
constexpr std::uint64_t page = fl::detail::space_page;

struct root {
  fl::fptr<std::uint64_t> a, b;  // a page each
};

// Whether commits check the reports (FL_CHECK_WRITES=1, read once by the
// library as by this).
bool checking() {
  const char* e = std::getenv("FL_CHECK_WRITES");
  return e != nullptr && std::string(e) == "1";
}

fl::mapped_space open_reported(const std::filesystem::path& p) {
  return fl::mapped_space(p, fl::mapped_space_options{.writes_reported = true});
}

// A space with a root of two one-page blocks, committed.
fl::fptr<root> make_root(fl::mapped_space& s) {
  const auto r = s.make<root>();
  s.set_root(r);
  const auto a = s.allocate(page, page).cast<std::uint64_t>();
  const auto b = s.allocate(page, page).cast<std::uint64_t>();
  s.get(r)->a = a;
  s.get(r)->b = b;
  s.wrote(r, sizeof(root));
  s.sync();
  return r;
}

// A block of `pages` pages in place of the root's `b`, committed.
fl::fptr<std::uint64_t> commit_block(fl::mapped_space& s, fl::fptr<root> r, std::uint64_t pages) {
  const auto big = s.allocate(pages * page, page).cast<std::uint64_t>();
  s.get(r)->b = big;
  s.wrote(r, sizeof(root));
  s.sync();
  return big;
}

TEST(ReportedWrites, AReportedWriteIsCommittedAndReadsBackAfterAReopen) {
  scratch_dir d;
  {
    fl::mapped_space s = open_reported(d / "s");
    const auto r = make_root(s);
    for (int round = 1; round <= 3; ++round) {  // the page is kept after the first
      std::uint64_t* a = s.get(s.get(r)->a);
      a[7] = 1000 + round;
      s.wrote(s.get(r)->a, 64);
      s.sync();
    }
  }
  fl::mapped_space s = open_reported(d / "s");
  const auto r = s.root<root>();
  EXPECT_EQ(s.get(s.get(r)->a)[7], 1003u);
  s.verify();
}

// A report that starts and ends inside 64-byte units and crosses two page
// boundaries: the commit logs every byte it changed, and the bytes around it
// stay as they were.
TEST(ReportedWrites, AWriteAcrossUnitsAndPagesIsCommittedWhole) {
  scratch_dir d;
  constexpr std::uint64_t from = 100, bytes = 8000;
  {
    fl::mapped_space s = open_reported(d / "s");
    const auto big = commit_block(s, make_root(s), 3).cast<unsigned char>();
    std::memset(s.get(big), 0xA5, 3 * page);
    s.wrote(big, 3 * page);
    s.sync();
    unsigned char* w = s.get(big);
    for (std::uint64_t i = from; i < from + bytes; ++i) w[i] = static_cast<unsigned char>(i * 31);
    s.wrote(big + static_cast<std::ptrdiff_t>(from), bytes);
    s.sync();
  }
  fl::mapped_space s = open_reported(d / "s");
  s.verify();
  const auto* w = reinterpret_cast<const unsigned char*>(s.get(s.get(s.root<root>())->b));
  for (std::uint64_t i = 0; i < 3 * page; ++i) {
    const unsigned char want =
        i >= from && i < from + bytes ? static_cast<unsigned char>(i * 31) : 0xA5;
    ASSERT_EQ(w[i], want) << "byte " << i;
  }
}

TEST(ReportedWrites, ReadsMapNothingACommitWrites) {
  scratch_dir d;
  fl::mapped_space s = open_reported(d / "s");
  const auto r = make_root(s);
  // Read both pages (mapped, clean), change nothing: no commit at all.
  volatile std::uint64_t sum = s.get(s.get(r)->a)[0] + s.get(s.get(r)->b)[0];
  static_cast<void>(sum);
  const std::uint64_t generation = s.stats().generation;
  s.sync();
  EXPECT_EQ(s.stats().generation, generation);
  // One word written and reported: a commit of one page.
  s.get(s.get(r)->b)[1] = 5;
  s.wrote(s.get(r)->b, 16);
  s.sync();
  EXPECT_EQ(s.stats().generation, generation + 1);
  EXPECT_EQ(s.stats().last_sync_pages, 2u);  // the page and its checksum's
}

TEST(ReportedWrites, AnUnreportedWriteIsRefusedNamingItsPage) {
  if (!checking()) GTEST_SKIP() << "FL_CHECK_WRITES=1 is not set (ctest sets it)";
  scratch_dir d;
  fl::mapped_space s = open_reported(d / "s");
  const auto r = make_root(s);
  const fl::fptr<std::uint64_t> b = s.get(r)->b;
  s.get(b)[3] = 42;  // not reported
  try {
    s.sync();
    FAIL() << "sync() committed a write no report named";
  } catch (const fl::persist_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("was not reported"), std::string::npos) << what;
    char at[32];
    std::snprintf(at, sizeof at, "0x%llx", static_cast<unsigned long long>(b.offset()));
    EXPECT_NE(what.find(at), std::string::npos) << what;
  }
  // Reported now, the same change commits.
  s.wrote(b, 32);
  s.sync();
  s.rollback();
  EXPECT_EQ(s.get(b)[3], 42u);
}

TEST(ReportedWrites, AWriteOfTheBytesAlreadyThereNeedsNoReport) {
  if (!checking()) GTEST_SKIP() << "FL_CHECK_WRITES=1 is not set (ctest sets it)";
  scratch_dir d;
  fl::mapped_space s = open_reported(d / "s");
  const auto r = make_root(s);
  volatile std::uint64_t* a = s.get(s.get(r)->a);
  a[0] = a[0];  // the page is copied, its bytes unchanged
  EXPECT_NO_THROW(s.sync());
}

// A page a commit took is reported again by the next write to it; so is a
// page whose reported write a rollback undid (its report forgotten with
// it): were the report kept as "already in", the write after the rollback
// would commit nothing and read back as before it after a reopen.
TEST(ReportedWrites, APageReportedBeforeARollbackIsReportedAgainAfterIt) {
  scratch_dir d;
  {
    fl::mapped_space s = open_reported(d / "s");
    const auto r = make_root(s);
    const fl::fptr<std::uint64_t> a = s.get(r)->a;
    s.get(a)[5] = 1;
    s.wrote(a + 5, 8);
    s.rollback();
    ASSERT_EQ(s.get(a)[5], 0u);
    s.get(a)[5] = 2;
    s.wrote(a + 5, 8);
    s.sync();
  }
  fl::mapped_space s = open_reported(d / "s");
  EXPECT_EQ(s.get(s.get(s.root<root>())->a)[5], 2u);
  s.verify();
}

// A batch of many more reports than pages (a word at a time, the pages
// visited over and over out of order): the commit takes every page named,
// each once, and the reopened space holds every word.
TEST(ReportedWrites, ABatchOfManyReportsCommitsEveryPageTheyNamed) {
  scratch_dir d;
  constexpr std::uint64_t pages = 96, words = pages * page / 8, writes = 200000;
  {
    fl::mapped_space s = open_reported(d / "s");
    const auto big = commit_block(s, make_root(s), pages);
    std::uint64_t* w = s.get(big);
    for (std::uint64_t i = 0; i < writes; ++i) {
      const std::uint64_t at = i * 7919 % words;
      w[at] = i + 1;
      s.wrote(big + static_cast<std::ptrdiff_t>(at), 8);
    }
    s.sync();
    // The block's pages and the page of their checksums, nothing else.
    EXPECT_EQ(s.stats().last_sync_pages, pages + 1);
  }
  fl::mapped_space s = open_reported(d / "s");
  s.verify();
  const std::uint64_t* w = s.get(s.get(s.root<root>())->b);
  for (std::uint64_t i = writes - words; i < writes; ++i) ASSERT_EQ(w[i * 7919 % words], i + 1);
}

// A commit that fails after it set the new pages' checksums (its log
// record cannot be written: the file size limit), retried once the limit is
// lifted: the retry finds the checksum entries already set, and commits
// their page all the same (the entries were reported when set), so the
// reopened file verifies.
TEST(ReportedWrites, ARetriedCommitCommitsTheChecksumsTheFailedOneSet) {
  scratch_dir d;
  const std::filesystem::path path = d / "s";
  constexpr std::uint64_t pages = 64;
  {
    fl::mapped_space s = open_reported(path);
    const auto big = commit_block(s, make_root(s), pages);
    // Every word changed: the record holds the 64 pages whole.
    std::uint64_t* w = s.get(big);
    for (std::uint64_t i = 0; i < pages * page / 8; ++i) w[i] = 7000 + i;
    s.wrote(big, pages * page);
    // The log's record of 64 pages needs the log to grow, which the limit
    // (its size now) refuses before anything is committed.
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit old{};
    ::getrlimit(RLIMIT_FSIZE, &old);
    const std::uint64_t log_bytes = std::filesystem::file_size(path.string() + "-log");
    ASSERT_LT(log_bytes, pages * page);
    rlimit lim = old;
    lim.rlim_cur = static_cast<rlim_t>(log_bytes);
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &lim), 0);
    EXPECT_THROW(s.sync(), fl::persist_error);
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old), 0);
    s.sync();
  }
  fl::mapped_space s = open_reported(path);
  s.verify();
  const auto big = s.get(s.root<root>())->b;
  const std::uint64_t* w = s.get(big);
  for (std::uint64_t i = 0; i < pages * page / 8; i += 509) ASSERT_EQ(w[i], 7000 + i);
}

// The word at `off` of the data file itself (not the writer's mapping).
std::uint64_t file_word(const std::filesystem::path& p, std::uint64_t off) {
  std::uint64_t v = 0;
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::pread(fd, &v, sizeof v, static_cast<off_t>(off)), static_cast<ssize_t>(sizeof v));
  ::close(fd);
  return v;
}

// Commit i writes i into one word: the file holds an older value while the
// writer lags by choice, never one more than lag_chosen_commits behind, and
// the newest once the lag ends; a reader opened at any point reads the
// newest commit.
TEST(ReportedWrites, TheFileLagsByChoiceWithinItsBoundAndReadersSeeTheNewest) {
  scratch_dir d;
  const std::filesystem::path path = d / "s";
  fl::mapped_space s = open_reported(path);
  const auto r = make_root(s);
  const auto a = s.get(r)->a;
  const std::uint64_t at = a.offset() + 3 * sizeof(std::uint64_t);
  bool lagged = false, caught_up = false;
  for (std::uint64_t i = 1; i <= 3 * fl::detail::lag_chosen_commits; ++i) {
    s.get(a)[3] = i;
    s.wrote(a + 3, sizeof(std::uint64_t));
    s.sync();
    const std::uint64_t in_file = file_word(path, at);
    ASSERT_LE(in_file, i);
    ASSERT_LE(i - in_file, fl::detail::lag_chosen_commits) << "commit " << i;
    (in_file < i ? lagged : caught_up) = true;
    if (i % 11 == 0) {
      const fl::mapped_space reader = fl::mapped_space::open(path, fl::open_mode::read_only);
      ASSERT_EQ(reader.get(reader.get(reader.root<root>())->a)[3], i) << "commit " << i;
    }
  }
  EXPECT_TRUE(lagged);
  EXPECT_TRUE(caught_up);
}

// The close catches the file up and checkpoints: the data file alone holds
// the last commit (not the changes made since), and reopens to it.
TEST(ReportedWrites, ACloseWhileTheFileLagsLeavesItWhole) {
  scratch_dir d;
  const std::filesystem::path path = d / "s";
  std::uint64_t at = 0;
  {
    fl::mapped_space s = open_reported(path);
    const auto r = make_root(s);
    const auto a = s.get(r)->a, b = s.get(r)->b;
    at = a.offset();
    for (std::uint64_t i = 1; i <= 5; ++i) {
      s.get(a)[0] = 100 + i;
      s.get(b)[i] = i;
      s.wrote(a, 8);
      s.wrote(b + static_cast<std::ptrdiff_t>(i), 8);
      s.sync();
    }
    ASSERT_LT(file_word(path, at), 105u);  // lagging until the close
    // Changes never committed stay out of the file the close catches up.
    s.get(a)[0] = 999;
    s.get(b)[1] = 999;
    s.wrote(a, 8);
    s.wrote(b + 1, 8);
  }
  EXPECT_EQ(file_word(path, at), 105u);
  fl::mapped_space s = open_reported(path);
  s.verify();
  const auto r = s.root<root>();
  EXPECT_EQ(s.get(s.get(r)->a)[0], 105u);
  for (std::uint64_t i = 1; i <= 5; ++i) EXPECT_EQ(s.get(s.get(r)->b)[i], i);
}

// A writer that dies while its file lags (no close, no catch-up): the open
// after it replays the log to the last commit.
TEST(ReportedWrites, AWriterDyingWhileTheFileLagsReopensToItsLastCommit) {
  scratch_dir d;
  const std::filesystem::path path = d / "s";
  {
    fl::mapped_space s = open_reported(path);
    make_root(s);
  }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    fl::mapped_space s = open_reported(path);
    const auto r = s.root<root>();
    for (std::uint64_t i = 1; i <= 7; ++i) {
      s.get(s.get(r)->a)[i] = 900 + i;
      s.wrote(s.get(r)->a + static_cast<std::ptrdiff_t>(i), 8);
      s.sync();
    }
    ::_exit(0);  // the space never closes
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  fl::mapped_space s = open_reported(path);
  s.verify();
  const auto r = s.root<root>();
  for (std::uint64_t i = 1; i <= 7; ++i) EXPECT_EQ(s.get(s.get(r)->a)[i], 900 + i);
}

// A rollback while the file lags restores each page as the last commit left
// it (which only the writer's mapping and the log hold), and the next
// commit goes on from there.
TEST(ReportedWrites, ARollbackWhileTheFileLagsRestoresTheLastCommit) {
  scratch_dir d;
  const std::filesystem::path path = d / "s";
  fl::mapped_space s = open_reported(path);
  const auto r = make_root(s);
  const auto a = s.get(r)->a;
  s.get(a)[1] = 11;
  s.wrote(a + 1, 8);
  s.sync();
  ASSERT_NE(file_word(path, a.offset() + 8), 11u);  // the test needs the lag
  s.get(a)[1] = 99;
  s.get(a)[2] = 99;
  s.wrote(a + 1, 16);
  s.rollback();
  EXPECT_EQ(s.get(a)[1], 11u);
  EXPECT_EQ(s.get(a)[2], 0u);
  s.get(a)[2] = 22;
  s.wrote(a + 2, 8);
  s.sync();
  s.verify();  // catches the file up first
  EXPECT_EQ(file_word(path, a.offset() + 8), 11u);
  EXPECT_EQ(file_word(path, a.offset() + 16), 22u);
}

}  // namespace
