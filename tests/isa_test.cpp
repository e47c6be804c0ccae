// Tests of the instruction-set registry (src/simd/isa.hpp): level names, the
// cumulative support of levels, FL_ISA (ctest runs this test once per level
// with FL_ISA set), the force_isa hook, and that every kernel family runs the
// highest kernel it has at or below the active level and computes the same
// results there.
#include "simd/isa.hpp"

#include "persist/crc32c.hpp"
#include <fl/find.hpp>

#include "text/text_count.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

namespace {

using fl::detail::isa;

isa level_at(std::size_t i) { return static_cast<isa>(i); }

TEST(IsaTest, LevelNamesRoundTripAndScalarIsLowest) {
  EXPECT_STREQ(fl::detail::isa_name(isa::scalar), "scalar");
  for (std::size_t i = 0; i < fl::detail::isa_count; ++i) {
    isa back = isa::scalar;
    ASSERT_TRUE(fl::detail::isa_from_name(fl::detail::isa_name(level_at(i)), back));
    EXPECT_EQ(back, level_at(i));
  }
  isa untouched = isa::sse2;
  EXPECT_FALSE(fl::detail::isa_from_name("avx9000", untouched));
  EXPECT_EQ(untouched, isa::sse2);
}

TEST(IsaTest, SupportIsCumulativeAndScalarAlwaysRuns) {
  EXPECT_TRUE(fl::detail::isa_supported(isa::scalar));
  for (std::size_t i = 1; i < fl::detail::isa_count; ++i) {
    if (fl::detail::isa_supported(level_at(i))) {
      EXPECT_TRUE(fl::detail::isa_supported(level_at(i - 1))) << fl::detail::isa_name(level_at(i));
    }
  }
  const isa best = fl::detail::best_isa();
  EXPECT_TRUE(fl::detail::isa_supported(best));
  if (static_cast<std::size_t>(best) + 1 < fl::detail::isa_count) {
    EXPECT_FALSE(fl::detail::isa_supported(level_at(static_cast<std::size_t>(best) + 1)));
  }
  std::cout << "best level on this machine: " << fl::detail::isa_name(best) << "\n";
}

TEST(IsaTest, TheFeaturesDetectedAreTheOnesCpuidReports) {
  // Where glibc reports the features, fl asks it instead of cpuid; the two
  // must name the same features (AVX ones only where the OS saves them).
  EXPECT_EQ(fl::detail::detected_features(), fl::detail::cpuid_features());
}

TEST(IsaTest, ActiveLevelIsTheBestCappedByFlIsa) {
  const isa best = fl::detail::best_isa();
  const char* env = std::getenv("FL_ISA");
  isa cap = best;
  if (env != nullptr && fl::detail::isa_from_name(env, cap) && cap < best) {
    EXPECT_EQ(fl::detail::active_isa(), cap) << "FL_ISA=" << env;
  } else {
    EXPECT_EQ(fl::detail::active_isa(), best);
  }
}

TEST(IsaTest, ForceIsaRefusesUnsupportedLevelsAndKeepsTheActiveOne) {
  const isa before = fl::detail::active_isa();
  for (std::size_t i = 0; i < fl::detail::isa_count; ++i) {
    if (!fl::detail::isa_supported(level_at(i))) {
      EXPECT_FALSE(fl::detail::force_isa(level_at(i)));
      EXPECT_EQ(fl::detail::active_isa(), before);
    }
  }
}

// Each family installs the highest kernel it has at or below the level:
// find and text counting have sse2 and avx2 kernels, CRC-32C sse42 and
// avx512 ones.
TEST(IsaTest, EveryFamilyRunsItsBestKernelForTheLevel) {
  const isa saved = fl::detail::active_isa();
  const std::string hay = std::string(300, 'a') + "needle\n\xF0\x9F\x98\x80" + std::string(40, 'b');
  for (std::size_t i = 0; i < fl::detail::isa_count; ++i) {
    const isa level = level_at(i);
    if (!fl::detail::isa_supported(level)) continue;
    SCOPED_TRACE(fl::detail::isa_name(level));
    ASSERT_TRUE(fl::detail::force_isa(level));
    EXPECT_EQ(fl::detail::active_isa(), level);
    const isa find_level = fl::detail::install_find_kernels(level);
    const isa count_level = fl::detail::install_text_count_kernels(level);
    const isa crc_level = fl::detail::install_crc32c_kernel(level);
    EXPECT_EQ(find_level, level >= isa::avx2 ? isa::avx2 : level >= isa::sse2 ? isa::sse2 : isa::scalar);
    EXPECT_EQ(count_level, find_level);
    EXPECT_EQ(crc_level, level >= isa::avx512 ? isa::avx512
                         : level >= isa::sse42 ? isa::sse42
                                               : isa::scalar);
    EXPECT_EQ(fl::find(hay, "needle"), 300u);
    EXPECT_EQ(fl::rfind(hay, "ab"), std::string::npos);
    EXPECT_EQ(fl::find_first_of(hay, "nz"), 300u);
    const fl::detail::text_counts c = fl::detail::count_text_bulk(hay.data(), hay.size());
    EXPECT_EQ(c.chars, hay.size() - 3);
    EXPECT_EQ(c.newlines, 1u);
    EXPECT_EQ(c.astral, 1u);
    EXPECT_EQ(fl::detail::crc32c("123456789", 9), 0xE3069283u);
  }
  ASSERT_TRUE(fl::detail::force_isa(saved));
}

}  // namespace
