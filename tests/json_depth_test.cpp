// A json_store document nests at most fl::detail::json::max_depth (1024)
// containers, as the parsers take and as every reader (dump, verify, a
// compaction) checks: a deeper document reads as damaged. Every edit that
// puts a value somewhere (set, insert, put, a patch's add and replace, move,
// copy) is refused with std::length_error when the value would nest past
// the limit where it goes, and changes nothing; a document at the limit
// edits like any other.
#include <fl/json_store.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

using fl::detail::json::max_depth;

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

// `h` arrays, one in the other: a value `h` containers high.
std::string arrays(std::size_t h) { return std::string(h, '[') + std::string(h, ']'); }

// `levels` objects {"d": ...} around `inner`.
std::string chain(std::size_t levels, const std::string& inner) {
  std::string s;
  for (std::size_t i = 0; i < levels; ++i) s += "{\"d\":";
  s += inner;
  s += std::string(levels, '}');
  return s;
}

// "/d" `n` times.
std::string ds(std::size_t n) {
  std::string p;
  for (std::size_t i = 0; i < n; ++i) p += "/d";
  return p;
}

// The document of every test: "a", a shallow value "s" and a tall one "m"
// at depth 1, and under "d" objects down to an empty one at depth `inner`
// (the pointer ds(inner)), whose members are at depth inner + 1.
constexpr std::size_t inner = 1000;
constexpr std::size_t room = max_depth - (inner + 1);  // the height a member there may have
const std::string doc = "{\"a\":1,\"s\":" + arrays(5) + ",\"m\":" + arrays(room + 1) +
                        ",\"d\":" + chain(inner - 1, "{}") + "}";

class JsonDepthTest : public ::testing::Test {
 protected:
  fl_test::temp_dir dir_;
  std::filesystem::path file() const { return dir_ / "deep.fljson"; }

  // `edit` throws std::length_error naming the limit, and the document is
  // as it was, in the handle and after a commit and a reopen.
  template <class Edit>
  void refused(fl::json_store& s, Edit edit) {
    const std::string before = str(s.dump());
    try {
      edit();
      ADD_FAILURE() << "an edit past the nesting limit was accepted";
    } catch (const std::length_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(max_depth)), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(str(s.dump()), before);
    s.sync();
    auto r = fl::json_store::open(file(), fl::open_mode::read_only);
    EXPECT_GT(r.verify(), 0u);
    EXPECT_EQ(str(r.dump()), before);
  }
};

// The value that fits exactly is taken, dumps and verifies; one level more
// is refused. Before the check, the second set was taken, and the store's
// own dump() and verify() then reported the document as damaged.
TEST_F(JsonDepthTest, SetPastTheLimitIsRefusedAndChangesNothing) {
  auto s = fl::json_store::import(doc, file());
  s.set(ds(inner) + "/x", arrays(room));
  s.sync();
  {
    auto r = fl::json_store::open(file(), fl::open_mode::read_only);
    EXPECT_GT(r.verify(), 0u);
    EXPECT_EQ(str(r.find(ds(inner) + "/x")->dump()), arrays(room));
  }
  refused(s, [&] { s.set(ds(inner) + "/y", arrays(room + 1)); });
  refused(s, [&] { s.set(ds(inner) + "/x", "[" + arrays(room) + "]"); });
  EXPECT_FALSE(s.find(ds(inner) + "/y"));
  // A scalar goes anywhere a container may.
  s.set(ds(inner) + "/x/0", "\"deep\"");
  EXPECT_EQ(str(s.find(ds(inner) + "/x/0")->dump()), "\"deep\"");
}

TEST_F(JsonDepthTest, InsertAndPutAreBoundAlike) {
  auto s = fl::json_store::import(doc, file());
  s.set(ds(inner) + "/list", "[]");
  refused(s, [&] { s.insert(ds(inner) + "/list/0", arrays(room)); });
  s.insert(ds(inner) + "/list/0", arrays(room - 1));
  // put() makes the missing parents first, then the value: refused at the
  // first container past the limit, and the parents it made go again.
  refused(s, [&] {
    s.put(ds(inner) + std::string("/p") + ds(room), fl::json_text::object({}),
          fl::json_store::parents::create);
  });
  EXPECT_FALSE(s.find(ds(inner) + "/p"));
}

TEST_F(JsonDepthTest, APatchThatWouldNestTooDeepIsRolledBack) {
  auto s = fl::json_store::import(doc, file());
  const std::string deep = ds(inner);
  refused(s, [&] {
    s.apply_patch(R"([{"op":"replace","path":"/a","value":2},{"op":"add","path":")" + deep +
                  R"(/y","value":)" + arrays(room + 1) + "}]");
  });
  refused(s, [&] {
    s.apply_patch(R"([{"op":"remove","path":"/s"},{"op":"move","from":"/m","path":")" + deep +
                  R"(/m"}])");
  });
  EXPECT_EQ(str(s.find("/a")->dump()), "1");
  EXPECT_TRUE(s.find("/s"));
  EXPECT_TRUE(s.find("/m"));
}

// A move takes its value along as it is; one to a deeper place than it
// comes from is checked as a set there is.
TEST_F(JsonDepthTest, MovesAndCopiesDeeperAreBoundToo) {
  auto s = fl::json_store::import(doc, file());
  refused(s, [&] { s.move("/m", ds(inner) + "/m"); });
  refused(s, [&] { s.copy("/m", ds(inner) + "/m"); });
  EXPECT_TRUE(s.find("/m"));
  s.move("/s", ds(inner) + "/s");
  EXPECT_EQ(str(s.find(ds(inner) + "/s")->dump()), arrays(5));
  s.copy(ds(inner) + "/s", ds(inner - 1) + "/s");
  s.move(ds(inner) + "/s", "/s");  // back up: no walk needed, and none refused
  EXPECT_EQ(str(s.find("/s")->dump()), arrays(5));
  s.move("/m", "/m2");  // as deep as it was
  EXPECT_EQ(str(s.find("/m2")->dump()), arrays(room + 1));
  s.sync();
  EXPECT_GT(fl::json_store::open(file(), fl::open_mode::read_only).verify(), 0u);
}

// A document of max_depth containers with a string in the innermost (all
// the parsers take it) is replaced whole, and its innermost values edited:
// the walk that retires a replaced value's blocks counted the string as a
// level, and took the replacement of such a document for damage.
TEST_F(JsonDepthTest, ADocumentAtTheLimitIsReplacedAndEdited) {
  const std::string text = std::string(max_depth, '[') + "\"x\"" + std::string(max_depth, ']');
  auto s = fl::json_store::import(text, file());
  std::string last;
  for (std::size_t i = 0; i < max_depth; ++i) last += "/0";
  s.set(last, "\"y\"");
  EXPECT_EQ(str(s.find(last)->dump()), "\"y\"");
  s.sync();
  s.set("", "1");
  EXPECT_EQ(str(s.dump()), "1");
  s.sync();
  EXPECT_GT(fl::json_store::open(file(), fl::open_mode::read_only).verify(), 0u);
}

}  // namespace
