// Unit tests of fl::basic_string's API, one group at a time: construction,
// assignment, element access, capacity, modifiers, search, operations and the
// self-aliasing cases, every exception path included. The representation
// (layout, growth, the concatenation protocol, buffer hand-over, allocators)
// is string_internals_test; the random differential test is
// string_differential_test.
#include <fl/string.hpp>

#include <gtest/gtest.h>

#include <deque>
#include <list>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using fl::string;
using namespace std::string_literals;
using namespace std::string_view_literals;

// ---- construction ----

TEST(StringTest, Constructors) {
  EXPECT_EQ(fl::string(), "");
  EXPECT_EQ(fl::string(5, 'a'), "aaaaa");
  EXPECT_EQ(fl::string(40, 'a'), std::string(40, 'a'));
  const fl::string base("hello, world, this is longer than 23");
  EXPECT_EQ(fl::string(base, 7), "world, this is longer than 23");
  EXPECT_EQ(fl::string(base, 7, 5), "world");
  EXPECT_EQ(fl::string(base, 7, 500), "world, this is longer than 23");
  EXPECT_EQ(fl::string("abc\0def", 7).size(), 7u);
  EXPECT_EQ(fl::string("abc\0def"), "abc");
  std::vector<char> v{'x', 'y', 'z'};
  EXPECT_EQ(fl::string(v.begin(), v.end()), "xyz");
  std::list<char> l{'l', 'i', 's', 't'};
  EXPECT_EQ(fl::string(l.begin(), l.end()), "list");
  std::istringstream in("stream");
  EXPECT_EQ(fl::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()),
            "stream");
  EXPECT_EQ(fl::string({'i', 'l'}), "il");
  EXPECT_EQ(fl::string("sv"sv), "sv");
  EXPECT_EQ(fl::string("std"s), "std");
  EXPECT_EQ(fl::string("abcdef"sv, 2, 3), "cde");
  EXPECT_EQ(fl::string("abcdef", 2, 3),
            "cde");  // (const char*, pos, n) goes through the T overload... via string_view
  fl::string moved_from("a long string that lives on the heap!");
  fl::string m(std::move(moved_from));
  EXPECT_EQ(m, "a long string that lives on the heap!");
  EXPECT_TRUE(moved_from.empty());
  fl::string sub(std::move(m), 2, 4);
  EXPECT_EQ(sub, "long");
  fl::string sub2(fl::string("0123456789012345678901234567"), 20);
  EXPECT_EQ(sub2, "01234567");
  using namespace fl::literals;
  EXPECT_EQ("a\0b"_fs.size(), 3u);
  EXPECT_EQ(fl::string(3, 'x').to_std(), "xxx");
}

TEST(StringTest, ConstructorsThrow) {
  const fl::string s("abc");
  EXPECT_THROW(fl::string(s, 4), std::out_of_range);
  EXPECT_THROW(fl::string(s, 4, 1), std::out_of_range);
  EXPECT_NO_THROW(fl::string(s, 3));
  EXPECT_THROW(fl::string(fl::string("abc"), 4), std::out_of_range);
  EXPECT_THROW(fl::string(fl::string("abc"), 4, 1), std::out_of_range);
  EXPECT_THROW(fl::string("abc"sv, 4, 1), std::out_of_range);
  EXPECT_THROW(fl::string(s.max_size() + 1, 'a'), std::length_error);
  EXPECT_THROW(fl::string("abc", s.max_size() + 1), std::length_error);
}

// ---- assignment ----

TEST(StringTest, Assign) {
  fl::string s;
  s = "hello";
  EXPECT_EQ(s, "hello");
  s = 'c';
  EXPECT_EQ(s, "c");
  s = {'a', 'b'};
  EXPECT_EQ(s, "ab");
  s = "view"sv;
  EXPECT_EQ(s, "view");
  s = std::string(30, 'q');
  EXPECT_EQ(s, std::string(30, 'q'));
  fl::string t("another string that is long enough");
  s = t;
  EXPECT_EQ(s, t);
  s = std::move(t);
  EXPECT_EQ(s, "another string that is long enough");
  s.assign(3, 'z');
  EXPECT_EQ(s, "zzz");
  s.assign(fl::string("0123456789"), 3, 4);
  EXPECT_EQ(s, "3456");
  s.assign(fl::string("0123456789"), 3);
  EXPECT_EQ(s, "3456789");
  s.assign("abc\0d", 5);
  EXPECT_EQ(s.size(), 5u);
  s.assign("cstr");
  EXPECT_EQ(s, "cstr");
  const std::string src = "iterator";
  s.assign(src.begin(), src.end());
  EXPECT_EQ(s, "iterator");
  s.assign({'x', 'y'});
  EXPECT_EQ(s, "xy");
  s.assign("string view"sv);
  EXPECT_EQ(s, "string view");
  s.assign("string view"sv, 7, 2);
  EXPECT_EQ(s, "vi");
  s.assign_range(std::vector<char>{'r', 'g'});
  EXPECT_EQ(s, "rg");
  s.assign_range(std::list<char>{'l', 's'});
  EXPECT_EQ(s, "ls");
  s.assign(fl::string("moved"));
  EXPECT_EQ(s, "moved");
  // Self assignment in all forms.
  s = "self assignment of a heap string here";
  s = s;
  EXPECT_EQ(s, "self assignment of a heap string here");
  s.assign(s, 5);
  EXPECT_EQ(s, "assignment of a heap string here");
  s.assign(s.data() + 2, 5);
  EXPECT_EQ(s, "signm");
  s.assign(s.begin() + 1, s.end());
  EXPECT_EQ(s, "ignm");
}

TEST(StringTest, AssignThrows) {
  fl::string s("abc");
  EXPECT_THROW(s.assign(fl::string("x"), 2), std::out_of_range);
  EXPECT_THROW(s.assign("x"sv, 2), std::out_of_range);
  EXPECT_THROW(s.assign(s.max_size() + 1, 'a'), std::length_error);
  EXPECT_EQ(s, "abc");
}

// ---- element access and iterators ----

TEST(StringTest, ElementAccess) {
  fl::string s("hello");
  EXPECT_EQ(s[0], 'h');
  EXPECT_EQ(s.at(4), 'o');
  EXPECT_EQ(s[5], '\0');
  EXPECT_THROW((void)s.at(5), std::out_of_range);
  const fl::string& c = s;
  EXPECT_THROW((void)c.at(5), std::out_of_range);
  EXPECT_EQ(c.at(1), 'e');
  s.front() = 'j';
  s.back() = 'y';
  EXPECT_EQ(s, "jelly");
  s.data()[1] = 'o';
  EXPECT_STREQ(s.c_str(), "jolly");
  std::string_view v = s;
  EXPECT_EQ(v, "jolly");
  std::string rev(s.rbegin(), s.rend());
  EXPECT_EQ(rev,
            "yllo"
            "j");
  std::string crev(c.crbegin(), c.crend());
  EXPECT_EQ(crev, "ylloj");
  EXPECT_EQ(s.end() - s.begin(), 5);
  EXPECT_EQ(s.cend() - s.begin(), 5);
  EXPECT_TRUE(s.begin() < s.cend());
  fl::string::const_iterator ci = s.begin();
  EXPECT_EQ(*ci, 'j');
  std::sort(s.begin(), s.end());
  EXPECT_EQ(s, "jlloy");
  EXPECT_EQ(std::to_address(s.begin()), s.data());
}

// ---- capacity ----

TEST(StringTest, Capacity) {
  fl::string s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.capacity(), 23u);
  s.reserve(10);
  EXPECT_EQ(s.capacity(), 23u);
  s.reserve(100);
  EXPECT_GE(s.capacity(), 100u);
  s = "x";
  s.shrink_to_fit();
  EXPECT_EQ(s.capacity(), 23u);
  EXPECT_EQ(s, "x");
  EXPECT_THROW(s.reserve(s.max_size() + 1), std::length_error);
  EXPECT_EQ(s.length(), 1u);
  EXPECT_GE(s.max_size(), std::size_t{1} << 40);
}

TEST(StringTest, ResizeAndOverwrite) {
  fl::string s("abc");
  s.resize(6, 'x');
  EXPECT_EQ(s, "abcxxx");
  s.resize(2);
  EXPECT_EQ(s, "ab");
  s.resize(4);
  EXPECT_EQ(s, "ab\0\0"sv);
  EXPECT_THROW(s.resize(s.max_size() + 1), std::length_error);
  EXPECT_THROW(s.resize(s.max_size() + 1, 'a'), std::length_error);
  s.resize_and_overwrite(100, [](char* p, std::size_t n) {
    EXPECT_EQ(std::string_view(p, 2), "ab");
    std::memset(p, 'w', n);
    return 64;
  });
  EXPECT_EQ(s, std::string(64, 'w'));
  s.resize_and_overwrite(3, [](char* p, std::size_t) {
    p[0] = 'o';
    return std::size_t{1};
  });
  EXPECT_EQ(s, "o");
  EXPECT_THROW(s.resize_and_overwrite(s.max_size() + 1, [](char*, std::size_t) { return 0; }),
               std::length_error);
}

// ---- modifiers ----

TEST(StringTest, Insert) {
  fl::string s("0123");
  s.insert(2, 3, 'x');
  EXPECT_EQ(s, "01xxx23");
  s.insert(0, "ab");
  EXPECT_EQ(s, "ab01xxx23");
  s.insert(9, "cd\0e", 4);
  EXPECT_EQ(s, "ab01xxx23cd\0e"sv);
  s = "0123";
  s.insert(1, fl::string("XY"));
  EXPECT_EQ(s, "0XY123");
  s.insert(1, fl::string("abcdef"), 2, 2);
  EXPECT_EQ(s, "0cdXY123");
  s.insert(1, fl::string("abcdef"), 4);
  EXPECT_EQ(s, "0efcdXY123");
  auto it = s.insert(s.begin() + 1, '!');
  EXPECT_EQ(*it, '!');
  EXPECT_EQ(s, "0!efcdXY123");
  it = s.insert(s.cbegin(), 2, '#');
  EXPECT_EQ(it, s.begin());
  EXPECT_EQ(s, "##0!efcdXY123");
  const std::string src = "SRC";
  it = s.insert(s.cend(), src.begin(), src.end());
  EXPECT_EQ(it - s.begin(), 13);
  EXPECT_EQ(s, "##0!efcdXY123SRC");
  s.insert(s.begin(), {'{', '}'});
  EXPECT_EQ(s, "{}##0!efcdXY123SRC");
  s = "ab";
  s.insert(1, "view"sv);
  EXPECT_EQ(s, "aviewb");
  s.insert(1, "view"sv, 1, 2);
  EXPECT_EQ(s, "aieviewb");
  s.insert_range(s.begin(), std::vector<char>{'1', '2'});
  EXPECT_EQ(s, "12aieviewb");
  s.insert(0, 0, 'x');  // not ambiguous with the iterator overload
  std::list<char> l{'L'};
  s.insert(s.end(), l.begin(), l.end());
  EXPECT_EQ(s, "12aieviewbL");
}

TEST(StringTest, InsertThrows) {
  fl::string s("abc");
  EXPECT_THROW(s.insert(4, 1, 'x'), std::out_of_range);
  EXPECT_THROW(s.insert(4, "x"), std::out_of_range);
  EXPECT_THROW(s.insert(4, "x", 1), std::out_of_range);
  EXPECT_THROW(s.insert(4, fl::string("x")), std::out_of_range);
  EXPECT_THROW(s.insert(4, fl::string("x"), 0, 1), std::out_of_range);
  EXPECT_THROW(s.insert(0, fl::string("x"), 2, 1), std::out_of_range);
  EXPECT_THROW(s.insert(4, "x"sv), std::out_of_range);
  EXPECT_THROW(s.insert(4, "x"sv, 0, 1), std::out_of_range);
  EXPECT_THROW(s.insert(0, "x"sv, 2, 1), std::out_of_range);
  EXPECT_THROW(s.insert(0, s.max_size(), 'x'), std::length_error);
  EXPECT_EQ(s, "abc");
}

TEST(StringTest, Erase) {
  fl::string s("0123456789");
  s.erase(8);
  EXPECT_EQ(s, "01234567");
  s.erase(1, 2);
  EXPECT_EQ(s, "034567");
  auto it = s.erase(s.begin() + 1);
  EXPECT_EQ(*it, '4');
  EXPECT_EQ(s, "04567");
  it = s.erase(s.begin() + 1, s.begin() + 3);
  EXPECT_EQ(*it, '6');
  EXPECT_EQ(s, "067");
  s.erase();
  EXPECT_TRUE(s.empty());
  EXPECT_THROW(s.erase(1), std::out_of_range);
  fl::string e("a,b,,c");
  EXPECT_EQ(fl::erase(e, ','), 3u);
  EXPECT_EQ(e, "abc");
  EXPECT_EQ(fl::erase_if(e, [](char c) { return c != 'b'; }), 2u);
  EXPECT_EQ(e, "b");
}

TEST(StringTest, PushPopAppend) {
  fl::string s;
  s.push_back('a');
  s += 'b';
  s += "cd";
  s += fl::string("ef");
  s += {'g', 'h'};
  s += "ij"sv;
  s += "kl"s;
  EXPECT_EQ(s, "abcdefghijkl");
  s.pop_back();
  EXPECT_EQ(s, "abcdefghijk");
  s.append(2, 'z');
  s.append(fl::string("12"));
  s.append(fl::string("0123"), 2);
  s.append(fl::string("0123"), 1, 1);
  s.append("xy\0z", 4);
  s.append("cs");
  EXPECT_EQ(s, "abcdefghijkzz12231xy\0zcs"sv);
  s = "";
  std::deque<char> d{'d', 'q'};
  s.append(d.begin(), d.end());
  s.append({'i', 'l'});
  s.append("sv"sv);
  s.append("0123"sv, 3);
  s.append("0123"sv, 0, 1);
  s.append_range(std::list<char>{'r'});
  EXPECT_EQ(s, "dqilsv30r");
}

TEST(StringTest, AppendThrows) {
  fl::string s("abc");
  EXPECT_THROW(s.append(fl::string("x"), 2), std::out_of_range);
  EXPECT_THROW(s.append("x"sv, 2), std::out_of_range);
  EXPECT_THROW(s.append(s.max_size(), 'x'), std::length_error);
  EXPECT_THROW(s.append("x", s.max_size()), std::length_error);
  EXPECT_EQ(s, "abc");
}

TEST(StringTest, Replace) {
  fl::string s("0123456789");
  s.replace(1, 2, fl::string("ab"));
  EXPECT_EQ(s, "0ab3456789");
  s.replace(s.begin(), s.begin() + 1, fl::string("XYZ"));
  EXPECT_EQ(s, "XYZab3456789");
  s.replace(0, 3, fl::string("-=+"), 1, 1);
  EXPECT_EQ(s, "=ab3456789");
  s.replace(0, 1, fl::string("-=+"), 1);
  EXPECT_EQ(s, "=+ab3456789");
  const std::string src = "IT";
  s.replace(s.begin(), s.begin() + 2, src.begin(), src.end());
  EXPECT_EQ(s, "ITab3456789");
  s.replace(0, 2, "p\0q", 3);
  EXPECT_EQ(s, "p\0qab3456789"sv);
  s.replace(s.begin(), s.begin() + 3, "pq", 1);
  EXPECT_EQ(s, "pab3456789");
  s.replace(0, 1, "cstr");
  EXPECT_EQ(s, "cstrab3456789");
  s.replace(s.begin(), s.begin() + 4, "C");
  EXPECT_EQ(s, "Cab3456789");
  s.replace(1, 2, 3, '#');
  EXPECT_EQ(s, "C###3456789");
  s.replace(s.begin(), s.begin() + 4, 1, '@');
  EXPECT_EQ(s, "@3456789");
  s.replace(s.begin(), s.begin() + 1, {'{', '}'});
  EXPECT_EQ(s, "{}3456789");
  s.replace(0, 2, "sv"sv);
  EXPECT_EQ(s, "sv3456789");
  s.replace(s.begin(), s.begin() + 2, "SV"sv);
  EXPECT_EQ(s, "SV3456789");
  s.replace(0, 2, "abcdef"sv, 2, 2);
  EXPECT_EQ(s, "cd3456789");
  s.replace(0, 100, "tail"sv);
  EXPECT_EQ(s, "tail");
  s.replace_with_range(s.begin(), s.end(), std::vector<char>{'v'});
  EXPECT_EQ(s, "v");
  std::list<char> l{'l', 'i'};
  s.replace(s.begin(), s.end(), l.begin(), l.end());
  EXPECT_EQ(s, "li");
}

TEST(StringTest, ReplaceThrows) {
  fl::string s("abc");
  EXPECT_THROW(s.replace(4, 1, fl::string("x")), std::out_of_range);
  EXPECT_THROW(s.replace(4, 1, fl::string("x"), 0, 1), std::out_of_range);
  EXPECT_THROW(s.replace(0, 1, fl::string("x"), 2, 1), std::out_of_range);
  EXPECT_THROW(s.replace(4, 1, "x", 1), std::out_of_range);
  EXPECT_THROW(s.replace(4, 1, "x"), std::out_of_range);
  EXPECT_THROW(s.replace(4, 1, 1, 'x'), std::out_of_range);
  EXPECT_THROW(s.replace(4, 1, "x"sv), std::out_of_range);
  EXPECT_THROW(s.replace(4, 1, "x"sv, 0, 1), std::out_of_range);
  EXPECT_THROW(s.replace(0, 1, "x"sv, 2, 1), std::out_of_range);
  EXPECT_THROW(s.replace(0, 1, s.max_size(), 'x'), std::length_error);
  EXPECT_EQ(s, "abc");
}

TEST(StringTest, CopyAndSwap) {
  const fl::string s("hello world");
  char buf[16] = {};
  EXPECT_EQ(s.copy(buf, 5, 6), 5u);
  EXPECT_STREQ(buf, "world");
  EXPECT_EQ(s.copy(buf, 100), 11u);
  EXPECT_EQ(s.copy(buf, 1, 11), 0u);
  EXPECT_THROW(s.copy(buf, 1, 12), std::out_of_range);
  fl::string a("short"), b("a string long enough for the heap");
  a.swap(b);
  EXPECT_EQ(a, "a string long enough for the heap");
  EXPECT_EQ(b, "short");
  swap(a, b);
  std::swap(a, b);
  std::ranges::swap(a, b);
  EXPECT_EQ(a, "short");
}

// ---- search ----

TEST(StringTest, Search) {
  const fl::string s("abcabc\0xyz", 10);
  EXPECT_EQ(s.find(fl::string("bc")), 1u);
  EXPECT_EQ(s.find("bc", 2), 4u);
  EXPECT_EQ(s.find("bcX", 0, 2), 1u);
  EXPECT_EQ(s.find('\0'), 6u);
  EXPECT_EQ(s.find("xyz"sv), 7u);
  EXPECT_EQ(s.find('q'), fl::string::npos);
  EXPECT_EQ(s.find("", 10), 10u);
  EXPECT_EQ(s.find("", 11), fl::string::npos);
  EXPECT_EQ(s.rfind(fl::string("bc")), 4u);
  EXPECT_EQ(s.rfind("bc", 3), 1u);
  EXPECT_EQ(s.rfind("bcX", 10, 2), 4u);
  EXPECT_EQ(s.rfind('a'), 3u);
  EXPECT_EQ(s.rfind("ab"sv, 2), 0u);
  EXPECT_EQ(s.find_first_of(fl::string("cx")), 2u);
  EXPECT_EQ(s.find_first_of("cx", 3), 5u);
  EXPECT_EQ(s.find_first_of("zq", 0, 1), 9u);
  EXPECT_EQ(s.find_first_of('y'), 8u);
  EXPECT_EQ(s.find_first_of("y"sv), 8u);
  EXPECT_EQ(s.find_last_of(fl::string("ab")), 4u);
  EXPECT_EQ(s.find_last_of("ab", 3), 3u);
  EXPECT_EQ(s.find_last_of("abX", 2, 1), 0u);
  EXPECT_EQ(s.find_last_of('c'), 5u);
  EXPECT_EQ(s.find_last_of("c"sv), 5u);
  EXPECT_EQ(s.find_first_not_of(fl::string("abc")), 6u);
  EXPECT_EQ(s.find_first_not_of("abc", 7), 7u);
  EXPECT_EQ(s.find_first_not_of("abc", 0, 1), 1u);
  EXPECT_EQ(s.find_first_not_of('a'), 1u);
  EXPECT_EQ(s.find_first_not_of("abc"sv), 6u);
  EXPECT_EQ(s.find_last_not_of(fl::string("xyz")), 6u);
  EXPECT_EQ(s.find_last_not_of("xyz", 5), 5u);
  EXPECT_EQ(s.find_last_not_of("zyx", fl::string::npos, 1), 8u);
  EXPECT_EQ(s.find_last_not_of('z'), 8u);
  EXPECT_EQ(s.find_last_not_of("z"sv), 8u);
  EXPECT_TRUE(s.contains("ca"));
  EXPECT_TRUE(s.contains('\0'));
  EXPECT_TRUE(s.contains("xy"sv));
  EXPECT_FALSE(s.contains("abd"));
  EXPECT_TRUE(s.starts_with("abc"));
  EXPECT_TRUE(s.starts_with('a'));
  EXPECT_TRUE(s.starts_with("ab"sv));
  EXPECT_TRUE(s.ends_with("yz"));
  EXPECT_TRUE(s.ends_with('z'));
  EXPECT_TRUE(s.ends_with("\0xyz"sv));
  EXPECT_FALSE(fl::string().starts_with('a'));
  EXPECT_FALSE(fl::string().ends_with('a'));
}

// ---- operations ----

TEST(StringTest, Compare) {
  const fl::string s("hello");
  EXPECT_EQ(s.compare(fl::string("hello")), 0);
  EXPECT_LT(s.compare(fl::string("hellp")), 0);
  EXPECT_GT(s.compare(fl::string("hell")), 0);
  EXPECT_EQ(s.compare(1, 3, fl::string("ell")), 0);
  EXPECT_EQ(s.compare(1, 3, fl::string("xell"), 1), 0);
  EXPECT_EQ(s.compare(1, 3, fl::string("xellx"), 1, 3), 0);
  EXPECT_EQ(s.compare("hello"), 0);
  EXPECT_EQ(s.compare(1, 2, "el"), 0);
  EXPECT_EQ(s.compare(1, 2, "elx", 2), 0);
  EXPECT_EQ(s.compare("hello"sv), 0);
  EXPECT_EQ(s.compare(0, 1, "h"sv), 0);
  EXPECT_EQ(s.compare(0, 1, "xh"sv, 1, 1), 0);
  EXPECT_THROW((void)s.compare(6, 1, fl::string("x")), std::out_of_range);
  EXPECT_THROW((void)s.compare(6, 1, fl::string("x"), 0), std::out_of_range);
  EXPECT_THROW((void)s.compare(0, 1, fl::string("x"), 2), std::out_of_range);
  EXPECT_THROW((void)s.compare(6, 1, "x"), std::out_of_range);
  EXPECT_THROW((void)s.compare(6, 1, "x", 1), std::out_of_range);
  EXPECT_THROW((void)s.compare(6, 1, "x"sv), std::out_of_range);
  EXPECT_THROW((void)s.compare(6, 1, "x"sv, 0), std::out_of_range);
  EXPECT_THROW((void)s.compare(0, 1, "x"sv, 2), std::out_of_range);
  EXPECT_EQ(s.compare(5, 1, ""), 0);
}

TEST(StringTest, ComparisonOperators) {
  const fl::string a("abc"), b("abd");
  EXPECT_TRUE(a == fl::string("abc"));
  EXPECT_TRUE(a != b);
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(b > a);
  EXPECT_TRUE(a <= a);
  EXPECT_EQ(a <=> b, std::strong_ordering::less);
  EXPECT_TRUE(a == "abc");
  EXPECT_TRUE("abc" == a);
  EXPECT_TRUE(a < "abd");
  EXPECT_TRUE("abd" > a);
  EXPECT_TRUE(a == "abc"sv);
  EXPECT_TRUE("abc"sv == a);
  EXPECT_TRUE(a < "abd"sv);
  EXPECT_TRUE("abd"sv > a);
  EXPECT_TRUE(a == "abc"s);
  EXPECT_TRUE("abc"s == a);
  EXPECT_TRUE(a < "abd"s);
  EXPECT_TRUE("abd"s > a);
  EXPECT_EQ("abd"s <=> a, std::strong_ordering::greater);
  EXPECT_FALSE(fl::string("a\0b", 3) == fl::string("a\0c", 3));
  EXPECT_TRUE(fl::string("a\0b", 3) < fl::string("a\0c", 3));
}

TEST(StringTest, Substr) {
  const fl::string s("0123456789abcdefghijklmnopqrstuvwxyz");
  EXPECT_EQ(s.substr(), s);
  EXPECT_EQ(s.substr(30), "uvwxyz");
  EXPECT_EQ(s.substr(2, 3), "234");
  EXPECT_EQ(s.substr(36), "");
  EXPECT_THROW((void)s.substr(37), std::out_of_range);
  fl::string t = s;
  EXPECT_EQ(std::move(t).substr(1, 30), "123456789abcdefghijklmnopqrstu");
  fl::string u = s;
  EXPECT_THROW((void)std::move(u).substr(37), std::out_of_range);
  EXPECT_EQ(u, s);
}

TEST(StringTest, HashEqualsStringViewHash) {
  const fl::string s("hash me");
  EXPECT_EQ(std::hash<fl::string>{}(s), std::hash<std::string_view>{}("hash me"));
  std::unordered_set<fl::string> set{fl::string("a"), fl::string("b")};
  EXPECT_EQ(set.count(fl::string("a")), 1u);
  std::unordered_map<fl::string, int> m;
  m[fl::string("k")] = 1;
  EXPECT_EQ(m.at(fl::string("k")), 1);
}

TEST(StringTest, Streams) {
  std::ostringstream out;
  out << fl::string("x") << std::setw(5) << fl::string("ab") << std::left << std::setw(4)
      << fl::string("c") << '|';
  EXPECT_EQ(out.str(), "x   abc   |");
  std::istringstream in("  first second\nthird line\n\nlast");
  fl::string w;
  in >> w;
  EXPECT_EQ(w, "first");
  in >> std::setw(3) >> w;
  EXPECT_EQ(w, "sec");
  EXPECT_TRUE(fl::getline(in, w));
  EXPECT_EQ(w, "ond");
  EXPECT_TRUE(fl::getline(in, w, ' '));
  EXPECT_EQ(w, "third");
  EXPECT_TRUE(fl::getline(in, w));
  EXPECT_EQ(w, "line");
  EXPECT_TRUE(fl::getline(in, w));
  EXPECT_EQ(w, "");
  EXPECT_TRUE(fl::getline(in, w));
  EXPECT_EQ(w, "last");
  EXPECT_TRUE(in.eof());
  EXPECT_FALSE(fl::getline(in, w));
  EXPECT_TRUE(in.fail());
  std::istringstream empty("   ");
  empty >> w;
  EXPECT_TRUE(empty.fail());
  EXPECT_TRUE(empty.eof());
  EXPECT_TRUE(fl::getline(std::istringstream("rvalue;rest"), w, ';'));
  EXPECT_EQ(w, "rvalue");
  EXPECT_TRUE(fl::getline(std::istringstream("rv\nx"), w));
  EXPECT_EQ(w, "rv");
  std::string big(5000, 'b');
  std::istringstream bin(big + " tail");
  bin >> w;
  EXPECT_EQ(w, big);
}

// ---- the aliasing cases the older library got wrong ----

TEST(StringTest, SelfAppendAcrossInlineToHeap) {
  for (std::size_t n = 0; n < 40; ++n) {
    fl::string s(n, 'a');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
    std::string ref(s.data(), s.size());
    s += s;
    ref += ref;
    EXPECT_EQ(s, ref) << n;
    s.append(s);
    ref.append(ref);
    EXPECT_EQ(s, ref) << n;
    if (n > 0) {
      s.append(s, 1, 5);
      ref.append(ref, 1, 5);
      EXPECT_EQ(s, ref) << n;
    }
  }
}

TEST(StringTest, SelfInsertAndReplace) {
  for (std::size_t n = 8; n < 40; ++n) {
    std::string ref;
    for (std::size_t i = 0; i < n; ++i) ref.push_back(static_cast<char>('A' + i));
    fl::string s(ref);
    s.insert(0, s.data() + 3, 5);
    ref.insert(0, ref.data() + 3, 5);
    EXPECT_EQ(s, ref) << n;
    s.replace(1, 2, s);
    ref.replace(1, 2, ref);
    EXPECT_EQ(s, ref) << n;
    s.replace(2, 1, s.data() + 1, 6);  // source straddles the replaced part
    ref.replace(2, 1, ref.data() + 1, 6);
    EXPECT_EQ(s, ref) << n;
    s.replace(0, 6, s.data() + 3, 2);
    ref.replace(0, 6, ref.data() + 3, 2);
    EXPECT_EQ(s, ref) << n;
    s.insert(s.size() / 2, s);
    ref.insert(ref.size() / 2, ref);
    EXPECT_EQ(s, ref) << n;
    s.insert(s.begin() + 2, s.begin(), s.begin() + 4);
    ref.insert(ref.begin() + 2, ref.begin(), ref.begin() + 4);
    EXPECT_EQ(s, ref) << n;
    s.replace(s.begin(), s.begin() + 2, s.rbegin(), s.rbegin() + 7);
    ref.replace(ref.begin(), ref.begin() + 2, ref.rbegin(), ref.rbegin() + 7);
    EXPECT_EQ(s, ref) << n;
  }
}

}  // namespace
