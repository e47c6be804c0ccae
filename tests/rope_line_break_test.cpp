// fl::rope's line-break modes (fl::line_break): every line call in
// line_break::lf and line_break::lf_crlf mode checked against a reference
// computed on a std::string mirror after every random edit, the lf_crlf
// invariant (no chunk ends with the '\r' of a "\r\n" whose '\n' starts the
// next) checked likewise, and the cases by hand: a '\r' at a chunk's end, a
// "\r\n" made or unmade across a boundary, a lone '\r', "\r\n" at the
// start and the end, the mode kept by copies and results, and the strong
// guarantee of the widened edits. 16-byte leaves: deep trees from small
// texts, and almost every edit meets a leaf boundary.
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_support.hpp"

#include <algorithm>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace rope_test;  // rope_support.hpp
using fl::line_break;

namespace {

const char* name(line_break m) { return m == line_break::lf ? "lf" : "lf_crlf"; }

// Line breaks in every arrangement an edit can cut: "\r\n" pairs, lone '\r'
// and '\n', runs of them, beside UTF-8 text (2- and 4-byte chars).
std::string random_breaks(std::mt19937_64& rng, std::size_t n) {
  static const char* const pieces[] = {"\r\n", "\r", "\n", "\r\n\r\n", "\r\r\n", "\n\r",
                                       "ab",   "c",  "\xC3\xA9", "\xF0\x9F\x98\x80", " x"};
  std::string s;
  while (s.size() < n) s += pieces[pick(rng, std::size(pieces))];
  s.resize(n);
  return s;
}

// The line calls' answers for text s in mode m, from their definitions.
struct line_reference {
  std::vector<std::size_t> start;  // line_to_byte, line_count() + 1 entries
  std::vector<std::size_t> end;    // line_end, line_count() entries
  naive_metrics m;
  const std::string& s;
  line_break mode;
  line_reference(const std::string& text, line_break mode_)
      : m(text), s(text), mode(mode_) {
    start.push_back(0);
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '\n') continue;
      end.push_back(mode == line_break::lf_crlf && i > 0 && s[i - 1] == '\r' ? i - 1 : i);
      start.push_back(i + 1);
    }
    end.push_back(s.size());
    start.push_back(s.size());
  }
  std::size_t lines() const { return end.size(); }
  std::size_t line_of(std::size_t pos) const { return m.lines[pos]; }
  // A position inside a "\r\n" (at its '\n') means the end of the line's
  // text in lf_crlf mode.
  fl::rope::line_column line_column(std::size_t pos) const {
    if (mode == line_break::lf_crlf && pos > 0 && pos < s.size() && s[pos] == '\n' &&
        s[pos - 1] == '\r')
      --pos;
    const std::size_t line = m.lines[pos];
    return {line, m.units[pos] - m.units[start[line]]};
  }
  std::size_t utf16_after(std::size_t pos, std::size_t n) const {
    if (pos == s.size()) return s.size();
    const std::size_t total_units = m.unit_at.size() - 1;
    const std::size_t k = m.chars[pos + 1] ? m.units[m.char_at[m.chars[pos + 1] - 1]] : 0;
    return m.unit_at[std::min(k + n, total_units)];
  }
  std::size_t line_column_to_byte(std::size_t line, std::size_t col) const {
    const std::size_t from = start[line], eol = end[line];
    return col == 0 || from == eol ? from : std::min(utf16_after(from, col), eol);
  }
};

// No chunk ends with '\r' while the next starts with '\n' (lf_crlf mode).
void expect_no_split_break(const fl::rope& r, const std::string& ctx) {
  char prev = '\0';
  std::size_t at = 0;
  for (std::string_view c : r.chunks()) {
    ASSERT_FALSE(prev == '\r' && c.front() == '\n') << ctx << ": \"\\r\\n\" split at byte " << at;
    prev = c.back();
    at += c.size();
  }
}

// Every line call of r against the reference of s in r's mode: all lines
// and positions while the text is short, `probes` random ones otherwise.
void expect_lines(const fl::rope& r, const std::string& s, std::mt19937_64& rng, int probes,
                  const std::string& ctx) {
  const line_reference ref(s, r.line_break_mode());
  const std::string at = ctx + " (" + name(r.line_break_mode()) + ")";
  ASSERT_EQ(r.line_count(), ref.lines()) << at;
  if (r.line_break_mode() == line_break::lf_crlf) {
    expect_no_split_break(r, at);
    if (::testing::Test::HasFatalFailure()) return;
  }
  const bool all = s.size() < 200;
  auto by_line = [&](std::size_t i) {
    ASSERT_EQ(r.line_to_byte(i), ref.start[i]) << at << " line " << i;
    ASSERT_EQ(r.line_to_char(i), ref.m.chars[ref.start[i]]) << at << " line " << i;
    if (i == ref.lines()) return;
    ASSERT_EQ(r.line_end(i), ref.end[i]) << at << " line " << i;
    ASSERT_EQ(r.line(i), std::string_view(s).substr(ref.start[i], ref.start[i + 1] - ref.start[i]))
        << at << " line " << i;
    const fl::rope text = r.line_text(i);
    ASSERT_EQ(text, std::string_view(s).substr(ref.start[i], ref.end[i] - ref.start[i]))
        << at << " line " << i;
    ASSERT_EQ(text.line_break_mode(), r.line_break_mode()) << at;
    const std::size_t col = pick(rng, 2) ? pick(rng, 8) : pick(rng, 100);
    ASSERT_EQ(r.line_column_to_byte({i, col}), ref.line_column_to_byte(i, col))
        << at << " line " << i << " column " << col;
    ASSERT_EQ(r.line_column_to_byte({i, 0}), ref.start[i]) << at << " line " << i;
    ASSERT_EQ(r.line_column_to_byte({i, fl::rope::npos}), ref.end[i]) << at << " line " << i;
  };
  auto by_pos = [&](std::size_t pos) {
    ASSERT_EQ(r.byte_to_line(pos), ref.line_of(pos)) << at << " pos " << pos;
    const fl::rope::line_column lc = r.byte_to_line_column(pos);
    ASSERT_EQ(lc, ref.line_column(pos)) << at << " pos " << pos;
    // Back to a byte: the same position, or the end of the line's text for
    // a position inside a break; never between a '\r' and its '\n'.
    const std::size_t back = r.line_column_to_byte(lc);
    if (r.line_break_mode() == line_break::lf_crlf && back > 0 && back < s.size()) {
      ASSERT_FALSE(s[back - 1] == '\r' && s[back] == '\n') << at << " pos " << pos;
    }
    // The way back gives the same byte (the '\r' for the '\n' of a "\r\n"
    // in lf_crlf mode) from a char's start whose line holds no stray
    // continuation byte before it (such a byte has no UTF-16 unit).
    ASSERT_EQ(back, ref.line_column_to_byte(lc.line, lc.column)) << at << " pos " << pos;
    if (pos == s.size() || is_char_byte(s[pos])) {
      const bool in_break = r.line_break_mode() == line_break::lf_crlf && pos > 0 &&
                            pos < s.size() && s[pos] == '\n' && s[pos - 1] == '\r';
      const std::size_t want = in_break ? pos - 1 : pos;
      const std::size_t from = ref.start[lc.line];
      if (std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from),
                      s.begin() + static_cast<std::ptrdiff_t>(want), is_char_byte)) {
        ASSERT_EQ(back, want) << at << " pos " << pos;
      }
    }
  };
  auto by_char = [&](std::size_t i) {
    ASSERT_EQ(r.char_to_line(i), ref.m.lines[ref.m.char_at[i]]) << at << " char " << i;
  };
  if (all) {
    for (std::size_t i = 0; i <= ref.lines(); ++i) by_line(i);
    for (std::size_t p = 0; p <= s.size(); ++p) by_pos(p);
    for (std::size_t i = 0; i < ref.m.char_at.size(); ++i) by_char(i);
  } else {
    for (int k = 0; k < probes; ++k) {
      by_line(pick(rng, ref.lines() + 1));
      by_pos(pick(rng, s.size() + 1));
      by_char(pick(rng, ref.m.char_at.size()));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  if (::testing::Test::HasFatalFailure()) return;
  // The ranges of lines and of line texts.
  std::size_t i = 0;
  for (const fl::rope& l : r.lines()) {
    ASSERT_LT(i, ref.lines()) << at;
    ASSERT_EQ(l.size(), ref.start[i + 1] - ref.start[i]) << at << " lines() " << i;
    ++i;
  }
  ASSERT_EQ(i, ref.lines()) << at;
  i = 0;
  for (const fl::rope& l : r.line_texts()) {
    ASSERT_EQ(l, std::string_view(s).substr(ref.start[i], ref.end[i] - ref.start[i]))
        << at << " line_texts() " << i;
    ++i;
  }
  ASSERT_EQ(i, ref.lines()) << at;
  ASSERT_THROW((void)r.line_end(ref.lines()), std::out_of_range) << at;
  ASSERT_THROW((void)r.line_text(ref.lines()), std::out_of_range) << at;
  ASSERT_THROW((void)r.line_column_to_byte({ref.lines(), 0}), std::out_of_range) << at;
}

// The chunks of a rope, for the hand-made cases.
std::vector<std::string> chunks_of(const fl::rope& r) {
  std::vector<std::string> out;
  for (std::string_view c : r.chunks()) out.emplace_back(c);
  return out;
}

}  // namespace

// Random edits of every kind on ropes of both modes (and ropes moving
// between them, and ropes of one mode inserted into the other), every line
// call checked against the std::string reference after every step.
TEST(RopeLineBreak, RandomEditsAgreeWithAReferenceInBothModes) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x63726c66ULL);
  struct slot {
    fl::rope r;
    std::string s;
  };
  std::vector<slot> slots(6);
  for (std::size_t i = 0; i < slots.size(); ++i)
    slots[i].r = fl::rope(i % 2 ? line_break::lf_crlf : line_break::lf);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr int steps = 1'500;  // sanitizers slow every byte the checks read
#else
  constexpr int steps = 6'000;
#endif
  unsigned max_height = 0;
  std::size_t crlf_steps = 0;
  for (int step = 0; step < steps; ++step) {
    slot& sl = slots[pick(rng, slots.size())];
    fl::rope& r = sl.r;
    std::string& s = sl.s;
    const std::string ctx = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    const std::size_t pos = pick(rng, s.size() + 1);
    const std::size_t n = pick(rng, 2) ? pick(rng, 4) : pick(rng, 60);
    const std::string piece =
        random_breaks(rng, pick(rng, 4) == 0 ? pick(rng, 120) : pick(rng, 6));
    const line_break mode = r.line_break_mode();
    switch (pick(rng, s.size() > 3000 ? 12 : 16)) {
      case 0: apply_edit(basic_edit::append, r, s, pos, n, piece); break;
      case 1: apply_edit(basic_edit::prepend, r, s, pos, n, piece); break;
      case 2: apply_edit(basic_edit::insert, r, s, pos, n, piece); break;
      case 3: apply_edit(basic_edit::erase, r, s, pos, n, piece); break;
      case 4: apply_edit(basic_edit::replace, r, s, pos, n, piece); break;
      case 5: {  // a single '\n' or '\r' typed anywhere, one byte erased
        const char ch = pick(rng, 2) ? '\n' : '\r';
        if (pick(rng, 2) || s.empty()) {
          r.insert(r.begin() + static_cast<std::ptrdiff_t>(pos), ch);
          s.insert(pos, 1, ch);
        } else {
          const std::size_t at = pick(rng, s.size());
          r.erase(r.begin() + static_cast<std::ptrdiff_t>(at));
          s.erase(at, 1);
        }
        break;
      }
      case 6: {  // a rope of either mode into this one
        const slot& o = slots[pick(rng, slots.size())];
        if (s.size() + o.s.size() < 6000) {
          switch (pick(rng, 4)) {
            case 0: r.insert(pos, o.r); s.insert(pos, o.s); break;
            case 1: r.append(o.r); s += o.s; break;
            case 2: r.prepend(o.r); s.insert(0, o.s); break;
            default: r.replace(pos, n, o.r); s.replace(pos, std::min(n, s.size() - pos), o.s); break;
          }
        }
        break;
      }
      case 7: {  // rope + rope takes the left operand's mode
        const slot& o = slots[pick(rng, slots.size())];
        if (s.size() + o.s.size() < 6000) {
          r = r + o.r;
          s += o.s;
          ASSERT_EQ(r.line_break_mode(), mode) << ctx;
        }
        break;
      }
      case 8: {
        const std::size_t len = pick(rng, s.size() - pos + 1);
        r = r.substr(pos, len);
        s = s.substr(pos, len);
        ASSERT_EQ(r.line_break_mode(), mode) << ctx;
        break;
      }
      case 9: {  // the other mode, in place or as a copy
        const line_break other = mode == line_break::lf ? line_break::lf_crlf : line_break::lf;
        if (pick(rng, 2)) {
          r.set_line_break_mode(other);
        } else {
          r = fl::rope(r, other);
        }
        ASSERT_EQ(r.line_break_mode(), other) << ctx;
        break;
      }
      case 10: {  // edits by char and by UTF-16 unit
        const naive_metrics m(s);
        const bool chars = pick(rng, 2);
        const std::size_t total = chars ? m.char_at.size() - 1 : m.unit_at.size() - 1;
        const std::size_t at = pick(rng, total + 1);
        const auto [b, e] = chars ? naive_char_range(s, at, n) : naive_utf16_range(s, at, n);
        if (chars) {
          r.replace_chars(at, n, piece);
        } else {
          r.replace_utf16(at, n, piece);
        }
        s.replace(b, e - b, piece);
        break;
      }
      case 11: {  // small appends (the in-place paths), often "\r" then "\n"
        for (int k = 0; k < 6; ++k) {
          const std::string small = pick(rng, 2) ? std::string(1, "\r\n"[k % 2])
                                                 : random_breaks(rng, pick(rng, 5) + 1);
          r += small;
          s += small;
        }
        break;
      }
      case 12: {  // a new text, in the slot's mode (a flat chunk)
        s = random_breaks(rng, pick(rng, 2000));
        r = fl::rope(s, mode);
        break;
      }
      case 13: {  // a tree of leaves cut anywhere, in lf mode, then switched
        const std::string t = random_breaks(rng, pick(rng, 400));
        const fl::rope lf_tree = tree_of(t, 1 + pick(rng, 7));
        r = fl::rope(lf_tree, mode);
        s = t;
        break;
      }
      case 14: {  // assignment of a text keeps the mode
        s = random_breaks(rng, pick(rng, 40));
        r = std::string_view(s);
        ASSERT_EQ(r.line_break_mode(), mode) << ctx;
        break;
      }
      default: {  // adopt a flattened string in the same mode, then edit it
        r = fl::rope(std::move(r).flatten(), mode);
        apply_edit(basic_edit::replace, r, s, pos, n, piece);
        break;
      }
    }
    ASSERT_NO_THROW(fl::detail::check_invariants(r)) << ctx;
    expect_content(r, s, ctx);
    if (HasFatalFailure()) return;
    max_height = std::max(max_height, fl::detail::rope_height(r));
    crlf_steps += r.line_break_mode() == line_break::lf_crlf;
    expect_lines(r, s, rng, 12, ctx);
    if (HasFatalFailure()) return;
    if (step % 200 == 0) {
      for (const slot& o : slots) {
        ASSERT_NO_THROW(fl::detail::check_invariants(o.r)) << ctx << " (slots)";
        expect_lines(o.r, o.s, rng, 24, ctx + " (slots)");
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_GE(max_height, 4u) << "seed " << seed;
  EXPECT_GE(crlf_steps, static_cast<std::size_t>(steps / 4)) << "seed " << seed;
}

// The lines of one text in both modes: the same line numbers and starts,
// different ends of the text; a lone '\r' is text in both.
TEST(RopeLineBreak, LinesOfOneTextInBothModes) {
  const std::string s = "\r\nab\r\nc\rd\n\xF0\x9F\x98\x80\r\r\n\r";
  const fl::rope lf(s);
  const fl::rope crlf(s, line_break::lf_crlf);
  EXPECT_EQ(lf.line_break_mode(), line_break::lf);
  EXPECT_EQ(crlf.line_break_mode(), line_break::lf_crlf);
  for (const fl::rope* r : {&lf, &crlf}) {
    EXPECT_EQ(r->line_count(), 5u);
    EXPECT_EQ(r->line_to_byte(1), 2u);
    EXPECT_EQ(r->line_to_byte(2), 6u);
    EXPECT_EQ(r->line_to_byte(3), 10u);
    EXPECT_EQ(r->line_to_byte(4), 17u);
    EXPECT_EQ(r->byte_to_line(5), 1u);  // the '\n' of "ab\r\n"
    EXPECT_EQ(r->line(1), "ab\r\n");    // line(i) keeps its break
    EXPECT_EQ(r->line(2), "c\rd\n");
  }
  // lf: a '\r' before '\n' is text of the line.
  EXPECT_EQ(lf.line_text(0), "\r");
  EXPECT_EQ(lf.line_text(1), "ab\r");
  EXPECT_EQ(lf.line_text(2), "c\rd");
  EXPECT_EQ(lf.line_text(3), "\xF0\x9F\x98\x80\r\r");
  EXPECT_EQ(lf.line_text(4), "\r");  // a lone '\r' at the end: text
  EXPECT_EQ(lf.line_end(1), 5u);
  // lf_crlf: "\r\n" is one break; a lone '\r' stays text.
  EXPECT_EQ(crlf.line_text(0), "");
  EXPECT_EQ(crlf.line_end(0), 0u);
  EXPECT_EQ(crlf.line_text(1), "ab");
  EXPECT_EQ(crlf.line_end(1), 4u);
  EXPECT_EQ(crlf.line_text(2), "c\rd");
  EXPECT_EQ(crlf.line_text(3), "\xF0\x9F\x98\x80\r");  // "\r\r\n": the first '\r' is text
  EXPECT_EQ(crlf.line_text(4), "\r");
  // LSP positions: a column past the end stops before the break; the '\n'
  // of a "\r\n" is the end of its line's text.
  EXPECT_EQ(lf.line_column_to_byte({1, 99}), 5u);
  EXPECT_EQ(crlf.line_column_to_byte({1, 99}), 4u);
  EXPECT_EQ(crlf.line_column_to_byte({3, 99}), 15u);
  EXPECT_EQ(crlf.line_column_to_byte({3, 2}), 14u);  // after the surrogate pair
  EXPECT_EQ(lf.byte_to_line_column(5), (fl::rope::line_column{1, 3}));
  EXPECT_EQ(crlf.byte_to_line_column(5), (fl::rope::line_column{1, 2}));
  EXPECT_EQ(crlf.byte_to_line_column(4), (fl::rope::line_column{1, 2}));
  EXPECT_EQ(crlf.byte_to_line_column(1), (fl::rope::line_column{0, 0}));
  EXPECT_EQ(crlf.byte_to_line_column(16), (fl::rope::line_column{3, 3}));
  EXPECT_EQ(crlf.byte_to_line_column(18), (fl::rope::line_column{4, 1}));
  std::vector<std::string> texts;
  for (const fl::rope& l : crlf.line_texts()) texts.push_back(l.to_std());
  EXPECT_EQ(texts, (std::vector<std::string>{"", "ab", "c\rd", "\xF0\x9F\x98\x80\r", "\r"}));
  EXPECT_EQ(crlf.char_to_line(7), 2u);
  EXPECT_EQ(crlf.line_to_char(3), lf.line_to_char(3));
  // Empty ropes, and a text that is one break.
  const fl::rope empty(line_break::lf_crlf);
  EXPECT_EQ(empty.line_count(), 1u);
  EXPECT_EQ(empty.line_end(0), 0u);
  EXPECT_EQ(empty.line_text(0), "");
  const fl::rope one("\r\n", line_break::lf_crlf);
  EXPECT_EQ(one.line_count(), 2u);
  EXPECT_EQ(one.line_text(0), "");
  EXPECT_EQ(one.line_text(1), "");
  EXPECT_EQ(one.line_column_to_byte({0, 5}), 0u);
  EXPECT_EQ(one.line_column_to_byte({1, 5}), 2u);
  try {
    (void)crlf.line_end(5);
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "fl::rope::line_end: i (which is 5) >= line_count() (which is 5)");
  }
}

// A tree whose leaves split "\r\n" pairs (cut anywhere in lf mode) gets
// them moved into one leaf when switched to lf_crlf; the text stays.
TEST(RopeLineBreak, SwitchingModeJoinsBreaksSplitBetweenLeaves) {
  const std::string s = "ab\r\ncd\r\n\r\nef\r\r\n\n\r";
  for (std::size_t piece = 1; piece <= 5; ++piece) {
    fl::rope r = tree_of(s, piece);
    ASSERT_GT(fl::detail::rope_height(r), 0u);
    const fl::rope copy = r;
    r.set_line_break_mode(line_break::lf_crlf);
    EXPECT_EQ(r, s) << "pieces of " << piece;
    EXPECT_NO_THROW(fl::detail::check_invariants(r)) << "pieces of " << piece;
    expect_no_split_break(r, "pieces of " + std::to_string(piece));
    // The lf-mode copy still shares its old leaves, unchanged.
    EXPECT_EQ(copy.line_break_mode(), line_break::lf);
    EXPECT_EQ(copy, s);
    EXPECT_NO_THROW(fl::detail::check_invariants(copy));
    r.set_line_break_mode(line_break::lf);  // O(1): nothing moves
    EXPECT_EQ(chunks_of(r), chunks_of(fl::rope(r, line_break::lf)));
  }
  // Two full leaves that split a pair (joined as they are: too big to
  // merge) pass the check in lf mode; the lf_crlf copy moves the pair.
  const std::string a = "0123456789abcde\r", b = "\n0123456789abcde";
  const fl::rope split = tree_of(a + b, 16);
  ASSERT_EQ(chunks_of(split), (std::vector<std::string>{a, b}));
  EXPECT_NO_THROW(fl::detail::check_invariants(split));
  const fl::rope joined(split, line_break::lf_crlf);
  EXPECT_EQ(joined, a + b);
  expect_no_split_break(joined, "a|b");
  EXPECT_NO_THROW(fl::detail::check_invariants(joined));
}

// "\r\n" made across a chunk boundary by an insert, an erase, an append or
// a prepend is rewritten into one chunk; lf mode leaves the chunks as the
// edit made them.
TEST(RopeLineBreak, EditsThatJoinACrAndAnLfKeepThemInOneChunk) {
  for (const line_break mode : {line_break::lf, line_break::lf_crlf}) {
    const std::string ctx = name(mode);
    // Typing '\n' after a '\r' that ends a leaf.
    fl::rope a(tree_of("abc\r" "defg" "hijk", 4), mode);
    a.insert(4, "\n");
    EXPECT_EQ(a, "abc\r\ndefghijk") << ctx;
    // Erasing what lies between a '\r' and a '\n' in other leaves.
    fl::rope b(tree_of("ab\r" "xyz" "\ncd" "efgh", 3), mode);
    b.erase(3, 3);
    EXPECT_EQ(b, "ab\r\ncdefgh") << ctx;
    // Appending "\n..." to a tree that ends with '\r', and a rope that
    // starts with '\n' (from a rope of the other mode).
    fl::rope c(tree_of("0123456789abcdef0123\r", 4), mode);
    c.append(std::string(40, 'x').insert(0, "\n"));
    fl::rope d(tree_of("0123456789abcdef0123\r", 4), mode);
    d.append(tree_of("\n" + std::string(40, 'y'), 4));
    fl::rope e(tree_of("\nabcdefghijklmnop", 4), mode);
    e.prepend(tree_of("0123456789abcdef\r", 4));
    fl::rope f(tree_of("\nabcdefghijklmnop", 4), mode);
    f.prepend(std::string(30, 'z') + "\r");
    // Replacing text so that its last byte '\r' meets a '\n' after it.
    fl::rope g(tree_of("abcd" "efgh" "\nijk", 4), mode);
    g.replace(4, 4, "EF\r");
    EXPECT_EQ(g, "abcdEF\r\nijk") << ctx;
    // Erasing from the start up to a '\n' whose '\r' went before, and a
    // '\r' typed before a '\n' at a leaf's start.
    fl::rope h(tree_of("ab\r" "\n\r\n" "\nxyz" "\r\n", 3), mode);
    h.insert(3, "Q");  // between the '\r' and its '\n'
    EXPECT_EQ(h, "ab\rQ\n\r\n\nxyz\r\n") << ctx;
    h.erase(3, 1);
    EXPECT_EQ(h, "ab\r\n\r\n\nxyz\r\n") << ctx;
    fl::rope k(tree_of("abcd" "\nefg", 4), mode);
    k.insert(k.begin() + 4, '\r');
    EXPECT_EQ(k, "abcd\r\nefg") << ctx;
    for (const fl::rope* r : {&a, &b, &c, &d, &e, &f, &g, &h, &k}) {
      EXPECT_EQ(r->line_break_mode(), mode) << ctx;
      EXPECT_NO_THROW(fl::detail::check_invariants(*r)) << ctx;
      if (mode == line_break::lf_crlf) expect_no_split_break(*r, ctx);
    }
  }
  // In lf mode an edit may leave the pair in two leaves (what the mode
  // allows), so the check above is not vacuous: a '\r' typed at the end of
  // a full leaf whose neighbour starts with '\n'.
  fl::rope lf = tree_of("0123456789abcde" "\n0123456789abcde", 15);
  lf.insert(15, "\r");
  bool split = false;
  char prev = '\0';
  for (std::string_view c : lf.chunks()) {
    split = split || (prev == '\r' && c.front() == '\n');
    prev = c.back();
  }
  EXPECT_TRUE(split);
}

// "\r\n" at the start and the end of the text, edited there.
TEST(RopeLineBreak, BreaksAtTheStartAndTheEnd) {
  fl::rope r("\r\n", line_break::lf_crlf);
  r.append(tree_of("abcdefghijklmnopqrstuvwxyz", 5));
  r.append("\r");
  r.append("\n");
  EXPECT_EQ(r, "\r\nabcdefghijklmnopqrstuvwxyz\r\n");
  EXPECT_EQ(r.line_count(), 3u);
  EXPECT_EQ(r.line_text(0), "");
  EXPECT_EQ(r.line_text(1), "abcdefghijklmnopqrstuvwxyz");
  EXPECT_EQ(r.line_text(2), "");
  EXPECT_EQ(r.line_end(1), 28u);
  EXPECT_EQ(r.byte_to_line_column(29), (fl::rope::line_column{1, 26}));
  EXPECT_EQ(r.byte_to_line_column(30), (fl::rope::line_column{2, 0}));
  expect_no_split_break(r, "ends");
  r.erase(0, 1);  // a lone '\n' starts the text now
  EXPECT_EQ(r.line_text(0), "");
  r.prepend("\r");
  EXPECT_EQ(r.substr(0, 3), "\r\na");
  r.erase(r.size() - 1);  // a lone '\r' ends the text: text of the last line
  EXPECT_EQ(r.line_count(), 2u);
  EXPECT_EQ(r.line_text(1), "abcdefghijklmnopqrstuvwxyz\r");
  EXPECT_EQ(r.line_column_to_byte({1, 99}), r.size());
  r.push_back('\n');
  EXPECT_EQ(r.line_text(1), "abcdefghijklmnopqrstuvwxyz");
  expect_no_split_break(r, "ends");
  EXPECT_NO_THROW(fl::detail::check_invariants(r));
}

// The mode is part of the value: copies, moves, swap, assignment of a text,
// clear, substr, line(i) and operator+ keep it; == compares text only.
TEST(RopeLineBreak, ModeTravelsWithTheRope) {
  fl::rope a("x\r\ny", line_break::lf_crlf);
  fl::rope b = a;
  EXPECT_EQ(b.line_break_mode(), line_break::lf_crlf);
  fl::rope c(std::move(b));
  EXPECT_EQ(c.line_break_mode(), line_break::lf_crlf);
  fl::rope d("x\r\ny");
  EXPECT_EQ(d, a);  // same text, other mode
  d.swap(c);
  EXPECT_EQ(d.line_break_mode(), line_break::lf_crlf);
  EXPECT_EQ(c.line_break_mode(), line_break::lf);
  d = "p\r\nq";
  EXPECT_EQ(d.line_break_mode(), line_break::lf_crlf);
  d.clear();
  EXPECT_EQ(d.line_break_mode(), line_break::lf_crlf);
  EXPECT_EQ(a.substr(1).line_break_mode(), line_break::lf_crlf);
  EXPECT_EQ(a.substr(4, 0).line_break_mode(), line_break::lf_crlf);
  EXPECT_EQ(a.line(0).line_break_mode(), line_break::lf_crlf);
  EXPECT_EQ((a + c).line_break_mode(), line_break::lf_crlf);
  EXPECT_EQ((c + a).line_break_mode(), line_break::lf);
  EXPECT_EQ(("w" + a).line_break_mode(), line_break::lf_crlf);
  fl::string owned("m\r\nn", 4);
  const fl::rope adopted(std::move(owned), line_break::lf_crlf);
  EXPECT_EQ(adopted.line_break_mode(), line_break::lf_crlf);
  EXPECT_EQ(adopted.line_text(0), "m");
  static_assert(sizeof(void*) != 8 || sizeof(fl::rope) == 64);  // docs/rope.md says so
}

// The widened edits of lf_crlf mode keep the strong guarantee: each
// allocation in turn fails, and after every std::bad_alloc the rope holds
// its old text (and its invariants); then the edit succeeds.
TEST(RopeLineBreak, WidenedEditsAreAllOrNothing) {
  struct edit {
    const char* what;
    void (*run)(fl::rope&);
  };
  const edit edits[] = {
      {"insert \\n after \\r", [](fl::rope& r) { r.insert(4, "\n"); }},
      {"erase between", [](fl::rope& r) { r.erase(9, 3); }},
      {"append a rope", [](fl::rope& r) { r.append(tree_of("\n123456789012345678", 3)); }},
      {"insert a rope", [](fl::rope& r) { r.insert(4, tree_of("\nab\r\r", 1)); }},
      {"switch a copy",
       [](fl::rope& r) { r = fl::rope(tree_of("a\r\nb\r\nc\r\n", 2), line_break::lf_crlf); }},
  };
  for (const edit& e : edits) {
    for (std::size_t fail = 1;; ++fail) {
      fl::rope r(tree_of("abc\rdefg\rxyz\nhijklmnopq\r", 3), line_break::lf_crlf);
      const fl::rope keep = r;  // shared: the edit copies the path it writes
      const std::string before = r.to_std();
      fl::detail::rope_fail_after(fail);
      bool threw = false;
      try {
        e.run(r);
      } catch (const std::bad_alloc&) {
        threw = true;
      }
      fl::detail::rope_fail_after(0);
      ASSERT_NO_THROW(fl::detail::check_invariants(r)) << e.what << " fail " << fail;
      ASSERT_EQ(r.line_break_mode(), line_break::lf_crlf) << e.what;
      if (threw) {
        ASSERT_EQ(r, before) << e.what << " fail " << fail;
        continue;
      }
      expect_no_split_break(r, e.what);
      break;
    }
  }
}
