// tests/mapped_space_no_readers_test.cpp: a space created with
// mapped_space_options::readers = false (the temporary file of an import or
// a compaction) has no reader table until rename() gives it its name; from
// then on it is an ordinary space: readers open it, pin their commit and
// keep it while the writer commits past it. An existing file always gets
// its table, whatever the option says.
#include <fl/mapped_space.hpp>

#include "persist_support.hpp"
#include "seq_block.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

constexpr std::size_t block_bytes = 8 * 4096;

fs::path table_of(const fs::path& data) {
  fs::path t = data;
  t += "-readers";
  return t;
}

struct NoReadersTest : ::testing::Test {
  fl_test::scratch_dir dir;
  fs::path tmp() const { return dir / "space.tmp"; }
  fs::path file() const { return dir / "space"; }

  // A new space under tmp() without its table, committed at seq 0.
  fl::mapped_space make_private() {
    fl::mapped_space sp(tmp(), fl::mapped_space_options{.mode = fl::open_mode::create_new,
                                                         .readers = false});
    const auto root = sp.make<fl_test::seq_root>();
    sp.get(root)->block = sp.allocate(block_bytes).cast<unsigned char>();
    sp.set_root(root);
    fl_test::commit_seq(sp, 0, 0, block_bytes);
    return sp;
  }
};

TEST_F(NoReadersTest, ACreatedSpaceHasNoTableUntilItIsRenamed) {
  fl::mapped_space w = make_private();
  EXPECT_FALSE(fs::exists(table_of(tmp())));
  fl_test::commit_seq(w, 1, 0, block_bytes);
  EXPECT_FALSE(fs::exists(table_of(tmp())));

  w.rename(file());
  EXPECT_TRUE(fs::exists(table_of(file())));
  EXPECT_FALSE(fs::exists(table_of(tmp())));
  EXPECT_FALSE(fs::exists(tmp()));
}

TEST_F(NoReadersTest, AfterTheRenameReadersKeepTheirCommitAsTheWriterMovesOn) {
  fl::mapped_space w = make_private();
  fl_test::commit_seq(w, 1, 0, block_bytes);
  w.rename(file());

  fl::mapped_space r(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(1));
  // Commits that rewrite the block the reader reads: its pin holds them back
  // from the file, so the reader keeps seeing commit 1 whole.
  for (std::uint64_t seq = 2; seq < 6; ++seq) {
    fl_test::commit_seq(w, seq, 0, block_bytes);
    EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(1)) << "after commit " << seq;
  }
  r.refresh();
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(5));

  fl::mapped_space late(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  EXPECT_EQ(fl_test::seq_state(late, block_bytes), fl_test::seq_ok(5));
}

TEST_F(NoReadersTest, RenamedOverAnOpenReadersFileTheReaderLearnsItWasReplaced) {
  {
    fl::mapped_space old = fl_test::make_seq_space(file(), block_bytes, 7);
  }
  fl::mapped_space r(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(7));

  fl::mapped_space w = make_private();
  w.rename(file());
  EXPECT_THROW(r.refresh(), fl::persist_error);
  EXPECT_TRUE(r.replaced());
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(7));

  fl::mapped_space fresh(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  EXPECT_EQ(fl_test::seq_state(fresh, block_bytes), fl_test::seq_ok(0));
}

TEST_F(NoReadersTest, AnExistingFileGetsItsTableWhateverTheOptionSays) {
  {
    fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 3);
  }
  fs::remove(table_of(file()));
  fl::mapped_space w(file(), fl::mapped_space_options{.mode = fl::open_mode::open_or_create,
                                                       .readers = false});
  EXPECT_TRUE(fs::exists(table_of(file())));
  fl::mapped_space r(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  fl_test::commit_seq(w, 4, 0, block_bytes);
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(3));
  r.refresh();
  EXPECT_EQ(fl_test::seq_state(r, block_bytes), fl_test::seq_ok(4));
}

TEST_F(NoReadersTest, AnAbandonedSpaceLeavesNoFileBehind) {
  {
    fl::mapped_space w = make_private();
  }
  EXPECT_TRUE(fl::mapped_space::remove(tmp()));
  EXPECT_FALSE(fs::exists(tmp()));
  EXPECT_FALSE(fs::exists(table_of(tmp())));
  for (const auto& e : fs::directory_iterator(dir.path())) ADD_FAILURE() << e.path();
}

// discard(): the same end without opening the file again; the log its
// commits wrote goes with it, and the handle is closed.
TEST_F(NoReadersTest, ADiscardedSpaceLeavesNoFileBehind) {
  fl::mapped_space w = make_private();
  fl_test::commit_seq(w, 1, 0, block_bytes);
  EXPECT_TRUE(fs::exists(tmp()));
  w.discard();
  EXPECT_EQ(w.file_bytes(), 0u);  // closed, as if moved from
  w.discard();  // closed: nothing more to do
  for (const auto& e : fs::directory_iterator(dir.path())) ADD_FAILURE() << e.path();
  // The name is free for a new space at once.
  fl::mapped_space again(tmp(), fl::mapped_space_options{.mode = fl::open_mode::create_new,
                                                          .readers = false});
  EXPECT_TRUE(again.created());
}

// A space with a reader table (an ordinary file) takes its table along.
TEST_F(NoReadersTest, DiscardRemovesTheReaderTableToo) {
  {
    fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 2);
  }
  fl::mapped_space w(file());
  EXPECT_TRUE(fs::exists(table_of(file())));
  w.discard();
  for (const auto& e : fs::directory_iterator(dir.path())) ADD_FAILURE() << e.path();
}

// A reader only closes: the file is its writer's.
TEST_F(NoReadersTest, AReaderThatDiscardsOnlyCloses) {
  {
    fl::mapped_space w = fl_test::make_seq_space(file(), block_bytes, 2);
  }
  fl::mapped_space r(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  r.discard();
  EXPECT_TRUE(fs::exists(file()));
  fl::mapped_space again(file(), fl::mapped_space_options{.mode = fl::open_mode::read_only});
  EXPECT_EQ(fl_test::seq_state(again, block_bytes), fl_test::seq_ok(2));
}

}  // namespace
