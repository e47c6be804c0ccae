// fl::rope's code points and the calls around them: chars() and chars_at
// both ways, char_at, is_char_boundary, the checked byte edits and the line
// range walked backwards, on hand-picked texts (valid and invalid UTF-8,
// sequences straddling 16-byte leaves). The random sequences against a
// reference decoder are in rope_metrics_edit_test and rope_edit_test.
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_support.hpp"

#include <iterator>
#include <ranges>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace rope_test;  // rope_support.hpp

static_assert(std::bidirectional_iterator<fl::rope::char_range::iterator>);
static_assert(std::ranges::bidirectional_range<fl::rope::char_range>);
static_assert(std::same_as<std::iter_value_t<fl::rope::char_range::iterator>, char32_t>);
static_assert(std::bidirectional_iterator<fl::rope::line_range::iterator>);
static_assert(std::ranges::bidirectional_range<fl::rope::line_range>);

namespace {
std::u32string forward(const fl::rope& r) {
  std::u32string out;
  for (char32_t c : r.chars()) out += c;
  return out;
}
std::u32string backward(const fl::rope& r) {
  std::u32string out;
  const fl::rope::char_range chars = r.chars();
  for (char32_t c : chars | std::views::reverse) out.insert(out.begin(), c);
  std::u32string via_rbegin;
  for (auto it = chars.rbegin(); it != chars.rend(); ++it)
    via_rbegin.insert(via_rbegin.begin(), *it);
  EXPECT_EQ(via_rbegin, out);
  return out;
}
// The same text as one flat chunk, as leaves of 1, 2 and 3 bytes (every
// sequence cut somewhere), and built by inserts at the middle.
std::vector<fl::rope> shapes(std::string_view text) {
  std::vector<fl::rope> out{fl::rope(text), tree_of(text, 1), tree_of(text, 2), tree_of(text, 3)};
  fl::rope edited, kept;
  for (std::size_t i = text.size(); i-- > 0;) {
    kept = edited;  // shared: the insert splits leaves rather than growing one in place
    edited.insert(0, text.substr(i, 1));
  }
  out.push_back(edited);
  return out;
}
}  // namespace

TEST(RopeChars, ValidTextDecodesEveryLength) {
  const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z\n\xF4\x8F\xBF\xBF";
  const std::u32string want = U"a\u00E9\u20AC\U0001F600z\n\U0010FFFF";
  for (const fl::rope& r : shapes(text)) {
    ASSERT_EQ(r.to_std(), text);
    EXPECT_EQ(forward(r), want);
    EXPECT_EQ(backward(r), want);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.char_at(i), want[i]) << i;
    EXPECT_EQ(r.chars_at(3).begin().index(), 6u);
    EXPECT_EQ(*r.chars_at(3).begin(), U'\U0001F600');
    EXPECT_EQ(*std::prev(r.chars_at(3).begin()), U'\u20AC');
  }
}

// One value per char (a byte that is not 10xxxxxx and the continuation
// bytes after it), so that chars() yields char_count() values and the k-th
// is char_at(k); a char that is not exactly one well-formed sequence is
// U+FFFD.
TEST(RopeChars, InvalidCharsAreOneReplacementEach) {
  struct example {
    std::string text;
    std::u32string want;
  };
  const example examples[] = {
      {"\xC3", U"\uFFFD"},                      // truncated
      {"\xC3\x41", U"\uFFFDA"},                 // truncated before a char ('A')
      {"A\x80\x80", U"\uFFFD"},                 // stray continuations join 'A'
      {"\x80\x80\x41", U"A"},                   // before the first char: no char
      {"\xE0\x80\x80", U"\uFFFD"},              // overlong
      {"\xC0\xAF", U"\uFFFD"},                  // overlong '/'
      {"\xED\xA0\x80", U"\uFFFD"},              // a surrogate
      {"\xF4\x90\x80\x80", U"\uFFFD"},          // above U+10FFFF
      {"\xF0\x9F\x98\x80\x80", U"\uFFFD"},      // a valid sequence and one more byte
      {"\xFF\xFE", U"\uFFFD\uFFFD"},            // bytes that lead nothing
      {"\xEF\xBF\xBD", U"\uFFFD"},              // U+FFFD itself, valid
      {"x\xF8\x88\x80\x80\x80y", U"x\uFFFDy"},  // a 5-byte form
  };
  for (const example& e : examples) {
    for (const fl::rope& r : shapes(e.text)) {
      EXPECT_EQ(forward(r), e.want) << testing::PrintToString(e.text);
      EXPECT_EQ(backward(r), e.want) << testing::PrintToString(e.text);
      ASSERT_EQ(r.char_count(), e.want.size());
      for (std::size_t i = 0; i < e.want.size(); ++i) EXPECT_EQ(r.char_at(i), e.want[i]);
    }
  }
}

TEST(RopeChars, EmptyAndPastTheEnd) {
  const fl::rope e;
  EXPECT_TRUE(e.chars().begin() == e.chars().end());
  EXPECT_TRUE(e.chars_at(0).begin() == e.chars().end());
  EXPECT_TRUE(e.is_char_boundary(0));
  EXPECT_FALSE(e.is_char_boundary(1));
  const fl::rope r("h\xC3\xA9");
  try {
    (void)r.char_at(2);
    FAIL();
  } catch (const std::out_of_range& err) {
    EXPECT_STREQ(err.what(), "fl::rope::char_at: i (which is 2) >= char_count() (which is 2)");
  }
  try {
    (void)r.chars_at(3);
    FAIL();
  } catch (const std::out_of_range& err) {
    EXPECT_STREQ(err.what(), "fl::rope::chars_at: i (which is 3) > char_count() (which is 2)");
  }
}

TEST(RopeChars, CheckedEditsRefuseToSplitASequence) {
  const std::string text = "h\xC3\xA9llo \xF0\x9F\x98\x80!";
  for (fl::rope r : shapes(text)) {
    EXPECT_TRUE(r.is_char_boundary(1));
    EXPECT_FALSE(r.is_char_boundary(2));
    try {
      r.insert_checked(2, "x");
      FAIL();
    } catch (const std::invalid_argument& err) {
      EXPECT_STREQ(err.what(),
                   "fl::rope::insert_checked: pos (which is 2) splits a UTF-8 sequence: byte 2 "
                   "(0xA9) is a continuation byte of the char that starts at byte 1");
    }
    try {
      r.erase_checked(1, 5);         // "\xC3\xA9llo": both ends on char starts
      r.replace_checked(0, 3, "H");  // would end inside the emoji
      FAIL();
    } catch (const std::invalid_argument& err) {
      EXPECT_STREQ(err.what(),
                   "fl::rope::replace_checked: pos + n (which is 3) splits a UTF-8 sequence: "
                   "byte 3 (0x9F) is a continuation byte of the char that starts at byte 2");
    }
    EXPECT_EQ(r.to_std(), "h \xF0\x9F\x98\x80!");
    try {
      r.insert_checked(2, "ok\xE2\x82");
      FAIL();
    } catch (const std::invalid_argument& err) {
      EXPECT_STREQ(err.what(),
                   "fl::rope::insert_checked: text is not valid UTF-8 from its byte 2 (0xE2)");
    }
    EXPECT_EQ(r.to_std(), "h \xF0\x9F\x98\x80!");  // unchanged by the refused edits
    EXPECT_THROW(r.insert_checked(9, "x"), std::out_of_range);
    r.insert_checked(2, "\xE2\x82\xAC");
    r.replace_checked(0, 1, "H");
    r.erase_checked(r.size() - 1);
    EXPECT_EQ(r.to_std(), "H \xE2\x82\xAC\xF0\x9F\x98\x80");
    r.erase_checked(2, 7);
    EXPECT_EQ(r.to_std(), "H ");
    fl::detail::check_invariants(r);
  }
}

TEST(RopeChars, LinesBothWays) {
  const std::string text = "one\ntwo\r\n\nlast";
  for (const fl::rope& r : shapes(text)) {
    std::vector<std::string> back;
    const fl::rope::line_range lines = r.lines();
    for (auto it = lines.end(); it != lines.begin();) back.push_back((*--it).to_std());
    EXPECT_EQ(back, (std::vector<std::string>{"last", "\n", "two\r\n", "one\n"}));
    std::vector<std::string> texts;
    const fl::rope::line_range line_texts = r.line_texts();
    for (const fl::rope& l : line_texts | std::views::reverse) texts.push_back(l.to_std());
    EXPECT_EQ(texts, (std::vector<std::string>{"last", "", "two\r", "one"}));
    auto it = lines.begin();
    ++it;
    ++it;
    --it;
    EXPECT_EQ((*it).to_std(), "two\r\n");
  }
  const fl::rope crlf(text, fl::line_break::lf_crlf);
  std::vector<std::string> texts;
  for (auto it = crlf.line_texts().rbegin(); it != crlf.line_texts().rend(); ++it)
    texts.push_back((*it).to_std());
  EXPECT_EQ(texts, (std::vector<std::string>{"last", "", "two", "one"}));
}
