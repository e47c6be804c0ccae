// Tests for fl::string_builder: text equals the std::string built the same way,
// build() hands the buffer over without copying, growth is amortized and
// every failure leaves the builder unchanged.
#include <fl/builder.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace {

using fl_test::pool_allocations;
using fl_test::random_run;
using fl_test::test_seed;

}  // namespace

static_assert(!std::is_copy_constructible_v<fl::string_builder> &&
              !std::is_copy_assignable_v<fl::string_builder>);
static_assert(std::is_nothrow_move_constructible_v<fl::string_builder> &&
              std::is_nothrow_move_assignable_v<fl::string_builder>);

TEST(StringBuilderTest, EmptyBuilderBuildsEmptyString) {
  fl::string_builder b;
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.capacity(), 0u);
  EXPECT_EQ(b.view(), "");
  const auto before = pool_allocations();
  fl::string s = std::move(b).build();
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(pool_allocations(), before);
}

TEST(StringBuilderTest, AppendChainsEveryArgumentKind) {
  fl::string_builder b;
  const fl::string fs = "fl";
  const std::string ss = "std";
  b.append(fs).append(ss, std::string_view("/sv"), "/lit", '/', 42, '/', -7LL, '/', 2.5, '/', true);
  b << ' ' << 1u << ' ' << 0.1f << ' ' << fs + ss;
  EXPECT_EQ(b.view(), "flstd/sv/lit/42/-7/2.5/true 1 0.1 flstd");
  EXPECT_EQ(b.size(), b.view().size());
  EXPECT_EQ(b.str(), "flstd/sv/lit/42/-7/2.5/true 1 0.1 flstd");
  EXPECT_EQ(b.size(), 39u);  // str() copied, the builder kept its text
}

TEST(StringBuilderDifferential, RandomAppendsAgreeWithStdString) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 200; ++round) {
    fl::string_builder b;
    std::string want;
    const int steps = static_cast<int>(rng() % 300);
    for (int step = 0; step < steps; ++step) {
      switch (rng() % 5) {
        case 0: {
          const std::string t = random_run(rng, 50, 'a');
          b.append(t);
          want += t;
          break;
        }
        case 1: {
          const char c = static_cast<char>('A' + rng() % 26);
          b.append(c);
          want += c;
          break;
        }
        case 2: {
          const auto v = static_cast<std::int64_t>(rng());
          b.append(v);
          want += std::to_string(v);
          break;
        }
        case 3: {
          const double d = static_cast<double>(rng() % 100000) / 64.0;
          char buf[32];
          const auto r = std::to_chars(buf, buf + sizeof buf, d);
          b.append(d, ',');
          want.append(buf, r.ptr).push_back(',');
          break;
        }
        default: {
          if (rng() % 8 == 0) {  // an argument that points into the builder
            const std::string copy(b.view());
            b.append(b.view());
            want += copy;
          }
          break;
        }
      }
      ASSERT_EQ(b.view(), want) << "seed " << seed << " round " << round << " step " << step;
      ASSERT_LE(b.size(), b.capacity());
    }
    const fl::string s = std::move(b).build();
    ASSERT_EQ(std::string_view(s), want) << "seed " << seed << " round " << round;
    ASSERT_EQ(s.c_str()[s.size()], '\0');
    ASSERT_TRUE(b.empty());  // NOLINT: build() leaves it empty
  }
}

TEST(StringBuilderTest, BuildHandsOverTheBufferWithoutCopying) {
  fl::string_builder b;
  for (int i = 0; i < 256; ++i) b.append("0123456789abcdef");
  const char* buffer = b.data();
  const auto before = pool_allocations();
  fl::string s = std::move(b).build();
  EXPECT_EQ(s.data(), buffer);  // the same block
  EXPECT_EQ(pool_allocations(), before);
  EXPECT_EQ(s.size(), 4096u);
  EXPECT_EQ(s.substr(4080), "0123456789abcdef");
  EXPECT_EQ(b.capacity(), 0u);  // NOLINT: moved-from builder has no buffer
  s += "still a normal string";
  EXPECT_TRUE(s.ends_with("normal string"));
}

TEST(StringBuilderTest, ShortResultsBecomeInlineStrings) {
  fl::string_builder b;
  b.append("short ", 12);
  fl::string s = std::move(b).build();
  EXPECT_EQ(s, "short 12");
  EXPECT_NE(s.data(), b.data());
  EXPECT_LE(s.capacity(), 23u);
}

TEST(StringBuilderTest, GrowthIsAmortizedAndReserveIsExact) {
  fl::string_builder b;
  auto before = pool_allocations();
  for (int i = 0; i < 4096; ++i) b.append('x');
  // Doubling from 64 bytes: 64, 128, ..., 8192 is eight blocks.
  EXPECT_LE(pool_allocations() - before, 8u);
  fl::string_builder r(4096);
  EXPECT_GE(r.capacity(), 4096u);
  before = pool_allocations();
  for (int i = 0; i < 256; ++i) r.append("0123456789abcdef");
  EXPECT_EQ(pool_allocations(), before);
  r.clear();
  EXPECT_TRUE(r.empty());
  EXPECT_GE(r.capacity(), 4096u);
  r.reserve(10);  // never shrinks
  EXPECT_GE(r.capacity(), 4096u);
  r.append("again");
  r.reserve(100'000);  // grows, keeps the text
  EXPECT_EQ(r.view(), "again");
  EXPECT_GE(r.capacity(), 100'000u);
}

TEST(StringBuilderTest, MoveTransfersTheBuffer) {
  fl::string_builder a;
  a.append(std::string(100, 'm'));
  const char* p = a.data();
  fl::string_builder b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_TRUE(a.empty());  // NOLINT
  fl::string_builder c;
  c.append("old");
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.view(), std::string(100, 'm'));
  c = std::move(c);  // NOLINT: self-move keeps the text
  EXPECT_EQ(c.size(), 100u);
}

TEST(StringBuilderTest, LengthErrorsLeaveTheBuilderUnchanged) {
  fl::string_builder b;
  b.append("kept");
  EXPECT_THROW(b.reserve(fl::string_builder::max_size() + 1), std::length_error);
  EXPECT_EQ(b.view(), "kept");
  const std::string_view huge(b.data(),
                              fl::string_builder::max_size());  // never read: rejected by size
  EXPECT_THROW(b.append(huge), std::length_error);
  EXPECT_EQ(b.view(), "kept");
}
