// Big-text test of fl::rope's text metrics with the library's own leaf size:
// a 256 MB rope of lines (32 MB under sanitizers, which slow every byte
// down), held flat (one chunk: the block index) and as a tree of 4 KiB
// leaves, answers 1,000,000 random metric queries; each is checked against
// an index precomputed from the std::string (line starts, and char and UTF-16
// prefix counts every 64 bytes). The small-leaf differential tests are in
// rope_test.cpp.
#include <fl/detail/rope_debug.hpp>
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::size_t text_bytes = std::size_t{32} << 20;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr std::size_t text_bytes = std::size_t{32} << 20;
#else
constexpr std::size_t text_bytes = std::size_t{256} << 20;
#endif
#else
constexpr std::size_t text_bytes = std::size_t{256} << 20;
#endif
constexpr std::size_t step = 64;  // sampling of the precomputed prefix counts

bool is_char(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }
std::size_t units(char c) {
  return is_char(c) ? (static_cast<unsigned char>(c) >= 0xF0 ? 2u : 1u) : 0u;
}

// Lines of 0..119 bytes of ASCII, 2-, 3- and 4-byte UTF-8, ended by "\n" or
// "\r\n".
std::string lines_text(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return fl_test::random_lines(
      rng, text_bytes, {"abcd", "e f ", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "0123"},
      120, "\n", "\r\n", 4);
}

struct reference {
  std::vector<std::size_t> line_at;     // line_to_byte
  std::vector<std::size_t> chars, u16;  // prefix counts at multiples of step
  explicit reference(const std::string& s) {
    line_at.push_back(0);
    chars.push_back(0);
    u16.push_back(0);
    std::size_t c = 0, u = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\n') line_at.push_back(i + 1);
      c += is_char(s[i]);
      u += units(s[i]);
      if ((i + 1) % step == 0) {
        chars.push_back(c);
        u16.push_back(u);
      }
    }
    line_at.push_back(s.size());
  }
};

}  // namespace

TEST(RopeMetricsBig, MillionQueriesAgreeWithAPrecomputedIndex) {
  const auto seed = fl_test::test_seed();
  const std::string s = lines_text(seed);
  const reference ref(s);
  const fl::rope flat(s);
  fl::rope tree;
  for (std::size_t i = 0; i < s.size(); i += 4096)
    tree.append(fl::rope(std::string_view(s).substr(i, 4096)));
  ASSERT_EQ(fl::detail::rope_height(flat), 0u);
  ASSERT_GE(fl::detail::rope_height(tree), 3u);

  auto chars_before = [&](std::size_t pos) {
    std::size_t c = ref.chars[pos / step];
    for (std::size_t i = pos / step * step; i < pos; ++i) c += is_char(s[i]);
    return c;
  };
  auto units_before = [&](std::size_t pos) {
    std::size_t u = ref.u16[pos / step];
    for (std::size_t i = pos / step * step; i < pos; ++i) u += units(s[i]);
    return u;
  };
  // Where a prefix count (sampled in `table`, stepped by `w`) first exceeds k.
  auto locate = [&](const std::vector<std::size_t>& table, std::size_t (*w)(char), std::size_t k) {
    const std::size_t blk =
        static_cast<std::size_t>(std::upper_bound(table.begin(), table.end(), k) - table.begin()) -
        1;
    std::size_t seen = table[blk];
    std::size_t i = blk * step;
    while (seen + w(s[i]) <= k) seen += w(s[i++]);
    return i;
  };
  auto char_w = [](char c) -> std::size_t { return is_char(c) ? 1u : 0u; };
  auto unit_w = [](char c) -> std::size_t { return units(c); };

  const std::size_t total_chars = chars_before(s.size());
  const std::size_t total_units = units_before(s.size());
  const std::size_t newlines = ref.line_at.size() - 2;
  for (const fl::rope* r : {&flat, static_cast<const fl::rope*>(&tree)}) {
    ASSERT_EQ(r->char_count(), total_chars);
    ASSERT_EQ(r->utf16_count(), total_units);
    ASSERT_EQ(r->line_count(), newlines + 1);
  }
  // Each query: its name, how many arguments it takes (drawn uniformly below
  // that), the rope's member, and the reference's answer.
  struct metric {
    const char* kind;
    std::size_t args;
    fl::rope::size_type (fl::rope::*query)(fl::rope::size_type) const;
    std::function<std::size_t(std::size_t)> want;
  };
  const metric metrics[] = {
      {"byte_to_line", s.size() + 1, &fl::rope::byte_to_line,
       [&](std::size_t arg) {
         return static_cast<std::size_t>(
             std::upper_bound(ref.line_at.begin() + 1, ref.line_at.end() - 1, arg) -
             (ref.line_at.begin() + 1));
       }},
      {"line_to_byte", newlines + 2, &fl::rope::line_to_byte,
       [&](std::size_t arg) { return ref.line_at[arg]; }},
      {"byte_to_char", s.size() + 1, &fl::rope::byte_to_char, chars_before},
      {"char_to_byte", total_chars, &fl::rope::char_to_byte,
       [&](std::size_t arg) { return locate(ref.chars, char_w, arg); }},
      {"byte_to_utf16", s.size() + 1, &fl::rope::byte_to_utf16, units_before},
      {"utf16_to_byte", total_units, &fl::rope::utf16_to_byte,
       [&](std::size_t arg) { return locate(ref.u16, unit_w, arg); }},
  };
  std::mt19937_64 rng(seed + 1);
  constexpr int queries = 1'000'000;
  for (int q = 0; q < queries; ++q) {
    const fl::rope& r = q % 2 ? tree : flat;
    const metric& m = metrics[q / 2 % 6];
    const std::size_t arg = rng() % m.args;
    const std::size_t got = (r.*m.query)(arg);
    const std::size_t want = m.want(arg);
    const bool ok = got == want;
    ASSERT_TRUE(ok) << m.kind << "(" << arg << ") gave " << got << ", want " << want << " on the "
                    << (q % 2 ? "tree" : "flat rope") << "; seed " << seed << " query " << q;
  }
}
