// tests/json_store_reader_reopen_test.cpp: readers opened and closed again
// and again in one process. A closed reader leaves its reader-table mapping
// and slot for the next reader of the same table (the cheap reopen of
// src/persist/reader_table.cpp); these tests hold what that must not change:
// slots are not used up, a closed reader holds no commit back, a store
// replaced under the same path is read as the new store, and a child made by
// fork() reads through a slot of its own. A reader that read commits from the
// log (the writer leaves the file behind) leaves its view for the next reader
// of the same commit: every reader opened between random edits, commits and
// refreshes must still read exactly the newest commit.
#include <fl/json_store.hpp>

#include "persist_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace {

// A store of {"n":1} in a directory of its own, and the writer that made it.
class JsonStoreReaderReopen : public ::testing::Test {
 protected:
  fl::json_store writer() {
    fl::json_store w = fl::json_store::import(R"({"n":1})", file);
    w.sync();
    return w;
  }
  fl::json_store reader() const { return fl::json_store::open(file, fl::open_mode::read_only); }
  // One commit of w that sets /n to `n`.
  static void commit(fl::json_store& w, const char* n) {
    w.set("/n", n);
    w.sync();
  }
  fl_test::scratch_dir dir;
  const std::filesystem::path file = dir / "s.fljson";
};

TEST_F(JsonStoreReaderReopen, ManyMoreReopensThanSlots) {
  fl::json_store w = writer();
  // 128 slots: a reader that kept its slot at close and did not give it to
  // the next reader would run out long before 300 opens.
  for (int i = 0; i < 300; ++i) {
    auto r = reader();
    ASSERT_EQ(r.find("/n")->as_int64(), 1);
  }
  // Two open at once: the second cannot share the first's slot.
  auto a = reader();
  auto b = reader();
  commit(w, "2");
  b.refresh();
  EXPECT_EQ(a.find("/n")->as_int64(), 1);
  EXPECT_EQ(b.find("/n")->as_int64(), 2);
}

TEST_F(JsonStoreReaderReopen, AClosedReaderHoldsNoCommit) {
  fl::json_store w = writer();
  {
    auto r = reader();
    commit(w, "2");
    EXPECT_LT(w.stats().pinned_generation, w.stats().generation);  // r holds the older commit
  }
  commit(w, "3");
  EXPECT_EQ(w.stats().pinned_generation, w.stats().generation);
}

TEST_F(JsonStoreReaderReopen, AStoreReplacedUnderThePathIsReadAnew) {
  fl::json_store::import(R"({"n":1})", file).sync();
  {
    auto first = reader();
    EXPECT_EQ(first.find("/n")->as_int64(), 1);
  }  // its table is kept
  // A new store renamed over the path: a new data file and a new table.
  fl::json_store::import(R"({"n":7,"s":"new"})", file).sync();
  auto r = reader();
  EXPECT_EQ(r.find("/n")->as_int64(), 7);
  EXPECT_EQ(r.find("/s")->as_string_view(), "new");
  // And compact(), which renames a copy over the store.
  {
    fl::json_store w = fl::json_store::open(file);
    w.set("/n", "8");
    w.compact();
    w.sync();
  }
  r = reader();
  EXPECT_EQ(r.find("/n")->as_int64(), 8);
}

TEST_F(JsonStoreReaderReopen, AForkedChildReadsThroughItsOwnSlot) {
  fl::json_store w = writer();
  auto held = reader();
  commit(w, "2");
  // A reader closed just before the fork: its table and slot are kept, and
  // the child must not take them (the parent's lock, the parent's slot).
  { auto r = reader(); }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 0;
    try {
      auto r = reader();
      code = r.find("/n")->as_int64() == 2 ? 0 : 1;
    } catch (...) { code = 2; }
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

TEST_F(JsonStoreReaderReopen, ReadersBetweenEditsOfALaggingFileReadTheNewestCommit) {
  // Members enough that an edit changes a few pages; the writer leaves the
  // file behind for up to 32 commits, so most readers read the log.
  std::string text = "{";
  for (int i = 0; i < 400; ++i) {
    text += i ? ",\"k" : "\"k";
    text += std::to_string(i);
    text += "\":\"";
    text.append(static_cast<std::size_t>(i % 37), 'v');
    text += '"';
  }
  text += '}';
  fl::json_store w = fl::json_store::import(text, file);
  w.sync();
  std::string committed = w.dump();
  std::mt19937_64 rng(fl_test::test_seed());
  std::optional<fl::json_store> held;  // a reader kept open, refreshed now and then
  std::string held_sees = committed;
  int next_key = 400;
  for (int step = 0; step < 600; ++step) {
    const std::uint64_t r = rng() % 10;
    if (r < 4) {
      w.set("/k" + std::to_string(rng() % 400), "\"" + std::to_string(step) + "\"");
    } else if (r < 6) {
      w.set("/n" + std::to_string(next_key++), std::to_string(step));
    } else if (r < 8) {
      w.sync();
      committed = w.dump();
    } else if (r < 9) {
      if (held && rng() % 2) {
        held.reset();
      } else {
        if (!held) held.emplace(reader());
        held->refresh();
        held_sees = committed;
      }
    } else if (rng() % 8 == 0) {
      w.compact();  // a new file under the path at the next sync
    } else {
      const std::string k = "/k" + std::to_string(rng() % 400);
      if (w.find(k)) w.erase(k);
    }
    // One to three readers in turn, each closed before the next opens.
    for (std::uint64_t k = rng() % 3; k < 3; ++k) {
      const fl::json_store rd = reader();
      ASSERT_EQ(rd.dump(), committed) << "step " << step;
      ASSERT_GT(rd.verify(), 0u) << "step " << step;
    }
    if (held) { ASSERT_EQ(held->dump(), held_sees) << "step " << step; }
  }
}

}  // namespace
