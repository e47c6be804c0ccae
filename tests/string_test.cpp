// Unit tests of fl::basic_string, one group of the API at a time, every
// exception path, the layout promises, the concatenation protocol and the
// buffer hand-over. The random differential test is string_differential_test.
#include <fl/string.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <array>
#include <deque>
#include <list>
#include <map>
#include <random>
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

// An allocator that records every block, checks that each is freed with the
// byte count it was allocated with, and lets a test ask how big the block
// behind a pointer really is (so capacity() can be checked against it).
using fl_test::alloc_log;
using fl_test::counting_allocator;
using counted_string = fl::basic_string<counting_allocator<char>>;

// Checks the invariants a user can observe, plus the block size behind a heap
// string of the counting allocator.
void expect_sane(const counted_string& s) {
  EXPECT_LE(s.size(), s.capacity());
  EXPECT_EQ(s.c_str()[s.size()], '\0');
  auto it = alloc_log::live.find(s.data());
  if (it != alloc_log::live.end()) {
    EXPECT_LE(s.capacity() + 1, it->second) << "capacity() claims more than the block holds";
    EXPECT_EQ(s.capacity() + 1, it->second) << "the whole block should be usable capacity";
  } else {
    EXPECT_EQ(s.capacity(), 23u);
  }
}

// A minimal concatenation expression for the protocol of concat_fwd.hpp:
// reads a string by reference (as the real expressions do) and a view.
struct test_expr {
  const fl::string* a;
  std::string_view b;
  std::size_t size() const noexcept { return a->size() + b.size(); }
  char* write(char* out) const noexcept {
    std::memcpy(out, a->data(), a->size());
    std::memcpy(out + a->size(), b.data(), b.size());
    return out + a->size() + b.size();
  }
};

}  // namespace

template <>
struct fl::detail::is_concat_expr<test_expr> : std::true_type {};

namespace {

// ---- layout ----

TEST(StringTest, LayoutIs24BytesStandardLayout) {
  static_assert(sizeof(fl::string) == 24);
  static_assert(std::is_standard_layout_v<fl::string>);
  static_assert(std::is_nothrow_move_constructible_v<fl::string>);
  static_assert(std::is_nothrow_move_assignable_v<fl::string>);
  static_assert(std::is_nothrow_swappable_v<fl::string>);
  static_assert(std::contiguous_iterator<fl::string::iterator>);
  static_assert(std::contiguous_iterator<fl::string::const_iterator>);
  static_assert(std::ranges::contiguous_range<fl::string>);
  static_assert(std::is_convertible_v<fl::string, std::string_view>);
  static_assert(
      std::is_convertible_v<std::string, fl::string>);  // implicit, so std::string code ports
  static_assert(
      std::is_convertible_v<fl::string, std::string>);  // a copy, where const std::string& is taken
  static_assert(
      !std::is_convertible_v<std::string_view, fl::string>);  // explicit, as in the standard
  static_assert(std::is_constructible_v<fl::string, std::string>);
  static_assert(!std::is_constructible_v<fl::string, std::nullptr_t>);
  static_assert(fl::string::npos == std::string_view::npos);
  static_assert(sizeof(fl::pmr::string) == 32);
}

TEST(StringTest, InlineBytesAreTheDocumentedLayout) {
  fl::string s("abc");
  const auto* b = reinterpret_cast<const unsigned char*>(&s);
  EXPECT_EQ(b[0], 'a');
  EXPECT_EQ(b[3], 0);
  EXPECT_EQ(b[23], 23 - 3);
  fl::string full(23, 'z');
  b = reinterpret_cast<const unsigned char*>(&full);
  EXPECT_EQ(b[22], 'z');
  EXPECT_EQ(b[23], 0);  // the length byte doubles as the terminator
  EXPECT_EQ(full.c_str()[23], '\0');
  EXPECT_EQ(full.capacity(), 23u);
  fl::string heap(24, 'h');
  b = reinterpret_cast<const unsigned char*>(&heap);
  EXPECT_NE(b[23] & 0x80, 0);
  EXPECT_GE(heap.capacity(), 24u);
}

TEST(StringTest, ShortStringsNeverAllocate) {
  alloc_log::allocations = 0;
  {
    counted_string a;
    counted_string b("12345678901234567890123");
    counted_string c(b);
    counted_string d(std::move(c));
    a = b;
    a += "";
    d.clear();
    d.append(23, 'x');
    for (int i = 0; i < 23; ++i) c.push_back('y');
    EXPECT_EQ(b.size(), 23u);
  }
  EXPECT_EQ(alloc_log::allocations, 0u);
  const auto before = fl::pool_stats();
  {
    fl::string s;
    for (int i = 0; i < 23; ++i) s.push_back('a');
    fl::string t = s;
    t.assign("short");
  }
  const auto after = fl::pool_stats();
  EXPECT_EQ(after.hits + after.misses, before.hits + before.misses);
}

TEST(StringTest, CapacityNeverExceedsTheBlock) {
  alloc_log::mismatched_frees = 0;
  {
    counted_string s;
    for (int i = 0; i < 5000; ++i) {
      s.push_back(static_cast<char>('a' + i % 26));
      expect_sane(s);
    }
    s.shrink_to_fit();
    expect_sane(s);
    s.reserve(9000);
    expect_sane(s);
    EXPECT_GE(s.capacity(), 9000u);
    s.resize(10);
    s.shrink_to_fit();
    expect_sane(s);
    EXPECT_EQ(s, "abcdefghij");
    counted_string t(100, 'q');
    expect_sane(t);
    t.append(t);
    expect_sane(t);
    t.insert(3, t.data(), 50);
    expect_sane(t);
    t.assign(1000, 'r');
    expect_sane(t);
  }
  EXPECT_EQ(alloc_log::mismatched_frees, 0u);
  EXPECT_TRUE(alloc_log::live.empty());
}

TEST(StringTest, PoolCapacityUsesWholeSizeClass) {
  fl::string s(100, 'a');
  EXPECT_EQ(s.capacity() + 1, fl::detail::pool_good_size(s.capacity() + 1));
  EXPECT_GE(s.capacity(), 100u);
  for (int i = 0; i < 3000; ++i) s.push_back('b');
  EXPECT_EQ(s.capacity() + 1, fl::detail::pool_good_size(s.capacity() + 1));
}

TEST(StringTest, GrowthIsGeometric) {
  fl::string s;
  std::size_t changes = 0, cap = s.capacity();
  for (int i = 0; i < 100000; ++i) {
    s.push_back('x');
    if (s.capacity() != cap) {
      EXPECT_GE(s.capacity(), cap + cap / 2);
      cap = s.capacity();
      ++changes;
    }
  }
  EXPECT_LT(changes, 20u);
}

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

// ---- concatenation protocol ----

TEST(StringTest, ConcatExpressionProtocol) {
  static_assert(fl::detail::concat_expr<test_expr>);
  fl::string s("abc");
  fl::string c = test_expr{&s, "def"};  // implicit constructor
  EXPECT_EQ(c, "abcdef");
  fl::string big(30, 'b');
  fl::string h = test_expr{&big, "!"};
  EXPECT_EQ(h, std::string(30, 'b') + "!");
  s = test_expr{&s, "x"};  // reads *this
  EXPECT_EQ(s, "abcx");
  big = test_expr{&big, "yz"};
  EXPECT_EQ(big, std::string(30, 'b') + "yz");
  s += test_expr{&s, "!"};  // s += s + "!", in place
  EXPECT_EQ(s, "abcxabcx!");
  s.append(test_expr{&s, "0123456789"});  // grows across the inline limit
  EXPECT_EQ(s, "abcxabcx!abcxabcx!0123456789");
  big += test_expr{&big, ""};
  EXPECT_EQ(big, std::string(32, 'b').replace(30, 2, "yz") + std::string(30, 'b') + "yz");
  counted_string::allocator_type a;
  (void)a;
  fl::pmr::string p(test_expr{&s, "?"}, std::pmr::polymorphic_allocator<char>());
  EXPECT_EQ(p, "abcxabcx!abcxabcx!0123456789?");
}

TEST(StringTest, ConcatExpressionAllocatesOnce) {
  fl::string s(100, 'x');
  s.shrink_to_fit();
  const auto before = fl::pool_stats();
  s += test_expr{&s, "tail"};
  const auto after = fl::pool_stats();
  EXPECT_LE((after.hits + after.misses) - (before.hits + before.misses), 1u);
  EXPECT_EQ(s, std::string(200, 'x') + "tail");
}

// ---- buffer hand-over ----

TEST(StringTest, StringAccessReleaseAndAdopt) {
  fl::string s(100, 'r');
  const char* p = s.data();
  fl::detail::heap_block b = fl::detail::string_access::release(s);
  EXPECT_EQ(b.data, p);
  EXPECT_EQ(b.size, 100u);
  EXPECT_GE(b.capacity, 100u);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.capacity(), 23u);
  fl::string t = fl::detail::string_access::adopt(b);
  EXPECT_EQ(t.data(), p);
  EXPECT_EQ(t, std::string(100, 'r'));
  t.append(1000, 'x');  // a handed-over block grows like any other
  EXPECT_EQ(t.size(), 1100u);

  fl::string small("inline");
  b = fl::detail::string_access::release(small);
  EXPECT_EQ(b.data, nullptr);
  EXPECT_EQ(small, "inline");

  char* raw = static_cast<char*>(fl::detail::pool_allocate(8));
  std::memcpy(raw, "tiny", 4);
  fl::string tiny = fl::detail::string_access::adopt({raw, 4, 7});
  EXPECT_EQ(tiny, "tiny");
  EXPECT_EQ(tiny.capacity(), 7u);
  tiny += "-grown";
  EXPECT_EQ(tiny, "tiny-grown");
  EXPECT_TRUE(fl::detail::string_access::adopt({nullptr, 0, 0}).empty());
}

// push_back and append have one fast path per mode; a heap string may hold a
// block smaller than the inline capacity (adopt), so both paths must test the
// real capacity, and every step must leave the terminator in place.
TEST(StringTest, FastPathsKeepTerminatorInBothModes) {
  char* raw = static_cast<char*>(fl::detail::pool_allocate(4));
  fl::string h = fl::detail::string_access::adopt({raw, 0, 3});
  fl::string i;
  std::string want;
  for (int k = 0; k < 300; ++k) {
    const char c = static_cast<char>('a' + k % 26);
    want.push_back(c);
    h.push_back(c);
    i.push_back(c);
    ASSERT_EQ(std::string_view(h), want) << k;
    ASSERT_EQ(std::string_view(i), want) << k;
    ASSERT_EQ(h.c_str()[h.size()], '\0') << k;
    ASSERT_EQ(i.c_str()[i.size()], '\0') << k;
  }
  for (std::size_t n = 0; n <= 30; ++n) {
    fl::string a("0123456789", 10 - n % 10);
    std::string b(a.data(), a.size());
    const std::string piece(n, static_cast<char>('A' + n));
    for (int k = 0; k < 5; ++k) {
      a.append(piece.data(), piece.size());
      b.append(piece);
      ASSERT_EQ(std::string_view(a), b) << n << " " << k;
      ASSERT_EQ(a.c_str()[a.size()], '\0');
    }
  }
}

TEST(StringTest, CompareAndCopyAssignAcrossModesAndLengths) {
  for (std::size_t n : {0u, 1u, 15u, 16u, 22u, 23u, 24u, 31u, 32u, 33u, 63u, 64u, 65u, 200u}) {
    for (std::size_t m : {0u, 1u, 23u, 24u, 32u, 33u, 64u, 65u, 200u}) {
      const std::string sa(n, 'q'), sb(m, 'q');
      const fl::string a(sa), b(sb);
      EXPECT_EQ((a.compare(b) > 0) - (a.compare(b) < 0),
                (sa.compare(sb) > 0) - (sa.compare(sb) < 0))
          << n << " " << m;
      fl::string out(300, 'z');  // heap, big enough: reused
      out = a;
      EXPECT_EQ(std::string_view(out), sa);
      EXPECT_EQ(out.c_str()[n], '\0');
      fl::string shortout("x");
      shortout = b;
      EXPECT_EQ(std::string_view(shortout), sb);
    }
  }
  std::string x(64, 'a'), y = x;
  y[63] = 'b';
  EXPECT_LT(fl::string(x).compare(fl::string(y)), 0);
  y[63] = 'a';
  y[0] = 'B';
  EXPECT_GT(fl::string(x).compare(fl::string(y)), 0);
}

TEST(StringTest, CompareOfHeapStringsOrdersBytesAsUnsigned) {
  // Two heap strings are ordered by their first 8 bytes as a big-endian word
  // when those differ: every byte value (0x80..0xff above 0x7f, as memcmp),
  // differences at each of the 8 positions and past them, short heap strings.
  std::mt19937_64 rng(fl_test::test_seed());
  const auto sign = [](int v) { return (v > 0) - (v < 0); };
  for (int i = 0; i < 20'000; ++i) {
    std::string sa(rng() % 20, '\0'), sb;
    for (char& c : sa) c = static_cast<char>(rng() % 4 == 0 ? rng() : 'a' + rng() % 3);
    sb = sa.substr(0, rng() % (sa.size() + 1));
    sb.resize(rng() % 20, 'a');
    if (!sb.empty() && rng() % 2) sb[rng() % sb.size()] = static_cast<char>(rng());
    fl::string a(sa), b(sb);
    a.reserve(40);  // heap mode, whatever the length
    b.reserve(40);
    ASSERT_EQ(sign(a.compare(b)), sign(sa.compare(sb)))
        << "seed " << fl_test::test_seed() << " i " << i;
    ASSERT_EQ(sign(b.compare(a)), sign(sb.compare(sa)));
  }
}

// ---- allocators ----

TEST(StringTest, PmrStringUsesItsResource) {
  std::array<std::byte, 4096> buf;
  std::pmr::monotonic_buffer_resource mr(buf.data(), buf.size(), std::pmr::null_memory_resource());
  fl::pmr::string s("a pmr string longer than twenty three", &mr);
  EXPECT_EQ(s.get_allocator().resource(), &mr);
  const auto* d = reinterpret_cast<const std::byte*>(s.data());
  EXPECT_TRUE(d >= buf.data() && d < buf.data() + buf.size());
  fl::pmr::string copy(s);  // select_on_container_copy_construction: default resource
  EXPECT_EQ(copy.get_allocator().resource(), std::pmr::get_default_resource());
  EXPECT_EQ(copy, s);
}

}  // namespace
