// Tests for fl::immutable_string: differential against std::string_view,
// sharing (O(1) copies, one block per text), hashing and transparent lookup.
#include <fl/immutable_string.hpp>
#include <fl/pool.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <chrono>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using fl_test::pool_allocations;
using fl_test::random_text;  // any byte, '\0' included
using fl_test::test_seed;

}  // namespace

TEST(ImmutableStringTest, DefaultIsEmptyAndTerminated) {
  fl::immutable_string s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.size(), 0u);
  EXPECT_STREQ(s.c_str(), "");
  EXPECT_TRUE(s.is_inline());
  EXPECT_EQ(s.use_count(), 1u);
  EXPECT_EQ(s.begin(), s.end());
}

TEST(ImmutableStringTest, EveryLengthRoundTrips) {
  // Around the inline/shared boundary and well past it.
  for (std::size_t n = 0; n <= 70; ++n) {
    std::string want;
    for (std::size_t i = 0; i < n; ++i) want.push_back(static_cast<char>('a' + i % 26));
    fl::immutable_string s(want);
    ASSERT_EQ(s.size(), n);
    ASSERT_EQ(s.length(), n);
    ASSERT_EQ(s.view(), want);
    ASSERT_EQ(std::string_view(s), want);
    ASSERT_EQ(s.c_str()[n], '\0') << "not terminated at " << n;
    ASSERT_EQ(s.is_inline(), n <= fl::immutable_string::inline_capacity);
    ASSERT_EQ(std::string(s.begin(), s.end()), want);
    if (n > 0) {
      EXPECT_EQ(s.front(), want.front());
      EXPECT_EQ(s.back(), want.back());
      EXPECT_EQ(s[n - 1], want[n - 1]);
    }
  }
}

TEST(ImmutableStringTest, ConstructorsFromEveryTextKind) {
  const std::string stds = "a std::string longer than fifteen";
  std::string_view sv = stds;
  fl::immutable_string a = "a C string longer than fifteen";  // implicit from const char*
  fl::immutable_string b(stds);
  fl::immutable_string c(sv);
  fl::immutable_string d(stds.data(), 5);
  EXPECT_EQ(a, "a C string longer than fifteen");
  EXPECT_EQ(b, stds);
  EXPECT_EQ(c, sv);
  EXPECT_EQ(d, "a std");
  // Embedded zeros survive.
  fl::immutable_string z(std::string_view("x\0y", 3));
  EXPECT_EQ(z.size(), 3u);
  EXPECT_EQ(z, std::string_view("x\0y", 3));
}

TEST(ImmutableStringTest, ShortTextsNeverAllocate) {
  const auto before = pool_allocations();
  fl::immutable_string s("fifteen chars..");
  ASSERT_EQ(s.size(), 15u);
  fl::immutable_string t = s;
  fl::immutable_string u = std::move(t);
  EXPECT_EQ(u, s);
  EXPECT_EQ(pool_allocations(), before);
}

TEST(ImmutableStringTest, CopiesShareOneBlock) {
  const std::string text(64, 'q');
  const auto before = pool_allocations();
  fl::immutable_string s(text);
  EXPECT_EQ(pool_allocations(), before + 1);  // count, length, hash and bytes in one block
  {
    std::vector<fl::immutable_string> copies(100, s);
    EXPECT_EQ(s.use_count(), 101u);
    for (const auto& c : copies) ASSERT_EQ(c.data(), s.data());  // shared, not copied
    EXPECT_EQ(pool_allocations(), before + 1);
  }
  EXPECT_EQ(s.use_count(), 1u);
}

TEST(ImmutableStringTest, MoveLeavesSourceEmpty) {
  fl::immutable_string s(std::string(40, 'm'));
  const char* p = s.data();
  fl::immutable_string t(std::move(s));
  EXPECT_EQ(t.data(), p);
  EXPECT_TRUE(s.empty());  // NOLINT: documented moved-from state
  EXPECT_EQ(t.use_count(), 1u);
  s = std::move(t);
  EXPECT_EQ(s.data(), p);
  EXPECT_TRUE(t.empty());  // NOLINT
}

TEST(ImmutableStringTest, AssignmentReleasesOldText) {
  fl::immutable_string a(std::string(30, 'a'));
  fl::immutable_string b(std::string(30, 'b'));
  fl::immutable_string keep = a;
  EXPECT_EQ(a.use_count(), 2u);
  a = b;
  EXPECT_EQ(keep.use_count(), 1u);
  EXPECT_EQ(b.use_count(), 2u);
  a = a;  // self-assignment keeps the text
  EXPECT_EQ(a, b);
  EXPECT_EQ(b.use_count(), 2u);
  a = std::move(a);  // NOLINT: self-move leaves a valid value
  EXPECT_EQ(a.size(), 30u);
  swap(a, keep);
  EXPECT_EQ(a, std::string(30, 'a'));
  EXPECT_EQ(keep, std::string(30, 'b'));
}

TEST(ImmutableStringTest, AtThrowsOutOfRange) {
  fl::immutable_string s("abc");
  EXPECT_EQ(s.at(2), 'c');
  EXPECT_THROW((void)s.at(3), std::out_of_range);
  fl::immutable_string l(std::string(20, 'x'));
  EXPECT_THROW((void)l.at(20), std::out_of_range);
}

TEST(ImmutableStringTest, LengthErrorBeyondMaxSize) {
  // The check runs before any byte is read, so a huge length is safe to pass.
  const char c = 'x';
  EXPECT_THROW(fl::immutable_string(&c, fl::immutable_string::max_size() + 1), std::length_error);
}

TEST(ImmutableStringDifferential, ComparisonsAgreeWithStringView) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int step = 0; step < 20'000; ++step) {
    // Small alphabets and lengths make equal prefixes and equal texts common.
    auto gen = [&] {
      std::string s(rng() % 40, '\0');
      for (char& ch : s) ch = static_cast<char>('a' + rng() % 3);
      return s;
    };
    const std::string x = gen(), y = gen();
    const fl::immutable_string a(x), b(y);
    const std::string_view xv = x, yv = y;
    ASSERT_EQ(a == b, xv == yv) << "seed " << seed << " step " << step;
    ASSERT_EQ(a != b, xv != yv) << "seed " << seed << " step " << step;
    ASSERT_EQ(a <=> b, xv <=> yv) << "seed " << seed << " step " << step;
    ASSERT_EQ(a < b, xv < yv) << "seed " << seed << " step " << step;
    ASSERT_EQ(a == yv, xv == yv) << "seed " << seed << " step " << step;
    ASSERT_EQ(xv == b, xv == yv) << "seed " << seed << " step " << step;
    ASSERT_EQ(a <=> y, xv <=> yv) << "seed " << seed << " step " << step;
    ASSERT_EQ(a == y.c_str(), xv == std::string_view(y.c_str())) << "seed " << seed;
    ASSERT_EQ(a.hash(), std::hash<std::string_view>{}(xv)) << "seed " << seed << " step " << step;
    ASSERT_EQ(a.starts_with(yv), xv.starts_with(yv));
    ASSERT_EQ(a.ends_with(yv), xv.ends_with(yv));
    ASSERT_EQ(a.find(yv), xv.find(yv));
    ASSERT_EQ(a.contains(yv), xv.find(yv) != std::string_view::npos);
  }
}

TEST(ImmutableStringTest, HashMatchesStringViewAndIsCached) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (std::size_t n = 0; n < 100; ++n) {
    const std::string t = random_text(rng, n);
    fl::immutable_string s(t);
    const auto want = std::hash<std::string_view>{}(t);
    ASSERT_EQ(s.hash(), want) << "seed " << seed;
    ASSERT_EQ(s.hash(), want) << "seed " << seed;  // second call reads the cache
    ASSERT_EQ(std::hash<fl::immutable_string>{}(s), want) << "seed " << seed;
    ASSERT_EQ(fl::immutable_string_hash{}(s), fl::immutable_string_hash{}(std::string_view(t)));
    fl::immutable_string copy = s;
    ASSERT_EQ(copy.hash(), want);
  }
}

TEST(ImmutableStringTest, TransparentUnorderedMapLookup) {
  std::unordered_map<fl::immutable_string, int, fl::immutable_string_hash,
                     fl::immutable_string_equal>
      m;
  for (int i = 0; i < 200; ++i)
    m.emplace(fl::immutable_string("key number " + std::to_string(i)), i);
  const auto before = pool_allocations();
  for (int i = 0; i < 200; ++i) {
    const std::string k = "key number " + std::to_string(i);
    const auto after_key = pool_allocations();
    auto it = m.find(std::string_view(k));  // no immutable_string made
    ASSERT_NE(it, m.end());
    EXPECT_EQ(it->second, i);
    EXPECT_TRUE(m.contains(k.c_str()));
    EXPECT_TRUE(m.contains(k));
    EXPECT_EQ(pool_allocations(), after_key);
  }
  (void)before;
  EXPECT_EQ(m.find(std::string_view("absent")), m.end());
  // std::hash + std::equal_to<> work too, for std::unordered_set.
  std::unordered_set<fl::immutable_string, fl::immutable_string_hash, std::equal_to<>> set;
  set.insert(fl::immutable_string("alpha"));
  set.insert(fl::immutable_string("a much longer beta text"));
  EXPECT_TRUE(set.contains(std::string_view("a much longer beta text")));
  EXPECT_FALSE(set.contains(std::string_view("gamma")));
}

TEST(ImmutableStringTest, StreamsItsText) {
  std::ostringstream os;
  os << fl::immutable_string("short") << '|' << fl::immutable_string(std::string(20, 'z'));
  EXPECT_EQ(os.str(), "short|" + std::string(20, 'z'));
}
