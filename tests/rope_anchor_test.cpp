// fl::rope's anchors (rope.hpp "anchors"): the rule at each edge (an anchor
// at 0, at the end, inside and at the ends of an erased range, an insert
// exactly at an anchor for each bias), what copies, moves and assignments
// do, the handles' lifetime, and a model-based differential test: seeded
// random edits of every kind with many anchors of both biases, each
// anchor's position compared with a plain reference after every step.
// 16-byte leaves (rope_anchor_test.cmake), so edits cross leaf boundaries
// and take every path of the engine (flat, in one leaf, split and join).
//
// Seeds: FL_TEST_SEED from the environment, else the clock; every failure
// message carries the seed.
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_support.hpp"

#include <cstddef>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace rope_test;  // rope_support.hpp
using bias = fl::rope::bias;

namespace {

// The reference: the rule of rope.hpp written out for one position.
std::size_t moved(std::size_t p, bias b, std::size_t pos, std::size_t n, std::size_t ins) {
  if (p < pos) return p;
  if (p <= pos + n) return b == bias::after ? pos + ins : pos;
  return p - n + ins;
}

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte offset of char i of s (a char: a byte that is not a continuation
// byte, as rope.hpp counts them), s.size() for i == the count.
std::size_t char_offset(const std::string& s, std::size_t i) {
  for (std::size_t b = 0; b < s.size(); ++b)
    if (!continuation(s[b]) && i-- == 0) return b;
  return s.size();
}

std::string valid_utf8(std::mt19937_64& rng, std::size_t pieces) {
  static const char* const parts[] = {
      "a", "b", "\n", "\r\n", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "xy"};
  std::string s;
  for (std::size_t i = 0; i < pieces; ++i) s += parts[pick(rng, std::size(parts))];
  return s;
}

// A rope, its mirror, and anchors with their expected positions.
struct model {
  fl::rope r;
  std::string text;
  std::vector<fl::rope::anchor> anchors;
  std::vector<std::size_t> want;

  // Starts over on `t`, keeping r's line breaks.
  void start(std::string t) {
    text = std::move(t);
    r = text;
  }
  void moved_by(std::size_t pos, std::size_t n, std::size_t ins) {
    for (std::size_t k = 0; k < anchors.size(); ++k)
      want[k] = moved(want[k], anchors[k].bias(), pos, n, ins);
  }
  void replaced(std::size_t pos, std::size_t n, std::string_view s) {
    n = std::min(n, text.size() - pos);
    text.replace(pos, n, s);
    moved_by(pos, n, s.size());
  }
  void clamped() {
    for (std::size_t& w : want) w = std::min(w, text.size());
  }
  void check(const std::string& ctx) {
    ASSERT_EQ(r.size(), text.size()) << ctx;
    ASSERT_EQ(r.anchor_count(), anchors.size()) << ctx;
    for (std::size_t k = 0; k < anchors.size(); ++k)
      ASSERT_EQ(r.position(anchors[k]), want[k]) << ctx << " anchor " << k;
  }
};

}  // namespace

TEST(RopeAnchor, InsertExactlyAtAnAnchorFollowsItsBias) {
  fl::rope r("hello world");
  const fl::rope::anchor before = r.anchor_at(5, bias::before);
  const fl::rope::anchor after = r.anchor_at(5, bias::after);
  r.insert(5, ", big");
  EXPECT_EQ(r.position(before), 5u);
  EXPECT_EQ(r.position(after), 10u);
  EXPECT_EQ(before.bias(), bias::before);
  EXPECT_EQ(after.bias(), bias::after);
  r.insert(0, ">> ");  // before both: both move
  EXPECT_EQ(r.position(before), 8u);
  EXPECT_EQ(r.position(after), 13u);
  r.insert(r.size(), "!");  // after both: neither moves
  EXPECT_EQ(r.position(before), 8u);
  EXPECT_EQ(r.position(after), 13u);
}

TEST(RopeAnchor, AnchorsAtZeroAndAtTheEnd) {
  fl::rope r("abc");
  const auto start_b = r.anchor_at(0, bias::before);
  const auto start_a = r.anchor_at(0, bias::after);
  const auto end_b = r.anchor_at(3, bias::before);
  const auto end_a = r.anchor_at(3, bias::after);
  r.prepend("xy");
  EXPECT_EQ(r.position(start_b), 0u);
  EXPECT_EQ(r.position(start_a), 2u);
  r.append("zz");  // the end: a bias::after anchor types on
  EXPECT_EQ(r.position(end_b), 5u);
  EXPECT_EQ(r.position(end_a), 7u);
  r.push_back('!');
  r += "?";
  EXPECT_EQ(r.position(end_a), 9u);  // still at the end: it typed on
  EXPECT_EQ(r.position(end_b), 5u);
  const auto tail = r.anchor_at(r.size(), bias::after);
  r += fl::rope("more");
  EXPECT_EQ(r.position(tail), r.size());
  EXPECT_THROW((void)r.anchor_at(r.size() + 1, bias::after), std::out_of_range);
  r.erase(0);
  for (const auto* a : {&start_b, &start_a, &end_b, &end_a, &tail}) EXPECT_EQ(r.position(*a), 0u);
}

TEST(RopeAnchor, AnEraseCollapsesTheAnchorsInsideItToItsStart) {
  fl::rope r("0123456789");
  std::vector<fl::rope::anchor> a;
  for (std::size_t p = 0; p <= 10; ++p)
    a.push_back(r.anchor_at(p, p % 2 ? bias::after : bias::before));
  r.erase(3, 4);  // "012789": 3..7 go to 3, past 7 move by -4
  const std::size_t want[] = {0, 1, 2, 3, 3, 3, 3, 3, 4, 5, 6};
  for (std::size_t p = 0; p <= 10; ++p) EXPECT_EQ(r.position(a[p]), want[p]) << p;
  r.insert(3, "abc");  // the collapsed anchors part by bias
  for (std::size_t p = 3; p <= 7; ++p) EXPECT_EQ(r.position(a[p]), p % 2 ? 6u : 3u) << p;
}

TEST(RopeAnchor, AReplaceIsTheEraseThenTheInsert) {
  // "abcdefgh", bytes [2, 6) replaced by "XYZ": an anchor at `at` with bias
  // `b` ends at `want`.
  struct one_case {
    std::size_t at;
    bias b;
    std::size_t want;
  };
  for (const one_case c :
       {one_case{4, bias::before, 2}, one_case{4, bias::after, 5}, one_case{6, bias::before, 2},
        one_case{6, bias::after, 5}, one_case{7, bias::before, 6}, one_case{1, bias::after, 1}}) {
    fl::rope r("abcdefgh");
    const fl::rope::anchor a = r.anchor_at(c.at, c.b);
    r.replace(2, 4, "XYZ");
    EXPECT_EQ(r.position(a), c.want) << c.at;
  }
}

TEST(RopeAnchor, EditsByCharUtf16AndIteratorMoveAnchorsByTheirBytes) {
  fl::rope r("\xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80!");  // "été 😀!"
  const auto bang = r.anchor_at(r.size() - 1, bias::before);
  r.insert_chars(1, "\xE2\x82\xAC");  // 3 bytes after char 0
  EXPECT_EQ(r.position(bang), 13u);
  r.erase_utf16(5, 2);  // the emoji (two units, four bytes)
  EXPECT_EQ(r.position(bang), 9u);
  r.erase(r.begin());
  EXPECT_EQ(r.position(bang), 8u);
  r.insert(r.begin(), "ab");
  EXPECT_EQ(r.position(bang), 10u);
}

TEST(RopeAnchor, ARefusedCheckedEditMovesNothing) {
  fl::rope r("\xC3\xA9\xC3\xA9");
  const auto a = r.anchor_at(4, bias::after);
  EXPECT_THROW(r.insert_checked(1, "x"), std::invalid_argument);
  EXPECT_THROW(r.replace_checked(0, 2, "\xC3"), std::invalid_argument);
  EXPECT_THROW(r.erase_checked(5), std::out_of_range);
  EXPECT_EQ(r.position(a), 4u);
  r.insert_checked(2, "x");
  EXPECT_EQ(r.position(a), 5u);
}

TEST(RopeAnchor, CopiesAndMovesTakeTextNotAnchors) {
  fl::rope r("some text");
  const auto a = r.anchor_at(5, bias::after);
  fl::rope copy(r);
  EXPECT_EQ(copy.anchor_count(), 0u);
  EXPECT_FALSE(copy.holds(a));
  EXPECT_THROW((void)copy.position(a), std::invalid_argument);
  copy.insert(0, "xx");  // the copy's edits do not move r's anchors
  EXPECT_EQ(r.position(a), 5u);
  fl::rope moved_to(std::move(r));
  EXPECT_EQ(moved_to.anchor_count(), 0u);
  EXPECT_TRUE(r.holds(a));  // NOLINT(bugprone-use-after-move): r is empty, its anchor at 0
  EXPECT_EQ(r.position(a), 0u);
}

TEST(RopeAnchor, AssignmentAndSwapClampEachRopesOwnAnchors) {
  fl::rope r("0123456789");
  const auto low = r.anchor_at(2, bias::before);
  const auto high = r.anchor_at(8, bias::after);
  r = fl::rope("abcde");
  EXPECT_EQ(r.position(low), 2u);
  EXPECT_EQ(r.position(high), 5u);
  r = "abcdefghijkl";  // longer: nothing moves
  EXPECT_EQ(r.position(high), 5u);
  fl::rope other("xyz");
  const auto o = other.anchor_at(3, bias::before);
  r.swap(other);
  EXPECT_EQ(r.position(high), 3u);
  EXPECT_EQ(other.position(o), 3u);
  r = r;  // NOLINT: self-assignment changes nothing
  EXPECT_EQ(r.position(high), 3u);
  r.clear();
  EXPECT_EQ(r.position(low), 0u);
}

TEST(RopeAnchor, HandlesRemoveTheirPositionAndMayOutliveTheRope) {
  fl::rope::anchor kept;
  EXPECT_TRUE(kept.empty());
  {
    fl::rope r("text");
    fl::rope::anchor a = r.anchor_at(1, bias::before);
    {
      const fl::rope::anchor b = r.anchor_at(2, bias::after);
      EXPECT_EQ(r.anchor_count(), 2u);
    }
    EXPECT_EQ(r.anchor_count(), 1u);
    kept = std::move(a);
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move)
    EXPECT_FALSE(r.holds(a));
    EXPECT_TRUE(r.holds(kept));
    fl::rope::anchor c = r.anchor_at(3, bias::after);
    c.reset();
    EXPECT_TRUE(c.empty());
    EXPECT_EQ(r.anchor_count(), 1u);
    EXPECT_THROW((void)r.position(c), std::invalid_argument);
  }
  EXPECT_FALSE(kept.empty());  // its rope is gone; destroying it is safe
}

// In line_break::lf_crlf mode an edit that joins '\r' and '\n' rewrites the
// pair with its text (rope.hpp): the anchors move by the edit as asked.
TEST(RopeAnchor, WidenedLineBreakEditsMoveAnchorsAsAsked) {
  fl::rope r(std::string(40, 'a') + "\r" + std::string(40, 'b'), fl::line_break::lf_crlf);
  const auto cr = r.anchor_at(40, bias::after);     // at the '\r'
  const auto after = r.anchor_at(41, bias::after);  // just after it
  r.insert(41, "\n");
  EXPECT_EQ(r.position(cr), 40u);
  EXPECT_EQ(r.position(after), 42u);
  r.set_line_break_mode(fl::line_break::lf);
  EXPECT_EQ(r.position(after), 42u);
}

// The model test: 40 anchors (created and dropped as it goes) on a rope
// edited every way, each anchor checked after every step.
TEST(RopeAnchorModel, RandomEditsAgreeWithTheReference) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 8; ++round) {
    model m;
    if (round % 2) m.r = fl::rope(fl::line_break::lf_crlf);
    m.start(valid_utf8(rng, pick(rng, 200)));
    for (int step = 0; step < 1500; ++step) {
      const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round) +
                              " step " + std::to_string(step);
      const std::size_t sz = m.text.size();
      const std::size_t pos = pick(rng, sz + 1), n = pick(rng, 12);
      const std::string ins = valid_utf8(rng, pick(rng, 4));
      switch (pick(rng, 14)) {
        case 0:
          m.r.insert(pos, ins);
          m.replaced(pos, 0, ins);
          break;
        case 1:
          m.r.erase(pos, n);
          m.replaced(pos, n, {});
          break;
        case 2:
          m.r.replace(pos, n, ins);
          m.replaced(pos, n, ins);
          break;
        case 3:
          m.r.replace(pos, n, fl::rope(ins));
          m.replaced(pos, n, ins);
          break;
        case 4: {  // by char: the model finds the bytes itself
          const std::size_t chars = m.r.char_count(), i = pick(rng, chars + 1);
          const std::size_t b = char_offset(m.text, i);
          const std::size_t e = char_offset(m.text, i + std::min(n, chars - i));
          m.r.replace_chars(i, n, ins);
          m.replaced(b, e - b, ins);
          break;
        }
        case 5: {  // checked: refused unless both ends are char boundaries
          // Byte edits (cases 1-3) may leave stray continuation bytes, even
          // at the start; the ends of the text are boundaries whatever the
          // bytes there (is_char_boundary).
          const std::size_t end = pos + std::min(n, sz - pos);
          const auto boundary = [&](std::size_t i) {
            return i == 0 || i == sz || !continuation(m.text[i]);
          };
          const bool ok = boundary(pos) && boundary(end);
          if (ok) {
            m.r.replace_checked(pos, n, ins);
            m.replaced(pos, n, ins);
          } else {
            ASSERT_THROW(m.r.replace_checked(pos, n, ins), std::invalid_argument) << ctx;
          }
          break;
        }
        case 6:
          m.r.append(ins);
          m.replaced(sz, 0, ins);
          break;
        case 7:
          m.r.prepend(fl::rope(ins));
          m.replaced(0, 0, ins);
          break;
        case 8:
          if (m.anchors.size() < 40) {
            const bias b = rng() % 2 ? bias::after : bias::before;
            m.anchors.push_back(m.r.anchor_at(pos, b));
            m.want.push_back(pos);
          }
          break;
        case 9:
          if (!m.anchors.empty()) {
            const std::size_t k = pick(rng, m.anchors.size());
            m.anchors.erase(m.anchors.begin() + static_cast<std::ptrdiff_t>(k));
            m.want.erase(m.want.begin() + static_cast<std::ptrdiff_t>(k));
          }
          break;
        case 10: {  // an undo by snapshot: a whole text assigned
          if (rng() % 8) break;
          m.text = valid_utf8(rng, pick(rng, 150));
          m.r = fl::rope(m.text);
          m.clamped();
          break;
        }
        case 11: {  // an edit on a copy never moves the original's anchors
          fl::rope copy = m.r;
          copy.insert(0, "zz");
          break;
        }
        default:
          m.r.insert(pos, ins);  // typing weighs more
          m.replaced(pos, 0, ins);
          break;
      }
      ASSERT_NO_FATAL_FAILURE(m.check(ctx));
      if (step % 64 == 0) {
        ASSERT_NO_THROW(fl::detail::check_invariants(m.r)) << ctx;
        ASSERT_EQ(m.r.to_std(), m.text) << ctx;
      }
    }
  }
}

// Many anchors at few positions (every edit collapses and parts crowds of
// them) and long erases: the lazy shifts of whole subtrees at work.
TEST(RopeAnchorModel, CrowdsOfAnchorsAgreeWithTheReference) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  model m;
  m.start(random_text(rng, 3000));
  for (int k = 0; k < 2000; ++k) {
    const std::size_t p = pick(rng, 64) * 47;
    m.anchors.push_back(m.r.anchor_at(p, k % 3 ? bias::after : bias::before));
    m.want.push_back(p);
  }
  for (int step = 0; step < 400; ++step) {
    const std::string ctx = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    const std::size_t pos = pick(rng, m.text.size() + 1);
    if (step % 5 == 0) {
      const std::size_t n = pick(rng, 600);
      m.r.erase(pos, n);
      m.replaced(pos, n, {});
    } else {
      const std::string ins = random_text(rng, pick(rng, 60));
      const std::size_t n = pick(rng, 3);
      m.r.replace(pos, n, ins);
      m.replaced(pos, n, ins);
    }
    if (step % 7 == 0) {  // drop a few from the middle of the trees
      for (int j = 0; j < 5 && !m.anchors.empty(); ++j) {
        const std::size_t k = pick(rng, m.anchors.size());
        m.anchors.erase(m.anchors.begin() + static_cast<std::ptrdiff_t>(k));
        m.want.erase(m.want.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
    ASSERT_NO_FATAL_FAILURE(m.check(ctx));
  }
}

// Typing runs between sparse anchors, the edits that skip the treaps (an
// edit inside the stretch around the last one that holds no anchor only
// adds to what the anchors after it are owed): keystrokes and backspaces at
// a cursor that sometimes jumps, now and then across an anchor or onto
// one, with anchors made and released in between, every position checked
// against the reference after every step.
TEST(RopeAnchorModel, TypingRunsBetweenAnchorsAgreeWithTheReference) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  model m;
  m.start(random_text(rng, 2000));
  for (std::size_t p = 0; p <= m.text.size(); p += 97 + pick(rng, 60)) {
    m.anchors.push_back(m.r.anchor_at(p, pick(rng, 2) ? bias::after : bias::before));
    m.want.push_back(p);
  }
  std::size_t cursor = pick(rng, m.text.size() + 1);
  for (int step = 0; step < 4000; ++step) {
    const std::string ctx = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    const std::size_t roll = pick(rng, 100);
    if (roll < 3) {  // a jump, sometimes onto an anchor
      cursor = roll == 0 && !m.want.empty() ? m.want[pick(rng, m.want.size())]
                                            : pick(rng, m.text.size() + 1);
    } else if (roll < 5) {  // a new anchor, or one released
      if (roll == 3) {
        const std::size_t p = pick(rng, m.text.size() + 1);
        m.anchors.push_back(m.r.anchor_at(p, pick(rng, 2) ? bias::after : bias::before));
        m.want.push_back(p);
      } else if (!m.anchors.empty()) {
        const std::size_t k = pick(rng, m.anchors.size());
        m.anchors.erase(m.anchors.begin() + static_cast<std::ptrdiff_t>(k));
        m.want.erase(m.want.begin() + static_cast<std::ptrdiff_t>(k));
      }
    } else if (roll < 25 && cursor > 0) {  // backspace, sometimes a few
      const std::size_t n = std::min(cursor, roll < 8 ? pick(rng, 30) + 1 : std::size_t{1});
      cursor -= n;
      m.r.erase(cursor, n);
      m.replaced(cursor, n, {});
    } else if (roll < 30) {  // a selection replaced
      const std::size_t n = pick(rng, 8);
      const std::string ins = random_text(rng, pick(rng, 5));
      m.r.replace(cursor, n, ins);
      m.replaced(cursor, n, ins);
      cursor += ins.size();
    } else {  // a keystroke
      const std::string ins = random_text(rng, 1);
      m.r.insert(cursor, ins);
      m.replaced(cursor, 0, ins);
      cursor += 1;
    }
    ASSERT_NO_FATAL_FAILURE(m.check(ctx));
  }
}
