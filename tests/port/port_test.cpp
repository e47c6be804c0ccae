// The porting suite: snippets written for std::string, each a template over
// the string type, run once with std::string and once with fl::string. A
// snippet returns what a program would observe (text, numbers, exception
// messages) as one std::string, and the two runs must agree. Built with
// ASan+UBSan in `make test`, so a snippet that dangles fails loudly.
//
// What must not compile (s + 0, s + 42) is checked by the compile-fail tests
// beside this file (see CMakeLists.txt).
#include <fl/string.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

// What each snippet reports, in the same words for both types.
std::string show(std::string_view label, std::string_view value) {
  return std::string(label) + "=[" + std::string(value) + "] ";
}
std::string show(std::string_view label, long long value) {
  return show(label, std::to_string(value));
}

// The values an out_of_range message names, and how they compare: libstdc++
// writes "basic_string::at: __n (which is 7) >= this->size() (which is 5)",
// fl "fl::string::at: pos (which is 7) >= size() (which is 5)"; both give
// " 7 >= 5" here. (The function names differ: libstdc++ reports insert(pos,
// const char*) as basic_string::replace, fl as fl::string::insert.)
std::string values_of(const std::exception& e) {
  const std::string w = e.what();
  std::string out;
  for (std::size_t at = w.find("(which is "); at != std::string::npos;
       at = w.find("(which is ", at + 1)) {
    const std::size_t start = at + 10;
    out += " " + w.substr(start, w.find(')', start) - start);
    const std::size_t op = w.find_first_of("<>=", start);
    if (op != std::string::npos && op < w.find("(which is ", start))
      out += w[op + 1] == '=' ? " >=" : " >";
  }
  return out;
}

// A transparent hash for the std::string run (fl::string_hash for fl's).
struct std_view_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};
template <class S>
using hash_for = std::conditional_t<std::is_same_v<S, std::string>, std_view_hash, fl::string_hash>;

// ---- operator+ in every position ----

template <class S>
std::string auto_holds_value() {
  S a = "ab", b = "cd";
  auto t = a + b;
  a = "changed, and long enough to move to the heap";
  S u = t;
  return show("u", u) + show("a+b", a + b);
}

template <class S>
auto return_local_plus(const S& t) {
  S local(40, 'x');
  return local + t;
}
template <class S>
std::string return_from_function() {
  const auto r = return_local_plus(S("tail"));
  std::vector<S> noise(50, S(100, 'n'));  // reuse whatever was freed
  return show("r", r) + show("noise", noise.back().size() == 100 ? 1 : 0);
}

template <class T>
T twice(const T& t) {
  return t + t;
}
template <class S>
std::string template_deduction() {
  const S a = "abc";
  return show("twice", twice(a)) + show("twice2", twice(twice(a) + "-"));
}

template <class S>
std::string ternary_of_sums(bool which) {
  const S a = "left", b = "right";
  const S r = which ? a + "!" : b + "?";
  auto r2 = which ? a + b : S("none");
  return show("r", r) + show("r2", r2);
}

template <class S>
std::string accumulate_strings() {
  const std::vector<S> parts = {"alpha", "beta", "gamma", "a somewhat longer fourth part", "e"};
  const S all = std::accumulate(parts.begin(), parts.end(), S());
  const S joined = std::accumulate(parts.begin() + 1, parts.end(), parts[0],
                                   [](const S& acc, const S& p) { return acc + ", " + p; });
  return show("all", all) + show("joined", joined);
}

template <class S>
std::string stream_a_sum() {
  const S a = "x", b = "y";
  std::ostringstream os;
  os << a + "-" + b << '|' << (b + a);
  return show("os", os.str());
}

template <class S>
std::string members_on_result() {
  const S a = "hello", b = " world";
  std::string out = (a + b).c_str();
  out += "/" + std::to_string((a + b).size());
  out += "/" + std::to_string((a + b).find("wor"));
  out += "/" + std::string((a + b).substr(2, 5));
  out += (a + b).starts_with("hel") ? "/starts" : "/no";
  out += (a + b).empty() ? "/empty" : "/full";
  return show("members", out);
}

template <class S>
std::string append_to_auto() {
  const S a = "a", b = "b";
  auto s = a + b;
  s += "x";
  s += s;
  s.push_back('!');
  return show("s", s);
}

template <class S>
std::string chars_on_both_sides() {
  const S a = "mid";
  return show("r", 'L' + a + 'R') + show("c", S() + 'c');
}

template <class S>
std::string literal_on_the_left() {
  const S a = "name";
  return show("r", "hello, " + a + "!") + show("r2", "x" + ("y" + a));
}

// std::string + std::string_view is C++26; C++20 code writes S(v) or append.
template <class S>
std::string views_through_append() {
  const S a = "core";
  const std::string_view v = "view";
  S r = S(v) + a;
  r.append(v);
  r += v;
  return show("r", r) + show("r2", a + S(std::string_view("")) + a);
}

template <class S>
std::string std_string_operands() {
  const S a = "fl";
  const std::string s = "std";
  const S r = s + a + s;
  return show("r", r) + show("r2", std::string("temp") + a);
}

template <class S>
std::string self_concatenation() {
  S a = "abcdefghijklmnopqrstuvwxyz";
  a = a + a;
  S b = "xy";
  b += b + b;
  S c(30, 'c');
  c = std::move(c) + c;
  return show("a", a) + show("b", b) + show("c", c);
}

template <class S>
std::string element_then_push_back() {
  std::vector<S> v{"first element, long enough to live on the heap"};
  const S a = "+a";
  auto first = v[0] + a;
  for (int i = 0; i < 64; ++i) v.emplace_back("more elements so that the vector reallocates");
  return show("first", first);
}

template <class S>
std::string rvalue_left_and_right() {
  S a = "left-", b = "right";
  const S r1 = std::move(a) + b;
  S c = "front-", d = "back";
  const S r2 = c + std::move(d);
  const S r3 = S("p") + S("q") + S("r");
  return show("r1", r1) + show("r2", r2) + show("r3", r3);
}

template <class S>
std::string long_chain() {
  const S s1 = "1234567", s2 = "12345678901234567890", s3 = ".ext",
          s4 = " /* my comment about this */";
  S s = "previous value, long enough to sit on the heap";
  s = s1 + "/" + s2 + s3 + " => " + s4;
  S big;
  for (int i = 0; i < 200; ++i) big = big + s3;
  return show("s", s) + show("big", static_cast<long long>(big.size()));
}

template <class S>
std::string sum_to_view_parameter() {
  auto length = [](std::string_view v) { return v.size(); };
  const S a = "abc", b = "defg";
  return show("len", static_cast<long long>(length(a + b)));
}

template <class S>
std::string sum_to_std_string_parameter() {
  auto echo = [](const std::string& s) { return s + "."; };
  const S a = "abc", b = "def";
  const std::string s = a + b;
  return show("echo", echo(a + b)) + show("s", s);
}

// ---- interop ----

template <class S>
std::string from_std_to_string() {
  S s = std::to_string(12345);
  S t = std::string("assigned from std::string");
  t = std::to_string(-7);
  return show("s", s) + show("t", t);
}

template <class S>
std::string stoi_and_friends() {
  const S n = "  42", d = "2.5", big = "123456789012";
  return show("stoi", std::stoi(n)) + show("stod", static_cast<long long>(std::stod(d) * 10)) +
         show("stoll", std::stoll(big));
}

template <class S>
std::string istringstream_from_string() {
  const S line = "17 apples";
  std::istringstream is(line);
  int n = 0;
  std::string word;
  is >> n >> word;
  return show("n", n) + show("word", word);
}

template <class S>
std::string to_std_string_both_forms() {
  const S a = "a value that is longer than fifteen chars";
  const std::string copy = a;
  std::string assigned;
  assigned = a;
  std::string direct(a);
  return show("copy", copy) + show("assigned", assigned) + show("direct", direct);
}

template <class S>
std::string std_string_appends_fl() {
  const S a = "fl-part";
  std::string s = "std:";
  s += a;
  s.append(a);
  s.insert(0, a);
  return show("s", s);
}

template <class S>
std::string map_keyed_by_std_string() {
  std::map<std::string, int> m;
  const S k = "key";
  m[k] = 1;
  m[k + "2"] = 2;
  return show("m", static_cast<long long>(m.size())) + show("k2", m.at(k + "2"));
}

// ---- lookup ----

template <class S>
std::string heterogeneous_unordered_lookup() {
  std::unordered_map<S, int, hash_for<S>, std::equal_to<>> m;
  m.emplace("alpha", 1);
  m.emplace(S(40, 'z'), 2);
  const std::string_view v = "alpha";
  const std::string z(40, 'z');
  std::string out;
  out += m.find(v) != m.end() ? "view " : "-";
  out += m.find("alpha") != m.end() ? "cstr " : "-";
  out += m.find(z) != m.end() ? "std " : "-";
  out += m.contains(std::string_view("beta")) ? "beta" : "no-beta";
  return show("lookup", out);
}

template <class S>
std::string ordered_lookup_with_less() {
  std::map<S, int, std::less<>> m{{"b", 2}, {"a", 1}, {"c", 3}};
  std::set<S, std::less<>> set{"x", "y"};
  return show("b", m.find("b")->second) +
         show("lb", m.lower_bound(std::string_view("bb"))->second) +
         show("y", set.count(std::string_view("y")) ? 1 : 0);
}

template <class S>
std::string hash_equals_view_hash() {
  const S s = "hash me, a string that is longer than the inline buffer";
  return show("same",
              std::hash<S>{}(s) == std::hash<std::string_view>{}(std::string_view(s)) ? 1 : 0);
}

// ---- comparisons ----

template <class S>
std::string compare_with_std_string_both_ways() {
  const S a = "apple";
  const std::string b = "banana", a2 = "apple";
  std::string out;
  out += (a == a2) ? "eq " : "ne ";
  out += (a2 == a) ? "eq " : "ne ";
  out += (a != b) ? "ne " : "eq ";
  out += (b != a) ? "ne " : "eq ";
  out += (a < b) ? "lt " : "ge ";
  out += (b > a) ? "gt " : "le ";
  out += (a <=> b) < 0 ? "less " : "not ";
  out += (b <=> a) > 0 ? "greater" : "not";
  return show("cmp", out);
}

template <class S>
std::string compare_with_literals_and_views() {
  const S a = "mango";
  std::string out;
  out += a == "mango" ? "1" : "0";
  out += "mango" == a ? "1" : "0";
  out += a < "papaya" ? "1" : "0";
  out += a == std::string_view("mango") ? "1" : "0";
  out += a.compare("mangos") < 0 ? "1" : "0";
  out += (a + "s") == "mangos" ? "1" : "0";
  return show("cmp", out);
}

template <class S>
std::string sort_and_unique() {
  std::vector<S> v = {"pear", "apple", "fig", "apple", "a much longer banana, on the heap", "fig"};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out;
  for (const auto& s : v) out += std::string(s) + ";";
  return show("sorted", out);
}

// ---- exceptions and their messages ----

// What f() throws: the values of its out_of_range message under `label`, or
// "no throw".
template <class F>
std::string out_of_range_of(std::string_view label, F f) {
  try {
    f();
    return show(label, "no throw");
  } catch (const std::out_of_range& e) { return show(label, values_of(e)); }
}

template <class S>
std::string at_out_of_range() {
  const S s = "hello";
  return out_of_range_of("at", [&] { (void)s.at(7); });
}

template <class S>
std::string substr_out_of_range() {
  const S s = "hello";
  return out_of_range_of("substr", [&] { (void)s.substr(9); });
}

template <class S>
std::string insert_erase_replace_out_of_range() {
  S s = "hello";
  std::string out = out_of_range_of("insert", [&] { s.insert(6, "x"); });
  out += out_of_range_of("erase", [&] { s.erase(8); });
  out += out_of_range_of("replace", [&] { s.replace(10, 1, "y"); });
  return out + show("s", s);
}

template <class S>
std::string length_error_on_huge_reserve() {
  S s;
  try {
    s.reserve(s.max_size() + 1);
    return "no throw";
  } catch (const std::length_error&) { return "length_error"; }
}

// ---- everyday members ----

template <class S>
std::string edits() {
  S s = "The quick brown fox";
  s.replace(s.find("quick"), 5, "slow");
  s.insert(0, ">> ");
  s.erase(s.size() - 4);
  s.append(3, '.');
  s.resize(s.size() + 2, '!');
  return show("s", s);
}

template <class S>
std::string getline_and_erase() {
  std::istringstream is("first line\nsecond, longer line with more text\n");
  S line;
  std::string out;
  while (getline(is, line)) out += std::string(line) + "|";
  S t = "banana";
  const auto n = erase(t, 'a');
  return show("lines", out) + show("t", t) + show("n", static_cast<long long>(n));
}

template <class S>
std::string reserve_then_fill() {
  S s = "n=";
  s.reserve(40);
  for (int i = 0; i < 30; ++i) s.push_back(static_cast<char>('0' + i % 10));
  s.resize(12);
  return show("s", s);
}

template <class S>
std::string searches() {
  const S s = "key=value; other=thing; key=again";
  std::string out;
  out += std::to_string(s.find("key", 1)) + " ";
  out += std::to_string(s.rfind("key")) + " ";
  out += std::to_string(s.find_first_of(";=")) + " ";
  out += std::to_string(s.find_last_not_of("niaga")) + " ";
  out += std::to_string(s.find('z') == S::npos ? 1 : 0) + " ";
  out += s.find("other") != S::npos ? "yes" : "no";
  return show("find", out);
}

template <class S>
std::string swap_and_capacity() {
  S a = "short", b(100, 'b');
  swap(a, b);
  a.reserve(300);
  const bool cap_ok = a.capacity() >= 300 && b.capacity() >= b.size();
  a.shrink_to_fit();
  return show("a", static_cast<long long>(a.size())) + show("b", b) +
         show("cap_ok", cap_ok ? 1 : 0);
}

template <class S>
std::string append_substring_forms() {
  S s = "x";
  const std::string src = "0123456789";
  s.append(src, 2, 3);
  s.append(std::string_view(src), 7);
  s.append("abcdef", 2);
  s.assign(s + s, 1, 6);
  return show("s", s);
}

template <class S>
std::string numbers_through_to_string() {
  const S label = "count: ";
  const S r = label + std::to_string(42) + ", ratio: " + std::to_string(3);
  return show("r", r);
}

template <class S>
std::string iterate_and_transform() {
  S s = "MiXeD CaSe, with a longer tail than twenty-three";
  std::transform(s.begin(), s.end(), s.begin(), [](char c) { return static_cast<char>(c | 0x20); });
  const auto spaces = std::count(s.cbegin(), s.cend(), ' ');
  S rev(s.rbegin(), s.rend());
  return show("s", s) + show("spaces", spaces) + show("rev", rev);
}

template <class S>
std::string stream_in_and_out() {
  std::istringstream is("  word1 word2");
  S a, b;
  is >> a >> b;
  std::ostringstream os;
  os.width(8);
  os << a;
  os << '|' << b;
  return show("os", os.str());
}

// Runs a snippet for both string types and compares what they observed.
#define FL_PORT_CASE(name, ...)                          \
  TEST(PortTest, name) {                                 \
    const std::string want = __VA_ARGS__<std::string>(); \
    const std::string got = __VA_ARGS__<fl::string>();   \
    EXPECT_EQ(got, want);                                \
    EXPECT_FALSE(want.empty());                          \
  }

FL_PORT_CASE(AutoHoldsValue, auto_holds_value)
FL_PORT_CASE(ReturnFromFunction, return_from_function)
FL_PORT_CASE(TemplateDeduction, template_deduction)
FL_PORT_CASE(AccumulateStrings, accumulate_strings)
FL_PORT_CASE(StreamASum, stream_a_sum)
FL_PORT_CASE(MembersOnResult, members_on_result)
FL_PORT_CASE(AppendToAuto, append_to_auto)
FL_PORT_CASE(CharsOnBothSides, chars_on_both_sides)
FL_PORT_CASE(LiteralOnTheLeft, literal_on_the_left)
FL_PORT_CASE(ViewsThroughAppend, views_through_append)
FL_PORT_CASE(StdStringOperands, std_string_operands)
FL_PORT_CASE(SelfConcatenation, self_concatenation)
FL_PORT_CASE(ElementThenPushBack, element_then_push_back)
FL_PORT_CASE(RvalueLeftAndRight, rvalue_left_and_right)
FL_PORT_CASE(LongChain, long_chain)
FL_PORT_CASE(SumToViewParameter, sum_to_view_parameter)
FL_PORT_CASE(SumToStdStringParameter, sum_to_std_string_parameter)
FL_PORT_CASE(FromStdToString, from_std_to_string)
FL_PORT_CASE(StoiAndFriends, stoi_and_friends)
FL_PORT_CASE(IstringstreamFromString, istringstream_from_string)
FL_PORT_CASE(ToStdStringBothForms, to_std_string_both_forms)
FL_PORT_CASE(StdStringAppendsFl, std_string_appends_fl)
FL_PORT_CASE(MapKeyedByStdString, map_keyed_by_std_string)
FL_PORT_CASE(HeterogeneousUnorderedLookup, heterogeneous_unordered_lookup)
FL_PORT_CASE(OrderedLookupWithLess, ordered_lookup_with_less)
FL_PORT_CASE(HashEqualsViewHash, hash_equals_view_hash)
FL_PORT_CASE(CompareWithStdStringBothWays, compare_with_std_string_both_ways)
FL_PORT_CASE(CompareWithLiteralsAndViews, compare_with_literals_and_views)
FL_PORT_CASE(SortAndUnique, sort_and_unique)
FL_PORT_CASE(AtOutOfRange, at_out_of_range)
FL_PORT_CASE(SubstrOutOfRange, substr_out_of_range)
FL_PORT_CASE(InsertEraseReplaceOutOfRange, insert_erase_replace_out_of_range)
FL_PORT_CASE(LengthErrorOnHugeReserve, length_error_on_huge_reserve)
FL_PORT_CASE(Edits, edits)
FL_PORT_CASE(GetlineAndErase, getline_and_erase)
FL_PORT_CASE(ReserveThenFill, reserve_then_fill)
FL_PORT_CASE(Searches, searches)
FL_PORT_CASE(SwapAndCapacity, swap_and_capacity)
FL_PORT_CASE(AppendSubstringForms, append_substring_forms)
FL_PORT_CASE(NumbersThroughToString, numbers_through_to_string)
FL_PORT_CASE(IterateAndTransform, iterate_and_transform)
FL_PORT_CASE(StreamInAndOut, stream_in_and_out)

TEST(PortTest, TernaryOfSums) {
  for (bool which : {true, false})
    EXPECT_EQ(ternary_of_sums<fl::string>(which), ternary_of_sums<std::string>(which));
}

// The message names the function the way the standard library does, and the
// values exactly as libstdc++ does.
TEST(PortTest, AtMessageNamesFunctionAndValues) {
  const fl::string s = "hello";
  try {
    (void)s.at(7);
    FAIL() << "at(7) did not throw";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "fl::string::at: pos (which is 7) >= size() (which is 5)");
  }
}

}  // namespace
