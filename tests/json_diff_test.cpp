// tests/json_diff_test.cpp: fl::json_diff() produces an RFC 6902 patch that turns one
// document into another exactly (member order and number text included):
// cases by hand, then random document pairs whose patches are applied by
// json_store::apply_patch and by nlohmann::ordered_json::patch, and
// nlohmann's own diff() applied by both.
#include <fl/json_store.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#ifdef FL_TEST_HAVE_NLOHMANN
#define JSON_ASSERT(x) static_cast<void>(sizeof(x))
#include <nlohmann/json.hpp>
#endif

namespace {

using fl_test::temp_dir;

struct diff_case {
  const char* from;
  const char* to;
  const char* patch;  // what json_diff gives
};

// RFC 6902 appendix A's documents taken as (before, after) pairs, and the
// cases each rule of json_diff exists for.
const diff_case cases[] = {
    {R"({"foo":"bar"})", R"({"foo":"bar","baz":"qux"})",
     R"([{"op":"add","path":"/baz","value":"qux"}])"},
    {R"({"foo":["bar","baz"]})", R"({"foo":["bar","qux","baz"]})",
     R"([{"op":"add","path":"/foo/1","value":"qux"}])"},
    {R"({"baz":"qux","foo":"bar"})", R"({"foo":"bar"})", R"([{"op":"remove","path":"/baz"}])"},
    {R"({"foo":["bar","qux","baz"]})", R"({"foo":["bar","baz"]})",
     R"([{"op":"remove","path":"/foo/1"}])"},
    {R"({"baz":"qux","foo":"bar"})", R"({"baz":"boo","foo":"bar"})",
     R"([{"op":"replace","path":"/baz","value":"boo"}])"},
    {R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
     R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})",
     R"([{"op":"remove","path":"/foo/waldo"},{"op":"add","path":"/qux/thud","value":"fred"}])"},
    {R"({"foo":"bar"})", R"({"foo":"bar","child":{"grandchild":{}}})",
     R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])"},
    {R"({"/":9,"~1":10})", R"({"/":9,"~1":11})", R"([{"op":"replace","path":"/~01","value":11}])"},
    {R"({"foo":["bar"]})", R"({"foo":["bar",["abc","def"]]})",
     R"([{"op":"add","path":"/foo/1","value":["abc","def"]}])"},
    // Equal documents; the root replaced when its type changes.
    {R"({"a":[1,{"b":null}]})", R"({"a":[1,{"b":null}]})", "[]"},
    {R"({"a":1})", R"([1])", R"([{"op":"replace","path":"","value":[1]}])"},
    {"1", "1.0", R"([{"op":"replace","path":"","value":1.0}])"},
    {R"("x")", R"("x")", "[]"},
    // Member order: members out of order are moved onto themselves (to the end).
    {R"({"a":1,"b":2,"c":3})", R"({"b":2,"c":3,"a":1})",
     R"([{"op":"move","path":"/a","from":"/a"}])"},
    {R"({"a":1,"b":2,"c":3})", R"({"c":3,"a":1,"b":2})",
     R"([{"op":"move","path":"/a","from":"/a"},{"op":"move","path":"/b","from":"/b"}])"},
    {R"({"a":{"x":1},"b":2})", R"({"b":2,"a":{"x":2}})",
     R"([{"op":"move","path":"/a","from":"/a"},{"op":"replace","path":"/a/x","value":2}])"},
    {R"({"a":1,"":2})", R"({"":3,"n":4})",
     R"([{"op":"remove","path":"/a"},{"op":"replace","path":"/","value":3},)"
     R"({"op":"add","path":"/n","value":4}])"},
    // Arrays: equal ends kept, the middle diffed by index, the rest removed
    // from the end or added in order.
    {"[1,2,3,4,5]", "[1,5]",
     R"([{"op":"remove","path":"/3"},{"op":"remove","path":"/2"},{"op":"remove","path":"/1"}])"},
    {"[1,2,3,4]", "[1,7,8,4]",
     R"([{"op":"replace","path":"/1","value":7},{"op":"replace","path":"/2","value":8}])"},
    {"[1,5]", "[1,2,3,4,5]",
     R"([{"op":"add","path":"/1","value":2},{"op":"add","path":"/2","value":3},)"
     R"({"op":"add","path":"/3","value":4}])"},
    {"[1,2,3]", "[1,2,3,4]", R"([{"op":"add","path":"/3","value":4}])"},
    {"[0,1,2]", "[1,2]", R"([{"op":"remove","path":"/0"}])"},
    {"[[1,2],[3]]", "[[1,2,9],[3]]", R"([{"op":"add","path":"/0/2","value":9}])"},
    {"[1,1,1]", "[1,1]", R"([{"op":"remove","path":"/2"}])"},
    {"[]", R"([{"k":"v"}])", R"([{"op":"add","path":"/0","value":{"k":"v"}}])"},
    // Strings in paths and values are escaped; numbers keep their text.
    {R"({"q\"":"a\nb"})", R"({"q\"":"\u00e9\ud83d\ude00"})",
     "[{\"op\":\"replace\",\"path\":\"/q\\\"\",\"value\":\"\xc3\xa9\xf0\x9f\x98\x80\"}]"},
    {R"({"n":18446744073709551615})", R"({"n":-9223372036854775808})",
     R"([{"op":"replace","path":"/n","value":-9223372036854775808}])"},
    {R"({"n":1e400})", R"({"n":1e400})", "[]"},
    // A repeated key: the object is replaced whole.
    {R"({"o":{"k":1,"k":2}})", R"({"o":{"k":2}})",
     R"([{"op":"replace","path":"/o","value":{"k":2}}])"},
    {R"({"o":{"k":2}})", R"({"o":{"k":1,"k":2}})",
     R"([{"op":"replace","path":"/o","value":{"k":1,"k":2}}])"},
};

TEST(JsonDiff, CasesByHand) {
  temp_dir d;
  auto a = fl::json_store::create(d.path() / "a");
  auto b = fl::json_store::create(d.path() / "b");
  int n = 0;
  for (const diff_case& c : cases) {
    a.set("", c.from);
    b.set("", c.to);
    const fl::string patch = fl::json_diff(a.root(), b.root());
    EXPECT_EQ(std::string_view(patch), c.patch) << c.from << " -> " << c.to;
    a.apply_patch(patch);
    EXPECT_EQ(std::string_view(a.dump()), std::string_view(b.dump())) << patch;
    EXPECT_EQ(std::string_view(fl::json_diff(a.root(), b.root())), "[]") << patch;
    ++n;
  }
  EXPECT_EQ(n, 30);
}

TEST(JsonDiff, ValuesOfOneStore) {
  temp_dir d;
  auto s = fl::json_store::import(R"({"old":{"a":[1,2],"b":"x"},"new":{"b":"y","a":[1,2,3]}})",
                                  d.path() / "s");
  const fl::string patch = fl::json_diff(*s.find("/old"), *s.find("/new"));
  EXPECT_EQ(std::string_view(patch),
            R"([{"op":"replace","path":"/b","value":"y"},{"op":"move","path":"/a","from":"/a"},)"
            R"({"op":"add","path":"/a/2","value":3}])");
  auto t = fl::json_store::import(R"({"a":[1,2],"b":"x"})", d.path() / "t");
  t.apply_patch(patch);
  EXPECT_EQ(std::string_view(t.dump()), R"({"b":"y","a":[1,2,3]})");
}

#ifdef FL_TEST_HAVE_NLOHMANN
using ojson = nlohmann::ordered_json;

const char* const keys[] = {"a", "b", "c", "d", "", "x/y", "~t", "q\""};

std::string random_key(std::mt19937& g) { return keys[g() % std::size(keys)]; }

ojson random_scalar(std::mt19937& g) {
  switch (g() % 8) {
    case 0: return static_cast<int>(g() % 7) - 3;
    case 1: return 18446744073709551615ULL;
    case 2: return (static_cast<int>(g() % 9) - 4) * 0.5;  // 2.0 and 2 differ in text
    case 3: return std::string(1, static_cast<char>('a' + g() % 3));
    case 4: return "\xc3\xa9\n\"";
    case 5: return nullptr;
    case 6: return g() % 2 == 0;
    default: return "";
  }
}

ojson random_value(std::mt19937& g, int depth) {
  switch (g() % (depth > 3 ? 1 : 3)) {
    case 0: return random_scalar(g);
    case 1: {
      ojson a = ojson::array();
      for (unsigned i = g() % 5; i-- > 0;) a.push_back(random_value(g, depth + 1));
      return a;
    }
    default: {
      ojson o = ojson::object();
      for (unsigned i = g() % 5; i-- > 0;) o[random_key(g)] = random_value(g, depth + 1);
      return o;
    }
  }
}

// One random change somewhere in `v`: a scalar or subtree replaced, an
// element inserted or erased, a member added, removed or the members
// reordered.
void mutate(ojson& v, std::mt19937& g) {
  if (v.is_structured() && !v.empty() && g() % 3 != 0) {
    if (v.is_array()) return mutate(v[g() % v.size()], g);
    auto it = v.begin();
    std::advance(it, static_cast<long>(g() % v.size()));
    return mutate(*it, g);
  }
  if (v.is_array()) {
    switch (g() % 3) {
      case 0:
        v.insert(v.begin() + static_cast<long>(g() % (v.size() + 1)), random_value(g, 3));
        return;
      case 1:
        if (!v.empty()) v.erase(v.begin() + static_cast<long>(g() % v.size()));
        return;
      default: break;
    }
  } else if (v.is_object()) {
    switch (g() % 4) {
      case 0: v[random_key(g)] = random_value(g, 3); return;
      case 1: v.erase(random_key(g)); return;
      case 2: {
        std::vector<std::pair<std::string, ojson>> ms;
        for (const auto& item : v.items()) ms.emplace_back(item.key(), item.value());
        ms.erase(ms.begin(), ms.begin() + static_cast<long>(ms.size() / 2));
        std::shuffle(ms.begin(), ms.end(), g);
        ojson o = ojson::object();
        for (auto& [k, x] : ms) o[k] = std::move(x);
        v = std::move(o);
        return;
      }
      default: break;
    }
  }
  v = random_value(g, 2);
}

TEST(JsonDiff, RandomPairsAgreeWithNlohmann) {
  temp_dir d;
  const std::uint64_t seed = fl_test::test_seed();
  std::mt19937 g(static_cast<std::uint32_t>(seed));
  auto a = fl::json_store::create(d.path() / "a");
  auto b = fl::json_store::create(d.path() / "b");
  auto c = fl::json_store::create(d.path() / "c");
  // The store's text of a document: the form dumps are compared in.
  const auto canonical = [&](const ojson& j) {
    c.set("", j.dump());
    return std::string(std::string_view(c.dump()));
  };
  std::size_t fl_ops = 0, nlohmann_ops = 0;
  const int rounds = 2500;
  for (int round = 0; round < rounds; ++round) {
    const ojson from = random_value(g, 0);
    ojson to = from;
    if (g() % 8 == 0) {
      to = random_value(g, 0);
    } else {
      for (unsigned i = 1 + g() % 4; i-- > 0;) mutate(to, g);
    }
    a.set("", from.dump());
    b.set("", to.dump());
    const std::string want(std::string_view(b.dump()));
    const std::string patch(std::string_view(fl::json_diff(a.root(), b.root())));
    const std::string where = "seed " + std::to_string(seed) + " round " + std::to_string(round) +
                              ": " + from.dump() + " -> " + to.dump() + " by " + patch;
    a.apply_patch(patch);
    ASSERT_EQ(std::string_view(a.dump()), want) << where;
    ojson by_nlohmann;
    ASSERT_NO_THROW(by_nlohmann = from.patch(ojson::parse(patch))) << where;
    ASSERT_EQ(canonical(by_nlohmann), want) << where;
    fl_ops += ojson::parse(patch).size();

    // nlohmann's diff, applied by both, gives the same document.
    const ojson theirs = ojson::diff(from, to);
    nlohmann_ops += theirs.size();
    a.set("", from.dump());
    a.apply_patch(theirs.dump());
    ASSERT_EQ(std::string_view(a.dump()), canonical(from.patch(theirs))) << where;
  }
  std::printf("%d random pairs: json_diff %zu operations, nlohmann::diff %zu\n", rounds, fl_ops,
              nlohmann_ops);
}
#endif

}  // namespace
