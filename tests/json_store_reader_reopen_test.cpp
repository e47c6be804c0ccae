// tests/json_store_reader_reopen_test.cpp: readers opened and closed again
// and again in one process. A closed reader leaves its reader-table mapping
// and slot for the next reader of the same table (the cheap reopen of
// src/persist/reader_table.cpp); these tests hold what that must not change:
// slots are not used up, a closed reader holds no commit back, a store
// replaced under the same path is read as the new store, and a child made by
// fork() reads through a slot of its own.
#include <fl/json_store.hpp>

#include "persist_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace {

TEST(JsonStoreReaderReopen, ManyMoreReopensThanSlots) {
  fl_test::scratch_dir dir;
  const auto file = dir / "s.fljson";
  fl::json_store w = fl::json_store::import(R"({"n":1})", file);
  w.sync();
  // 128 slots: a reader that kept its slot at close and did not give it to
  // the next reader would run out long before 300 opens.
  for (int i = 0; i < 300; ++i) {
    auto r = fl::json_store::open(file, fl::open_mode::read_only);
    ASSERT_EQ(r.find("/n")->as_int64(), 1);
  }
  // Two open at once: the second cannot share the first's slot.
  auto a = fl::json_store::open(file, fl::open_mode::read_only);
  auto b = fl::json_store::open(file, fl::open_mode::read_only);
  w.set("/n", "2");
  w.sync();
  b.refresh();
  EXPECT_EQ(a.find("/n")->as_int64(), 1);
  EXPECT_EQ(b.find("/n")->as_int64(), 2);
}

TEST(JsonStoreReaderReopen, AClosedReaderHoldsNoCommit) {
  fl_test::scratch_dir dir;
  const auto file = dir / "s.fljson";
  fl::json_store w = fl::json_store::import(R"({"n":1})", file);
  w.sync();
  {
    auto r = fl::json_store::open(file, fl::open_mode::read_only);
    w.set("/n", "2");
    w.sync();
    EXPECT_LT(w.stats().pinned_generation, w.stats().generation);  // r holds the older commit
  }
  w.set("/n", "3");
  w.sync();
  EXPECT_EQ(w.stats().pinned_generation, w.stats().generation);
}

TEST(JsonStoreReaderReopen, AStoreReplacedUnderThePathIsReadAnew) {
  fl_test::scratch_dir dir;
  const auto file = dir / "s.fljson";
  fl::json_store::import(R"({"n":1})", file).sync();
  {
    auto first = fl::json_store::open(file, fl::open_mode::read_only);
    EXPECT_EQ(first.find("/n")->as_int64(), 1);
  }  // its table is kept
  // A new store renamed over the path: a new data file and a new table.
  fl::json_store::import(R"({"n":7,"s":"new"})", file).sync();
  auto r = fl::json_store::open(file, fl::open_mode::read_only);
  EXPECT_EQ(r.find("/n")->as_int64(), 7);
  EXPECT_EQ(r.find("/s")->as_string_view(), "new");
  // And compact(), which renames a copy over the store.
  {
    fl::json_store w = fl::json_store::open(file);
    w.set("/n", "8");
    w.compact();
    w.sync();
  }
  r = fl::json_store::open(file, fl::open_mode::read_only);
  EXPECT_EQ(r.find("/n")->as_int64(), 8);
}

TEST(JsonStoreReaderReopen, AForkedChildReadsThroughItsOwnSlot) {
  fl_test::scratch_dir dir;
  const auto file = dir / "s.fljson";
  fl::json_store w = fl::json_store::import(R"({"n":1})", file);
  w.sync();
  auto held = fl::json_store::open(file, fl::open_mode::read_only);
  w.set("/n", "2");
  w.sync();
  // A reader closed just before the fork: its table and slot are kept, and
  // the child must not take them (the parent's lock, the parent's slot).
  { auto r = fl::json_store::open(file, fl::open_mode::read_only); }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 0;
    try {
      auto r = fl::json_store::open(file, fl::open_mode::read_only);
      code = r.find("/n")->as_int64() == 2 ? 0 : 1;
    } catch (...) {
      code = 2;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // The parent's reader still holds its commit: the child took no slot of it.
  EXPECT_EQ(held.find("/n")->as_int64(), 1);
  EXPECT_LT(w.stats().pinned_generation, w.stats().generation);
}

}  // namespace
