// fl::json_store in its file: RFC 6901 pointers, typed reads, edits (in
// place and by path copying), commits and reopening, stats, the member index
// of big objects, and damage detection (flipped bytes, truncated and foreign
// files). The parsers are tests/json_parse_test.cpp, the benchmark documents
// and the differential tests against nlohmann tests/json_documents_test.cpp.
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "json_test_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace {

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

std::string big_object(int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i)
    s += (i ? ",\"k" : "\"k") + std::to_string((i * 7919) % n) + "\":" + std::to_string(i);
  return s + "}";
}

class JsonStoreTest : public ::testing::Test {
 protected:
  fl_test::temp_dir dir_;
  std::filesystem::path file(const std::string& name = "doc.fljson") const { return dir_ / name; }
};

// stats() reports the space's figures: the file size file_bytes() gives, live
// bytes, and one more commit per sync().
TEST_F(JsonStoreTest, StatsFollowTheSpace) {
  auto s = fl::json_store::import(R"({"a":[1,2,3]})", file());
  s.sync();
  const fl::space_stats before = s.stats();
  EXPECT_EQ(before.file_bytes, s.file_bytes());
  EXPECT_GT(before.used_bytes, 0u);
  EXPECT_GE(before.generation, 1u);
  s.set("/b", R"("x")");
  s.sync();
  EXPECT_EQ(s.stats().generation, before.generation + 1);
}

TEST_F(JsonStoreTest, BigObjectsUseTheIndexAndKeepOrder) {
  for (int n : {15, 16, 17, 100, 1000}) {
    const std::string text = big_object(n);
    auto s = fl::json_store::import(text, file());
    EXPECT_EQ(str(s.dump()), text);
    for (int i = 0; i < n; ++i) {
      const auto v = s.find("/k" + std::to_string((i * 7919) % n));
      ASSERT_TRUE(v) << n << " " << i;
      EXPECT_EQ(v->as_int64(), i);
    }
    EXPECT_FALSE(s.find("/k" + std::to_string(n)));
    EXPECT_FALSE(s.find("/"));
  }
}

// ---- pointers and typed reads ---------------------------------------------------

TEST_F(JsonStoreTest, PointersFollowRfc6901) {
  // The example document of RFC 6901, section 5.
  const std::string text =
      R"({"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8})";
  auto s = fl::json_store::import(text, file());
  EXPECT_EQ(str(*s.at("")), str(s.dump()));
  const std::pair<const char*, const char*> found[] = {{"/foo", R"(["bar","baz"])"},
                                                       {"/foo/0", R"("bar")"},
                                                       {"/", "0"},
                                                       {"/a~1b", "1"},
                                                       {"/c%d", "2"},
                                                       {"/e^f", "3"},
                                                       {"/g|h", "4"},
                                                       {"/i\\j", "5"},
                                                       {"/k\"l", "6"},
                                                       {"/ ", "7"},
                                                       {"/m~0n", "8"}};
  for (const auto& [pointer, want] : found) EXPECT_EQ(str(*s.at(pointer)), want) << pointer;
  for (const char* pointer : {"/foo/2", "/foo/-", "/foo/01", "/foo/0/x", "/nope", "/m~0n/x"})
    EXPECT_FALSE(s.at(pointer)) << pointer;
  EXPECT_THROW((void)s.at("foo"), std::invalid_argument);
  EXPECT_THROW((void)s.at("/m~2n"), std::invalid_argument);
  EXPECT_THROW((void)s.at("/m~"), std::invalid_argument);
}

// A pointer's last token becomes the key of the member an edit adds, and a
// key is JSON text: one that is not UTF-8 is refused (std::invalid_argument)
// by every edit that adds a member, and the document stays as it was. They
// were taken, and dump() then wrote text no parser reads, and verify() took
// the commit's change record for damage. A lookup by such a pointer finds
// nothing (no key can hold it). A patch's paths are JSON strings, which
// the parser already holds to UTF-8 (lone surrogate escapes too).
TEST_F(JsonStoreTest, KeysAddedByAPointerMustBeUtf8) {
  auto s = fl::json_store::import(R"({"a":{"b":1},"l":[1]})", file());
  const std::string before = str(s.dump());
  const std::string bad[] = {"/k\xFF", "/a/k\xC0\x80", "/a/\xED\xA0\x80x", "/a/ok\xF4\x90\x80\x80"};
  for (const std::string& p : bad) {
    EXPECT_THROW(s.set(p, "1"), std::invalid_argument) << p;
    EXPECT_THROW(s.insert(p, "1"), std::invalid_argument) << p;
    EXPECT_THROW(s.put(p, 1), std::invalid_argument) << p;
    EXPECT_THROW(s.put(p + "/c", 1, fl::json_store::parents::create), std::invalid_argument) << p;
    EXPECT_THROW(s.move("/l", p), std::invalid_argument) << p;
    EXPECT_THROW(s.copy("/l", p), std::invalid_argument) << p;
    EXPECT_FALSE(s.find(p)) << p;
    EXPECT_EQ(str(s.dump()), before) << p;
  }
  s.set("/a/\xC3\xA9", "2");  // U+00E9: a key like any other
  EXPECT_EQ(str(s.find("/a")->dump()), "{\"b\":1,\"\xC3\xA9\":2}");
  s.sync();
  EXPECT_GT(fl::json_store::open(file(), fl::open_mode::read_only).verify(), 0u);
}

TEST_F(JsonStoreTest, TypedReadsWithoutCopying) {
  auto s = fl::json_store::import(
      R"({"i":-5,"u":18446744073709551615,"d":2.5,"t":true,"f":false,"n":null,"s":"h\u00e9","a":[1,"x",[]],"o":{"k":1},"big":1e999})",
      file());
  const fl::json_value r = s.root();
  EXPECT_EQ(r.type(), fl::json_type::object);
  EXPECT_EQ(r.size(), 10u);
  EXPECT_EQ(r.find("i")->as_int64(), -5);
  EXPECT_EQ(r.find("i")->as_double(), -5.0);
  EXPECT_THROW((void)r.find("i")->as_uint64(), std::invalid_argument);
  EXPECT_EQ(r.find("u")->as_uint64(), 18446744073709551615ull);
  EXPECT_THROW((void)r.find("u")->as_int64(), std::invalid_argument);
  EXPECT_EQ(r.find("d")->as_double(), 2.5);
  EXPECT_THROW((void)r.find("d")->as_int64(), std::invalid_argument);
  EXPECT_TRUE(r.find("t")->as_bool());
  EXPECT_FALSE(r.find("f")->as_bool());
  EXPECT_TRUE(r.find("n")->is_null());
  EXPECT_EQ(r.find("s")->as_string_view(), "h\xC3\xA9");
  EXPECT_THROW((void)r.find("s")->as_bool(), std::invalid_argument);
  EXPECT_EQ(r.find("big")->type(), fl::json_type::number);
  EXPECT_EQ(r.find("big")->as_double(), HUGE_VAL);
  const fl::json_value a = *r.find("a");
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].as_int64(), 1);
  EXPECT_EQ(a[1].as_string_view(), "x");
  EXPECT_EQ(a[2].type(), fl::json_type::array);
  EXPECT_THROW((void)a[3], std::out_of_range);
  std::string seen;
  for (fl::json_value e : a.elements()) seen += std::to_string(static_cast<int>(e.type()));
  EXPECT_EQ(seen, "234");
  std::string keys;
  for (fl::json_member m : r.members()) keys += std::string(m.key) + ",";
  EXPECT_EQ(keys, "i,u,d,t,f,n,s,a,o,big,");
  EXPECT_EQ(r.find("o")->at_pointer("/k")->as_int64(), 1);
  EXPECT_EQ(str(r.find("a")->dump()), R"([1,"x",[]])");
  EXPECT_EQ(r.find("t")->size(), 0u);
  EXPECT_FALSE(a.find("x"));
  for (fl::json_member m : a.members()) ADD_FAILURE() << "an array has no members: " << m.key;
}

// ---- edits and commits --------------------------------------------------------------

TEST_F(JsonStoreTest, SetAndEraseFollowThePointer) {
  auto s = fl::json_store::import(R"({"a":[1,2],"o":{"x":1}})", file());
  s.set("/a/0", R"("one")");
  s.set("/a/-", "3");
  s.set("/a/3", "[4]");           // index == size appends
  s.set("/o/y", "{\"z\":null}");  // new member at the end
  s.set("/o/x", "true");          // replaced in place
  s.set("/o/y/z", "\"\\u00e9\"");
  EXPECT_EQ(str(s.dump()), R"({"a":["one",2,3,[4]],"o":{"x":true,"y":{"z":"é"}}})");
  EXPECT_THROW(s.set("/a/9", "1"), std::out_of_range);
  EXPECT_THROW(s.set("/nope/x", "1"), std::out_of_range);
  EXPECT_THROW(s.set("/a/0/x", "1"), std::out_of_range);
  EXPECT_THROW(s.set("/a/0", "[1,"), fl::json_error);
  EXPECT_THROW(s.set("a", "1"), std::invalid_argument);
  EXPECT_EQ(str(s.dump()), R"({"a":["one",2,3,[4]],"o":{"x":true,"y":{"z":"é"}}})");
  EXPECT_TRUE(s.erase("/a/1"));
  EXPECT_TRUE(s.erase("/o/x"));
  EXPECT_FALSE(s.erase("/o/x"));
  EXPECT_FALSE(s.erase("/a/9"));
  EXPECT_FALSE(s.erase("/a/-"));
  EXPECT_FALSE(s.erase(""));
  EXPECT_EQ(str(s.dump()), R"({"a":["one",3,[4]],"o":{"y":{"z":"é"}}})");
  s.set("", "[true]");
  EXPECT_EQ(str(s.dump()), "[true]");
}

// A number, boolean or null replacing an entry is written over it: the store
// does not grow, and a commit of it logs the entry's page and the checksum
// table's page. Containers, strings and additions still copy their path.
TEST_F(JsonStoreTest, ScalarSetsAreWrittenInPlace) {
  std::string text = R"({"a":[1,"two",{"x":3}],"big":{)";
  for (int i = 0; i < 40; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  text += R"(},"s":"str"})";
  fl::json_store::import(text, file()).sync();
  // In-place sets carve nothing for their values; what they replace (a
  // string, an object) is retired and listed in one batch block by the
  // commit, and reused after it.
  auto blocks = [&] { return fl::mapped_space(file()).stats().live_blocks; };
  const std::uint64_t imported = blocks();
  {
    auto s = fl::json_store::open(file());
    s.set("/a/0", "-9223372036854775808");
    s.set("/a/1", "18446744073709551615");  // a string becomes a number
    s.set("/a/2", "null");                  // an object becomes null
    s.set("/big/k39", "2.5");               // in an indexed object
    s.set("/big/k0", "true");
    s.set("/s", "false");
    EXPECT_EQ(s.find("/big/k39")->as_double(), 2.5);
    EXPECT_EQ(s.find("/big/k38")->as_int64(), 38);
    s.sync();
  }
  // The batch listing "two", {"x":3} and "str", and the commit's change record.
  EXPECT_EQ(blocks(), imported + 2);
  fl::string dumped;
  {
    auto s = fl::json_store::open(file());
    EXPECT_EQ(str(*s.at("/a")), R"([-9223372036854775808,18446744073709551615,null])");
    s.set("/s", "\"a string again\"");  // copies the root
    s.set("/a/-", "7");                 // an append copies its path
    s.sync();
    dumped = s.dump();
  }
  // The batch and its three blocks were freed; each copying edit wrote its
  // new blocks (string + root, array + root) and retired the old ones it
  // replaced (the array, the committed root), listed in one new batch; the
  // first edit's root, which the second replaced before any commit named
  // it, was freed at once; and a second change record.
  EXPECT_EQ(blocks(), imported + 2 - 4 + 4 - 1 + 1 + 1);
  auto r = fl::json_store::open(file());
  EXPECT_EQ(r.dump(), dumped);
  EXPECT_EQ(r.find("/a/0")->as_int64(), INT64_MIN);
  EXPECT_EQ(str(*r.at("/a")), R"([-9223372036854775808,18446744073709551615,null,7])");
  EXPECT_EQ(r.find("/big/k0")->as_bool(), true);
  EXPECT_EQ(str(*r.at("/s")), R"("a string again")");
}

// A block an edit made and a later edit replaced before any commit named it
// is freed at once, and the next edit's copies take it back: a hundred
// rounds of edits on one path between two commits leave as many live blocks
// as one round, where each round's copies once stayed, retired, until two
// commits later.
TEST_F(JsonStoreTest, CopiesReplacedBeforeTheirCommitAreFreedAtOnce) {
  fl::json_store::import(R"({"s":"x","a":[1,2,3]})", file()).sync();
  auto blocks = [&] { return fl::mapped_space(file()).stats().live_blocks; };
  auto rounds_then_sync = [&](int rounds) {
    auto s = fl::json_store::open(file());
    for (int i = 0; i < rounds; ++i) {
      s.set("/s", "\"v" + std::to_string(i) + "\"");  // a string: copies the root
      s.set("/a/-", std::to_string(i));                 // copies the array and the root
      EXPECT_TRUE(s.erase("/a/3"));
    }
    s.sync();
    return s.dump();
  };
  rounds_then_sync(1);
  rounds_then_sync(1);  // from here each commit releases the batch of the one before
  const std::uint64_t b0 = blocks();
  rounds_then_sync(1);
  const std::uint64_t b1 = blocks();  // b1 - b0: the commit's change record, kept by the feed
  EXPECT_EQ(str(rounds_then_sync(100)), R"({"s":"v99","a":[1,2,3]})");
  const std::uint64_t b2 = blocks();
  EXPECT_EQ(b2 - b1, b1 - b0);
  EXPECT_EQ(str(rounds_then_sync(1)), R"({"s":"v0","a":[1,2,3]})");
  EXPECT_EQ(blocks() - b2, b1 - b0);
  EXPECT_NO_THROW(fl::json_store::open(file()).verify());
}

// Small values in a long array take 8 times their text in the store: the
// import outgrows its first estimate and keeps building in place.
TEST_F(JsonStoreTest, ImportGrowsPastItsFirstEstimate) {
  std::string text = "[";
  for (int i = 0; i < 200000; ++i) text += i ? ",7" : "7";
  text += "]";
  {
    auto s = fl::json_store::import(text, file());
    EXPECT_EQ(s.root().size(), 200000u);
    EXPECT_EQ(s.find("/199999")->as_int64(), 7);
    s.sync();
  }
  // Its pages went to the file directly (mapped_space::write_fresh): the
  // commit still covers every one with its checksum.
  fl::mapped_space(file()).verify();
  auto r = fl::json_store::open(file());
  EXPECT_EQ(str(r.dump()), text);
}

TEST_F(JsonStoreTest, SyncCommitsAndReopenRestoresTheLastCommit) {
  {
    auto s = fl::json_store::import(R"({"n":0,"list":[]})", file());
    EXPECT_FALSE(std::filesystem::exists(file()));  // built beside it until the first sync
    s.sync();
    EXPECT_TRUE(std::filesystem::exists(file()));
    EXPECT_FALSE(std::filesystem::exists(file().string() + ".tmp"));
    for (int i = 1; i <= 50; ++i) {
      s.set("/n", std::to_string(i));
      s.set("/list/-", std::to_string(i));
      if (i % 10 == 0) s.sync();
    }
    s.set("/n", "\"not synced\"");
  }
  fl::string before;
  {
    auto r = fl::json_store::open(file());
    EXPECT_EQ(r.find("/n")->as_int64(), 50);
    EXPECT_EQ(r.find("/list")->size(), 50u);
    r.set("/list/0", "{\"k\":[1,2,3]}");
    r.sync();
    before = r.dump();
    // One writer per file: uncommitted changes in this handle refuse a
    // second open (tests/json_store_lock_test.cpp has the rest).
    r.set("/n", "0");
    EXPECT_THROW((void)fl::json_store::open(file()), fl::persist_error);
  }
  auto r2 = fl::json_store::open(file());
  EXPECT_EQ(str(*r2.at("/list/0")), R"({"k":[1,2,3]})");
  EXPECT_EQ(r2.dump(), before);
}

TEST_F(JsonStoreTest, ImportKeepsAnExistingStoreUntilTheFirstSync) {
  fl::json_store::import("[1]", file()).sync();
  {
    auto b = fl::json_store::import("[2]", file());
    EXPECT_EQ(str(fl::json_store::open(file()).dump()), "[1]");
  }
  EXPECT_EQ(str(fl::json_store::open(file()).dump()), "[1]");
  EXPECT_FALSE(std::filesystem::exists(file().string() + ".tmp"));  // removed when b closed
  fl::json_store::import("[3]", file()).sync();
  EXPECT_EQ(str(fl::json_store::open(file()).dump()), "[3]");
}

// ---- damage -------------------------------------------------------------------------

TEST_F(JsonStoreTest, EveryFlippedDataByteIsDetected) {
  std::string text =
      R"({"name":"store","ids":[1,2,3,18446744073709551615],"pi":3.14159,"nested":{"a":[true,false,null]},"s":")";
  text += std::string(5000, 'x') + "\"}";
  {
    auto s = fl::json_store::import(text, file());
    s.sync();
    s.set("/nested/a/-", "\"edited\"");  // a second, small commit
    s.sync();
  }
  const std::string good = fl_test::read_whole_file(file());
  const std::string want = str(fl::json_store::open(file()).dump());
  // Past the allocator's end the file holds nothing (zeros the checksums
  // cover, read by no one): flips there are counted apart.
  const std::uint64_t top = fl::mapped_space(file()).stats().top;
  std::mt19937_64 rng(fl_test::test_seed());
  int flips = 0, detected = 0, unread = 0, past_top = 0;
  for (std::size_t off = 0; off < good.size(); off += (off < top ? 7 : 509)) {
    std::string bad = good;
    bad[off] = static_cast<char>(bad[off] ^ (1 << (rng() % 8)));
    fl_test::write_bytes(file(), bad);
    ++flips;
    try {
      auto s = fl::json_store::open(file());
      const std::string d = str(s.dump());
      // Never a wrong value and never an older commit: a flip the dump does
      // not meet lies in bytes the document does not use (the space's
      // uncarved end, blocks of earlier commits, alignment gaps).
      EXPECT_EQ(d, want) << "flip at " << off;
      ++(off < top ? unread : past_top);
    } catch (const fl::persist_error& e) {
      ++detected;
      EXPECT_EQ(e.path(), file());
    }
  }
  EXPECT_GT(detected, 0);
  std::printf(
      "damage: %d single-bit flips: %d raised persist_error, %d below the allocator's end and %d "
      "past it hit bytes the document does not use, 0 read a different value or an older "
      "commit\n",
      flips, detected, unread, past_top);
}

// An in-place set reads the entry it overwrites first: damage on the
// entry's page is raised, not covered by the commit's new page checksum.
TEST_F(JsonStoreTest, InPlaceSetOnADamagedPageThrows) {
  constexpr std::int64_t first = 1000000007;
  std::string text = "{\"a\":[";
  for (int i = 0; i < 2000; ++i) text += (i ? "," : "") + std::to_string(first + i);
  text += "]}";
  fl::json_store::import(text, file()).sync();
  std::string bytes = fl_test::read_whole_file(file());
  const std::int64_t target = first + 1500;
  const std::size_t at = bytes.find(std::string(reinterpret_cast<const char*>(&target), 8));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 16] = static_cast<char>(bytes[at + 16] ^ 1);  // element 1501's value
  fl_test::write_bytes(file(), bytes);
  auto s = fl::json_store::open(file());
  EXPECT_EQ(s.find("/a/3")->as_int64(), first + 3);  // another page reads fine
  EXPECT_THROW(s.set("/a/1500", "7"), fl::persist_error);
}

TEST_F(JsonStoreTest, TruncatedAndForeignFilesThrow) {
  std::string good, log, want;
  {
    // The file and log as a crash after a commit leaves them (a clean close
    // checkpoints and empties the log).
    auto s = fl::json_store::import(big_object(2000), file());
    s.sync();
    s.set("/k1", "\"edited\"");
    s.sync();
    good = fl_test::read_whole_file(file());
    log = fl_test::read_whole_file(file().string() + "-log");
    want = str(s.dump());
  }
  const std::size_t cuts[] = {
      0, 100, 4096, 8192, 12288, good.size() / 2, good.size() - 4096, good.size() - 1};
  // With the redo log of the last commit beside it, a truncated file either
  // throws or is completed from the log to exactly the committed document;
  // without the log it throws.
  for (const bool with_log : {true, false}) {
    for (std::size_t n : cuts) {
      fl_test::write_bytes(file(), good.substr(0, n));
      if (with_log)
        fl_test::write_bytes(file().string() + "-log", log);
      else
        std::filesystem::remove(file().string() + "-log");
      try {
        auto s = fl::json_store::open(file());
        EXPECT_TRUE(with_log) << n;
        EXPECT_EQ(str(s.dump()), want) << n;
      } catch (const fl::persist_error& e) { EXPECT_EQ(e.path(), file()); }
    }
  }
  fl_test::write_bytes(file(), std::string(20000, 'j'));
  EXPECT_THROW((void)fl::json_store::open(file()), fl::persist_error);
  EXPECT_THROW((void)fl::json_store::open(file("missing")), fl::persist_error);
}

// Without FL_JSON_CHECK_VIEWS (on by default; -DFL_JSON_CHECK_VIEWS=OFF) a
// view is its store, its value's reference and the data's end: 32 bytes,
// copied freely; the stale-view check adds the store's edition
// (tests/json_views_test.cpp runs with it on).
TEST(JsonValueLayout, TheStaleViewCheckCostsNoRoomWhenOff) {
  static_assert(std::is_trivially_copyable_v<fl::json_value>);
  EXPECT_EQ(sizeof(fl::json_value), FL_JSON_CHECK_VIEWS ? 40u : 32u);
}

}  // namespace
