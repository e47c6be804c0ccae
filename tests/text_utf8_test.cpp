// tests/text_utf8_test.cpp: fl/detail/utf8.hpp, the one owner of UTF-8's byte
// rules, against a decoder written from RFC 3629's table: every code point
// encodes, validates at its length and decodes back; every 1-3 byte input
// and the 4-byte inputs around each boundary validate exactly when the
// reference accepts them; utf8_char_value decodes each well-formed char and
// gives U+FFFD for any other; utf8_valid_prefix's pass over ASCII answers as
// a walk char by char.
#include <fl/detail/utf8.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using fl::detail::utf8_sequence;

// The reference: the length of the well-formed sequence at p (n bytes
// available), or 0, by decoding and then checking the code point's range
// for that length, surrogates and the upper bound.
std::size_t reference_sequence(const unsigned char* p, std::size_t n) {
  const unsigned c = p[0];
  std::size_t len;
  std::uint32_t cp;
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) {
    len = 2, cp = c & 0x1F;
  } else if ((c >> 4) == 0xE) {
    len = 3, cp = c & 0x0F;
  } else if ((c >> 3) == 0x1E) {
    len = 4, cp = c & 0x07;
  } else {
    return 0;
  }
  if (n < len) return 0;
  for (std::size_t i = 1; i < len; ++i) {
    if ((p[i] >> 6) != 0x2) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  const std::uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

TEST(Utf8, EveryCodePointEncodesValidatesAndCounts) {
  for (std::uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    char out[4];
    const unsigned len = fl::detail::utf8_encode(cp, out);
    const auto* p = reinterpret_cast<const unsigned char*>(out);
    ASSERT_EQ(utf8_sequence(p, p + len), len) << cp;
    ASSERT_EQ(reference_sequence(p, len), len) << cp;
    ASSERT_EQ(fl::detail::utf8_lead_length(p[0]), len) << cp;
    ASSERT_EQ(fl::detail::utf8_utf16_units(p[0]), cp > 0xFFFF ? 2u : 1u) << cp;
    for (unsigned i = 1; i < len; ++i) { ASSERT_TRUE(fl::detail::utf8_continuation(p[i])) << cp; }
    // Cut short, the sequence is not well-formed.
    if (len > 1) { ASSERT_EQ(utf8_sequence(p, p + len - 1), 0u) << cp; }
  }
}

TEST(Utf8, ValidationAgreesWithTheReferenceOnEveryShortInput) {
  unsigned char b[4] = {};
  for (unsigned c0 = 0; c0 < 256; ++c0) {
    b[0] = static_cast<unsigned char>(c0);
    ASSERT_EQ(utf8_sequence(b, b + 1), reference_sequence(b, 1)) << c0;
    for (unsigned c1 = 0; c1 < 256; ++c1) {
      b[1] = static_cast<unsigned char>(c1);
      ASSERT_EQ(utf8_sequence(b, b + 2), reference_sequence(b, 2)) << c0 << ' ' << c1;
      if (c0 < 0xE0) continue;
      // Third bytes: each class of byte (ASCII, the continuation range's
      // ends, leads) is enough past the second byte.
      for (unsigned c2 : {0x00u, 0x7Fu, 0x80u, 0xBFu, 0xC0u, 0xFFu}) {
        b[2] = static_cast<unsigned char>(c2);
        ASSERT_EQ(utf8_sequence(b, b + 3), reference_sequence(b, 3)) << c0 << ' ' << c1;
        if (c0 < 0xF0) continue;
        for (unsigned c3 : {0x7Fu, 0x80u, 0xBFu, 0xC0u}) {
          b[3] = static_cast<unsigned char>(c3);
          ASSERT_EQ(utf8_sequence(b, b + 4), reference_sequence(b, 4)) << c0 << ' ' << c1;
        }
      }
    }
  }
}

TEST(Utf8, ValidPrefixStopsAtTheFirstBadByte) {
  const unsigned char text[] = {'a', 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xED, 0xA0, 0x80, 'z'};
  EXPECT_EQ(fl::detail::utf8_valid_prefix(text, 6), 6u);
  EXPECT_EQ(fl::detail::utf8_valid_prefix(text, sizeof text), 6u);  // a surrogate
  EXPECT_EQ(fl::detail::utf8_valid_prefix(text, 2), 1u);            // cut short
}

// The eight-bytes-at-a-time pass over ASCII gives the answer of a walk
// char by char, wherever the run of ASCII ends: every length of run from 0
// to 24 before a char of each kind (well-formed of 2 to 4 bytes, a stray
// continuation, a surrogate, cut short at the end), and after it.
TEST(Utf8, ValidPrefixOverRunsOfAsciiIsTheWalksAnswer) {
  const std::vector<std::vector<unsigned char>> chars = {
      {0xC3, 0xA9}, {0xE2, 0x82, 0xAC}, {0xF0, 0x9F, 0x98, 0x80},
      {0x80},       {0xED, 0xA0, 0x80}, {0xE2, 0x82},
      {0xFF}};
  const auto walk = [](const unsigned char* p, std::size_t n) {
    std::size_t i = 0;
    while (i < n) {
      const std::size_t k = fl::detail::utf8_sequence(p + i, p + n);
      if (k == 0) return i;
      i += k;
    }
    return n;
  };
  for (const auto& c : chars) {
    for (std::size_t before = 0; before <= 24; ++before) {
      for (std::size_t after : {0u, 1u, 7u, 8u, 9u, 17u}) {
        std::vector<unsigned char> text(before, 'a');
        text.insert(text.end(), c.begin(), c.end());
        text.insert(text.end(), after, 'b');
        for (std::size_t n = 0; n <= text.size(); ++n)
          ASSERT_EQ(fl::detail::utf8_valid_prefix(text.data(), n), walk(text.data(), n))
              << before << ' ' << after << ' ' << n;
      }
    }
  }
}

// utf8_char_value: every code point's encoding decodes back to it; any other
// char (bytes that are not exactly one well-formed sequence: cut short, one
// byte too many, overlong, a surrogate, past U+10FFFF) is U+FFFD.
TEST(Utf8, CharValueDecodesWellFormedCharsAndReplacesTheRest) {
  for (std::uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    unsigned char out[5];
    const unsigned len = fl::detail::utf8_encode(cp, reinterpret_cast<char*>(out));
    ASSERT_EQ(fl::detail::utf8_char_value(out, len), cp) << cp;
    if (len > 1) { ASSERT_EQ(fl::detail::utf8_char_value(out, len - 1), 0xFFFDu) << cp; }
    out[len] = 0x80;  // a continuation byte past the sequence's end
    ASSERT_EQ(fl::detail::utf8_char_value(out, len + 1), 0xFFFDu) << cp;
  }
  const unsigned char overlong[] = {0xC0, 0xAF}, surrogate[] = {0xED, 0xA0, 0x80},
                      too_big[] = {0xF4, 0x90, 0x80, 0x80}, stray[] = {0x80}, ff[] = {0xFF};
  EXPECT_EQ(fl::detail::utf8_char_value(overlong, 2), 0xFFFDu);
  EXPECT_EQ(fl::detail::utf8_char_value(surrogate, 3), 0xFFFDu);
  EXPECT_EQ(fl::detail::utf8_char_value(too_big, 4), 0xFFFDu);
  EXPECT_EQ(fl::detail::utf8_char_value(stray, 1), 0xFFFDu);
  EXPECT_EQ(fl::detail::utf8_char_value(ff, 1), 0xFFFDu);
  // Every 1- and 2-byte char agrees with the reference's validation.
  unsigned char b[2];
  for (unsigned c0 = 0; c0 < 256; ++c0) {
    b[0] = static_cast<unsigned char>(c0);
    const bool one = reference_sequence(b, 1) == 1;
    ASSERT_EQ(fl::detail::utf8_char_value(b, 1) != 0xFFFDu, one) << c0;
    for (unsigned c1 = 0x80; c1 < 0xC0; ++c1) {  // a char's later bytes are continuations
      b[1] = static_cast<unsigned char>(c1);
      ASSERT_EQ(fl::detail::utf8_char_value(b, 2) != 0xFFFDu, reference_sequence(b, 2) == 2)
          << c0 << ' ' << c1;
    }
  }
}
