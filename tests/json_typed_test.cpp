// json_typed_test: the typed API of fl::json_store: writes from C++ values
// (strings escaped), create/open_or_create, parent creation, insert, get<T>,
// value(ptr, default), type predicates, ==, <<, dump(indent), the iterators
// as std::forward_iterator, and errors that name the type and the pointer.
#include <fl/json_store.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <cstdint>
#include <limits>
#include <map>
#include <ranges>
#include <sstream>
#include <string>
#include <vector>

namespace {

using fl_test::temp_dir;

static_assert(std::forward_iterator<fl::json_value::element_iterator>);
static_assert(std::forward_iterator<fl::json_value::member_iterator>);
static_assert(std::ranges::forward_range<fl::json_value::member_range>);

TEST(JsonTyped, PutEscapesStringsAndWritesEveryScalar) {
  temp_dir d;
  auto s = fl::json_store::create(d.path() / "s.json");
  s.put("/theme", "dark \"blue\"\n");
  s.put("/width", 1280);
  s.put("/big", std::uint64_t{18446744073709551615u});
  s.put("/neg", std::int64_t{-5});
  s.put("/ratio", 0.5);
  s.put("/on", true);
  s.put("/nothing", nullptr);
  s.put("/name", std::string("ann"));
  // Integers of every width read back in the one spelling dump() writes.
  s.put("/least", std::numeric_limits<std::int64_t>::min());
  s.put("/byte", static_cast<unsigned char>(200));
  EXPECT_EQ(std::string_view(s.dump()),
            R"({"theme":"dark \"blue\"\n","width":1280,"big":18446744073709551615,"neg":-5,)"
            R"("ratio":0.5,"on":true,"nothing":null,"name":"ann","least":-9223372036854775808,)"
            R"("byte":200})");
  EXPECT_EQ(s.get<std::string>("/theme"), "dark \"blue\"\n");
  EXPECT_EQ(s.get<int>("/width"), 1280);
  EXPECT_EQ(s.get<std::uint64_t>("/big"), 18446744073709551615u);
  EXPECT_EQ(s.get<double>("/ratio"), 0.5);
  EXPECT_TRUE(s.get<bool>("/on"));
  EXPECT_THROW(s.put("/x", 1.0 / 0.0 * 0.0), std::domain_error);
}

TEST(JsonTyped, ContainersAndBuilders) {
  temp_dir d;
  auto s = fl::json_store::create(d.path() / "s.json");
  s.put("/recent", std::vector<std::string>{"a.txt", "b\\c"});
  s.put("/sizes", std::map<std::string, int>{{"w", 1}, {"h", 2}});
  s.put("/win", fl::json_text::object(
                    {{"x", 1}, {"tags", {"a", 2, nullptr}}, {"o", fl::json_text::object()}}));
  EXPECT_EQ(std::string_view(s.dump()), R"({"recent":["a.txt","b\\c"],"sizes":{"h":2,"w":1},)"
                                        R"("win":{"x":1,"tags":["a",2,null],"o":{}}})");
  EXPECT_THROW(s.put("/bad", fl::json_text::raw("{oops")), fl::json_error);
  EXPECT_FALSE(s.find("/bad"));
}

TEST(JsonTyped, CreateRefusesAnExistingFileAndOpenOrCreateReopens) {
  temp_dir d;
  const auto p = d.path() / "s.json";
  {
    auto s = fl::json_store::open_or_create(p);
    EXPECT_EQ(std::string_view(s.dump()), "{}");
    s.put("/n", 1);
    s.sync();
  }
  EXPECT_THROW(fl::json_store::create(p), fl::persist_error);
  auto s = fl::json_store::open_or_create(p);
  EXPECT_EQ(s.get<int>("/n"), 1);
}

TEST(JsonTyped, ParentsAreCreatedOnRequestOnly) {
  temp_dir d;
  auto s = fl::json_store::create(d.path() / "s.json");
  EXPECT_THROW(s.put("/a/b/c", 1), std::out_of_range);
  s.put("/a/b/c", 1, fl::json_store::parents::create);
  EXPECT_EQ(std::string_view(s.dump()), R"({"a":{"b":{"c":1}}})");
  // A failed put removes the parents it made.
  s.put("/n", 1);
  EXPECT_THROW(s.put("/x/y/z", fl::json_text::raw("{bad"), fl::json_store::parents::create),
               fl::json_error);
  EXPECT_THROW(s.put("/n/z/q", 1, fl::json_store::parents::create), std::out_of_range);
  EXPECT_EQ(std::string_view(s.dump()), R"({"a":{"b":{"c":1}},"n":1})");
}

TEST(JsonTyped, InsertAddsBeforeTheIndexSetReplaces) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"a":[1,2,3]})", d.path() / "s.json");
  s.insert("/a/0", "0");
  s.insert("/a/2", "\"x\"");
  s.insert("/a/-", "9");
  s.insert("/a/6", "10");
  EXPECT_EQ(std::string_view(s.dump()), R"({"a":[0,1,"x",2,3,9,10]})");
  EXPECT_THROW(s.insert("/a/8", "1"), std::out_of_range);
  s.set("/a/0", "5");
  EXPECT_EQ(std::string_view(*s.at("/a")), R"([5,1,"x",2,3,9,10])");
  s.sync();
  auto r = fl::json_store::open(d.path() / "s.json");
}

TEST(JsonTyped, ValueGivesTheFallbackOnlyWhenMissing) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"t":"light","n":3})", d.path() / "s.json");
  EXPECT_EQ(s.value("/t", "dark"), "light");
  EXPECT_EQ(s.value("/u", "dark"), "dark");
  EXPECT_EQ(s.value("/n", 7), 3);
  EXPECT_EQ(s.value("/m", 7), 7);
  EXPECT_THROW(s.value("/t", 7), std::invalid_argument);
}

TEST(JsonTyped, PredicatesTellIntegersFromDoubles) {
  temp_dir d;
  auto s = fl::json_store::import(R"([18446744073709551615,-1,1.5,1.0,"s",true,null,1e400])",
                                  d.path() / "s.json");
  const fl::json_value r = s.root();
  EXPECT_TRUE(r[0].is_integer());
  EXPECT_TRUE(r[1].is_integer());
  EXPECT_TRUE(r[2].is_double());
  EXPECT_TRUE(r[3].is_double());
  EXPECT_TRUE(r[4].is_string());
  EXPECT_TRUE(r[5].is_bool());
  EXPECT_TRUE(r[7].is_number() && r[7].is_double());
  EXPECT_FALSE(r[4].is_number());
  EXPECT_TRUE(r[0] == 18446744073709551615u);
  EXPECT_FALSE(r[0] == -1);
  EXPECT_TRUE(r[1] == -1);
  EXPECT_FALSE(r[1] == 18446744073709551615u);
  EXPECT_TRUE(r[2] == 1.5);
  EXPECT_TRUE(r[3] == 1);
  EXPECT_TRUE(r[4] == "s");
  EXPECT_FALSE(r[4] == 1);
  EXPECT_TRUE(r[5] == true);
  EXPECT_TRUE(r[6] == nullptr);
  EXPECT_FALSE(r[5] == nullptr);
}

TEST(JsonTyped, ErrorsNameTheTypeAndThePointer) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"a":"x","n":300})", d.path() / "s.json");
  try {
    (void)s.get<int>("/a");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("as int: it is a string"), std::string::npos) << e.what();
  }
  try {
    (void)s.get<int>("/zz");
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("\"/zz\""), std::string::npos) << e.what();
  }
  try {
    (void)s.get<std::uint8_t>("/n");
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("300"), std::string::npos) << e.what();
  }
}

// set()/insert() name the prefix of the pointer that is missing or not a
// container, and an array index names itself and the size; erase() of such a
// pointer is false. Before, these said "no value at a prefix of the pointer"
// and "array index past the end".
TEST(JsonTyped, EditErrorsNameThePrefixTheIndexAndTheSize) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"a":{"b":{}},"s":"x","r":[1,2,3]})", d.path() / "s.json");
  const std::string before(std::string_view(s.dump()));
  const auto message = [&](auto edit) {
    try {
      edit();
    } catch (const std::out_of_range& e) {
      EXPECT_EQ(std::string_view(s.dump()), before);
      return std::string(e.what());
    }
    ADD_FAILURE() << "no std::out_of_range";
    return std::string();
  };
  EXPECT_EQ(message([&] { s.set("/a/x/c", "1"); }),
            R"(fl::json_store::set: no value at "/a/x" (the parent of "/a/x/c"))");
  EXPECT_EQ(message([&] { s.set("/q/b/c", "1"); }),
            R"(fl::json_store::set: no value at "/q" (a prefix of "/q/b/c"))");
  EXPECT_EQ(message([&] { s.put("/a/x/c", 1); }),
            R"(fl::json_store::set: no value at "/a/x" (the parent of "/a/x/c"))");
  EXPECT_EQ(message([&] { s.set("/s/t", "1"); }),
            R"(fl::json_store::set: "/s" (the parent of "/s/t") is a string, not an object or array)");
  EXPECT_EQ(message([&] { s.set("/r/0/t/u", "1"); }),
            R"(fl::json_store::set: "/r/0" (a prefix of "/r/0/t/u") is a number, not an object or array)");
  EXPECT_EQ(message([&] { s.set("/r/5", "1"); }),
            R"(fl::json_store::set: index 5 is past the end of the array "/r" (size 3); use 3 or "-" to append)");
  EXPECT_EQ(message([&] { s.insert("/r/4", "1"); }),
            R"(fl::json_store::set: index 4 is past the end of the array "/r" (size 3); use 3 or "-" to append)");
  EXPECT_EQ(message([&] { s.set("/r/01", "1"); }),
            R"(fl::json_store::set: "01" is not an index of the array "/r" (size 3); use 3 or "-" to append)");
  EXPECT_EQ(message([&] { s.set("/r/7/x", "1"); }),
            R"(fl::json_store::set: no value at "/r/7" (the parent of "/r/7/x"): index 7 is past the end of the array "/r" (size 3))");
  EXPECT_EQ(message([&] { (void)s.root().find("r")->operator[](3); }),
            "fl::json_value: index 3 is past the end of an array of size 3");
  EXPECT_EQ(message([&] { (void)s.root().find("s")->operator[](0); }),
            "fl::json_value: index 0 of a string, not of an array");
  EXPECT_FALSE(s.erase("/a/x/c"));
  EXPECT_FALSE(s.erase("/r/7/x"));
  EXPECT_FALSE(s.erase("/r/3"));
  EXPECT_EQ(std::string_view(s.dump()), before);
}

TEST(JsonTyped, StreamAndIndentedDump) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"a":[1,{"b":"x,{"}],"e":[],"o":{}})", d.path() / "s.json");
  std::ostringstream os;
  os << s.root();
  EXPECT_EQ(os.str(), R"({"a":[1,{"b":"x,{"}],"e":[],"o":{}})");
  EXPECT_EQ(std::string_view(s.dump(2)),
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x,{\"\n    }\n  ],\n"
            "  \"e\": [],\n  \"o\": {}\n}");
  EXPECT_EQ(std::string_view(s.dump(-1)), std::string_view(s.dump()));
}

TEST(JsonTyped, IteratorsWorkWithAlgorithmsRangesAndBindings) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"a":1,"b":2,"c":3,"l":[5,6,7]})", d.path() / "s.json");
  const fl::json_value r = s.root();
  const auto els = r.find("l")->elements();
  const std::vector<fl::json_value> v(els.begin(), els.end());
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[2].as_int64(), 7);
  const auto ms = r.members();
  const auto it =
      std::find_if(ms.begin(), ms.end(), [](const fl::json_member& m) { return m.key == "b"; });
  ASSERT_NE(it, ms.end());
  EXPECT_EQ(it->value.as_int64(), 2);
  std::string keys;
  for (const auto& m : ms | std::views::take(2)) keys += m.key;
  EXPECT_EQ(keys, "ab");
  std::int64_t sum = 0;
  for (auto& [k, val] : r.members())
    if (val.is_integer()) sum += val.as_int64();
  for (auto&& [k, val] : r.members())
    if (k == "c") sum += 10 * val.as_int64();
  EXPECT_EQ(sum, 36);
  EXPECT_EQ(std::ranges::distance(r.members()), 4);
}

// README.md's json_store snippet, as written, in one function (the second
// open takes the file over from `doc`, which has nothing uncommitted).
TEST(JsonTyped, ReadmeSnippetRunsInOneFunction) {
  temp_dir d;
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(d.path());
  const std::string text = R"({"user":{"name":"ann","visits":41}})";
  {
    auto doc = fl::json_store::import(text, "state.fljson");  // parse once (strict RFC 8259)
    doc.sync();                                               // commit
    auto again = fl::json_store::open("state.fljson");        // later: map, no parsing
    std::string_view name = again.find("/user/name")->as_string_view();
    EXPECT_EQ(name, "ann");  // (a view: valid until the next edit)
    again.set("/user/visits", "42");
    again.sync();
  }
  EXPECT_EQ(fl::json_store::open("state.fljson").get<int>("/user/visits"), 42);
  std::filesystem::current_path(cwd);
}

}  // namespace
