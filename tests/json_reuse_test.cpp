// fl::json_store space reuse and compact(): edits free what they replace
// (the space stays bounded by the live data), compact() shrinks the file
// and is committed only by the next sync(), and a crafted document (a
// container that contains itself, a value reachable twice) cannot make a
// read or an edit loop or blow up: it raises persist_error and the store is
// unchanged.
#include <fl/detail/json_format.hpp>
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace {

namespace fj = fl::detail::json;

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

struct JsonReuseTest : ::testing::Test {
  fl_test::temp_dir dir;
  std::filesystem::path file() const { return dir.path() / "store.fl"; }
};

TEST_F(JsonReuseTest, EditsReuseWhatTheyReplace) {
  auto s = fl::json_store::import(R"({"a":"first string value","b":[1,2,3]})", file());
  s.sync();
  // A ring of four change records: the records that fall out of it are
  // reused like the values (the default keeps up to 256 KiB of them).
  s.keep_changes(4);
  for (int i = 0; i < 2000; ++i) {
    s.set("/a", "\"string value number " + std::to_string(i) + "\"");
    s.set("/b/-", std::to_string(i));
    s.erase("/b/0");
    s.sync();
  }
  EXPECT_EQ(str(*s.at("/b")), "[1997,1998,1999]");
  // Without reuse 2,000 rounds of three path copies would take hundreds of
  // KiB; the space ends up holding a few blocks of each size.
  const std::uint64_t bytes = s.file_bytes();
  s.sync();
  { const fl::json_store closing = std::move(s); }
  fl::mapped_space space(file());
  EXPECT_LT(space.stats().top, 40'000u);
  EXPECT_LE(bytes, 128u * 1024);
  space.verify();
}

TEST_F(JsonReuseTest, CompactIsCommittedByTheNextSync) {
  std::string big = "[";
  for (int i = 0; i < 5000; ++i) big += (i ? ",\"" : "\"") + std::string(40, 'x') + "\"";
  big += "]";
  auto s = fl::json_store::import(R"({"big":)" + big + R"(,"keep":{"k":"v"}})", file());
  s.sync();
  s.set("/big", "[]");
  s.sync();
  const std::uint64_t before = s.file_bytes();
  s.compact();
  EXPECT_EQ(str(s.dump()), R"({"big":[],"keep":{"k":"v"}})");
  // Not committed yet: the store on disk is the old one.
  EXPECT_EQ(std::filesystem::file_size(file()), before);
  s.set("/keep/k", "\"w\"");
  s.sync();
  EXPECT_LT(std::filesystem::file_size(file()), before / 2);
  { const fl::json_store closing = std::move(s); }
  auto r = fl::json_store::open(file());
  EXPECT_EQ(str(r.dump()), R"({"big":[],"keep":{"k":"w"}})");
  EXPECT_FALSE(std::filesystem::exists(file().string() + ".compact"));
}

// A compaction writes the new store as an import does, streaming its
// blocks to the file every 4 MiB and sorting a big object's keys in runs
// beside it: a store of several chunks (an array of strings, an object of
// 200,000 members with keys in no order, nested records), edited first,
// compacts to the same document, verifies, reopens the same, and leaves no
// temporary file.
TEST_F(JsonReuseTest, ACompactionOfManyChunksGivesTheSameDocument) {
  std::string text = "{\"strings\":[";
  for (int i = 0; i < 60000; ++i)
    text += (i ? ",\"" : "\"") + std::string(40 + i % 50, static_cast<char>('a' + i % 26)) + "\"";
  text += "],\"members\":{";
  for (int i = 0; i < 200000; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(i * 7919 % 200003) + "\":" + std::to_string(i);
  text += "},\"records\":[";
  for (int i = 0; i < 20000; ++i)
    text += (i ? ",{" : "{") + std::string("\"id\":") + std::to_string(i) +
            ",\"tags\":[1,2,3],\"name\":\"r" + std::to_string(i) + "\"}";
  text += "]}";
  auto s = fl::json_store::import(text, file());
  s.sync();
  s.set("/members/k7919", "\"changed\"");
  s.erase("/strings/0");
  s.set("/records/5/name", "null");
  s.sync();
  const std::string want = str(s.dump());
  s.compact();
  EXPECT_EQ(str(s.dump()), want);
  s.sync();
  EXPECT_GT(s.verify(), 0u);
  EXPECT_EQ(s.get<std::string>("/members/k7919"), "changed");
  EXPECT_EQ(s.get<std::int64_t>("/members/k15838"), 2);
  { const fl::json_store closing = std::move(s); }
  auto r = fl::json_store::open(file());
  EXPECT_EQ(str(r.dump()), want);
  for (const auto& f : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(f.path().filename().string().find(".compact"), std::string::npos) << f.path();
}

TEST_F(JsonReuseTest, CompactWithoutSyncIsDiscarded) {
  {
    auto s = fl::json_store::import(R"({"a":[1,2,3],"s":"text"})", file());
    s.sync();
    s.set("/s", "\"changed\"");
    s.compact();
  }
  EXPECT_FALSE(std::filesystem::exists(file().string() + ".compact"));
  EXPECT_EQ(str(fl::json_store::open(file()).dump()), R"({"a":[1,2,3],"s":"text"})");
}

// Rewrites, through the space (so that every checksum matches), element 1
// of the array at /a: the crafted file is consistent below the checksums.
void craft_element(const std::filesystem::path& file, const fj::json_ref& (*make)(std::uint64_t)) {
  fl::mapped_space space(file);
  const auto head = space.root<fj::json_head>();
  const fj::json_ref root = space.get(head)->root;
  fj::json_member m;
  std::memcpy(&m, space.get(fl::fptr<char>(root.x)), sizeof m);  // member 0: "a"
  const std::uint64_t arr = m.value.x;
  const fj::json_ref r = make(arr);
  std::memcpy(space.get(fl::fptr<char>(arr + sizeof(fj::json_ref))), &r, sizeof r);
  space.sync();
}

fj::json_ref crafted;
const fj::json_ref& self_ref(std::uint64_t arr) {
  crafted = {static_cast<std::uint8_t>(fj::kind::array), {}, 2, arr};
  return crafted;
}

TEST_F(JsonReuseTest, ACycleRaisesDamageAndChangesNothing) {
  fl::json_store::import(R"({"a":["x",2],"b":"keep"})", file()).sync();
  craft_element(file(), self_ref);
  auto s = fl::json_store::open(file());
  EXPECT_THROW((void)s.dump(), fl::persist_error);
  EXPECT_EQ(str(*s.at("/a/1/1/1/0")), R"("x")");  // a lookup takes one step per token
  EXPECT_THROW(s.erase("/a"), fl::persist_error);
  EXPECT_THROW(s.set("/a", "1"), fl::persist_error);
  EXPECT_THROW(s.set("", "1"), fl::persist_error);
  EXPECT_THROW(s.compact(), fl::persist_error);
  EXPECT_EQ(str(*s.at("/b")), R"("keep")");
  EXPECT_EQ(str(*s.at("/a/0")), R"("x")");
  s.set("/b", "\"edited\"");  // edits elsewhere still work
  s.sync();
  { const fl::json_store closing = std::move(s); }
  EXPECT_EQ(str(*fl::json_store::open(file()).at("/b")), R"("edited")");
}

fj::json_ref shared;
const fj::json_ref& same_as_first(std::uint64_t arr) {
  // Element 1 becomes the string element 0 refers to.
  (void)arr;
  return shared;
}

TEST_F(JsonReuseTest, AValueReachableTwiceIsFreedOnce) {
  fl::json_store::import(R"({"a":["a shared string of some length",2],"b":1})", file()).sync();
  {
    fl::mapped_space space(file());
    const fj::json_ref root = space.get(space.root<fj::json_head>())->root;
    fj::json_member m;
    std::memcpy(&m, space.get(fl::fptr<char>(root.x)), sizeof m);
    std::memcpy(&shared, space.get(fl::fptr<char>(m.value.x)), sizeof shared);
  }
  craft_element(file(), same_as_first);
  {
    auto s = fl::json_store::open(file());
    EXPECT_EQ(str(*s.at("/a")),
              R"(["a shared string of some length","a shared string of some length"])");
    EXPECT_TRUE(s.erase("/a"));
    s.sync();
    for (int i = 0; i < 20; ++i) {
      s.set("/c" + std::to_string(i), "\"a new string of about the same size\"");
      s.sync();
    }
  }
  fl::mapped_space space(file());
  space.verify();  // freed once: every free list and count adds up
}

}  // namespace
