// json_patch_test: RFC 6902 (every example of its appendix A) and RFC 7396
// (every example of its appendix A) on fl::json_store, all-or-nothing patches
// (document and file unchanged after a failure), and random patches against
// nlohmann::ordered_json's patch().
#include <fl/json_store.hpp>

#include "json_test_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#ifdef FL_TEST_HAVE_NLOHMANN
#include <stdexcept>
// nlohmann's patch() asserts (in builds with assertions) on an "add" below a
// scalar, a patch RFC 6902 rejects; its assertions are off here, so it does
// in every build what it does in release builds (skips the operation), and
// the rounds where it accepts what the store refuses are counted below.
#define JSON_ASSERT(x) static_cast<void>(sizeof(x))
#include <nlohmann/json.hpp>
#endif

namespace {

using fl_test::temp_dir;

struct rfc6902_case {
  const char* doc;
  const char* patch;
  const char* result;  // nullptr: the patch fails
};

// RFC 6902 appendix A.1 to A.16 (A.10's "ignored" member and A.14's
// escaping included), results in the member order the RFC shows.
const rfc6902_case rfc6902[] = {
    {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
     R"({"foo":"bar","baz":"qux"})"},
    {R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
     R"({"foo":["bar","qux","baz"]})"},
    {R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
    {R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])",
     R"({"foo":["bar","baz"]})"},
    {R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])",
     R"({"baz":"boo","foo":"bar"})"},
    {R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
     R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
     R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
    {R"({"foo":["all","grass","cows","eat"]})",
     R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
     R"({"foo":["all","cows","eat","grass"]})"},
    {R"({"baz":"qux","foo":["a",2,"c"]})",
     R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
     R"({"baz":"qux","foo":["a",2,"c"]})"},
    {R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])", nullptr},
    {R"({"foo":"bar"})", R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
     R"({"foo":"bar","child":{"grandchild":{}}})"},
    {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
     R"({"foo":"bar","baz":"qux"})"},
    {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])", nullptr},
    // A.13: an operation with "op" twice is not a valid patch (read as its
    // last "op", it would remove /baz).
    {R"({"baz":"qux","foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","op":"remove"}])",
     nullptr},
    {R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})"},
    {R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])", nullptr},
    {R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
     R"({"foo":["bar",["abc","def"]]})"},
};

TEST(JsonPatch, Rfc6902AppendixA) {
  temp_dir d;
  int n = 0;
  for (const rfc6902_case& c : rfc6902) {
    auto s = fl::json_store::import(c.doc, d.path() / ("a" + std::to_string(n++)));
    if (c.result) {
      s.apply_patch(c.patch);
      EXPECT_EQ(std::string_view(s.dump()), c.result) << c.patch;
    } else {
      EXPECT_ANY_THROW(s.apply_patch(c.patch)) << c.patch;
      EXPECT_EQ(std::string_view(s.dump()), c.doc) << c.patch;
    }
  }
  EXPECT_EQ(n, 16);  // A.1 to A.16
}

TEST(JsonPatch, EachOperationsErrors) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"a":{"b":[1,2]},"c":3})", d.path() / "s");
  const std::string before(std::string_view(s.dump()));
  const char* failing[] = {
      R"([{"op":"remove","path":"/x"}])",
      R"([{"op":"replace","path":"/a/b/2","value":0}])",
      R"([{"op":"add","path":"/a/b/3","value":0}])",
      R"([{"op":"add","path":"/a/b/01","value":0}])",
      R"([{"op":"move","from":"/a","path":"/a/b/0"}])",
      R"([{"op":"copy","from":"/nope","path":"/z"}])",
      R"([{"op":"test","path":"/c","value":4}])",
      R"([{"op":"frob","path":"/c"}])",
      R"([{"path":"/c"}])",
      R"([{"op":"add","path":"/c/x","value":1}])",
      R"([{"op":"remove","path":""}])",
      R"([{"op":"add","path":"c","value":1}])",
      R"({"op":"add"})",
      R"([{"op":"add","path":"/c","value":tru}])",
  };
  for (const char* p : failing) {
    EXPECT_ANY_THROW(s.apply_patch(p)) << p;
    EXPECT_EQ(std::string_view(s.dump()), before) << p;
  }
  s.apply_patch(
      R"([{"op":"test","path":"/c","value":3.0},{"op":"move","from":"/c","path":"/c"},)"
      R"({"op":"copy","from":"/a/b","path":"/a/b/-"},{"op":"add","path":"","value":[1]}])");
  EXPECT_EQ(std::string_view(s.dump()), "[1]");
}

// Each refusal names its operation and why, with the exception users catch:
// a remove or a move's "from" finds its value in one lookup, and says why
// there is none only when there is none.
TEST(JsonPatch, ARefusalNamesItsOperationAndItsReason) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"a":{"b":[1,2]},"c":3})", d.path() / "s");
  const std::string before(std::string_view(s.dump()));
  const auto refused = [&](const char* patch) -> std::string {
    try {
      s.apply_patch(patch);
    } catch (const std::out_of_range& e) {
      EXPECT_EQ(std::string_view(s.dump()), before) << patch;
      return e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << patch << ": not out_of_range: " << e.what();
      return {};
    }
    ADD_FAILURE() << patch << ": accepted";
    return {};
  };
  const std::string at = "fl::json_store::apply_patch: operation ";
  EXPECT_EQ(refused(R"([{"op":"remove","path":"/x"}])"), at + "0: no value at \"/x\"");
  EXPECT_EQ(refused(R"([{"op":"remove","path":"/a/b/2"}])"), at + "0: no value at \"/a/b/2\"");
  EXPECT_EQ(refused(R"([{"op":"test","path":"/c","value":3},{"op":"remove","path":"/q/x"}])"),
            at + "1: no value at \"/q\"");
  EXPECT_EQ(refused(R"([{"op":"remove","path":"/c/x"}])"),
            at + "0: the parent \"/c\" is number, not an object or array");
  EXPECT_EQ(refused(R"([{"op":"move","from":"/q/x","path":"/y"}])"),
            at + "0: no value at \"/q/x\" (from)");
  EXPECT_EQ(refused(R"([{"op":"move","from":"/c/x","path":"/y"}])"),
            at + "0: no value at \"/c/x\" (from)");
  EXPECT_EQ(refused(R"([{"op":"move","from":"/a/b/1","path":"/q/y"}])"),
            at + "0: no value at \"/q\"");
  EXPECT_EQ(refused(R"([{"op":"add","path":"/c/x","value":1}])"),
            at + "0: the parent \"/c\" is number, not an object or array");
  EXPECT_EQ(refused(R"([{"op":"replace","path":"/a/x","value":1}])"),
            at + "0: no value at \"/a/x\"");
}

// The pointer `p` as a JSON string, for a patch's text.
std::string json_string(std::string_view p) {
  std::string s = "\"";
  for (const char c : p) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s + '"';
}

// move() and copy() are their patch operations as calls: on the same
// document, the same result, the same refusal (the same exception, the
// document unchanged), and the same change-feed record, whatever the
// pointers hold (escapes, quotes, array indexes, "-", the whole document).
TEST(JsonPatch, MoveAndCopyAreTheirPatchOperationsAsCalls) {
  temp_dir d;
  const char* doc =
      R"({"a":{"b":[1,2,{"x":true}],"q\"k":"v","s/t":{"u~v":[0]}},"c":3,"e":[],"n":null})";
  const char* pairs[][2] = {
      {"/a/b", "/c"},
      {"/a/b/0", "/a/b/2"},
      {"/a/b/2", "/e/-"},
      {"/a/b/1", "/e/0"},
      {"/c", "/c"},
      {"/a/q\"k", "/n"},
      {"/a/s~1t/u~0v", "/z"},
      {"/a", ""},
      {"", "/n"},
      {"/a/b/0", "/a/b/3"},
      {"/a/b/-", "/z"},
      {"/nope", "/z"},
      {"/a", "/a/b/0"},
      {"/a/b", "/a/b/x"},
      {"/c", "/q/r"},
      {"/c", "/c/x"},
      {"/a/b/0", "/a/b/01"},
      {"/a/s~1t", "/a/s~1t/w"},
  };
  int n = 0;
  for (const auto& [from, to] : pairs) {
    for (const char* op : {"move", "copy"}) {
      const std::string what = std::string(op) + " " + from + " -> " + to;
      std::string name = std::to_string(n++);
      auto by_patch = fl::json_store::import(doc, d.path() / name);
      name += 'c';
      auto by_call = fl::json_store::import(doc, d.path() / name);
      by_call.sync();
      by_patch.sync();
      const std::string patch = std::string(R"([{"op":")") + op + R"(","from":)" +
                                json_string(from) + R"(,"path":)" + json_string(to) + "}]";
      // The exception's kind, or "" when the edit was made.
      const auto outcome = [](auto&& edit) -> std::string {
        try {
          edit();
        } catch (const std::out_of_range&) {
          return "out_of_range";
        } catch (const std::invalid_argument&) {
          return "invalid_argument";
        } catch (const std::exception& e) { return e.what(); }
        return "";
      };
      const std::string got = outcome([&] {
        if (std::string_view(op) == "move")
          by_call.move(from, to);
        else
          by_call.copy(from, to);
      });
      EXPECT_EQ(got, outcome([&] { by_patch.apply_patch(patch); })) << what;
      EXPECT_EQ(std::string_view(by_call.dump()), std::string_view(by_patch.dump())) << what;
      if (!got.empty()) { EXPECT_EQ(std::string_view(by_call.dump()), doc) << what; }
      by_call.sync();
      by_patch.sync();
      const auto call_feed = by_call.changes(0), patch_feed = by_patch.changes(0);
      ASSERT_EQ(call_feed.size(), patch_feed.size()) << what;
      for (std::size_t i = 0; i < call_feed.size(); ++i)
        EXPECT_EQ(std::string_view(call_feed[i].patch), std::string_view(patch_feed[i].patch))
            << what;
      by_call.verify();
    }
  }
}

// A refused move() or copy() says which call and why, with the exception
// users catch; a store opened read-only refuses both by name.
TEST(JsonPatch, MoveAndCopyNameThemselvesWhenRefused) {
  temp_dir d;
  const auto p = d.path() / "s";
  auto s = fl::json_store::import(R"({"a":{"b":[1,2]},"c":3})", p);
  s.sync();
  const auto message = [](auto&& edit) -> std::string {
    try {
      edit();
    } catch (const std::exception& e) { return e.what(); }
    return "accepted";
  };
  EXPECT_EQ(message([&] { s.move("/x", "/y"); }),
            "fl::json_store::move: no value at \"/x\" (from)");
  EXPECT_EQ(message([&] { s.copy("/x", "/y"); }),
            "fl::json_store::copy: no value at \"/x\" (from)");
  EXPECT_EQ(message([&] { s.move("/a/b/1", "/q/y"); }), "fl::json_store::move: no value at \"/q\"");
  EXPECT_EQ(message([&] { s.move("/a", "/a/b/0"); }),
            "fl::json_store::move: \"/a\" cannot move into its own child \"/a/b/0\"");
  EXPECT_EQ(message([&] { s.copy("/c", "/a/b/5"); }),
            "fl::json_store::copy: array index \"5\" is not in [0, 2]");
  EXPECT_EQ(std::string_view(s.dump()), R"({"a":{"b":[1,2]},"c":3})");
  s.move("/c", "/a/b/0");
  s.copy("/a/b", "/d");
  EXPECT_EQ(std::string_view(s.dump()), R"({"a":{"b":[3,1,2]},"d":[3,1,2]})");
  s.sync();
  auto r = fl::json_store::open(p, fl::open_mode::read_only);
  EXPECT_THROW(r.move("/d", "/e"), fl::persist_error);
  EXPECT_NE(
      message([&] { r.copy("/d", "/e"); }).find("json_store::copy: the store is opened read-only"),
      std::string::npos);
  EXPECT_EQ(std::string_view(r.dump()), R"({"a":{"b":[3,1,2]},"d":[3,1,2]})");
}

// RFC 6902 4.6: objects are equal when they hold the same keys with equal
// values, in any order; a repeated key counts once, by its last value (as
// find() reads it), in the document and in the patch alike. The members
// are matched by hash: a test of an object of 20,000 members took 0.76 s
// (each key compared with every one before it), 100,000 members 38 s.
TEST(JsonPatch, ATestOfAnObjectMatchesEachKeyOnceByItsLastValue) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"o":{"a":1,"b":2,"a":3}})", d.path() / "t");
  const auto test = [&](const std::string& value) {
    try {
      s.apply_patch(R"([{"op":"test","path":"/o","value":)" + value + "}]");
      return true;
    } catch (const std::invalid_argument&) {
      return false;
    }
  };
  EXPECT_TRUE(test(R"({"b":2,"a":3})"));
  EXPECT_TRUE(test(R"({"a":1,"a":3,"b":2})"));
  EXPECT_FALSE(test(R"({"a":1,"b":2})"));
  EXPECT_FALSE(test(R"({"a":3,"b":2,"c":1})"));
  EXPECT_FALSE(test(R"({"a":3})"));

  std::string big = "{";
  for (int i = 0; i < 20'000; ++i)
    big += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  big += "}";
  s.set("/big", big);
  EXPECT_NO_THROW(s.apply_patch(R"([{"op":"test","path":"/big","value":)" + big + "}]"));
  std::string other = big;
  other.replace(other.rfind(":19999}"), 7, ":0}");
  EXPECT_THROW(s.apply_patch(R"([{"op":"test","path":"/big","value":)" + other + "}]"),
               std::invalid_argument);
}

TEST(JsonPatch, AFailedPatchLeavesTheDocumentAndTheFileAsTheyWere) {
  temp_dir d;
  const auto p = d.path() / "s";
  auto s = fl::json_store::import(R"({"list":[1,2,3],"o":{"k":"v"},"n":1})", p);
  s.sync();
  const std::string file_before = fl_test::read_whole_file(p);
  try {
    s.apply_patch(
        R"([{"op":"remove","path":"/list/0"},{"op":"add","path":"/o/k2","value":2},)"
        R"({"op":"replace","path":"/n","value":{"deep":[1]}},{"op":"move","from":"/o","path":"/m"},)"
        R"({"op":"test","path":"/list/0","value":99}])");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("operation 4: test failed"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(std::string_view(s.dump()), R"({"list":[1,2,3],"o":{"k":"v"},"n":1})");
  EXPECT_EQ(fl_test::read_whole_file(p), file_before);
  s.apply_patch(R"([{"op":"remove","path":"/list/0"},{"op":"add","path":"/o/k2","value":2}])");
  s.sync();
  EXPECT_EQ(std::string_view(fl::json_store::open(p).dump()),
            R"({"list":[2,3],"o":{"k":"v","k2":2},"n":1})");
}

// The elements of an array of 200,000 numbers and the members of an object
// of 100,000 ("k<i>": i), as text without their brackets.
std::pair<std::string, std::string> big_values() {
  std::string numbers, members;
  for (int i = 0; i < 200'000; ++i) numbers.append(i ? "," : "").append(std::to_string(i));
  for (int i = 0; i < 100'000; ++i) {
    const std::string n = std::to_string(i);
    members.append(i ? ",\"k" : "\"k").append(n).append("\":").append(n);
  }
  return {numbers, members};
}

// A move takes its value along as it is: the commit writes the two paths'
// pages, not the value (a 200,000-element array, a 100,000-member object),
// whose blocks stay where they are.
TEST(JsonPatch, AMoveCarriesItsValueWithoutCopyingIt) {
  temp_dir d;
  const auto p = d.path() / "s";
  const auto [numbers, members] = big_values();
  auto s = fl::json_store::import(
      R"({"a":{"big":[)" + numbers + R"(],"obj":{)" + members + R"(}},"b":[true],"c":{"n":null}})",
      p);
  s.sync();
  s.set("/warm", R"("up the free lists")");
  s.sync();
  const fl_test::commit_cost into_array = fl_test::cost_of_commit(s, [](fl::json_store& x) {
    x.apply_patch(R"([{"op":"move","from":"/a/big","path":"/b/0"}])");
  });
  EXPECT_LE(into_array.grown_bytes, 16u * 1024);
  EXPECT_LE(into_array.pages, 16u);
  const fl_test::commit_cost into_object = fl_test::cost_of_commit(s, [](fl::json_store& x) {
    x.apply_patch(R"([{"op":"move","from":"/a/obj","path":"/c/n"}])");
  });
  EXPECT_LE(into_object.grown_bytes, 16u * 1024);
  EXPECT_LE(into_object.pages, 16u);
  // move() as a call: the same, and back again.
  const fl_test::commit_cost by_call = fl_test::cost_of_commit(s, [](fl::json_store& x) {
    x.move("/c/n", "/c/m");
    x.move("/c/m", "/c/n");
  });
  EXPECT_LE(by_call.grown_bytes, 16u * 1024);
  EXPECT_LE(by_call.pages, 16u);
  const std::string want = R"({"a":{},"b":[[)" + numbers + R"(],true],"c":{"n":{)" + members +
                           R"(}},"warm":"up the free lists"})";
  EXPECT_EQ(std::string_view(s.dump()), want);
  s.verify();
  s = fl::json_store::open(p);
  EXPECT_EQ(std::string_view(s.dump()), want);
  EXPECT_EQ(s.find("/b/0/199999")->as_int64(), 199'999);
  EXPECT_EQ(s.find("/c/n/k77777")->as_int64(), 77'777);
  s.verify();
}

// A patch takes the values it removes or replaces out of the document as
// they are: a refused patch puts them back without rebuilding them (its
// commit writes a few pages, not the values), and one that succeeds retires
// their blocks, which later commits reuse.
TEST(JsonPatch, RemovedAndReplacedValuesAreTakenOutNotCopied) {
  temp_dir d;
  const auto p = d.path() / "s";
  const auto [numbers, members] = big_values();
  const std::string doc =
      R"({"a":{"big":[)" + numbers + R"(]},"c":{"n":{)" + members + R"(}},"d":1})";
  auto s = fl::json_store::import(doc, p);
  s.sync();
  s.set("/warm", "1");
  s.erase("/warm");
  s.sync();
  const fl_test::commit_cost refused = fl_test::cost_of_commit(s, [](fl::json_store& x) {
    EXPECT_THROW(x.apply_patch(R"([{"op":"remove","path":"/a/big"},)"
                               R"({"op":"replace","path":"/c/n","value":[1]},)"
                               R"({"op":"add","path":"/d/x","value":2}])"),
                 std::out_of_range);
  });
  EXPECT_LE(refused.grown_bytes, 16u * 1024);
  EXPECT_LE(refused.pages, 16u);
  EXPECT_EQ(std::string_view(s.dump()), doc);
  s.verify();

  const std::uint64_t before = s.stats().used_bytes;
  s.apply_patch(R"([{"op":"remove","path":"/a/big"},{"op":"replace","path":"/c/n","value":[1]}])");
  s.sync();
  s.set("/e", "[1,2]");
  s.sync();
  s.set("/e", "[2,3]");
  s.sync();
  // The two values' blocks (some 5 MB) are free again.
  EXPECT_LT(s.stats().used_bytes + 3'000'000, before);
  std::string small = "[", more;
  for (int round = 0; round < 10; ++round) {
    const std::string r = std::to_string(round);
    small.append(round ? "," : "").append(r);
    s.set("/a/big", small + "]");
    s.set("/c/k" + r, R"({"k":")" + r + "\"}");
    more.append(",\"k").append(r).append(R"(":{"k":")").append(r).append("\"}");
    s.sync();
  }
  s.verify();
  s = fl::json_store::open(p);
  EXPECT_EQ(std::string_view(s.dump()),
            R"({"a":{"big":[0,1,2,3,4,5,6,7,8,9]},"c":{"n":[1])" + more + R"(},"d":1,"e":[2,3]})");
  s.verify();
}

// A refused patch puts each value it moved back where it was, as it was
// (edited after the move or not, moved again or not), and a patch that
// succeeds records its moves in the change feed as moves. The blocks of the
// moved values, never copied, are reachable once: later commits that reuse
// freed blocks change nothing else.
TEST(JsonPatch, ARefusedPatchPutsMovedValuesBackAsTheyWere) {
  temp_dir d;
  const auto p = d.path() / "s";
  const std::string doc =
      R"({"o":{"x":{"k":[1,2]},"y":3},"a":[10,{"z":1}],"p":"old","list":[0,1,2,3]})";
  auto s = fl::json_store::import(doc, p);
  s.sync();
  const std::string file_before = fl_test::read_whole_file(p);
  const std::string moves =
      R"([{"op":"move","from":"/o/x","path":"/a/1"},{"op":"add","path":"/a/1/k/-","value":3},)"
      R"({"op":"move","from":"/a/1","path":"/p"},{"op":"move","from":"/list/0","path":"/list/3"},)"
      R"({"op":"move","from":"/a/1/z","path":"/o/z"})";
  try {
    s.apply_patch(moves + R"(,{"op":"test","path":"/o/y","value":4}])");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("operation 5: test failed"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(std::string_view(s.dump()), doc);
  s.verify();
  EXPECT_THROW(s.apply_patch(R"([{"op":"move","from":"/o/x","path":"/a/1"},)"
                             R"({"op":"move","from":"/o/nothing","path":"/a/0"}])"),
               std::out_of_range);
  EXPECT_THROW(s.apply_patch(R"([{"op":"move","from":"/o/x","path":"/no/such"}])"),
               std::out_of_range);
  EXPECT_EQ(std::string_view(s.dump()), doc);
  EXPECT_EQ(fl_test::read_whole_file(p), file_before);
  // What the refused patch's edits replaced goes back to the free lists
  // with these commits, and values of the same sizes as the moved ones take
  // it; the values put back must not be among it.
  for (int round = 0; round < 8; ++round) {
    const std::string r = std::to_string(round);
    s.set("/o/q", R"({"k":[)" + r + "," + r + "]}");
    s.sync();
  }
  EXPECT_EQ(
      std::string_view(s.dump()),
      R"({"o":{"x":{"k":[1,2]},"y":3,"q":{"k":[7,7]}},"a":[10,{"z":1}],"p":"old","list":[0,1,2,3]})");
  s.verify();
  s.erase("/o/q");
  s.sync();
  const std::uint64_t since = s.sequence();

  s.apply_patch(moves + "]");
  const std::string moved = R"({"o":{"y":3,"z":1},"a":[10,{}],"p":{"k":[1,2,3]},"list":[1,2,3,0]})";
  EXPECT_EQ(std::string_view(s.dump()), moved);
  s.verify();
  s.sync();
  const std::vector<fl::json_change> feed = s.changes(since);
  ASSERT_EQ(feed.size(), 1u);
  EXPECT_EQ(
      std::string_view(feed[0].patch),
      R"([{"op":"move","from":"/o/x","path":"/a/1"},{"op":"add","path":"/a/1/k/2","value":3},)"
      R"({"op":"move","from":"/a/1","path":"/p"},{"op":"move","from":"/list/0","path":"/list/3"},)"
      R"({"op":"move","from":"/a/1/z","path":"/o/z"}])");
  // Edits after the commit reuse the blocks the moves' paths freed.
  for (int round = 0; round < 20; ++round) {
    s.set("/o/w", "\"" + std::string(40 + round, 'w') + "\"");
    s.apply_patch(R"([{"op":"move","from":"/p/k","path":"/a/1/k"},)"
                  R"({"op":"move","from":"/a/1/k","path":"/p/k"}])");
    s.sync();
  }
  s.verify();
  s = fl::json_store::open(p);
  EXPECT_EQ(std::string_view(s.dump()),
            R"({"o":{"y":3,"z":1,"w":")" + std::string(59, 'w') +
                R"("},"a":[10,{}],"p":{"k":[1,2,3]},"list":[1,2,3,0]})");
  s.verify();
}

TEST(JsonMergePatch, Rfc7396AppendixA) {
  struct c {
    const char *target, *patch, *result;
  };
  const c cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", "null", "null"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  temp_dir d;
  int n = 0;
  for (const c& x : cases) {
    auto s = fl::json_store::import(x.target, d.path() / ("m" + std::to_string(n++)));
    s.merge_patch(x.patch);
    EXPECT_EQ(std::string_view(s.dump()), x.result) << x.patch;
  }
  // The RFC's section 3 example.
  auto s = fl::json_store::import(
      R"({"title":"Goodbye!","author":{"givenName":"John","familyName":"Doe"},"tags":["example","sample"],"content":"This will be unchanged"})",
      d.path() / "sec3");
  s.merge_patch(
      R"({"title":"Hello!","phoneNumber":"+01-123-456-7890","author":{"familyName":null},"tags":["example"]})");
  EXPECT_EQ(
      std::string_view(s.dump()),
      R"({"title":"Hello!","author":{"givenName":"John"},"tags":["example"],"content":"This will be unchanged","phoneNumber":"+01-123-456-7890"})");
}

#ifdef FL_TEST_HAVE_NLOHMANN
using ojson = nlohmann::ordered_json;

ojson random_value(std::mt19937& g, int depth) {
  switch (g() % (depth > 2 ? 3 : 5)) {
    case 0: return static_cast<int>(g() % 5);
    case 1: return std::string(1, static_cast<char>('a' + g() % 3));
    case 2: return g() % 2 == 0 ? ojson(nullptr) : ojson(true);
    case 3: {
      ojson a = ojson::array();
      for (unsigned i = g() % 4; i-- > 0;) a.push_back(random_value(g, depth + 1));
      return a;
    }
    default: {
      ojson o = ojson::object();
      for (unsigned i = g() % 4; i-- > 0;)
        o[std::string(1, static_cast<char>('a' + g() % 4))] = random_value(g, depth + 1);
      return o;
    }
  }
}

void pointers(const ojson& v, const std::string& at, std::vector<std::string>& out) {
  out.push_back(at);
  if (v.is_object())
    for (const auto& [k, c] : v.items()) pointers(c, at + "/" + k, out);
  if (v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i) pointers(v[i], at + "/" + std::to_string(i), out);
}

// A pointer into `doc`, or one token past one of its containers (a member
// or index that may not exist, or "-"). nlohmann's patch() accepts a few
// paths RFC 6902 rejects (a remove or add below a scalar, which it skips or
// turns into an object), so paths below scalars are not generated; patches
// whose earlier operations make such a path are counted and left out.
std::string random_path(std::mt19937& g, const ojson& doc, const std::vector<std::string>& ps) {
  const std::string& p = ps[g() % ps.size()];
  if (g() % 2 == 0 || !doc.at(ojson::json_pointer(p)).is_structured()) return p;
  switch (g() % 3) {
    case 0: return p + "/-";
    case 1: return p + "/" + std::string(1, static_cast<char>('a' + g() % 5));
    default: return p + "/" + std::to_string(g() % 4);
  }
}

// A document of a few members and a patch of one to four operations of
// every kind on it, their paths and values drawn from it or at random.
std::pair<ojson, ojson> random_patch(std::mt19937& g) {
  const char* ops[] = {"add", "remove", "replace", "move", "copy", "test"};
  ojson doc = ojson::object();
  for (unsigned i = 1 + g() % 4; i-- > 0;)
    doc[std::string(1, static_cast<char>('a' + g() % 4))] = random_value(g, 1);
  std::vector<std::string> ps;
  pointers(doc, "", ps);
  ojson patch = ojson::array();
  for (unsigned i = 1 + g() % 4; i-- > 0;) {
    ojson op = {{"op", ops[g() % 6]}, {"path", random_path(g, doc, ps)}};
    op["from"] = ps[1 + g() % (ps.size() - 1)];  // not "": nlohmann cannot move the root
    op["value"] = g() % 2 ? random_value(g, 2) : doc.at(ojson::json_pointer(ps[g() % ps.size()]));
    patch.push_back(op);
  }
  return {doc, patch};
}

TEST(JsonPatch, RandomPatchesAgreeWithNlohmann) {
  temp_dir d;
  std::mt19937 g(2024);
  const auto file = d.path() / "r";
  auto s = fl::json_store::import("{}", file);
  s.sync();
  std::string committed = "{}";
  int applied = 0, failed = 0, lenient = 0;
  for (int round = 0; round < 2500; ++round) {
    const auto [doc, patch] = random_patch(g);
    const std::string before = doc.dump();
    s.set("", before);
    if (round % 50 == 0) {  // now and then, the file's commit is this document
      s.sync();
      committed = before;
    }
    // A refused patch leaves the document as it was, and the file's commit
    // (what a reader sees) too.
    const auto unchanged = [&](const ojson& p) {
      EXPECT_EQ(std::string_view(s.dump()), before) << p.dump();
      EXPECT_EQ(std::string_view(fl::json_store::open(file, fl::open_mode::read_only).dump()),
                committed)
          << before << " " << p.dump();
    };
    bool ok = true;
    ojson want;
    try {
      want = doc.patch(patch);
    } catch (const nlohmann::json::exception&) { ok = false; }
    if (ok) {
      try {
        s.apply_patch(patch.dump());
      } catch (const std::exception& e) {
        const std::string why = e.what();
        if (why.find(", not an object or array") == std::string::npos &&
            why.find("into its own child") == std::string::npos)
          ADD_FAILURE() << e.what() << " in " << before << " " << patch.dump();
        unchanged(patch);
        ++lenient;
        continue;
      }
      EXPECT_EQ(std::string_view(s.dump()), want.dump()) << before << " " << patch.dump();
      ++applied;
    } else {
      EXPECT_ANY_THROW(s.apply_patch(patch.dump())) << before << " " << patch.dump();
      unchanged(patch);
      ++failed;
    }
  }
  EXPECT_GT(applied, 300);
  EXPECT_GT(failed, 300);
  EXPECT_LT(lenient, 100);
  std::printf("random patches: %d applied, %d refused by both, %d accepted only by nlohmann\n",
              applied, failed, lenient);
}

// The text of `v` as another writer may spell it: white space (random) between
// every token, each ASCII character of a string or a member name now and then
// as a \u escape ("/" as "\/"), and in each operation, now and then, a
// member the patch does not know, whose value holds brackets and quotes in
// its strings.
// (`patch`: v is the patch, its elements the operations.)
std::string respell(std::mt19937& g, const ojson& v, bool patch = false, bool operation = false) {
  const auto ws = [&] {
    static const char* const blanks[] = {"", " ", "\n  ", "\t", "\r\n"};
    return std::string(blanks[g() % 5]);
  };
  const auto str = [&](const std::string& t) {
    std::string out(1, '"');
    for (const char c : t) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '/' && g() % 3 == 0) {
        out += "\\/";
      } else if (u < 0x80 && (g() % 3 == 0 || c == '"' || c == '\\' || u < 0x20)) {
        char e[8];
        std::snprintf(e, sizeof e, "\\u%04x", u);
        out += e;
      } else {
        out += c;
      }
    }
    out += '"';
    return out;
  };
  if (v.is_string()) return str(v.get<std::string>());
  if (v.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out += ",";
      out += ws();
      out += respell(g, v[i], false, patch);
      out += ws();
    }
    out += "]";
    return out;
  }
  if (!v.is_object()) return v.dump();
  std::string out = "{";
  bool first = true;
  const auto member = [&](const std::string& k, const std::string& text) {
    if (!first) out += ",";
    first = false;
    for (const std::string& piece : {ws(), str(k), ws(), std::string(":"), ws(), text, ws()})
      out += piece;
  };
  if (operation && g() % 3 == 0) member("note", R"({"s":"a]b\"}c","n":[1,{"k":"]["}],"t":true})");
  for (const auto& [k, c] : v.items()) member(k, respell(g, c));
  out += "}";
  return out;
}

// apply_patch reads a patch by its meaning, not its spelling: the same
// patches, spelled compactly and as respell() spells them, give the same
// document, or are refused with the same message.
TEST(JsonPatch, APatchReadsTheSameHoweverItIsSpelled) {
  temp_dir d;
  std::mt19937 g(2026);
  auto a = fl::json_store::import("{}", d.path() / "a");
  auto b = fl::json_store::import("{}", d.path() / "b");
  int applied = 0, refused = 0;
  for (int round = 0; round < 1500; ++round) {
    const auto [doc, patch] = random_patch(g);
    a.set("", doc.dump());
    b.set("", doc.dump());
    const std::string compact = patch.dump(), spelled = respell(g, patch, true);
    std::string why_a, why_b;
    try {
      a.apply_patch(compact);
    } catch (const std::exception& e) { why_a = e.what(); }
    try {
      b.apply_patch(spelled);
    } catch (const std::exception& e) { why_b = e.what(); }
    EXPECT_EQ(why_a, why_b) << compact << "\n" << spelled;
    EXPECT_EQ(std::string_view(a.dump()), std::string_view(b.dump())) << compact << "\n" << spelled;
    ++(why_a.empty() ? applied : refused);
  }
  EXPECT_GT(applied, 200);
  EXPECT_GT(refused, 200);
}
#endif

}  // namespace
