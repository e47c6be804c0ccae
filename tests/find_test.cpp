// Tests for <fl/find.hpp>: every function against std::string_view's member of
// the same name (the reference semantics), at every instruction-set level this
// machine runs (src/simd/isa.hpp; one level when FL_ISA picks it), plus the Two-Way fallbacks on their own, and a
// guard-page test proving that no kernel reads outside its arguments.
//
// Random inputs are seeded from FL_TEST_SEED when set, else from the clock;
// the seed is printed and appears in every failure message.
#include <fl/fl.hpp>
#include <fl/find.hpp>

#include "find/find_kernel_set.hpp"
#include "simd/isa.hpp"

#include <gtest/gtest.h>
#include "test_support.hpp"
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using fl_test::test_seed;

using fl::detail::isa;

// The levels this test runs the kernels at: the one FL_ISA selects when it is
// set (ctest runs this test once per level that way, through the dispatch
// the library does on its own), else every level the machine supports whose
// search kernels differ from the level below's, each forced in turn.
std::vector<isa> levels_under_test() {
  if (std::getenv("FL_ISA") != nullptr) return {fl::detail::active_isa()};
  std::vector<isa> v;
  for (std::size_t i = 0; i < fl::detail::isa_count; ++i) {
    const isa level = static_cast<isa>(i);
    if (fl::detail::isa_supported(level) && fl::detail::install_find_kernels(level) == level) {
      v.push_back(level);
    }
  }
  fl::detail::force_isa(fl::detail::active_isa());  // undo the probing installs
  return v;
}

// Runs body once per level under test, then restores the level found at entry.
template <class F>
void for_each_isa(F body) {
  const isa saved = fl::detail::active_isa();
  for (isa level : levels_under_test()) {
    ASSERT_TRUE(fl::detail::force_isa(level));
    SCOPED_TRACE(std::string("level ") + fl::detail::isa_name(level) + ", seed " +
                 std::to_string(test_seed()));
    body(level);
    if (::testing::Test::HasFatalFailure()) break;
  }
  fl::detail::force_isa(saved);
}

// Letters from 'a' unless told otherwise (fl_test::random_text's default is
// any byte).
std::string random_text(std::mt19937_64& rng, std::size_t n, unsigned alphabet,
                        unsigned char first = 'a') {
  return fl_test::random_text(rng, n, alphabet, first);
}

// Every substring function at one position, against std::string_view.
void check_substring(std::string_view hay, std::string_view needle, std::size_t pos) {
  ASSERT_EQ(fl::find(hay, needle, pos), hay.find(needle, pos))
      << "find hay.size " << hay.size() << " needle.size " << needle.size() << " pos " << pos;
  ASSERT_EQ(fl::rfind(hay, needle, pos), hay.rfind(needle, pos))
      << "rfind hay.size " << hay.size() << " needle.size " << needle.size() << " pos " << pos;
}

void check_sets(std::string_view hay, std::string_view set, std::size_t pos) {
  ASSERT_EQ(fl::find_first_of(hay, set, pos), hay.find_first_of(set, pos))
      << "hay.size " << hay.size() << " set.size " << set.size() << " pos " << pos;
  ASSERT_EQ(fl::find_last_of(hay, set, pos), hay.find_last_of(set, pos))
      << "hay.size " << hay.size() << " set.size " << set.size() << " pos " << pos;
  ASSERT_EQ(fl::find_first_not_of(hay, set, pos), hay.find_first_not_of(set, pos))
      << "hay.size " << hay.size() << " set.size " << set.size() << " pos " << pos;
  ASSERT_EQ(fl::find_last_not_of(hay, set, pos), hay.find_last_not_of(set, pos))
      << "hay.size " << hay.size() << " set.size " << set.size() << " pos " << pos;
}

// Positions worth checking for a haystack of size n: all of them for short
// haystacks, else the ends, the vector boundaries and a few random ones.
std::vector<std::size_t> positions(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::size_t> p;
  if (n <= 96) {
    for (std::size_t i = 0; i <= n + 1; ++i) p.push_back(i);
  } else {
    for (std::size_t i :
         {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{31},
          std::size_t{32}, std::size_t{63}, std::size_t{64}, n - 1, n, n + 1}) {
      p.push_back(i);
    }
    for (int i = 0; i < 6; ++i) p.push_back(rng() % (n + 1));
  }
  p.push_back(fl::npos);
  p.push_back(fl::npos - 1);
  return p;
}

// A needle of length m for hay: taken from it (present), taken and changed in
// one byte (almost present), or random.
std::string pick_needle(std::mt19937_64& rng, const std::string& hay, std::size_t m,
                        unsigned alphabet) {
  const unsigned kind = rng() % 3;
  if (m <= hay.size() && kind < 2) {
    std::string nd = hay.substr(rng() % (hay.size() - m + 1), m);
    if (kind == 1 && m > 0) {
      const std::size_t i = rng() % m;
      nd[i] = static_cast<char>(alphabet >= 256 ? nd[i] + 1 : 'a' + (nd[i] - 'a' + 1) % alphabet);
    }
    return nd;
  }
  return random_text(rng, m, alphabet);
}

TEST(FindTest, EdgeCasesAgreeWithStringView) {
  const std::vector<std::string> hays = {
      "", "a", "ab", "aaa", std::string(1, '\0'), std::string("a\0b", 3), std::string(100, 'x')};
  const std::vector<std::string> needles = {"",
                                            "a",
                                            "b",
                                            "ab",
                                            "ba",
                                            "aaa",
                                            "aaaa",
                                            std::string(1, '\0'),
                                            std::string("\0b", 2),
                                            std::string(100, 'x'),
                                            std::string(101, 'x')};
  for_each_isa([&](isa) {
    for (const auto& h : hays) {
      for (const auto& nd : needles) {
        for (std::size_t pos :
             {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{99},
              std::size_t{100}, std::size_t{101}, fl::npos, fl::npos - 1}) {
          check_substring(h, nd, pos);
          check_sets(h, nd, pos);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  });
  EXPECT_EQ(fl::find("abc", ""), 0u);
  EXPECT_EQ(fl::find("abc", "", 3), 3u);
  EXPECT_EQ(fl::find("abc", "", 4), fl::npos);
  EXPECT_EQ(fl::rfind("abc", ""), 3u);
  EXPECT_EQ(fl::rfind("abc", "", 1), 1u);
  EXPECT_EQ(fl::find_first_not_of("abc", "", 2), 2u);
  EXPECT_EQ(fl::find_last_not_of("abc", ""), 2u);
  EXPECT_EQ(fl::find_first_of("abc", "", 0), fl::npos);
}

TEST(FindTest, RandomAlphabetsAllNeedleLengths) {
  std::cout << "seed " << test_seed() << "\n";
  for_each_isa([&](isa) {
    std::mt19937_64 rng(test_seed());
    for (unsigned alphabet : {1u, 2u, 4u, 26u, 256u}) {
      for (std::size_t m = 0; m <= 300; ++m) {
        const std::size_t n = m + rng() % 160;
        const std::string hay = random_text(rng, n, alphabet);
        for (int t = 0; t < 2; ++t) {
          const std::string nd = pick_needle(rng, hay, m, alphabet);
          for (std::size_t pos : positions(rng, n)) {
            check_substring(hay, nd, pos);
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  });
}

TEST(FindTest, EveryStartPositionShortNeedles) {
  for_each_isa([&](isa) {
    std::mt19937_64 rng(test_seed() + 1);
    for (unsigned alphabet : {1u, 2u, 3u, 4u, 26u, 256u}) {
      for (int t = 0; t < 40; ++t) {
        const std::size_t n = rng() % 200;
        const std::string hay = random_text(rng, n, alphabet);
        const std::size_t m = rng() % 12;
        const std::string nd = pick_needle(rng, hay, m, alphabet);
        for (std::size_t pos = 0; pos <= n + 1; ++pos) {
          check_substring(hay, nd, pos);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  });
}

// The needle planted at every offset of haystacks of lengths around the 16,
// 32 and 64-byte vector widths and their doubles (the unrolled loops), so matches straddle every block boundary and
// land in the re-read tail blocks.
TEST(FindTest, MatchesStraddlingVectorBoundaries) {
  for_each_isa([&](isa) {
    std::mt19937_64 rng(test_seed() + 2);
    for (std::size_t m : {2u, 3u, 5u, 13u, 17u, 31u, 33u, 64u}) {
      for (std::size_t n : {m,
                            m + 1,
                            std::size_t{15},
                            std::size_t{16},
                            std::size_t{17},
                            std::size_t{31},
                            std::size_t{32},
                            std::size_t{33},
                            std::size_t{63},
                            std::size_t{64},
                            std::size_t{65},
                            std::size_t{95},
                            std::size_t{96},
                            std::size_t{97},
                            std::size_t{127},
                            std::size_t{128},
                            std::size_t{129},
                            std::size_t{130},
                            std::size_t{191},
                            std::size_t{192},
                            std::size_t{193},
                            std::size_t{257}}) {
        if (n < m) continue;
        const std::string nd = random_text(rng, m, 26, 'A');  // letters the text never has
        for (std::size_t at = 0; at + m <= n; ++at) {
          std::string hay = random_text(rng, n, 26);
          hay.replace(at, m, nd);
          ASSERT_EQ(fl::find(hay, nd), at) << "n " << n << " m " << m;
          ASSERT_EQ(fl::rfind(hay, nd), at) << "n " << n << " m " << m;
          check_substring(hay, nd, at);
          check_substring(hay, nd, at + 1);
          check_substring(hay, nd, at == 0 ? 0 : at - 1);
          // The set functions see the planted bytes at the same place.
          ASSERT_EQ(fl::find_first_of(hay, nd), at);
          ASSERT_EQ(fl::find_last_of(hay, nd), at + m - 1);
          check_sets(hay, nd, at);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  });
}

TEST(FindTest, LongNeedles) {
  for_each_isa([&](isa) {
    std::mt19937_64 rng(test_seed() + 3);
    for (unsigned alphabet : {2u, 4u, 26u}) {
      for (std::size_t m : {1000u, 5000u}) {
        const std::string hay = random_text(rng, 3 * m + rng() % 500, alphabet);
        for (int t = 0; t < 4; ++t) {
          const std::string nd = pick_needle(rng, hay, m, alphabet);
          for (std::size_t pos : {std::size_t{0}, std::size_t{1}, m, hay.size() - m, fl::npos}) {
            check_substring(hay, nd, pos);
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  });
}

// Periodic and almost-periodic inputs: the worst case of a first-byte filter
// and the inputs on which the filter's budget hands over to Two-Way.
TEST(FindTest, PeriodicInputs) {
  std::vector<std::pair<std::string, std::string>> cases;
  auto rep = [](std::string_view unit, std::size_t times) {
    std::string s;
    for (std::size_t i = 0; i < times; ++i) s += unit;
    return s;
  };
  cases.push_back({std::string(5000, 'a'), std::string(24, 'a') + "b"});
  cases.push_back({std::string(5000, 'a') + "b", std::string(24, 'a') + "b"});
  cases.push_back({std::string(5000, 'a'), std::string(300, 'a')});
  cases.push_back({rep("abc", 2000), rep("abc", 20) + "x" + rep("abc", 20)});
  cases.push_back({rep("abc", 2000) + "x" + rep("abc", 30), rep("abc", 20) + "x" + rep("abc", 20)});
  cases.push_back({rep(std::string(200, 'a') + "b", 40),
                   std::string(200, 'a') + "b" + std::string(200, 'a') + "c"});
  cases.push_back({rep("ab", 3000), rep("ab", 100) + "b"});
  cases.push_back({rep("aab", 2000), rep("aab", 50) + "aa"});
  cases.push_back({rep("abaabaab", 700), rep("abaab", 30)});
  cases.push_back(
      {rep(std::string("\0a", 2), 2000), rep(std::string("\0a", 2), 40) + std::string(1, '\0')});
  cases.push_back({rep("xy", 2000) + rep("xy", 10) + "z", rep("xy", 10) + "z"});
  for_each_isa([&](isa) {
    for (const auto& [hay, nd] : cases) {
      for (std::size_t pos :
           {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000},
            hay.size() / 2, hay.size() - nd.size(), fl::npos}) {
        check_substring(hay, nd, pos);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  });
}

// Two-Way on its own: the older implementation lost present needles in random
// three-letter trials; this one is compared with std on many such trials.
TEST(FindTest, TwoWayAgreesWithStringView) {
  std::mt19937_64 rng(test_seed() + 4);
  for (unsigned alphabet : {1u, 2u, 3u, 4u, 26u, 256u}) {
    for (int t = 0; t < 3000; ++t) {
      const std::size_t n = 1 + rng() % 120;
      const std::string hay = random_text(rng, n, alphabet);
      const std::size_t m = 1 + rng() % (t % 3 == 0 ? n : std::min<std::size_t>(n, 8));
      const std::string nd = pick_needle(rng, hay, m, alphabet);
      const std::string_view h(hay);
      const std::size_t pos = rng() % (n - m + 1);
      ASSERT_EQ(fl::detail::find_twoway(hay.data(), n, nd.data(), m, pos), h.find(nd, pos))
          << "seed " << test_seed() << " hay " << hay << " needle " << nd << " pos " << pos;
      const std::size_t end = m + rng() % (n - m + 1);
      ASSERT_EQ(fl::detail::rfind_twoway(hay.data(), end, nd.data(), m), h.substr(0, end).rfind(nd))
          << "seed " << test_seed() << " hay " << hay << " needle " << nd << " end " << end;
    }
  }
}

TEST(FindTest, EmbeddedNulBytes) {
  for_each_isa([&](isa) {
    std::mt19937_64 rng(test_seed() + 5);
    for (int t = 0; t < 300; ++t) {
      std::string hay = random_text(rng, rng() % 300, 2, '\0');  // bytes 0 and 1
      const std::size_t m = 1 + rng() % 20;
      const std::string nd = pick_needle(rng, hay, m, 2);
      std::string nd0 = nd;
      for (auto& c : nd0) c = static_cast<char>(c == 'a' ? '\0' : '\1');
      for (std::size_t pos : positions(rng, hay.size())) {
        check_substring(hay, nd0, pos);
        check_sets(hay, std::string_view("\0", 1), pos);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  });
}

TEST(FindTest, CharacterSetsAgreeWithStringView) {
  for_each_isa([&](isa) {
    std::mt19937_64 rng(test_seed() + 6);
    for (unsigned alphabet : {2u, 4u, 26u, 256u}) {
      for (std::size_t k : {0u, 1u, 2u, 3u, 4u, 5u, 8u, 16u, 17u, 40u, 100u, 256u, 300u}) {
        for (int t = 0; t < 12; ++t) {
          const std::size_t n = rng() % (t < 8 ? 80 : 400);
          const std::string hay = random_text(rng, n, alphabet);
          std::string set = random_text(rng, k, alphabet == 256 ? 256 : alphabet + 2);
          if (k == 256 && t % 2 == 0) {
            for (std::size_t i = 0; i < 256; ++i) set[i] = static_cast<char>(i);  // every byte
          }
          for (std::size_t pos : positions(rng, n)) {
            check_sets(hay, set, pos);
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  });
}

TEST(FindTest, HighBytesInSets) {
  // Bytes >= 0x80 use the second nibble table of the AVX2 set kernel.
  std::string hay;
  for (int i = 0; i < 600; ++i) hay += static_cast<char>(i * 37);
  for_each_isa([&](isa) {
    for (int lo = 0; lo < 256; lo += 7) {
      const std::string set = {static_cast<char>(lo), static_cast<char>(lo ^ 0x80),
                               static_cast<char>(255 - lo), static_cast<char>(lo + 16)};
      for (std::size_t pos :
           {std::size_t{0}, std::size_t{5}, std::size_t{300}, std::size_t{599}, fl::npos}) {
        check_sets(hay, set, pos);
        check_sets(hay, std::string_view(set).substr(0, 2), pos);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  });
}

// Pages: [guard | data ... | guard]. A haystack or needle placed flush against
// either guard makes any read outside it fault.
class guarded_pages {
 public:
  explicit guarded_pages(std::size_t data_pages)
      : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
    size_ = (data_pages + 2) * page_;
    void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) std::abort();
    base_ = static_cast<char*>(p);
    if (mprotect(base_, page_, PROT_NONE) != 0 ||
        mprotect(base_ + size_ - page_, page_, PROT_NONE) != 0) {
      std::abort();
    }
  }
  ~guarded_pages() { munmap(base_, size_); }
  guarded_pages(const guarded_pages&) = delete;
  guarded_pages& operator=(const guarded_pages&) = delete;
  char* begin() const { return base_ + page_; }
  char* end() const { return base_ + size_ - page_; }

 private:
  std::size_t page_;
  std::size_t size_;
  char* base_;
};

TEST(FindTest, NoReadsOutsideArgumentsAtGuardPages) {
  guarded_pages hay_pages(2);
  guarded_pages needle_pages(2);
  for_each_isa([&](isa) {
    std::mt19937_64 rng(test_seed() + 7);
    for (int t = 0; t < 400; ++t) {
      const std::size_t n = t < 200 ? static_cast<std::size_t>(t) : rng() % 4000;
      const std::size_t m = rng() % 2 ? rng() % 8 : rng() % 300;
      const unsigned alphabet = t % 3 == 0 ? 2 : 26;
      const std::string text = random_text(rng, n, alphabet);
      std::string nd = pick_needle(rng, text, m, alphabet);
      // Haystack flush against the end guard, then against the start guard;
      // the needle likewise.
      for (int layout = 0; layout < 2; ++layout) {
        char* h = layout == 0 ? hay_pages.end() - n : hay_pages.begin();
        char* x = layout == 0 ? needle_pages.end() - m : needle_pages.begin();
        std::memcpy(h, text.data(), n);
        std::memcpy(x, nd.data(), m);
        const std::string_view hv(h, n), xv(x, m);
        for (std::size_t pos : {std::size_t{0}, n / 2, n > 0 ? n - 1 : 0, fl::npos}) {
          check_substring(hv, xv, pos);
          check_sets(hv, xv, pos);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  });
}

// Haystacks of up to 128 bytes take the inline path (detail/find_short.hpp):
// every length around its 16-byte blocks, every start, needles of every
// length up to the haystack's, on alphabets small enough to make many
// first/last-byte candidates that fail in the middle.
TEST(FindTest, ShortHaystacksEveryLengthAndStart) {
  std::mt19937_64 rng(test_seed() + 11);
  for (std::size_t n = 0; n <= fl::detail::short_hay_max + 2; ++n) {
    for (unsigned alphabet : {2u, 4u, 256u}) {
      const std::string text = random_text(rng, n, alphabet);
      for (std::size_t m = 1; m <= n + 1 && m <= 40; ++m) {
        const std::string nd = pick_needle(rng, text, m, alphabet);
        for (std::size_t pos = 0; pos <= n + 1; ++pos) {
          ASSERT_EQ(fl::find(text, nd, pos), std::string_view(text).find(nd, pos))
              << "n " << n << " m " << m << " pos " << pos << " alphabet " << alphabet;
        }
      }
      const fl::string fs(text.data(), text.size());
      for (int c = 0; c < 256; c += alphabet >= 256 ? 37 : 1) {
        const char ch = static_cast<char>(c);
        for (std::size_t pos = 0; pos <= n + 1; pos += 3) {
          ASSERT_EQ(fs.find(ch, pos), text.find(ch, pos))
              << "n " << n << " char " << c << " pos " << pos;
        }
        if (alphabet < 256 && c > 'a' + 5) break;
      }
    }
  }
}

TEST(FindTest, ClassicShortStringFinds) {
  const std::string s = "qyweyuewunfkHBUKGYUGL,wehbYGUW^(@T@H!BALWD:h^&@#*@(#:JKHWJ:CND";
  for_each_isa([&](isa) {
    EXPECT_EQ(fl::find(s, "unfkHBUKGY"), std::string_view(s).find("unfkHBUKGY"));
    EXPECT_EQ(fl::find(s, "W^(@T@H!B"), std::string_view(s).find("W^(@T@H!B"));
    EXPECT_EQ(fl::find(s, "J:CND"), std::string_view(s).find("J:CND"));
    EXPECT_EQ(fl::find(s, "J:CND"), 57u);
  });
}

}  // namespace
