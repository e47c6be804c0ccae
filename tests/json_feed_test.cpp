// fl::json_store's change feed: each commit's RFC 6902 patch, read back
// with changes() from the writer and from a reader, kept through a
// compaction, bounded by keep_changes(), refused with a clear error when
// the records are gone; and every patch, applied in order to the document it
// follows (by another json_store and by nlohmann::ordered_json), gives the
// committed document. json_model_test checks the same over random edits.
#include <fl/detail/json_format.hpp>
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#ifdef FL_TEST_HAVE_NLOHMANN
#include <nlohmann/json.hpp>
#endif

namespace {

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

std::vector<std::string> patches(const std::vector<fl::json_change>& cs) {
  std::vector<std::string> out;
  for (const fl::json_change& c : cs) out.push_back(str(c.patch));
  return out;
}

TEST(JsonFeed, EachCommitHasItsPatch) {
  fl_test::temp_dir dir("fl_feed_");
  const std::filesystem::path file = dir / "doc.json";
  fl::json_store s = fl::json_store::import(R"({"todo":["a","b"],"n":1})", file);
  s.sync();
  EXPECT_EQ(s.sequence(), 0u);
  EXPECT_NE(s.history(), 0u);
  EXPECT_TRUE(s.changes(0).empty());

  s.set("/n", "2");
  s.insert("/todo/0", R"( "first" )");
  s.sync();
  s.set("/todo/-", "{ \"t\" : \"x y\",\n \"k\": [1, 2] }");
  EXPECT_TRUE(s.erase("/n"));
  EXPECT_FALSE(s.erase("/missing"));  // erased nothing: no operation
  s.sync();
  s.sync();  // nothing changed: no commit in the feed
  s.put("/a~0b/c", "v", fl::json_store::parents::create);
  s.sync();

  EXPECT_EQ(s.sequence(), 3u);
  const std::vector<std::string> want = {
      R"([{"op":"replace","path":"/n","value":2},{"op":"add","path":"/todo/0","value":"first"}])",
      R"([{"op":"add","path":"/todo/-","value":{"t":"x y","k":[1,2]}},{"op":"remove","path":"/n"}])",
      R"([{"op":"add","path":"/a~0b","value":{}},{"op":"add","path":"/a~0b/c","value":"v"}])",
  };
  EXPECT_EQ(patches(s.changes(0)), want);
  EXPECT_EQ(patches(s.changes(1)), std::vector<std::string>(want.begin() + 1, want.end()));
  EXPECT_EQ(patches(s.changes(0, 1)), std::vector<std::string>(want.begin(), want.begin() + 1));
  EXPECT_TRUE(s.changes(3).empty());
  EXPECT_EQ(s.changes(0)[2].sequence, 3u);

  // Applied in order to the imported document, they give the store's.
  fl::json_store replay = fl::json_store::import(R"({"todo":["a","b"],"n":1})", dir / "replay");
  for (const fl::json_change& c : s.changes(0)) replay.apply_patch(c.patch);
  EXPECT_EQ(str(replay.dump()), str(s.dump()));
  EXPECT_EQ(replay.sequence(), 0u);  // not committed yet
  replay.sync();
  EXPECT_EQ(replay.sequence(), 1u);  // the three patches: one commit
}

// A record spells each pointer as a JSON string: runs of bytes that need no
// escape copied whole (eight at a time, then one by one), and each quote,
// backslash and control character escaped where it falls in the run.
TEST(JsonFeed, ARecordEscapesItsPointersWhereverTheEscapesFall) {
  fl_test::temp_dir dir("fl_feed_");
  fl::json_store s = fl::json_store::import("{}", dir / "doc.json");
  s.sync();
  const std::string keys[] = {
      "plain",
      "a \"quoted\" key of more than eight bytes",
      std::string("control\x01\x1f\t\nbytes") + std::string(1, '\0') + "end",
      "back\\slash",
      "\"",
      "0123456789abcdef\"0123456789abcdef",
      "caf\xc3\xa9 \xe2\x82\xac",
  };
  for (const std::string& k : keys) s.set("/" + k, "1");
  s.sync();
  const std::string want =
      R"([{"op":"add","path":"/plain","value":1},)"
      R"({"op":"add","path":"/a \"quoted\" key of more than eight bytes","value":1},)"
      R"({"op":"add","path":"/control\u0001\u001f\t\nbytes\u0000end","value":1},)"
      R"({"op":"add","path":"/back\\slash","value":1},)"
      R"({"op":"add","path":"/\"","value":1},)"
      R"({"op":"add","path":"/0123456789abcdef\"0123456789abcdef","value":1},)"
      "{\"op\":\"add\",\"path\":\"/caf\xc3\xa9 \xe2\x82\xac\",\"value\":1}]";
  ASSERT_EQ(s.changes(0).size(), 1u);
  EXPECT_EQ(str(s.changes(0)[0].patch), want);
  // Applied to the document it follows, it gives the store's.
  fl::json_store replay = fl::json_store::import("{}", dir / "replay");
  replay.apply_patch(s.changes(0)[0].patch);
  EXPECT_EQ(str(replay.dump()), str(s.dump()));
  // json_text spells strings and numbers the same way.
  EXPECT_EQ(fl::json_text(keys[2]).str(), R"("control\u0001\u001f\t\nbytes\u0000end")");
  EXPECT_EQ(fl::json_text(0.1).str(), "0.1");
  EXPECT_EQ(fl::json_text(3.0).str(), "3.0");
}

TEST(JsonFeed, RefusedEditsRecordNothing) {
  fl_test::temp_dir dir("fl_feed_");
  fl::json_store s = fl::json_store::import(R"({"a":[1,2,3],"b":{"c":true}})", dir / "doc");
  s.sync();
  // A patch that fails at its third operation: the first two are undone,
  // and neither they nor their inverses reach the feed.
  EXPECT_THROW(s.apply_patch(R"([{"op":"remove","path":"/a/0"},{"op":"add","path":"/b/d","value":1},
                                 {"op":"test","path":"/b/c","value":false}])"),
               std::invalid_argument);
  EXPECT_THROW(s.set("/x/y", "1"), std::out_of_range);
  EXPECT_THROW(s.set("/a/9", "1"), std::out_of_range);
  EXPECT_THROW(s.set("/a/0", "{bad"), fl::json_error);
  // put() with parents::create that fails after making a parent.
  s.put("/p/q/r", "x", fl::json_store::parents::create);
  // Refused after making "/a/0"'s missing child? "/a/0" is a number: nothing made.
  EXPECT_THROW(s.put("/a/0/z/w", "v", fl::json_store::parents::create), std::out_of_range);
  const std::size_t before = s.changes(0).size();
  s.sync();
  const std::vector<fl::json_change> cs = s.changes(0);
  ASSERT_EQ(cs.size(), before + 1);  // the put that succeeded
  EXPECT_EQ(str(cs.back().patch),
            R"([{"op":"add","path":"/p","value":{}},{"op":"add","path":"/p/q","value":{}},)"
            R"({"op":"add","path":"/p/q/r","value":"x"}])");
  // A patch that succeeds: its move and copy are recorded as removes and adds.
  s.apply_patch(R"([{"op":"move","from":"/a/0","path":"/b/m"},{"op":"copy","from":"/b","path":"/c"},
                    {"op":"test","path":"/a/0","value":2}])");
  s.merge_patch(R"({"b":{"c":null,"n":[1]},"z":"s"})");
  s.sync();
  fl::json_store replay = fl::json_store::import(R"({"a":[1,2,3],"b":{"c":true}})", dir / "r");
  for (const fl::json_change& c : s.changes(0)) replay.apply_patch(c.patch);
  EXPECT_EQ(str(replay.dump()), str(s.dump()));
}

TEST(JsonFeed, AReaderReadsTheFeedOfItsCommit) {
  fl_test::temp_dir dir("fl_feed_");
  const std::filesystem::path file = dir / "doc";
  fl::json_store w = fl::json_store::import("[]", file);
  w.sync();
  fl::json_store r = fl::json_store::open(file, fl::open_mode::read_only);
  EXPECT_EQ(r.history(), w.history());
  for (int i = 0; i < 5; ++i) {
    w.set("/-", std::to_string(i));
    w.sync();
  }
  w.set("/-", "99");  // not committed: neither side shows it
  EXPECT_EQ(r.sequence(), 0u);
  r.refresh();
  EXPECT_EQ(r.sequence(), 5u);
  EXPECT_EQ(w.sequence(), 5u);
  ASSERT_EQ(r.changes(3).size(), 2u);
  EXPECT_EQ(str(r.changes(3)[1].patch), R"([{"op":"add","path":"/-","value":4}])");
  EXPECT_THROW(r.keep_changes(10), fl::persist_error);  // read-only
}

TEST(JsonFeed, KeepChangesBoundsTheRecordsAndSaysWhenOneIsGone) {
  fl_test::temp_dir dir("fl_feed_");
  const std::filesystem::path file = dir / "doc";
  fl::json_store s = fl::json_store::import(R"({"n":0})", file);
  s.sync();
  EXPECT_THROW(s.keep_changes(fl::detail::json::max_feed_capacity + 1), std::invalid_argument);
  s.keep_changes(4);
  for (int i = 1; i <= 10; ++i) {
    s.set("/n", std::to_string(i));
    s.sync();
  }
  EXPECT_EQ(s.oldest_change(), 6u);
  EXPECT_EQ(s.changes(6).size(), 4u);
  try {
    (void)s.changes(5);
    ADD_FAILURE() << "changes(5) of a ring of 4 records after 10 commits";
  } catch (const fl::persist_error& e) {
    EXPECT_NE(std::string(e.what()).find("no longer held (the oldest sequence to follow from is 6)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)s.changes(11), fl::persist_error);  // past the newest
  s.keep_changes(2);  // shrinks: records 7 and 8 are retired
  EXPECT_EQ(s.oldest_change(), 8u);
  s.keep_changes(100);  // grows: what was dropped stays dropped
  EXPECT_EQ(s.oldest_change(), 8u);
  s.sync();
  EXPECT_EQ(s.verify() > 0, true);
  for (int i = 11; i <= 20; ++i) {
    s.set("/n", std::to_string(i));
    s.sync();
  }
  EXPECT_EQ(s.oldest_change(), 8u);
  EXPECT_EQ(s.changes(8).size(), 12u);
  s.verify();
}

TEST(JsonFeed, TheOldestRecordsGoWhenTheirTextPassesTheBudget) {
  fl_test::temp_dir dir("fl_feed_");
  fl::json_store s = fl::json_store::import(R"({"v":""})", dir / "doc");
  s.sync();
  s.keep_changes(100, 1000);  // about three records of this size
  const std::string value = "\"" + std::string(280, 'x') + "\"";
  for (int i = 1; i <= 20; ++i) {
    s.set("/v", value);
    s.sync();
  }
  EXPECT_EQ(s.sequence(), 20u);
  EXPECT_EQ(s.oldest_change(), 17u);  // 3 x 321 bytes fit in 1,000; a 4th does not
  EXPECT_EQ(s.changes(17).size(), 3u);
  s.verify();
  s.set("/v", "\"" + std::string(5000, 'y') + "\"");  // bigger than the budget: kept alone
  s.sync();
  EXPECT_EQ(s.oldest_change(), 20u);
  s.verify();
  s.compact();
  s.sync();
  EXPECT_EQ(s.oldest_change(), 20u);
  s.verify();
}

// A ring slot moved, through the space, to a copy of its record in the
// middle of a block the document does not name (its offset is no block of
// the space). The record falling out of the ring at the next commit, or
// dropped by keep_changes(), raises persist_error before anything changes,
// where it once let std::invalid_argument escape from the space's retire().
TEST(JsonFeed, ARecordThatIsNoBlockRaisesPersistError) {
  namespace fj = fl::detail::json;
  fl_test::temp_dir dir("fl_feed_");
  const std::filesystem::path file = dir / "doc";
  {
    fl::json_store s = fl::json_store::import(R"({"n":0})", file);
    s.sync();
    s.keep_changes(4);
    for (int i = 1; i <= 4; ++i) {
      s.set("/n", std::to_string(i));
      s.sync();
    }
  }
  {
    fl::mapped_space space(file);
    const auto* head =
        reinterpret_cast<const fj::json_head_v5*>(space.get(space.root<fj::json_head>()));
    char* ring = space.get(fl::fptr<char>(head->feed.ring));
    fj::feed_ring r;
    std::memcpy(&r, ring, sizeof r);
    ASSERT_EQ(r.capacity, 4u);
    ASSERT_EQ(r.sequence, 4u);
    char* slot = ring + sizeof r + (1 % r.capacity) * sizeof(std::uint64_t);  // record 1
    std::uint64_t rec;
    std::memcpy(&rec, slot, sizeof rec);
    fj::change_record h;
    std::memcpy(&h, space.get(fl::fptr<char>(rec)), sizeof h);
    ASSERT_EQ(h.sequence, 1u);
    const std::size_t bytes = sizeof h + h.bytes;
    const fl::fptr<char> big(space.allocate(bytes + 64, 16).offset());
    std::memset(space.get(big), 0, bytes + 64);
    std::memcpy(space.get(big) + 32, space.get(fl::fptr<char>(rec)), bytes);
    rec = big.offset() + 32;
    std::memcpy(slot, &rec, sizeof rec);
    space.sync();
  }
  {
    fl::json_store s = fl::json_store::open(file);
    EXPECT_THROW(s.keep_changes(2), fl::persist_error);  // drops records 1 and 2
  }
  {
    fl::json_store s = fl::json_store::open(file);
    EXPECT_EQ(s.oldest_change(), 0u);  // keep_changes(2) changed nothing
    s.set("/n", "5");
    EXPECT_THROW(s.sync(), fl::persist_error);  // record 5 pushes record 1 out
  }
  fl::json_store s = fl::json_store::open(file);
  EXPECT_EQ(s.find("/n")->as_int64(), 4);
  EXPECT_EQ(s.sequence(), 4u);
}

TEST(JsonFeed, ARingOfNoRecordsStillCountsTheCommits) {
  fl_test::temp_dir dir("fl_feed_");
  fl::json_store s = fl::json_store::import(R"({"blob":""})", dir / "doc");
  s.sync();
  s.keep_changes(0);
  for (int i = 1; i <= 3; ++i) {
    s.set("/blob", "\"" + std::string(100000, static_cast<char>('a' + i)) + "\"");
    s.sync();
  }
  EXPECT_EQ(s.sequence(), 3u);
  EXPECT_EQ(s.oldest_change(), 3u);
  EXPECT_TRUE(s.changes(3).empty());
  EXPECT_THROW((void)s.changes(2), fl::persist_error);
  s.verify();
  s.compact();
  s.sync();
  EXPECT_EQ(s.sequence(), 3u);
  s.keep_changes(8);  // records again from the next commit
  s.set("/blob", "0");
  s.sync();
  ASSERT_EQ(s.changes(3).size(), 1u);
  EXPECT_EQ(str(s.changes(3)[0].patch), R"([{"op":"replace","path":"/blob","value":0}])");
  s.verify();
}

TEST(JsonFeed, CompactionKeepsTheHistoryAndAnImportStartsANewOne) {
  fl_test::temp_dir dir("fl_feed_");
  const std::filesystem::path file = dir / "doc";
  fl::json_store s = fl::json_store::import(R"({"k":[]})", file);
  s.sync();
  const std::uint64_t history = s.history();
  for (int i = 0; i < 3; ++i) {
    s.set("/k/-", std::to_string(i));
    s.sync();
  }
  s.set("/k/0", R"("edited before the compaction")");
  s.compact();
  s.set("/k/1", R"("and after it")");
  s.sync();  // one commit: the compaction and both edits
  EXPECT_EQ(s.history(), history);
  EXPECT_EQ(s.sequence(), 4u);
  EXPECT_EQ(str(s.changes(3)[0].patch),
            R"([{"op":"replace","path":"/k/0","value":"edited before the compaction"},)"
            R"({"op":"replace","path":"/k/1","value":"and after it"}])");
  EXPECT_EQ(s.changes(0).size(), 4u);
  s.compact();
  s.sync();  // the document did not change: no new commit in the feed
  EXPECT_EQ(s.sequence(), 4u);
  s.verify();
  s = fl::json_store::import("[1]", dir / "other");  // closes the store at `file`
  s.sync();
  EXPECT_NE(s.history(), history);
  {
    const fl::json_store again = fl::json_store::open(file);
    EXPECT_EQ(again.sequence(), 4u);
    EXPECT_EQ(again.history(), history);
  }
  // An import over it starts a new history; a reader of the old file that
  // refreshes onto the new one sees history() change.
  fl::json_store reader = fl::json_store::open(file, fl::open_mode::read_only);
  fl::json_store re = fl::json_store::import("{}", file);
  re.sync();
  reader.refresh();
  EXPECT_EQ(reader.history(), re.history());
  EXPECT_NE(reader.history(), history);
  EXPECT_EQ(reader.sequence(), 0u);
}

TEST(JsonFeed, AStoreOfAnOlderFormatHasNoFeedUntilCompacted) {
  fl_test::temp_dir dir("fl_feed_");
  const std::filesystem::path file = dir / "doc";
  { fl::json_store::import(R"({"a":1})", file).sync(); }
  {
    // Marked as format 4 (the same layout but for the feed it then lacks).
    fl::mapped_space space(file, fl::mapped_space_options{.mode = fl::open_mode::read_write});
    namespace fj = fl::detail::json;
    space.get(space.root<fj::json_head>())->version = fj::tree_format_version;
    space.sync();
  }
  fl::json_store s = fl::json_store::open(file);
  EXPECT_EQ(s.history(), 0u);
  EXPECT_EQ(s.sequence(), 0u);
  try {
    (void)s.changes(0);
    ADD_FAILURE() << "a format 4 store has no feed";
  } catch (const fl::persist_error& e) {
    EXPECT_NE(std::string(e.what()).find("format (4) keeps no change feed"), std::string::npos)
        << e.what();
  }
  s.set("/a", "2");
  s.sync();  // format 4 edits record nothing
  s.compact();
  s.sync();
  EXPECT_NE(s.history(), 0u);
  EXPECT_EQ(s.sequence(), 0u);
  s.set("/a", "3");
  s.sync();
  EXPECT_EQ(str(s.changes(0).at(0).patch), R"([{"op":"replace","path":"/a","value":3}])");
  s.verify();
}

#ifdef FL_TEST_HAVE_NLOHMANN
TEST(JsonFeed, PatchesApplyWithAnotherImplementation) {
  using ojson = nlohmann::ordered_json;
  fl_test::temp_dir dir("fl_feed_");
  const std::string start = R"({"users":[{"id":1,"tags":["a"]}],"cfg":{"x":1,"y":[1,2]}})";
  fl::json_store s = fl::json_store::import(start, dir / "doc");
  s.sync();
  s.insert("/users/0", R"({"id":0})");
  s.set("/cfg/x", "\"one\"");
  s.sync();
  s.apply_patch(R"([{"op":"move","from":"/cfg/y","path":"/users/1/y"},{"op":"remove","path":"/users/0"}])");
  s.sync();
  s.merge_patch(R"({"cfg":{"x":null,"new":{"deep":[true]}},"top":1.5e3})");
  s.sync();
  ojson doc = ojson::parse(start);
  for (const fl::json_change& c : s.changes(0)) doc = doc.patch(ojson::parse(std::string_view(c.patch)));
  EXPECT_EQ(doc, ojson::parse(std::string_view(s.dump())));
}
#endif

}  // namespace
