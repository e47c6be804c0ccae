// tests/json_store_reader_sync_test.cpp: json_store's writer beside a reader
// that refreshes between commits: a sync() with no edit commits nothing (no
// record, no flush) and the data file catches up with the reader
// (mapped_space_reader_sync_test holds the same for the space).
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "persist_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace {

// Numbers set in place, committed while a reader
// holds the commit before; after its refresh() a sync() with no edit commits
// nothing and the file catches up.
TEST(StoreReaderSync, SyncWithNoEditMakesNoCommitBesideAReaderThatRefreshes) {
  fl_test::scratch_dir dir;
  const std::filesystem::path file = dir / "doc.fl";
  fl::json_store w = fl::json_store::import(R"({"n":0,"m":[0,0,0,0]})", file);
  w.sync();
  fl::json_store r = fl::json_store::open(file, fl::open_mode::read_only);
  for (int n = 1; n <= 5; ++n) {
    w.set("/n", std::to_string(n));
    w.set("/m/" + std::to_string(n % 4), std::to_string(n));
    w.sync();
    const std::uint64_t g = w.stats().generation;
    r.refresh();
    ASSERT_EQ(r.at("/n"), std::to_string(n));
    w.sync();
    EXPECT_EQ(w.stats().generation, g) << "a sync with no edit committed, edit " << n;
    EXPECT_EQ(w.stats().pinned_generation, g) << "the file did not catch up, edit " << n;
  }
}

}  // namespace
