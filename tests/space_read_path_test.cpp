// tests/space_read_path_test.cpp: the shortcuts of a reader's and a writer's
// read path keep every reader on exactly one committed state
// (docs/design.md, "Readers", costs). A closed space's reader table, kept for
// the next open of the process, is taken by a writer as well as by a reader;
// a refresh reads a record whole in one read of the last record's size, and
// falls back to reading its head first when a commit is bigger than that; a
// reader's open needs no second look at the file's size unless the file grew.
#include <fl/mapped_space.hpp>

#include "persist_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

namespace {

namespace fs = std::filesystem;

constexpr std::size_t page = 4096;

struct state {
  std::uint64_t seq;
  std::uint64_t pages;  // pages of `block` written by the commit `seq`
  fl::fptr<unsigned char> block;
  std::uint64_t block_pages;
};

unsigned char byte_of(std::uint64_t seq, std::size_t i) {
  return static_cast<unsigned char>(seq * 37 + i / page + 1);
}

// Commit `seq` rewrites the first `pages` pages of the block with bytes of seq.
void commit(fl::mapped_space& sp, std::uint64_t seq, std::uint64_t pages) {
  state* s = sp.get(sp.root<state>());
  s->seq = seq;
  s->pages = pages;
  unsigned char* b = sp.get(s->block);
  for (std::size_t i = 0; i < pages * page; ++i) b[i] = byte_of(seq, i);
  sp.sync();
}

// The reader shows commit `seq` that wrote `pages` pages: those pages hold its
// bytes, and the root says so.
void expect_commit(const fl::mapped_space& r, std::uint64_t seq, std::uint64_t pages) {
  const state* s = r.get(r.root<state>());
  ASSERT_EQ(s->seq, seq);
  ASSERT_EQ(s->pages, pages);
  const unsigned char* b = reinterpret_cast<const unsigned char*>(r.checked(s->block, pages * page));
  for (std::size_t i = 0; i < pages * page; i += 509)
    ASSERT_EQ(b[i], byte_of(seq, i)) << "commit " << seq << ", byte " << i;
}

fl::mapped_space make(const fs::path& file, std::uint64_t block_pages) {
  fl::mapped_space sp(file);
  const auto root = sp.make<state>();
  sp.get(root)->block = sp.allocate(block_pages * page).cast<unsigned char>();
  sp.get(root)->block_pages = block_pages;
  sp.set_root(root);
  commit(sp, 1, 1);
  return sp;
}

TEST(SpaceReadPath, RefreshAcrossCommitsOfChangingSize) {
  fl_test::scratch_dir dir;
  const fs::path file = dir / "space";
  fl::mapped_space w = make(file, 64);
  fl::mapped_space r = fl::mapped_space::open(file, fl::open_mode::read_only);
  expect_commit(r, 1, 1);
  // Small commits (one read each), then commits bigger than the last one
  // read (the head first, then the pages), then small ones again, and several
  // commits between two refreshes.
  const std::uint64_t sizes[] = {1, 1, 2, 40, 64, 1, 3, 3, 50, 1};
  std::uint64_t seq = 1;
  for (const std::uint64_t pages : sizes) {
    commit(w, ++seq, pages);
    r.refresh();
    expect_commit(r, seq, pages);
  }
  commit(w, ++seq, 2);
  commit(w, ++seq, 60);
  commit(w, ++seq, 1);
  r.refresh();
  expect_commit(r, seq, 1);
  // The block beyond the last commit's pages holds what commit 60 wrote.
  const state* s = r.get(r.root<state>());
  const unsigned char* b = reinterpret_cast<const unsigned char*>(r.checked(s->block, 60 * page));
  EXPECT_EQ(b[59 * page], byte_of(seq - 1, 59 * page));
}

TEST(SpaceReadPath, KeptTablesPassBetweenReadersAndWriters) {
  fl_test::scratch_dir dir;
  const fs::path file = dir / "space";
  std::uint64_t seq = 1;
  {
    fl::mapped_space w = make(file, 8);
    {
      const fl::mapped_space r = fl::mapped_space::open(file, fl::open_mode::read_only);
      expect_commit(r, 1, 1);
    }  // the reader's table (and its slot) kept
  }
  for (int round = 0; round < 4; ++round) {
    // A writer takes the table a closed reader (with its slot) or writer
    // left; a reader opened beside it takes a slot of its own, and holds its
    // commit. Odd rounds close the writer first, so the reader's table is the
    // one kept.
    std::optional<fl::mapped_space> keep_w;
    fl::mapped_space& w = keep_w.emplace(file, fl::mapped_space_options{.mode = fl::open_mode::read_write});
    fl::mapped_space r = fl::mapped_space::open(file, fl::open_mode::read_only);
    expect_commit(r, seq, 1);
    EXPECT_EQ(w.stats().pinned_generation, w.stats().generation);
    commit(w, ++seq, 1);
    EXPECT_EQ(w.stats().pinned_generation, w.stats().generation - 1)
        << "the writer does not see the reader's pin";
    expect_commit(r, seq - 1, 1);
    r.refresh();
    expect_commit(r, seq, 1);
    EXPECT_EQ(w.stats().pinned_generation, w.stats().generation);
    if (round % 2 == 1) keep_w.reset();
  }
  // After the writer closed (its table kept), a reader takes that table.
  const fl::mapped_space r = fl::mapped_space::open(file, fl::open_mode::read_only);
  expect_commit(r, seq, 1);
}

TEST(SpaceReadPath, ReaderOpenedAfterGrowth) {
  fl_test::scratch_dir dir;
  const fs::path file = dir / "space";
  fl::mapped_space w = make(file, 4);
  fl::mapped_space r = fl::mapped_space::open(file, fl::open_mode::read_only);
  // The file grows by 2 MiB in one commit: readers opened before and after
  // see it whole.
  state* s = w.get(w.root<state>());
  const auto big = w.allocate(512 * page).cast<unsigned char>();
  std::memset(w.get(big), 0x5a, 512 * page);
  s = w.get(w.root<state>());
  s->block = big;
  s->block_pages = 512;
  commit(w, 2, 512);
  r.refresh();
  expect_commit(r, 2, 512);
  const fl::mapped_space late = fl::mapped_space::open(file, fl::open_mode::read_only);
  expect_commit(late, 2, 512);
  EXPECT_GE(fs::file_size(file), late.file_bytes());
}

}  // namespace
