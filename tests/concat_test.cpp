// Tests for operator+ (std::string's semantics: every + returns a string that
// owns its text) and for fl::concat / fl::append (one allocation, numbers).
#include <fl/concat.hpp>
#include <fl/string.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory_resource>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using fl_test::pool_allocations;
using fl_test::test_seed;

// Random text of 0..40 chars, so operands and results cross the 23-char
// inline limit in both directions.
std::string random_text(std::mt19937_64& rng) {
  const std::size_t n = rng() % 41;
  return fl_test::random_text(rng, n, 90, '!');
}

fl::string make_fl(const std::string& s) { return fl::string(std::string_view(s)); }

// Operand kinds for the exhaustive chains: each makes the operand `+` sees
// from a std::string value, and the std::string equivalent.
enum kind { fl_lvalue, fl_rvalue, std_lvalue, std_rvalue, view, c_string, single_char, kind_count };

template <int K>
struct operand_maker;
template <>
struct operand_maker<fl_lvalue> {
  fl::string value;
  explicit operand_maker(const std::string& s) : value(make_fl(s)) {}
  fl::string& get() { return value; }
};
template <>
struct operand_maker<fl_rvalue> {
  std::string src;
  explicit operand_maker(const std::string& s) : src(s) {}
  fl::string get() { return make_fl(src); }
};
template <>
struct operand_maker<std_lvalue> {
  std::string value;
  explicit operand_maker(const std::string& s) : value(s) {}
  const std::string& get() { return value; }
};
template <>
struct operand_maker<std_rvalue> {
  std::string src;
  explicit operand_maker(const std::string& s) : src(s) {}
  std::string get() { return src; }
};
template <>
struct operand_maker<view> {
  std::string value;
  explicit operand_maker(const std::string& s) : value(s) {}
  std::string_view get() { return value; }
};
template <>
struct operand_maker<c_string> {
  std::string value;
  explicit operand_maker(const std::string& s) : value(s) {}
  const char* get() { return value.c_str(); }
};
template <>
struct operand_maker<single_char> {
  char value;
  explicit operand_maker(const std::string& s) : value(s.empty() ? 'c' : s[0]) {}
  char get() { return value; }
  std::string text() const { return std::string(1, value); }
};

template <int K>
std::string text_of(const operand_maker<K>& m, const std::string& s) {
  if constexpr (K == single_char) {
    return m.text();
  } else {
    (void)m;
    return s;
  }
}

template <class A, class B>
concept addable = requires(A a, B b) {
  a + b;
};

// Whether fl's + applies: one side is an fl string (std + std keeps its meaning).
template <class L, class R>
inline constexpr bool fl_plus = fl::detail::is_fl_string_v<L> || fl::detail::is_fl_string_v<R>;

template <int K1, int K2, int K3>
void check_triple(std::mt19937_64& rng, std::uint64_t seed) {
  using L = decltype(std::declval<operand_maker<K1>&>().get());
  using M = decltype(std::declval<operand_maker<K2>&>().get());
  using R = decltype(std::declval<operand_maker<K3>&>().get());
  if constexpr (fl_plus<L, M>) {
    const std::string a = random_text(rng), b = random_text(rng), c = random_text(rng);
    operand_maker<K1> x(a);
    operand_maker<K2> y(b);
    operand_maker<K3> z(c);
    const std::string want = text_of(x, a) + text_of(y, b) + text_of(z, c);
    auto got = x.get() + y.get() + z.get();  // a value: nothing it came from is read later
    static_assert(std::is_same_v<decltype(got), fl::string>);
    ASSERT_EQ(std::string_view(got), want) << "seed " << seed << " kinds " << K1 << K2 << K3;
    // Right-nested too: a + (b + c), when b + c is an fl string.
    if constexpr (fl_plus<M, R>) {
      const fl::string r = x.get() + (y.get() + z.get());
      ASSERT_EQ(std::string_view(r), want)
          << "seed " << seed << " kinds " << K1 << K2 << K3 << " nested";
    }
  }
}

template <int K1, int K2, int... K3>
void check_row(std::mt19937_64& rng, std::uint64_t seed, std::integer_sequence<int, K3...>) {
  (check_triple<K1, K2, K3>(rng, seed), ...);
}
template <int K1, int... K2>
void check_plane(std::mt19937_64& rng, std::uint64_t seed, std::integer_sequence<int, K2...>) {
  (check_row<K1, K2>(rng, seed, std::make_integer_sequence<int, kind_count>()), ...);
}
template <int... K1>
void check_all(std::mt19937_64& rng, std::uint64_t seed, std::integer_sequence<int, K1...>) {
  (check_plane<K1>(rng, seed, std::make_integer_sequence<int, kind_count>()), ...);
}

fl::string temp_heap(const char* tag) { return fl::string(tag) + " is a long temporary string"; }

// The returned string was built from a local that is gone when it is read.
template <class S>
auto plus_local(const S& t) {
  S local(40, 'x');
  return local + t;
}

}  // namespace

// ---- compile-time contract ----

static_assert(std::is_same_v<decltype(std::declval<fl::string&>() + "x"), fl::string>);
static_assert(std::is_same_v<decltype("x" + std::declval<fl::string&>() + 'c'), fl::string>);
static_assert(std::is_same_v<decltype(std::declval<fl::pmr::string&>() + "x"), fl::pmr::string>);
static_assert(std::is_same_v<decltype(std::declval<std::string&>() + std::declval<std::string&>()),
                             std::string>);
static_assert(addable<fl::string&, const char*> && addable<char, const fl::string&>);
static_assert(addable<fl::string&, std::string_view> && addable<std::string, fl::string>);
static_assert(!addable<fl::string&, int>, "s + 42 must not compile: use fl::concat");
static_assert(!addable<const fl::string&, int> && !addable<fl::string, int>,
              "s + 0 must not compile");
static_assert(!addable<fl::string&, double>);
static_assert(!addable<fl::string&, std::nullptr_t>);
static_assert(!addable<fl::string&, const wchar_t*>);
static_assert(!addable<fl::string&, int*>);
static_assert(!addable<fl::string&, fl::pmr::string&>,
              "like std::string, no + across allocator types");

// ---- operator+ ----

TEST(StringPlusTest, EveryOperandKindInEveryPosition) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 30; ++round)
    check_all(rng, seed, std::make_integer_sequence<int, kind_count>());
}

TEST(StringPlusDifferential, RandomChainsAgreeWithStdString) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int step = 0; step < 5'000; ++step) {
    const std::string a = random_text(rng), b = random_text(rng), c = random_text(rng),
                      d = random_text(rng);
    const char ch = static_cast<char>('a' + rng() % 26);
    const fl::string fa = make_fl(a), fd = make_fl(d);
    const std::string want = a + "/" + b + ch + c + " => " + d;
    const fl::string got = fa + "/" + std::string_view(b) + ch + make_fl(c) + " => " + fd;
    ASSERT_EQ(std::string_view(got), want) << "seed " << seed << " step " << step;
    fl::string assigned = "old value that is long enough to be on the heap";
    assigned = fa + "/" + std::string_view(b) + ch + make_fl(c) + " => " + fd;
    ASSERT_EQ(std::string_view(assigned), want) << "seed " << seed << " step " << step;
    fl::string appended = make_fl(a);
    appended += b + fd;  // b: std::string lvalue on the left of an fl string
    ASSERT_EQ(std::string_view(appended), a + b + d) << "seed " << seed << " step " << step;
    // Rvalues on the right: inserted in front, as std::string does.
    const fl::string front = a + ("-" + (make_fl(c) + ch));
    ASSERT_EQ(std::string_view(front), a + ("-" + (c + ch))) << "seed " << seed << " step " << step;
    const fl::string both = make_fl(a) + make_fl(b);
    ASSERT_EQ(std::string_view(both), a + b) << "seed " << seed << " step " << step;
  }
}

TEST(StringPlusTest, AutoHoldsTheValueOfThatMoment) {
  fl::string a = "ab";
  const fl::string b = "cd";
  auto t = a + b;
  a = "changed";
  const fl::string u = t;
  EXPECT_EQ(u, "abcd");
  EXPECT_EQ(a + b, "changedcd");
}

TEST(StringPlusTest, ReturningLocalPlusOperandIsSafe) {
  // Under ASan a dangling result would be a stack-use-after-scope here.
  const auto r = plus_local(fl::string("tail"));
  EXPECT_EQ(r, std::string(40, 'x') + "tail");
  EXPECT_EQ(plus_local(std::string("tail")), std::string(r));
}

TEST(StringPlusTest, OperandsMayDieOrMoveAfterThePlus) {
  std::vector<fl::string> v{"first element, long enough to live on the heap"};
  const fl::string a = "+a";
  auto first = v[0] + a;
  for (int i = 0; i < 100; ++i) v.emplace_back("more elements, so that the vector reallocates");
  EXPECT_EQ(first, "first element, long enough to live on the heap+a");
  fl::string x =
      fl::string("left operand, long enough for the heap") + fl::string("and a temporary") + "lit";
  auto y = temp_heap("f()") + '-' + std::string("a temporary std::string beyond SSO size");
  auto z = std::string("std temp, long enough to allocate its buffer") + a;
  fl::string churn = fl::string(std::string(1000, 'n')) + std::string(1000, 'm');
  EXPECT_EQ(x, "left operand, long enough for the heapand a temporarylit");
  EXPECT_EQ(y, "f() is a long temporary string-a temporary std::string beyond SSO size");
  EXPECT_EQ(z, "std temp, long enough to allocate its buffer+a");
  EXPECT_EQ(churn.size(), 2000u);
}

TEST(StringPlusTest, ResultIsAStringWithEveryMember) {
  const fl::string a = "abc", b = "def";
  EXPECT_STREQ((a + b).c_str(), "abcdef");
  EXPECT_EQ((a + b).size(), 6u);
  EXPECT_EQ((a + b).find("cd"), 2u);
  auto s = a + b;
  s += "x";
  EXPECT_EQ(s, "abcdefx");
  const std::string_view v = s;  // a named result converts to a view
  EXPECT_EQ(v, "abcdefx");
  auto takes_view = [](std::string_view t) { return t.size(); };
  auto takes_std = [](const std::string& t) { return t; };
  EXPECT_EQ(takes_view(a + b), 6u);
  EXPECT_EQ(takes_std(a + b), "abcdef");
  const std::string as_std = a + b;
  EXPECT_EQ(as_std, "abcdef");
  std::ostringstream os;
  os << a + "-" + b;
  EXPECT_EQ(os.str(), "abc-def");
}

TEST(StringPlusTest, ChainGrowsOneBufferGeometrically) {
  const fl::string s1 = "1234567", s2 = "12345678901234567890", s3 = ".ext",
                   s4 = " /* my comment about this */";
  auto before = pool_allocations();
  fl::string s = s1 + "/" + s2 + s3 + " => " + s4;
  // 8 chars inline, then one block at 28 chars and one more at 64: each
  // growth at least doubles, so a chain costs O(log n) allocations.
  EXPECT_LE(pool_allocations() - before, 2u);
  EXPECT_EQ(s, "1234567/12345678901234567890.ext =>  /* my comment about this */");
  before = pool_allocations();
  fl::string small = s1 + "/" + s3 + 'x';  // 13 chars: inline, no allocation
  EXPECT_EQ(pool_allocations(), before);
  EXPECT_EQ(small, "1234567/.extx");
  fl::string big;
  before = pool_allocations();
  for (int i = 0; i < 1000; ++i) big = std::move(big) + s4;
  EXPECT_LE(pool_allocations() - before, 12u);  // 28,000 chars: about log2(28000 / 23) blocks
  EXPECT_EQ(big.size(), 28'000u);
}

TEST(StringPlusTest, PassesToFunctionsTakingStrings) {
  auto by_value = [](fl::string s) { return s.size(); };
  auto by_ref = [](const fl::string& s) { return s; };
  const fl::string a = "abc";
  EXPECT_EQ(by_value(a + "def" + 'g'), 7u);
  EXPECT_EQ(by_ref(a + a), "abcabc");
  fl::pmr::string p = fl::pmr::string("pmr") + std::string_view(a);
  EXPECT_EQ(std::string_view(p), "pmrabc");
}

TEST(StringPlusTest, SelfReferenceIsSafe) {
  fl::string s = "abcdefghijklmnopqrstuvwxyz0123456789";
  s = s + "|" + s;
  EXPECT_EQ(s, "abcdefghijklmnopqrstuvwxyz0123456789|abcdefghijklmnopqrstuvwxyz0123456789");
  fl::string t = "xy";
  t += t + t;
  EXPECT_EQ(t, "xyxyxy");
  fl::string v(std::string(30, 'v'));
  v = std::move(v) + v;  // appends itself to itself
  EXPECT_EQ(v, std::string(60, 'v'));
  fl::string w(std::string(30, 'w'));
  w = w + std::move(w);  // inserts itself in front of itself
  EXPECT_EQ(w, std::string(60, 'w'));
}

TEST(StringPlusTest, Comparisons) {
  const fl::string a = "apple", b = "banana";
  EXPECT_TRUE(a + b == "applebanana");
  EXPECT_TRUE("applebanana" == a + b);
  EXPECT_TRUE(a + b != "applebananas");
  EXPECT_TRUE(a + b == std::string("applebanana"));
  EXPECT_TRUE(std::string("applebanana") == a + b);
  EXPECT_TRUE(a + b == std::string_view("applebanana"));
  EXPECT_TRUE(a + b < b + a);
  EXPECT_TRUE(b + a > "b");
  EXPECT_EQ((a + "a") <=> std::string_view("apple"), std::strong_ordering::greater);
  EXPECT_EQ("apple" <=> (a + "a"), std::strong_ordering::less);
}

TEST(StringPlusTest, AllocationFailureLeavesOperandsAndTargetUnchanged) {
  // A pmr string over a resource that refuses: + throws std::bad_alloc when it
  // needs a block, and nothing it was given changes.
  std::pmr::memory_resource* none = std::pmr::null_memory_resource();
  fl::pmr::string target("short", none);
  const fl::pmr::string big(std::string_view("a text longer than twenty-three chars"));
  EXPECT_THROW(target += std::string(100, 'b') + "!", std::bad_alloc);
  EXPECT_EQ(std::string_view(target), "short");
  // As for std::pmr::string, a new result gets select_on_container_copy_
  // construction's allocator (the default resource); an rvalue keeps its own.
  EXPECT_EQ((target + std::string(100, 'b')).get_allocator().resource(),
            std::pmr::get_default_resource());
  EXPECT_THROW(std::move(target) + std::string(100, 'b'), std::bad_alloc);
  EXPECT_EQ(std::string_view(target), "short");
  EXPECT_THROW(fl::append(target, big, 42), std::bad_alloc);
  EXPECT_EQ(std::string_view(target), "short");
  target += fl::string("abc") + 'd';  // fits inline: no allocation needed
  EXPECT_EQ(std::string_view(target), "shortabcd");
  EXPECT_EQ(std::string_view(big), "a text longer than twenty-three chars");
}

// ---- fl::concat / fl::append ----

TEST(ConcatTest, IntegersOfEveryWidth) {
  EXPECT_EQ(fl::concat(std::numeric_limits<std::int8_t>::min(), ' ',
                       std::numeric_limits<std::uint8_t>::max()),
            "-128 255");
  EXPECT_EQ(fl::concat(std::numeric_limits<short>::min(), ' ',
                       std::numeric_limits<unsigned short>::max()),
            "-32768 65535");
  EXPECT_EQ(fl::concat(std::numeric_limits<int>::min(), ' ', std::numeric_limits<unsigned>::max()),
            "-2147483648 4294967295");
  EXPECT_EQ(fl::concat(std::numeric_limits<long long>::min(), ' ',
                       std::numeric_limits<unsigned long long>::max()),
            "-9223372036854775808 18446744073709551615");
  EXPECT_EQ(fl::concat(0, 0L, 0UL, static_cast<signed char>(-1)), "000-1");
}

TEST(ConcatTest, IntegersAtEveryDigitBoundaryMatchToChars) {
  // Integers are measured before they are written (detail::decimal_digits):
  // every power of ten and its neighbours, in both signs, and random values.
  auto want = [](auto v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  };
  std::uint64_t p = 1;
  for (int d = 0; d < 20; ++d, p *= 10) {
    for (std::uint64_t v : {p - 1, p, p + 1}) {
      ASSERT_EQ(std::string_view(fl::concat(v)), want(v)) << v;
      const auto sv = static_cast<long long>(v);
      ASSERT_EQ(std::string_view(fl::concat(sv)), want(sv)) << sv;
      ASSERT_EQ(std::string_view(fl::concat(-sv)), want(-sv)) << sv;
    }
  }
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 100'000; ++i) {
    const std::uint64_t v = rng() >> (rng() % 64);
    ASSERT_EQ(std::string_view(fl::concat(v, ',', static_cast<std::int64_t>(v))),
              want(v) + ',' + want(static_cast<std::int64_t>(v)))
        << "seed " << seed;
  }
  // Wider integers (gcc's 128-bit ones) take the std::to_chars operand.
  __extension__ using i128 = __int128;
  __extension__ using u128 = unsigned __int128;
  const i128 big = static_cast<i128>(std::numeric_limits<std::int64_t>::min()) * 1000;
  EXPECT_EQ(fl::concat(big), want(big));
  EXPECT_EQ(fl::concat(static_cast<u128>(-1)), want(static_cast<u128>(-1)));
}

TEST(ConcatTest, FloatingPointIsShortestRoundTrip) {
  EXPECT_EQ(fl::concat(0.1), "0.1");
  EXPECT_EQ(fl::concat(1e100), "1e+100");
  EXPECT_EQ(fl::concat(-0.0), "-0");
  EXPECT_EQ(fl::concat(0.1f), "0.1");
  EXPECT_EQ(fl::concat(1.5L), "1.5");
  EXPECT_EQ(fl::concat(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(fl::concat(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(fl::concat(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(fl::concat(-std::numeric_limits<double>::denorm_min()), "-5e-324");
  EXPECT_EQ(fl::concat(std::numeric_limits<double>::lowest()), "-1.7976931348623157e+308");
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 20'000; ++i) {
    double d;
    const std::uint64_t bits = rng();
    std::memcpy(&d, &bits, sizeof d);
    if (std::isnan(d)) continue;
    const fl::string s = fl::concat(d);
    double back = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), back);
    ASSERT_EQ(r.ec, std::errc()) << "seed " << seed << " text " << s.c_str();
    ASSERT_EQ(back, d) << "seed " << seed << " text " << s.c_str();
    char want[64];
    const auto w = std::to_chars(want, want + sizeof want, d);
    ASSERT_EQ(std::string_view(s), std::string_view(want, static_cast<std::size_t>(w.ptr - want)));
    float f;
    const std::uint32_t fbits = static_cast<std::uint32_t>(bits);
    std::memcpy(&f, &fbits, sizeof f);
    if (std::isnan(f)) continue;
    const fl::string fs = fl::concat(f);
    float fback = 0;
    std::from_chars(fs.data(), fs.data() + fs.size(), fback);
    ASSERT_EQ(fback, f) << "seed " << seed << " text " << fs.c_str();
  }
}

TEST(ConcatTest, DecimalLikeDoublesMatchToChars) {
  // The values the fast path of src/concat/concat.cpp takes: few significant digits,
  // magnitudes 1e-7..1e17 (past both ends of the fast range), integers with
  // trailing zeros (where scientific is shorter) and ties of both notations.
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 200'000; ++i) {
    const int digits = 1 + static_cast<int>(rng() % 17);
    std::uint64_t m = rng() % 100000000000000000ULL;
    for (int d = digits; d < 17; ++d) m /= 10;
    const int exp10 = static_cast<int>(rng() % 25) - 12;
    double v = static_cast<double>(m);
    v = exp10 >= 0 ? v * std::pow(10.0, exp10) : v / std::pow(10.0, -exp10);
    if (rng() % 2) v = -v;
    if (rng() % 16 == 0) v = std::nextafter(v, 1e300);  // a neighbour: 16-17 digits
    char want[64];
    const auto w = std::to_chars(want, want + sizeof want, v);
    const fl::string got = fl::concat(v);
    ASSERT_EQ(std::string_view(got), std::string_view(want, static_cast<std::size_t>(w.ptr - want)))
        << "seed " << seed << " i " << i;
  }
  for (double v :
       {1e-5, 1e-4, 1.5e-4, 1e-3, 0.1, 1.0, 10.0, 1e5, 1e6, 1.2e6, 123456789012345.0, 1e15,
        999999999999999.9, 0.30000000000000004, 5e-324, 1.7976931348623157e308, -0.0, 0.0}) {
    char want[64];
    const auto w = std::to_chars(want, want + sizeof want, v);
    EXPECT_EQ(std::string_view(fl::concat(v)),
              std::string_view(want, static_cast<std::size_t>(w.ptr - want)));
  }
}

TEST(ConcatTest, TextCharBoolAndMixes) {
  const fl::string fs = "fl";
  const std::string ss = "std";
  const char* cs = "c";
  const char* null_cs = nullptr;
  EXPECT_EQ(fl::concat(), "");
  EXPECT_EQ(fl::concat(fs, ss, std::string_view("sv"), cs, 'x', "lit", null_cs, true, false),
            "flstdsvcxlittruefalse");
  EXPECT_EQ(fl::concat(fs + ss, '/', 42), "flstd/42");
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int step = 0; step < 5'000; ++step) {
    const std::string a = random_text(rng);
    const int i = static_cast<int>(rng());
    const double d =
        static_cast<double>(static_cast<std::int64_t>(rng() % 2000000) - 1000000) / 1024.0;
    const char ch = static_cast<char>('a' + rng() % 26);
    char dbuf[32];
    const auto r = std::to_chars(dbuf, dbuf + sizeof dbuf, d);
    const std::string want = a + std::to_string(i) + std::string(dbuf, r.ptr) + ch;
    const auto before = pool_allocations();
    const fl::string got = fl::concat(a, i, d, ch);
    ASSERT_EQ(pool_allocations() - before, want.size() > 23 ? 1u : 0u) << "seed " << seed;
    ASSERT_EQ(std::string_view(got), want) << "seed " << seed << " step " << step;
  }
}

TEST(ConcatTest, AppendAddsInPlaceAndMayReferToItself) {
  fl::string s = "n=";
  EXPECT_EQ(&fl::append(s, 7, ", x=", 2.5, ' ', true), &s);
  EXPECT_EQ(s, "n=7, x=2.5 true");
  fl::append(s, " | ", s);  // reads s while appending to it
  EXPECT_EQ(s, "n=7, x=2.5 true | n=7, x=2.5 true");
  s.reserve(1000);
  auto before = pool_allocations();
  fl::append(s, s, 123456789, s);  // in place: capacity suffices
  EXPECT_EQ(pool_allocations(), before);
  EXPECT_EQ(s,
            "n=7, x=2.5 true | n=7, x=2.5 true"
            "n=7, x=2.5 true | n=7, x=2.5 true"
            "123456789"
            "n=7, x=2.5 true | n=7, x=2.5 true");
  fl::string g = "grow";
  g.shrink_to_fit();
  before = pool_allocations();
  fl::append(g, std::string(100, 'g'), -1, 0.5);
  EXPECT_EQ(pool_allocations(), before + 1);
  EXPECT_EQ(g, "grow" + std::string(100, 'g') + "-10.5");
  fl::pmr::string p;
  fl::append(p, "pmr ", 1u);
  EXPECT_EQ(std::string_view(p), "pmr 1");
}
