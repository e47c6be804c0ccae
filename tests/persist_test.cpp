// tests/persist_test.cpp: round trips of fl::persist<T>, fl::mapped_space,
// fl::fptr and fl::pstring: values and object graphs survive close, reopen and
// a second process; the allocator agrees with a model under random edits;
// growth from a few KiB to 1 GiB keeps every fptr valid, also when the mapping
// moves; rollback and close discard uncommitted changes; misuse throws.
#include <fl/persist.hpp>

#include "persist/persist_format.hpp"
#include "persist_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <sys/mman.h>

namespace {

using fl_test::scratch_dir;

struct point {
  double x, y;
  std::int32_t id;
};

TEST(PersistTest, MissingFileGivesValueInitialized) {
  scratch_dir d;
  fl::persist<point> p(d / "p");
  EXPECT_EQ(p->x, 0.0);
  EXPECT_EQ(p->id, 0);
  EXPECT_FALSE(std::filesystem::exists(d / "p"));  // nothing written yet
}

TEST(PersistTest, FlushAndDestructorSaveAndReload) {
  scratch_dir d;
  {
    fl::persist<point> p(d / "p");
    *p = point{1.5, -2.0, 7};
    p.flush();
    p->id = 8;  // saved by the destructor
  }
  fl::persist<point> q(d / "p");
  EXPECT_EQ(q->x, 1.5);
  EXPECT_EQ(q->y, -2.0);
  EXPECT_EQ(q.get().id, 8);
  EXPECT_FALSE(std::filesystem::exists(d / "p.tmp"));
}

TEST(PersistTest, AssignAndMove) {
  scratch_dir d;
  {
    fl::persist<std::uint64_t> p(d / "n");
    p = 41;
    fl::persist<std::uint64_t> q(std::move(p));
    *q += 1;
  }  // the moved-from p saves nothing, q saves 42
  EXPECT_EQ(*fl::persist<std::uint64_t>(d / "n"), 42u);
}

TEST(PersistTest, ReloadInSecondProcess) {
  scratch_dir d;
  {
    fl::persist<std::array<int, 100>> p(d / "a");
    for (int i = 0; i < 100; ++i) (*p)[static_cast<std::size_t>(i)] = i * i;
  }
  const int rc = fl_test::run_in_child([&] {
    fl::persist<std::array<int, 100>> p(d / "a");
    for (int i = 0; i < 100; ++i)
      if ((*p)[static_cast<std::size_t>(i)] != i * i) return 1;
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

TEST(PersistTest, MismatchedSizeOrTagThrowsNamingPathAndReason) {
  scratch_dir d;
  { fl::persist<std::uint32_t>(d / "v", 5) = 3; }
  try {
    fl::persist<std::uint64_t> wrong(d / "v", 5);
    FAIL() << "loaded a 4-byte value as 8 bytes";
  } catch (const fl::persist_error& e) {
    EXPECT_NE(std::string(e.what()).find((d / "v").string()), std::string::npos) << e.what();
    EXPECT_NE(e.reason().find("4 bytes, expected 8"), std::string::npos) << e.what();
    EXPECT_EQ(e.path(), d / "v");
  }
  EXPECT_THROW(fl::persist<std::uint32_t>(d / "v", 6), fl::persist_error);
  EXPECT_EQ(*fl::persist<std::uint32_t>(d / "v", 5), 3u);
}

// ---- mapped_space ------------------------------------------------------------

struct node {
  std::uint64_t value;
  fl::fptr<node> next;
};

TEST(MappedSpaceTest, CreateReopenRoundTrip) {
  scratch_dir d;
  {
    fl::mapped_space s(d / "s");
    EXPECT_TRUE(s.created());
    EXPECT_FALSE(s.root());
    fl::fptr<node> head;
    for (std::uint64_t i = 0; i < 1000; ++i) {
      const fl::fptr<node> n = s.make<node>(node{i, head});
      head = n;
    }
    s.set_root(head);
    s.sync();
    s.verify();
  }
  fl::mapped_space s(d / "s", {.mode = fl::open_mode::open_existing});
  EXPECT_FALSE(s.created());
  std::uint64_t expect = 1000;
  for (fl::fptr<node> p = s.root<node>(); p; p = s.get(p)->next)
    EXPECT_EQ(s.get(p)->value, --expect);
  EXPECT_EQ(expect, 0u);
  EXPECT_EQ(s.stats().live_blocks, 1000u + 1u);  // the nodes and the page-checksum table
  EXPECT_EQ(s.live_blocks(), 1000u + 1u);
  s.verify();
}

TEST(MappedSpaceTest, OpenModes) {
  scratch_dir d;
  EXPECT_THROW(fl::mapped_space(d / "s", {.mode = fl::open_mode::open_existing}),
               fl::persist_error);
  { fl::mapped_space s(d / "s", {.mode = fl::open_mode::create_new}); }
  EXPECT_THROW(fl::mapped_space(d / "s", {.mode = fl::open_mode::create_new}), fl::persist_error);
}

TEST(MappedSpaceTest, CloseAndRollbackDiscardUncommittedChanges) {
  scratch_dir d;
  fl::fptr<node> a;
  {
    fl::mapped_space s(d / "s");
    a = s.make<node>(node{1, {}});
    s.set_root(a);
    s.sync();
    s.get(a)->value = 2;
    const fl::fptr<node> b = s.make<node>(node{3, {}});
    s.get(a)->next = b;
    s.rollback();
    EXPECT_EQ(s.get(a)->value, 1u);
    EXPECT_FALSE(s.get(a)->next);
    EXPECT_EQ(s.stats().live_blocks, 2u);
    EXPECT_EQ(s.live_blocks(), 2u);
    s.get(a)->value = 4;  // then closed without sync
  }
  fl::mapped_space s(d / "s");
  EXPECT_EQ(s.get(s.root<node>())->value, 1u);
  s.verify();
}

TEST(MappedSpaceTest, SecondOpenIsRefusedWhileLocked) {
  scratch_dir d;
  fl::mapped_space s(d / "s");
  EXPECT_THROW(fl::mapped_space(d / "s"), fl::persist_error);
  const int rc = fl_test::run_in_child([&] {
    try {
      fl::mapped_space other(d / "s");
    } catch (const fl::persist_error& e) {
      return std::string(e.what()).find("locked") != std::string::npos ? 0 : 1;
    }
    return 2;
  });
  EXPECT_EQ(rc, 0);
}

// locked() and remove() answer for a writer in this process (another handle)
// and in another process alike, and remove() leaves an open space whole.
TEST(MappedSpaceTest, LockedAndRemoveRespectTheWritersLock) {
  scratch_dir d;
  const std::filesystem::path file = d / "s";
  EXPECT_FALSE(fl::mapped_space::locked(file));  // no file
  EXPECT_TRUE(fl::mapped_space::remove(file));   // nothing to remove
  {
    fl::mapped_space s(file);
    s.set_root(s.allocate(16));
    s.sync();
    EXPECT_TRUE(fl::mapped_space::locked(file));
    EXPECT_FALSE(fl::mapped_space::remove(file));
    EXPECT_TRUE(std::filesystem::exists(file));
    EXPECT_EQ(fl_test::run_in_child([&] {
                return fl::mapped_space::locked(file) && !fl::mapped_space::remove(file) ? 0 : 1;
              }),
              0);
    s.sync();  // the space is whole: commits go on
  }
  EXPECT_FALSE(fl::mapped_space::locked(file));
  std::filesystem::path log = file, readers = file;
  log += "-log";
  readers += "-readers";
  { const fl::mapped_space reader = fl::mapped_space::open(file, fl::open_mode::read_only); }
  EXPECT_TRUE(std::filesystem::exists(file));
  EXPECT_TRUE(fl::mapped_space::remove(file));
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_FALSE(std::filesystem::exists(log));
  EXPECT_FALSE(std::filesystem::exists(readers));
}

TEST(MappedSpaceTest, MisuseThrows) {
  scratch_dir d;
  fl::mapped_space s(d / "s");
  EXPECT_THROW(s.allocate(8, 3), std::invalid_argument);
  EXPECT_THROW(s.allocate(8, 8192), std::invalid_argument);
  const fl::fptr<void> p = s.allocate(40);
  EXPECT_GE(s.block_size(p), 40u);
  s.deallocate(p);
  EXPECT_THROW(s.deallocate(p), std::invalid_argument);  // double free
  EXPECT_THROW(s.deallocate(fl::fptr<void>(12345)), std::invalid_argument);
  EXPECT_THROW(s.get(fl::fptr<node>(std::uint64_t{1} << 40)), fl::persist_error);
  EXPECT_EQ(s.get(fl::fptr<node>()), nullptr);
  int local = 0;
  EXPECT_THROW(s.to_fptr(&local), std::invalid_argument);
  s.deallocate(nullptr);
}

// The refusals of allocate and deallocate are built out of line (their
// checks stay inline on the hot path): each still names the call, the block
// and the reason, and a refused call changes nothing.
TEST(MappedSpaceTest, RefusalsNameTheCallAndLeaveTheSpaceAlone) {
  scratch_dir d;
  const std::filesystem::path file = d / "s";
  fl::fptr<void> live;
  std::size_t live_size = 0;
  {
    fl::mapped_space s(file);
    live = s.allocate(40);
    live_size = s.block_size(live);
    s.set_root(live);
    const fl::fptr<void> freed = s.allocate(40);
    s.deallocate(freed);
    const std::uint64_t live_blocks = s.stats().live_blocks;
    try {
      s.deallocate(freed);
      FAIL() << "a double free was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("fl::mapped_space::deallocate"), std::string::npos) << what;
      EXPECT_NE(what.find("not a live block"), std::string::npos) << what;
      EXPECT_NE(what.find("double free"), std::string::npos) << what;
    }
    try {
      s.retire(freed);
      FAIL() << "a free block was retired";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("fl::mapped_space::retire"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(s.stats().live_blocks, live_blocks);
    s.sync();
  }
  fl::mapped_space r = fl::mapped_space::open(file, fl::open_mode::read_only);
  for (auto call : {+[](fl::mapped_space& sp, fl::fptr<void>) { (void)sp.allocate(16); },
                    +[](fl::mapped_space& sp, fl::fptr<void> p) { sp.deallocate(p); }}) {
    try {
      call(r, live);
      FAIL() << "a read-only space accepted a change";
    } catch (const fl::persist_error& e) {
      EXPECT_NE(std::string(e.what()).find("read-only"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(r.block_size(live), live_size);  // still live
}

TEST(MappedSpaceTest, AlignedAllocations) {
  scratch_dir d;
  fl::mapped_space s(d / "s");
  std::vector<fl::fptr<void>> blocks;
  for (std::size_t align = 1; align <= 4096; align *= 2) {
    for (std::size_t bytes : {1u, 17u, 100u, 5000u}) {
      const fl::fptr<void> p = s.allocate(bytes, align);
      EXPECT_EQ(p.offset() % std::max<std::size_t>(align, 16), 0u);
      EXPECT_GE(s.block_size(p), bytes);
      std::memset(s.get(p.cast<char>()), 0x5A, bytes);
      blocks.push_back(p);
    }
  }
  for (const fl::fptr<void> p : blocks) s.deallocate(p);
  EXPECT_EQ(s.stats().live_blocks, 1u);  // the page checksum table
  s.sync();
  s.verify();
}

// A closed space leaves its address range for the next open, with a hole
// where its file was mapped. A mapping the process makes in that hole
// meanwhile must survive the next open, which then maps elsewhere.
TEST(MappedSpaceTest, ReopenLeavesAMappingInTheKeptRangeAlone) {
  scratch_dir d;
  std::byte* old_base = nullptr;
  {
    fl::mapped_space s(d / "s");
    const fl::fptr<node> n = s.make<node>(node{7, {}});
    s.set_root(n);
    s.sync();
    old_base = reinterpret_cast<std::byte*>(s.get(n)) - n.offset();
  }
  void* taken = ::mmap(old_base, 4096, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  ASSERT_EQ(taken, static_cast<void*>(old_base));
  std::memset(taken, 0x5A, 4096);
  {
    fl::mapped_space s(d / "s", {.mode = fl::open_mode::open_existing});
    EXPECT_EQ(s.get(s.root<node>())->value, 7u);
    EXPECT_NE(reinterpret_cast<std::byte*>(s.get(s.root<node>())) - s.root<node>().offset(),
              old_base);
  }
  for (std::size_t i = 0; i < 4096; ++i)
    ASSERT_EQ(static_cast<unsigned char*>(taken)[i], 0x5A) << "byte " << i;
  ::munmap(taken, 4096);
  // The range kept by that close is whole: the next open uses it.
  fl::mapped_space s(d / "s", {.mode = fl::open_mode::open_existing});
  EXPECT_EQ(s.get(s.root<node>())->value, 7u);
}

TEST(MappedSpaceTest, CreationCommitsNothingUntilTheFirstSync) {
  scratch_dir d;
  {
    fl::mapped_space s(d / "s");
    EXPECT_TRUE(s.created());
    EXPECT_EQ(s.stats().generation, 1u);
    EXPECT_FALSE(std::filesystem::exists(d / "s-log"));
    s.verify();
  }
  {
    fl::mapped_space s(d / "s", {.mode = fl::open_mode::open_existing});
    EXPECT_EQ(s.stats().generation, 1u);
    EXPECT_FALSE(s.root());
    s.set_root(s.make<node>(node{42, {}}));
    s.sync();
    EXPECT_EQ(s.stats().generation, 2u);
    s.verify();
  }
  fl::mapped_space s(d / "s", {.mode = fl::open_mode::open_existing});
  EXPECT_EQ(s.get(s.root<node>())->value, 42u);
  s.verify();
}

// A commit keeps the clean pages that reads mapped (a few) or drops them all
// (past detail::clean_mapped_max); either way the next commit logs exactly
// the pages written since, whether or not a read had mapped them first.
TEST(MappedSpaceTest, CommitsLogExactlyTheWrittenPagesAfterReads) {
  scratch_dir d;
  constexpr std::uint64_t page = 4096, pages = 600;
  std::vector<char> expect(pages * page);
  {
    fl::mapped_space s(d / "s");
    const fl::fptr<char> block = s.allocate(pages * page, page).cast<char>();
    std::memset(s.get(block), 1, pages * page);
    s.set_root(block);
    s.sync();
    // Maps the first n pages by reading a byte of each (never written: 1).
    auto read_pages = [&](std::uint64_t n) {
      const volatile char* p = s.get(block);
      std::uint64_t sum = 0;
      for (std::uint64_t i = 0; i < n; ++i) sum += static_cast<unsigned char>(p[i * page + 7]);
      return sum;
    };
    std::mt19937_64 rng(fl_test::test_seed());
    char stamp = 2;
    for (const std::uint64_t reads : {std::uint64_t{0}, std::uint64_t{8}, std::uint64_t{100}, pages}) {
      for (int round = 0; round < 3; ++round) {
        EXPECT_EQ(read_pages(reads), reads);
        std::set<std::uint64_t> written;
        ++stamp;  // every write changes its page
        for (int w = 0; w < 5; ++w) {
          // Half the writes land on pages the reads mapped.
          const std::uint64_t i = (w % 2 && reads) ? rng() % reads : rng() % pages;
          s.get(block)[i * page + 100] = stamp;
          written.insert(i);
        }
        s.sync();
        // The written pages and the checksum table's page.
        EXPECT_EQ(s.stats().last_sync_pages, written.size() + 1) << "reads " << reads;
        const std::uint64_t generation = s.stats().generation;
        EXPECT_EQ(read_pages(reads), reads);
        s.sync();
        EXPECT_EQ(s.stats().generation, generation) << "reads alone commit nothing";
      }
    }
    std::memcpy(expect.data(), s.get(block), expect.size());
    s.verify();
  }
  fl::mapped_space r(d / "s", {.mode = fl::open_mode::open_existing});
  EXPECT_EQ(std::memcmp(r.get(r.root<char>()), expect.data(), expect.size()), 0);
  r.verify();
}

// Random allocations and frees of random sizes, each block filled with a
// pattern of its id, against a std::map model; sync, verify and reopen along
// the way.
TEST(MappedSpaceTest, RandomEditsAgreeWithModel) {
  scratch_dir d;
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  struct entry {
    std::uint64_t off, bytes, id;
  };
  std::map<std::uint64_t, entry> model;
  std::uint64_t next_id = 1;
  auto fill = [](char* p, std::uint64_t bytes, std::uint64_t id) {
    for (std::uint64_t i = 0; i < bytes; ++i) p[i] = static_cast<char>((id * 131 + i) & 0xFF);
  };
  auto check = [&](fl::mapped_space& s) {
    for (const auto& [id, e] : model) {
      const char* p = s.get(fl::fptr<char>(e.off));
      for (std::uint64_t i = 0; i < e.bytes; ++i)
        ASSERT_EQ(p[i], static_cast<char>((id * 131 + i) & 0xFF))
            << "seed " << seed << " block " << id;
    }
  };
  auto s = std::make_unique<fl::mapped_space>(d / "s");
  for (int step = 0; step < 20000; ++step) {
    if (model.empty() || rng() % 3 != 0) {
      const std::uint64_t bytes = rng() % 8 == 0 ? rng() % 20000 : rng() % 200;
      const fl::fptr<void> p = s->allocate(bytes, std::size_t{1} << (rng() % 6));
      fill(s->get(p.cast<char>()), bytes, next_id);
      model[next_id] = {p.offset(), bytes, next_id};
      ++next_id;
    } else {
      auto it = model.begin();
      std::advance(it, static_cast<long>(rng() % model.size()));
      s->deallocate(fl::fptr<void>(it->second.off));
      model.erase(it);
    }
    if (step % 4000 == 3999) {
      s->sync();
      s->verify();
      s.reset();
      s = std::make_unique<fl::mapped_space>(d / "s");
      check(*s);
      EXPECT_EQ(s->stats().live_blocks, model.size() + 1) << "seed " << seed;
    }
  }
  check(*s);
}

// 4 KiB to 1 GiB: 1024 blocks of 1 MiB, each marked at both ends, in a space
// whose reserved range is 1 MiB, so growth moves the mapping several times;
// every fptr is checked after every growth, then in a second process.
TEST(MappedSpaceTest, GrowthToOneGiBKeepsFptrs) {
  scratch_dir d;
  constexpr std::size_t mib = std::size_t{1} << 20;
  std::vector<fl::fptr<std::uint64_t>> blocks;
  {
    fl::mapped_space s(d / "s", {.reserve = mib});
    std::uint64_t last_size = s.stats().file_bytes;
    for (std::uint64_t i = 0; i < 1024; ++i) {
      const fl::fptr<std::uint64_t> p = s.allocate(mib - 64).cast<std::uint64_t>();
      s.get(p)[0] = i;
      s.get(p)[(mib - 64) / 8 - 1] = ~i;
      blocks.push_back(p);
      if (s.stats().file_bytes != last_size) {
        last_size = s.stats().file_bytes;
        for (std::uint64_t k = 0; k <= i; ++k) {
          ASSERT_EQ(s.get(blocks[k])[0], k);
          ASSERT_EQ(s.get(blocks[k])[(mib - 64) / 8 - 1], ~k);
        }
      }
    }
    EXPECT_GE(s.stats().file_bytes, std::uint64_t{1} << 30);
    EXPECT_GT(s.remap_count(), 3u);
    const fl::fptr<fl::fptr<std::uint64_t>> table =
        s.allocate(blocks.size() * 8).cast<fl::fptr<std::uint64_t>>();
    std::memcpy(s.get(table), blocks.data(), blocks.size() * 8);
    s.set_root(table);
    s.sync();
  }
  const int rc = fl_test::run_in_child([&] {
    fl::mapped_space s(d / "s");
    const fl::fptr<std::uint64_t>* table = s.get(s.root<fl::fptr<std::uint64_t>>());
    for (std::uint64_t i = 0; i < 1024; ++i) {
      if (table[i] != blocks[i] || s.get(table[i])[0] != i ||
          s.get(table[i])[(mib - 64) / 8 - 1] != ~i)
        return 1;
    }
    s.verify();
    return 0;
  });
  EXPECT_EQ(rc, 0);
}

// ---- format versions ---------------------------------------------------------

// tests/data/persist_v1/: files written by format version 1 (little-endian,
// 64-bit), which every later version must keep loading.
struct v1_root {
  std::uint64_t check;
  fl::fptr<fl::pstring> short_name, long_name;
  fl::fptr<std::uint64_t> numbers;
};

TEST(PersistFormat, Version1FilesKeepLoading) {
  if (std::endian::native != std::endian::little || sizeof(void*) != 8)
    GTEST_SKIP() << "the v1 files are little-endian 64-bit";
  const std::filesystem::path data = std::filesystem::path(FL_PERSIST_DATA_DIR) / "persist_v1";
  scratch_dir d;
  std::filesystem::copy_file(data / "value.flp", d / "value.flp");
  std::filesystem::copy_file(data / "space.fls", d / "space.fls");
  EXPECT_EQ(*fl::persist<std::uint64_t>(d / "value.flp", 1), 0x0123456789ABCDEFull);
  fl::mapped_space s(d / "space.fls", {.mode = fl::open_mode::open_existing});
  s.verify();
  const v1_root* r = s.get(s.root<v1_root>());
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->check, 0xF1F1F1F1F1F1F1F1ull);
  EXPECT_EQ(s.get(r->short_name)->view(s), "persist v1");
  EXPECT_EQ(s.get(r->long_name)->view(s), std::string(100, 'L'));
  for (std::uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(s.get(r->numbers)[i], i * i);
}

// tests/data/persist_v3/: a space of format 3 (little-endian, 64-bit) whose
// writer was killed after six commits, so its log holds a run of format-3
// records (whole page images): a root {check, numbers} and 2048 numbers, of
// which commit c (1 to 5) set every (97 c)-th to c * 1000 + i. The open
// replays them; the first commit writes format 4 (records of changed bytes).
struct v3_root {
  std::uint64_t check;
  fl::fptr<std::uint64_t> numbers;
};

TEST(PersistFormat, AFormat3LogRunIsReplayedAndTheNextCommitWritesFormat4) {
  if (std::endian::native != std::endian::little || sizeof(void*) != 8)
    GTEST_SKIP() << "the v3 files are little-endian 64-bit";
  const std::filesystem::path data = std::filesystem::path(FL_PERSIST_DATA_DIR) / "persist_v3";
  scratch_dir d;
  std::filesystem::copy_file(data / "space.fls", d / "space.fls");
  std::filesystem::copy_file(data / "space.fls-log", d / "space.fls-log");
  std::vector<std::uint64_t> want(2048, 0);
  for (std::uint64_t c = 1; c <= 5; ++c)
    for (std::uint64_t i = 0; i < want.size(); i += 97 * c) want[i] = c * 1000 + i;
  const auto format_of = [&] {
    std::ifstream f(d / "space.fls", std::ios::binary);
    std::uint32_t v[2] = {};
    f.seekg(8);
    f.read(reinterpret_cast<char*>(&v[0]), 4);
    f.seekg(fl::detail::space_page + 8);
    f.read(reinterpret_cast<char*>(&v[1]), 4);
    return std::max(v[0], v[1]);
  };
  EXPECT_EQ(format_of(), 3u);
  {
    fl::mapped_space s(d / "space.fls", {.mode = fl::open_mode::open_existing});
    s.verify();
    const v3_root* r = s.get(s.root<v3_root>());
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->check, 0xF3F3F3F3F3F3F3F3ull);
    for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(s.get(r->numbers)[i], want[i]) << i;
    s.get(r->numbers)[5] = 77;
    want[5] = 77;
    s.sync();
    EXPECT_LE(s.stats().last_sync_log_bytes, fl::detail::space_page);
  }
  EXPECT_EQ(format_of(), fl::detail::space_format_version);
  fl::mapped_space s(d / "space.fls", {.mode = fl::open_mode::open_existing});
  s.verify();
  const v3_root* r = s.get(s.root<v3_root>());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(s.get(r->numbers)[i], want[i]) << i;
}

// ---- pstring -----------------------------------------------------------------

TEST(PstringTest, InlineAndHeapRoundTrip) {
  scratch_dir d;
  fl::fptr<fl::fptr<fl::pstring>> names;
  const std::string long_text(1000, 'x');
  {
    fl::mapped_space s(d / "s");
    const fl::fptr<fl::pstring> a = fl::pstring::make(s, "short");
    const fl::fptr<fl::pstring> b = fl::pstring::make(s, long_text);
    const fl::fptr<fl::pstring> c = fl::pstring::make(s, std::string_view("with\0nul", 8));
    EXPECT_EQ(s.get(a)->view(s), "short");
    EXPECT_EQ(s.get(b)->size(), 1000u);
    names = s.allocate(3 * 8).cast<fl::fptr<fl::pstring>>();
    s.get(names)[0] = a;
    s.get(names)[1] = b;
    s.get(names)[2] = c;
    s.set_root(names);
    s.sync();
  }
  fl::mapped_space s(d / "s");
  const fl::fptr<fl::pstring>* n = s.get(s.root<fl::fptr<fl::pstring>>());
  EXPECT_EQ(s.get(n[0])->to_string(s), fl::string("short"));
  EXPECT_EQ(s.get(n[1])->view(s), long_text);
  EXPECT_EQ(s.get(n[2])->view(s), std::string_view("with\0nul", 8));
  EXPECT_TRUE(s.get(n[2])->view(s).starts_with("with"));
  for (int i = 0; i < 3; ++i) fl::pstring::destroy(s, n[i]);
  EXPECT_EQ(s.stats().live_blocks, 2u);  // the array and the checksum table
}

// Random assign/append/clear on pstrings mirrored on std::string, with
// texts taken from the pstrings themselves (aliasing), in a space whose
// reserved range is small so that some allocations move the mapping.
TEST(PstringTest, RandomEditsAgreeWithStdString) {
  scratch_dir d;
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  fl::mapped_space s(d / "s", {.reserve = 256 * 1024});
  constexpr int n = 16;
  std::vector<fl::fptr<fl::pstring>> ps;
  std::vector<std::string> want(n);
  for (int i = 0; i < n; ++i) ps.push_back(fl::pstring::make(s, ""));
  auto random_text = [&](std::size_t len) { return fl_test::random_text(rng, len, 26, 'a'); };
  for (int step = 0; step < 20000; ++step) {
    const std::size_t i = rng() % n, j = rng() % n;
    const int op = static_cast<int>(rng() % 6);
    const std::size_t len = rng() % 4 == 0 ? rng() % 3000 : rng() % 40;
    if (op == 0) {
      const std::string t = random_text(len);
      s.get(ps[i])->assign(s, t);
      want[i] = t;
    } else if (op == 1) {
      const std::string t = random_text(len);
      s.get(ps[i])->append(s, t);
      want[i] += t;
    } else if (op == 2) {  // assign from another (or the same) pstring's text
      const std::string_view v = s.get(ps[j])->view(s);
      const std::size_t from = v.empty() ? 0 : rng() % v.size();
      s.get(ps[i])->assign(s, v.substr(from));
      want[i] = want[j].substr(from);
    } else if (op == 3) {  // append a piece of a pstring's own or another's text
      const std::string_view v = s.get(ps[j])->view(s);
      const std::size_t k = v.empty() ? 0 : rng() % (v.size() + 1);
      s.get(ps[i])->append(s, v.substr(0, k));
      want[i] += want[j].substr(0, k);
    } else if (op == 4 && rng() % 8 == 0) {
      s.get(ps[i])->clear(s);
      want[i].clear();
    } else if (want[i].size() > 20000) {
      s.get(ps[i])->assign(s, "reset");
      want[i] = "reset";
    }
    ASSERT_EQ(s.get(ps[i])->view(s), want[i])
        << "seed " << seed << " step " << step << " op " << op;
  }
  // The edits usually outgrow the 256 KiB range on their own; a block of
  // twice the range makes sure the mapping has moved at least once, and the
  // texts must read the same after it.
  const fl::fptr<void> big = s.allocate(512 * 1024);
  EXPECT_GT(s.remap_count(), 0u);
  s.deallocate(big);
  for (int i = 0; i < n; ++i) EXPECT_EQ(s.get(ps[i])->view(s), want[i]) << "seed " << seed;
  s.sync();
  s.verify();
}

}  // namespace
