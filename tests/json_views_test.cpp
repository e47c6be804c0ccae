// fl::json_store's stale-view check (FL_JSON_CHECK_VIEWS, on by default in
// Debug builds of fl::json; docs/json_store.md, "Views"): a json_value or an
// iterator taken before an edit that may move or free blocks, used after it,
// throws std::logic_error instead of reading old blocks. This program links
// the library built with the check on (tests/json_views_test.cmake) whatever
// the build type; the layout a build without it keeps is checked in
// json_store_test (JsonValueLayout).
#include <fl/json_store.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

static_assert(FL_JSON_CHECK_VIEWS, "json_views_test links fl::json built with the check on");

namespace {

class JsonViewsTest : public ::testing::Test {
 protected:
  fl_test::temp_dir dir_;
  std::filesystem::path file() const { return dir_ / "views.fljson"; }
  fl::json_store make() const {
    auto s = fl::json_store::import(R"({"n":1,"s":"text","a":[1,2,3],"o":{"k":"v"}})", file());
    s.sync();
    return s;
  }
};

// `read` on a view taken before `edit` throws the stale-view error.
void expect_stale(const std::function<void()>& read) {
  try {
    read();
    ADD_FAILURE() << "a stale view was read without an error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("stale view"), std::string::npos) << e.what();
  }
}

// Every read of a stale json_value throws, whatever it reads.
void expect_every_read_stale(const fl::json_value& root, const fl::json_value& n,
                             const fl::json_value& s, const fl::json_value& a) {
  expect_stale([&] { (void)n.as_int64(); });
  expect_stale([&] { (void)n.as_uint64(); });
  expect_stale([&] { (void)n.as_double(); });
  expect_stale([&] { (void)n.get<int>(); });
  expect_stale([&] { (void)(n == 1); });
  expect_stale([&] { (void)s.as_string_view(); });
  expect_stale([&] { (void)s.get<std::string>(); });
  expect_stale([&] { (void)a[0]; });
  expect_stale([&] { (void)root.find("n"); });
  expect_stale([&] { (void)root.at_pointer("/a/0"); });
  expect_stale([&] { (void)root.dump(); });
  expect_stale([&] { (void)root.dump(2); });
  expect_stale([&] {
    for (const fl::json_value e : a.elements()) (void)e;
  });
  expect_stale([&] {
    for (const auto& [k, v] : root.members()) (void)k;
  });
}

// Each edit that can move or free blocks makes every view taken before it
// stale, and views taken after it read the new document.
TEST_F(JsonViewsTest, EveryEditThatMayMoveBlocksMakesEarlierViewsStale) {
  const std::vector<std::pair<const char*, std::function<void(fl::json_store&)>>> edits = {
      {"set (copying the path)", [](fl::json_store& s) { s.set("/s", R"("other")"); }},
      {"set (in place)", [](fl::json_store& s) { s.set("/n", "2"); }},
      {"insert", [](fl::json_store& s) { s.insert("/a/0", "0"); }},
      {"erase", [](fl::json_store& s) { EXPECT_TRUE(s.erase("/o/k")); }},
      {"put", [](fl::json_store& s) { s.put("/x/y", 5, fl::json_store::parents::create); }},
      {"apply_patch",
       [](fl::json_store& s) { s.apply_patch(R"([{"op":"add","path":"/z","value":1}])"); }},
      {"merge_patch", [](fl::json_store& s) { s.merge_patch(R"({"o":null})"); }},
      {"compact", [](fl::json_store& s) { s.compact(); }},
  };
  for (const auto& [name, edit] : edits) {
    SCOPED_TRACE(name);
    std::filesystem::remove_all(file());
    std::filesystem::remove(file().string() + "-log");
    auto s = make();
    const fl::json_value root = s.root();
    const fl::json_value n = *s.find("/n"), str = *s.find("/s"), a = *s.find("/a");
    edit(s);
    expect_every_read_stale(root, n, str, a);
    // Taken again, views read the document as it is now.
    EXPECT_EQ(s.root().dump(), s.dump());
    EXPECT_EQ(s.find("/a")->size(), s.get<fl::json_value>("/a").size());
  }
}

// An iterator taken before an edit is stale too, even one that has read its
// element already (the element it holds is a view of the old blocks).
TEST_F(JsonViewsTest, IteratorsTakenBeforeAnEditAreStale) {
  auto s = make();
  const fl::json_value a = *s.find("/a");
  const auto elements = a.elements();
  auto it = elements.begin();
  EXPECT_EQ(it->as_int64(), 1);
  const auto members = s.root().members();
  auto m = members.begin();
  s.set("/a/1", "20");
  expect_stale([&] { (void)it->as_int64(); });
  expect_stale([&] { (void)*++it; });
  expect_stale([&] { (void)*m; });
  const fl::json_value fresh = *s.find("/a");
  EXPECT_EQ(fresh[1].as_int64(), 20);
}

// A reader's views go stale when refresh() moves it to a newer commit.
TEST_F(JsonViewsTest, RefreshMakesAReadersViewsStale) {
  auto w = make();
  auto r = fl::json_store::open(file(), fl::open_mode::read_only);
  const fl::json_value before = *r.find("/n");
  EXPECT_EQ(before.as_int64(), 1);
  w.set("/n", "2");
  w.sync();
  EXPECT_EQ(before.as_int64(), 1);  // the reader still sees its commit
  r.refresh();
  expect_stale([&] { (void)before.as_int64(); });
  EXPECT_EQ(r.find("/n")->as_int64(), 2);
}

// What changes nothing leaves views valid: reads, sync(), an erase that finds
// nothing, and an edit that throws (the document is as before).
TEST_F(JsonViewsTest, WhatChangesNothingKeepsViewsValid) {
  auto s = make();
  const fl::json_value a = *s.find("/a");
  const fl::json_value str = *s.find("/s");
  (void)s.dump();
  (void)s.find("/o/k");
  EXPECT_FALSE(s.erase("/nope"));
  EXPECT_THROW(s.set("/a/9", "1"), std::out_of_range);
  EXPECT_THROW(s.set("/n", "[1,"), fl::json_error);
  EXPECT_THROW(s.apply_patch(R"([{"op":"test","path":"/n","value":2}])"), std::invalid_argument);
  EXPECT_EQ(a[2].as_int64(), 3);
  s.set("/new", "1");
  s.sync();
  const fl::json_value after = *s.find("/a");
  s.sync();  // a commit moves no block a view of the current document reads
  EXPECT_EQ(after[0].as_int64(), 1);
  EXPECT_EQ(str.type(), fl::json_type::string);  // type() and size() read the view itself
}

// The message names the store's file and what to do.
TEST_F(JsonViewsTest, TheErrorNamesTheStoreAndTheFix) {
  auto s = make();
  const fl::json_value n = *s.find("/n");
  s.set("/n", "2");
  try {
    (void)n.as_int64();
    ADD_FAILURE() << "a stale view was read without an error";
  } catch (const std::logic_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("fl::json_value"), std::string::npos) << what;
    EXPECT_NE(what.find(file().string()), std::string::npos) << what;
    EXPECT_NE(what.find("read it again"), std::string::npos) << what;
  }
}

}  // namespace
