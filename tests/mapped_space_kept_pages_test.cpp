// tests/mapped_space_kept_pages_test.cpp: the pages a commit keeps mapped
// as private copies (src/persist/kept_pages.cpp). After a commit the next
// write to a page it wrote takes no page fault; the page tables still show
// such a page as written, yet a sync() with no change commits nothing, a
// second open of the file in this process finds nothing uncommitted, a
// rollback brings back the commit's bytes, and a page kept and left alone is
// dropped after two commits without being committed again.
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"
#include "persist/space.hpp"
#include "child_process.hpp"
#include "persist_support.hpp"
#include "splitmix64.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using fl_test::scratch_dir;
constexpr std::uint64_t page = fl::detail::space_page;

long minor_faults() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

struct root {
  fl::fptr<std::uint64_t> a, b;  // a page each
};

class KeptPages : public ::testing::Test {
 protected:
  void SetUp() override {
    s.emplace(d / "s");
    const auto r = s->make<root>();
    s->set_root(r);
    s->get(r)->a = s->allocate(page, page).cast<std::uint64_t>();
    s->get(r)->b = s->allocate(page, page).cast<std::uint64_t>();
    s->sync();
  }
  std::uint64_t* a() { return s->get(s->get(s->root<root>())->a); }
  // A block of n pages, each holding its index in its first word, made the
  // root's `a` and committed.
  volatile std::uint64_t* committed_pages(std::uint64_t n) {
    const auto c = s->allocate(n * page, page).cast<std::uint64_t>();
    s->get(s->root<root>())->a = c;
    for (std::uint64_t p = 0; p < n; ++p) s->get(c)[p * page / 8] = p;
    s->sync();
    return s->get(c);
  }
  std::uint64_t* b() { return s->get(s->get(s->root<root>())->b); }

  scratch_dir d;
  std::optional<fl::mapped_space> s;
};

TEST_F(KeptPages, TheNextWriteToAPageTheCommitWroteTakesNoFault) {
  a()[0] = 1;
  s->sync();
  volatile std::uint64_t* p = a();
  const long before = minor_faults();
  p[1] = 2;  // the same page: still this process's copy
  EXPECT_EQ(minor_faults(), before);
  s->sync();
  EXPECT_EQ(a()[1], 2u);
}

TEST_F(KeptPages, ASyncWithNoChangeCommitsNothing) {
  a()[0] = 1;
  s->sync();
  const std::uint64_t g = s->stats().generation;
  s->sync();
  s->sync();
  EXPECT_EQ(s->stats().generation, g);
  // Changed again: only its page (and the checksum table's) is committed.
  a()[0] = 2;
  s->sync();
  EXPECT_EQ(s->stats().generation, g + 1);
  EXPECT_LE(s->stats().last_sync_pages, 2u);
  EXPECT_LE(s->stats().last_sync_log_bytes, page);
}

TEST_F(KeptPages, ASecondOpenInThisProcessFindsNothingUncommitted) {
  a()[0] = 1;
  b()[0] = 1;
  s->sync();
  // The earlier handle has kept pages but nothing uncommitted: the new one
  // takes the file over (with an uncommitted change it would throw).
  fl::mapped_space t(d / "s");
  EXPECT_EQ(t.get(t.get(t.root<root>())->a)[0], 1u);
}

TEST_F(KeptPages, RollbackBringsBackTheCommitsBytes) {
  a()[0] = 1;
  s->sync();
  a()[0] = 5;
  b()[3] = 7;
  s->rollback();
  EXPECT_EQ(a()[0], 1u);
  EXPECT_EQ(b()[3], 0u);
  s->sync();  // nothing to commit
  s.reset();
  fl::mapped_space t(d / "s");
  EXPECT_EQ(t.get(t.get(t.root<root>())->a)[0], 1u);
  EXPECT_EQ(t.get(t.get(t.root<root>())->b)[3], 0u);
  t.verify();
}

TEST_F(KeptPages, APageLeftAloneIsDroppedAndNeverCommittedAgain) {
  a()[0] = 1;
  s->sync();
  for (std::uint64_t i = 1; i <= fl::detail::kept_commits_max + 2; ++i) {
    b()[0] = i;
    s->sync();
    EXPECT_LE(s->stats().last_sync_pages, 2u) << i;  // b's page and the checksum table's
  }
  // Dropped once its rent ran out (kept_commits_max commits unchanged at
  // most): its next write faults its page in.
  volatile std::uint64_t* p = a();
  const long before = minor_faults();
  p[1] = 9;
  EXPECT_GT(minor_faults(), before);
  s->sync();
  s.reset();
  fl::mapped_space t(d / "s");
  const std::uint64_t* ta = t.get(t.get(t.root<root>())->a);
  EXPECT_EQ(ta[0], 1u);
  EXPECT_EQ(ta[1], 9u);
  t.verify();
}

// Reads that map more clean pages than a commit keeps for free: whether the
// commit after them drops them or keeps them on rent, a page it kept (one a
// commit wrote) takes no fault.
TEST_F(KeptPages, ACommitAfterWideReadsKeepsItsPages) {
  constexpr std::uint64_t wide = 300;  // past clean_mapped_max, for a commit of a few pages
  static_assert(wide > fl::detail::clean_mapped_max);
  const auto c = s->allocate(wide * page, page).cast<std::uint64_t>();
  for (std::uint64_t p = 0; p < wide; ++p) s->get(c)[p * page / 8] = p + 1;
  s->sync();
  s.emplace(d / "s");  // nothing kept: the wide pages are the file's again
  a()[0] = 1;
  s->sync();
  std::uint64_t sum = 0;
  for (std::uint64_t p = 0; p < wide; ++p) sum += s->get(c)[p * page / 8];
  EXPECT_EQ(sum, wide * (wide + 1) / 2);
  b()[0] = 2;
  s->sync();
  volatile std::uint64_t* pa = a();
  const long before = minor_faults();
  pa[1] = 3;  // kept through the wide drop
  EXPECT_EQ(minor_faults(), before);
  s->sync();
  s.reset();
  fl::mapped_space t(d / "s");
  EXPECT_EQ(t.get(t.get(t.root<root>())->a)[1], 3u);
  EXPECT_EQ(t.get(t.get(t.root<root>())->b)[0], 2u);
  t.verify();
}

// A commit of many pages (a batch of edits) keeps them all, up to kept_max:
// the next batch that writes the same pages takes no fault and no copy.
TEST_F(KeptPages, ABatchCommitKeepsItsPages) {
  constexpr std::uint64_t batch = 1000;
  static_assert(batch > fl::detail::clean_mapped_max && batch < fl::detail::kept_max);
  volatile std::uint64_t* v = committed_pages(batch);
  const long before = minor_faults();
  for (std::uint64_t p = 0; p < batch; ++p) v[p * page / 8 + 1] = p + 1;
  EXPECT_LT(minor_faults() - before, 16);  // was one a page
  s->sync();
  EXPECT_GE(s->stats().last_sync_pages, batch);
  s.reset();
  fl::mapped_space t(d / "s");
  const std::uint64_t* tc = t.get(t.get(t.root<root>())->a);
  for (std::uint64_t p = 0; p < batch; ++p) {
    ASSERT_EQ(tc[p * page / 8], p) << p;
    ASSERT_EQ(tc[p * page / 8 + 1], p + 1) << p;
  }
  t.verify();
}

// The clean pages a batch read stay mapped through its commit when the
// commit wrote enough pages to pay for walking them (clean_per_written each).
TEST_F(KeptPages, ABatchsReadsStayMappedThroughItsCommit) {
  constexpr std::uint64_t read = 600, written = 200;
  static_assert(read > fl::detail::clean_mapped_max &&
                read < written * fl::detail::clean_per_written);
  const auto r = s->allocate(read * page, page).cast<std::uint64_t>();
  const auto w = s->allocate(written * page, page).cast<std::uint64_t>();
  for (std::uint64_t p = 0; p < read; ++p) s->get(r)[p * page / 8] = p + 1;
  s->sync();
  s.emplace(d / "s");  // nothing kept: the read pages are the file's
  auto read_all = [&] {
    const volatile std::uint64_t* v = s->get(r);
    std::uint64_t sum = 0;
    for (std::uint64_t p = 0; p < read; ++p) sum += v[p * page / 8];
    return sum;
  };
  EXPECT_EQ(read_all(), read * (read + 1) / 2);
  for (std::uint64_t p = 0; p < written; ++p) s->get(w)[p * page / 8] = p;
  s->sync();
  const long before = minor_faults();
  EXPECT_EQ(read_all(), read * (read + 1) / 2);
  EXPECT_EQ(minor_faults(), before);  // was a fault per 16 pages: all dropped
  s.reset();
  fl::mapped_space t(d / "s");
  t.verify();
}

// Clean pages past clean_mapped_max stay mapped through the commits after
// the reads that mapped them while their walks cost less than dropping them
// (clean_pages_should_go): the next reads of the same pages take no fault.
// (Before, every commit past the bound dropped them: a fault per 16 pages.)
// A commit's walk is timed, so a walk slowed past what a drop of all of
// them costs (over a millisecond: a preempted run) may drop them: the case
// passes when any of three tries keeps them.
TEST_F(KeptPages, ReadsPastTheBoundStayMappedWhileTheirRentIsLow) {
  constexpr std::uint64_t read = 600;
  static_assert(read > fl::detail::clean_mapped_max);
  const auto r = s->allocate(read * page, page).cast<std::uint64_t>();
  for (std::uint64_t p = 0; p < read; ++p) s->get(r)[p * page / 8] = p + 1;
  s->sync();
  auto read_all = [&] {
    const volatile std::uint64_t* v = s->get(r);
    std::uint64_t sum = 0;
    for (std::uint64_t p = 0; p < read; ++p) sum += v[p * page / 8];
    return sum;
  };
  long faults = -1;
  for (int attempt = 0; attempt < 3 && faults != 0; ++attempt) {
    s.emplace(d / "s");  // nothing kept: the read pages are the file's
    EXPECT_EQ(read_all(), read * (read + 1) / 2);
    for (std::uint64_t i = 1; i <= 3; ++i) {
      a()[0] = i;  // a commit of two pages: the bound stays clean_mapped_max
      s->sync();
    }
    const long before = minor_faults();
    EXPECT_EQ(read_all(), read * (read + 1) / 2);
    faults = minor_faults() - before;
  }
  EXPECT_EQ(faults, 0);
  s.reset();
  fl::mapped_space t(d / "s");
  EXPECT_EQ(t.get(t.get(t.root<root>())->a)[0], 3u);
  t.verify();
}

// The rent rule itself: pages go once the walks since their last drop cost
// what dropping them and faulting them back would.
TEST(CleanPagesRent, PagesGoWhenTheirWalksCostWhatADropWould) {
  using fl::detail::clean_pages_should_go;
  using fl::detail::clean_rented_max;
  constexpr std::uint64_t walk = 20'000;  // ns: the last commit's walk
  EXPECT_FALSE(clean_pages_should_go(0, 1000, 1000, walk, 2));
  EXPECT_FALSE(clean_pages_should_go(1'999'999, 1000, 1000, walk, 2));
  EXPECT_TRUE(clean_pages_should_go(2'000'000, 1000, 1000, walk, 2));
  // Dearer drops keep pages longer; more pages raise the price too.
  EXPECT_FALSE(clean_pages_should_go(2'000'000, 1000, 3400, walk, 2));
  EXPECT_FALSE(clean_pages_should_go(2'000'000, 4000, 1000, walk, 2));
  EXPECT_TRUE(clean_pages_should_go(2'000'000, 100, 10000, walk, 2));
  // Past clean_rented_max pages they go at once, whatever their rent, unless
  // the commit wrote enough pages that dropping them costs half the walk.
  constexpr std::uint64_t big_walk = 200'000;
  EXPECT_TRUE(clean_pages_should_go(0, clean_rented_max + 1, 1000, big_walk, 2));
  EXPECT_FALSE(clean_pages_should_go(0, clean_rented_max, 1000, big_walk, 2));
  EXPECT_FALSE(clean_pages_should_go(0, clean_rented_max + 1, 1000, big_walk, 100));
  EXPECT_TRUE(clean_pages_should_go(0, clean_rented_max + 1, 1000, big_walk, 99));
}

// The bound past which clean pages go whatever their rent moves with what
// the drops it caused cost: a drop whose next commits faulted the pages back
// (at the price of a fault timed after the drop) for more than twice the
// walk time it saved them was wasted, and the bound doubles, up to
// clean_bound_max; one that passes clean_drop_commits commits without that
// halves it, down to clean_rented_max.
TEST(CleanPagesRent, TheBoundGrowsAfterDropsTheNextCommitsPaidForAndShrinksAfterOthers) {
  using fl::detail::clean_bound_max;
  using fl::detail::clean_drop_commits;
  using fl::detail::clean_pages_should_go;
  using fl::detail::clean_rented_max;
  using fl::detail::drop_verdict;
  using fl::detail::judge_clean_drop;
  using fl::detail::next_clean_bound;
  constexpr std::uint64_t fault = 27'000;  // ns
  // A batch of sets read its lookups' pages again: 130 faults after a drop
  // that saved one walk of 500 us.
  EXPECT_EQ(judge_clean_drop(130, fault, 500'000, 1), drop_verdict::wasted);
  // Single edits after a drop of a sweep's pages: 3 faults a commit, each
  // commit's walk 200 us shorter.
  EXPECT_EQ(judge_clean_drop(3, fault, 200'000, 1), drop_verdict::pending);
  EXPECT_EQ(judge_clean_drop(3 * clean_drop_commits, fault, 200'000 * clean_drop_commits,
                             clean_drop_commits),
            drop_verdict::fine);
  // The line: faults worth exactly twice the saved walk are not yet waste.
  EXPECT_EQ(judge_clean_drop(10, fault, 5 * fault, 1), drop_verdict::pending);
  EXPECT_EQ(judge_clean_drop(11, fault, 5 * fault, 1), drop_verdict::wasted);

  std::uint64_t bound = clean_rented_max;
  EXPECT_EQ(next_clean_bound(bound, drop_verdict::pending), bound);
  EXPECT_EQ(next_clean_bound(bound, drop_verdict::fine), clean_rented_max);
  for (int i = 0; i < 10; ++i) bound = next_clean_bound(bound, drop_verdict::wasted);
  EXPECT_EQ(bound, clean_bound_max);
  EXPECT_EQ(next_clean_bound(bound, drop_verdict::fine), clean_bound_max / 2);
  // A wasted drop of many pages sets the bound past them at once.
  EXPECT_EQ(next_clean_bound(clean_rented_max, drop_verdict::wasted, 5 * clean_rented_max),
            10 * clean_rented_max);
  EXPECT_EQ(next_clean_bound(clean_rented_max, drop_verdict::wasted, clean_bound_max),
            clean_bound_max);
  // The rule reads the space's bound: past the default, pages stay.
  constexpr std::uint64_t drop = 3400, walk = 1'000'000;
  EXPECT_TRUE(clean_pages_should_go(0, 4 * clean_rented_max, drop, walk, 60));
  EXPECT_FALSE(clean_pages_should_go(0, 4 * clean_rented_max, drop, walk, 60, 8 * clean_rented_max));
}

// Drops of many runs go through a pidfd of the process (process_madvise): a
// child after fork() drops its own pages, never its parent's. The parent's
// uncommitted writes in two pages survive a child's rollback of writes to
// the same two pages. (The child opens its own pidfd; were it to use its
// parent's, Linux 6.18 refuses MADV_DONTNEED for another process's memory
// and the drop falls back to madvise: this case passes either way there,
// and guards kernels that would not refuse.)
TEST_F(KeptPages, AChildsDropsLeaveItsParentsPagesAlone) {
  volatile std::uint64_t* v = committed_pages(8);
  v[1 * page / 8 + 1] = 11;  // two runs: a rollback drops them in one call
  v[5 * page / 8 + 1] = 55;
  s->rollback();             // the parent's pidfd opened, where the kernel has it
  EXPECT_EQ(v[1 * page / 8 + 1], 0u);
  v[1 * page / 8 + 1] = 12;  // uncommitted in the parent
  v[5 * page / 8 + 1] = 56;
  const fl_test::piped_child c = fl_test::fork_piped([&](int out) {
    v[1 * page / 8 + 2] = 7;
    v[5 * page / 8 + 2] = 7;
    s->rollback();
    const bool ok = v[1 * page / 8 + 2] == 0 && v[1 * page / 8 + 1] == 0;
    ::close(out);
    ::_exit(ok ? 0 : 1);
  });
  ::close(c.from_child);
  int status = 0;
  ASSERT_EQ(::waitpid(c.pid, &status, 0), c.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(v[1 * page / 8 + 1], 12u);
  EXPECT_EQ(v[5 * page / 8 + 1], 56u);
  s->sync();
  s.reset();
  fl::mapped_space t(d / "s");
  const std::uint64_t* tc = t.get(t.get(t.root<root>())->a);
  EXPECT_EQ(tc[1 * page / 8 + 1], 12u);
  EXPECT_EQ(tc[5 * page / 8 + 1], 56u);
  t.verify();
}

// How long a kept page stays unchanged: at least kept_commits, at most
// kept_commits_max, in between until its compares cost twice its drop.
TEST(KeptPagesRent, APageStaysWhileItsComparesCostLessThanItsDrop) {
  using fl::detail::kept_commits;
  using fl::detail::kept_commits_for;
  using fl::detail::kept_commits_max;
  EXPECT_EQ(kept_commits_for(3400, 0), kept_commits);  // compares not timed yet
  EXPECT_EQ(kept_commits_for(3400, 340), 20u);
  EXPECT_EQ(kept_commits_for(300, 300), kept_commits);
  EXPECT_EQ(kept_commits_for(10000, 1), kept_commits_max);
}

// How many pages stay kept after a commit: what the next commit compares for
// twice the price of dropping this commit's pages, within bounds.
TEST(KeptPagesRent, ACommitKeepsWhatItsOwnDropsWouldPayToCompare) {
  using fl::detail::kept_max;
  using fl::detail::kept_pages_for;
  using fl::detail::kept_pages_min;
  EXPECT_EQ(kept_pages_for(7, 3400, 0), kept_max);  // compares not timed yet
  EXPECT_EQ(kept_pages_for(7, 3400, 340), 140u);
  EXPECT_EQ(kept_pages_for(1, 300, 300), kept_pages_min);
  EXPECT_EQ(kept_pages_for(1000, 3400, 340), kept_max);
}

// More pages than kept_max in one commit (an import's size): all dropped, so
// the next write to any of them faults again.
TEST_F(KeptPages, ACommitOfMoreThanKeptMaxPagesDropsThem) {
  constexpr std::uint64_t big = fl::detail::kept_max + 100;
  volatile std::uint64_t* v = committed_pages(big);
  const long before = minor_faults();
  for (std::uint64_t p = 0; p < 64; ++p) v[p * page / 8 + 1] = 1;
  EXPECT_GE(minor_faults() - before, 32);
  s->sync();
  s.reset();
  fl::mapped_space t(d / "s");
  const std::uint64_t* tc = t.get(t.get(t.root<root>())->a);
  for (std::uint64_t p = 0; p < big; ++p) ASSERT_EQ(tc[p * page / 8], p) << p;
  t.verify();
}

// Batches of writes over kept pages, against a copy of what each commit
// left: a reader that holds an older commit sees it whole while the writer's
// kept pages become lagging; rollback, compaction and a reopen between
// batches bring back exactly the last commit.
TEST_F(KeptPages, BatchesOverKeptPagesKeepEveryCommitWhole) {
  constexpr std::uint64_t pages = 700;
  const auto c = s->allocate(pages * page, page).cast<std::uint64_t>();
  s->get(s->root<root>())->a = c;
  std::vector<std::uint64_t> committed(pages, 0);
  for (std::uint64_t p = 0; p < pages; ++p) s->get(c)[p * page / 8] = 0;
  s->sync();
  fl_test::splitmix64 r(fl_test::test_seed());
  std::optional<fl::mapped_space> reader;
  std::vector<std::uint64_t> reader_sees;
  auto check = [&](const fl::mapped_space& m, const std::vector<std::uint64_t>& expect) {
    const std::uint64_t* v = m.get(m.get(m.root<root>())->a);
    for (std::uint64_t p = 0; p < pages; ++p) ASSERT_EQ(v[p * page / 8], expect[p]) << p;
  };
  for (int round = 0; round < 40; ++round) {
    std::vector<std::uint64_t> now = committed;
    const std::uint64_t writes = 1 + r.below(pages);
    std::uint64_t* v = s->get(s->get(s->root<root>())->a);
    for (std::uint64_t w = 0; w < writes; ++w) {
      const std::uint64_t p = r.below(pages);
      now[p] = r.next();
      v[p * page / 8] = now[p];
    }
    switch (r.below(6)) {
      case 0:
        s->rollback();
        break;
      case 1:
        s->sync();
        committed = now;
        s->compact();
        break;
      case 2:
        s->sync();
        committed = now;
        s.emplace(d / "s");
        break;
      case 3:
        reader.emplace(fl::mapped_space::open(d / "s", fl::open_mode::read_only));
        reader_sees = committed;
        s->sync();
        committed = now;
        break;
      case 4:
        reader.reset();
        s->sync();
        committed = now;
        break;
      default:
        s->sync();
        committed = now;
    }
    ASSERT_NO_FATAL_FAILURE(check(*s, committed)) << "round " << round;
    if (reader) {
      ASSERT_NO_FATAL_FAILURE(check(*reader, reader_sees)) << "reader, round " << round;
    }
  }
  reader.reset();
  s.reset();
  fl::mapped_space t(d / "s");
  check(t, committed);
  t.verify();
}

}  // namespace
