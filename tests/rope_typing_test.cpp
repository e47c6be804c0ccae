// tests/rope_typing_test.cpp: keystrokes at a cursor (rope_check.hpp:
// type_at_cursor), by char and by UTF-16 unit, on fl::rope with the
// library's own leaf size (4 KiB leaves, 128-byte leaf-index blocks): a
// small flat text edited in place like a string (its metrics kept by every
// edit), the same text once it outgrows the flat size and becomes a tree,
// and a tree of full leaves with shared copies. Every metric is checked
// after every step against plain scans of a std::string mirror.
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_check.hpp"

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

static_assert(fl::detail::leaf_max_bytes == 4096 && fl::detail::leaf_block == 128,
              "rope_typing_test checks the library's own leaf size");

using namespace rope_test;  // rope_check.hpp

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int scale = 4;  // sanitizers slow every byte the checks read
#else
constexpr int scale = 1;
#endif

// 14,000 random UTF-8 bytes from `rng`, and a tree of full leaves of them
// (rope_check.hpp: tree_of).
std::pair<std::string, fl::rope> full_leaf_tree(std::mt19937_64& rng) {
  std::string s = random_utf8(rng, 14000);
  fl::rope r = tree_of(s, fl::detail::leaf_max_bytes);
  return {std::move(s), std::move(r)};
}

}  // namespace

// A text of a few KB is one flat chunk edited in place; typing grows it past
// the flat size (two leaves), where it becomes a tree of edited leaves.
TEST(RopeTyping, FlatTextTypedIntoATree) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x666c6174ULL);
  std::string s = random_utf8(rng, 7600);
  fl::rope r(s);
  ASSERT_EQ(fl::detail::rope_height(r), 0u);
  type_at_cursor(r, s, rng, 2500 / scale, "seed " + std::to_string(seed));
  if (scale == 1) { EXPECT_GE(fl::detail::rope_height(r), 1u) << "seed " << seed; }
}

// A tree of full leaves (rope_check.hpp: tree_of), with
// copies kept now and then: edits of shared leaves copy a window, in-place
// edits truncate the leaf index, and typing runs at the cursor use the hint.
TEST(RopeTyping, TreeOfFullLeaves) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x74726565ULL);
  auto [s, r] = full_leaf_tree(rng);
  ASSERT_GE(fl::detail::rope_height(r), 1u);
  type_at_cursor(r, s, rng, 1500 / scale, "seed " + std::to_string(seed));
}

// Typing by char where a leaf ends: at each leaf boundary of a tree (an
// insert there goes to the end of the left leaf, which keeps the hint for
// the next keystroke) and at the end of the text (the end of the last
// leaf), with backspaces between; a copy kept now and then, so that the
// next edit meets shared leaves and leaves pieces that start inside a
// chunk, whose hint is kept too. Every metric after every step.
TEST(RopeTyping, TypingWhereLeavesEnd) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x656e6473ULL);
  auto [s, r] = full_leaf_tree(rng);
  ASSERT_GE(fl::detail::rope_height(r), 1u);
  static constexpr std::string_view keys[] = {
      "a", "\n", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", " "};
  fl::rope kept;
  for (int round = 0; round < 8 / scale + 1; ++round) {
    // Where a leaf ends (or the text's end), as a char index.
    std::vector<std::size_t> ends;
    std::size_t at = 0;
    for (std::string_view c : r.chunks()) ends.push_back(at += c.size());
    const std::size_t byte = ends[pick(rng, ends.size())];
    std::size_t cursor = naive_metrics(s).chars[byte];
    for (int step = 0; step < 60 / scale; ++step) {
      const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round) +
                              " step " + std::to_string(step);
      if (pick(rng, 5) == 0 && cursor > 0) {
        const auto [b, e] = naive_char_range(s, cursor - 1, 1);
        r.erase_chars(cursor - 1, 1);
        s.erase(b, e - b);
        --cursor;
      } else {
        const std::string_view key = keys[pick(rng, std::size(keys))];
        const std::size_t b = naive_metrics(s).char_at[cursor];
        r.insert_chars(cursor, key);
        s.insert(b, key);
        ++cursor;
      }
      if (pick(rng, 20) == 0) kept = r;
      fl::detail::check_invariants(r);
      expect_content(r, s, ctx);
      if (::testing::Test::HasFatalFailure()) return;
      expect_metrics(r, s, rng, 4, false, ctx);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// An edit near a leaf's start truncates its leaf index there; a query by
// byte far past that frontier counts only a few blocks into the index and
// scans the rest, and queries that come back without edits fill the index
// in. Both kinds, alternating, agree with plain scans, and the index stays
// true to its bytes (check_invariants).
TEST(RopeTyping, ByteQueriesFarPastAnEditedLeafsFrontier) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x66617221ULL);
  std::string s = random_utf8(rng, 5 * fl::detail::leaf_max_bytes);
  fl::rope r = tree_of(s, fl::detail::leaf_max_bytes);
  ASSERT_GE(fl::detail::rope_height(r), 1u);
  for (int round = 0; round < 24 / scale; ++round) {
    const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    // A byte edit near the start of a leaf (its first 256 bytes).
    std::vector<std::size_t> starts;
    std::size_t at = 0;
    for (std::string_view c : r.chunks()) {
      starts.push_back(at);
      at += c.size();
    }
    const std::size_t pos = starts[pick(rng, starts.size())] + pick(rng, 256);
    const std::string_view key = pick(rng, 2) ? std::string_view("\n") : std::string_view("ab");
    r.insert(std::min(pos, s.size()), key);
    s.insert(std::min(pos, s.size()), key);
    // Queries past it in the same leaf (and anywhere), some repeated with no
    // edit between them.
    const naive_metrics m(s);
    for (int q = 0; q < 12; ++q) {
      const std::size_t b =
          q % 3 == 0 ? pick(rng, s.size() + 1) : std::min(s.size(), pos + 256 + pick(rng, 3800));
      for (int again = 0; again < 1 + q % 4; ++again) {
        ASSERT_EQ(r.byte_to_line(b), m.lines[b]) << ctx << " byte " << b;
        ASSERT_EQ(r.byte_to_char(b), m.chars[b]) << ctx << " byte " << b;
        ASSERT_EQ(r.byte_to_utf16(b), m.units[b]) << ctx << " byte " << b;
      }
    }
    fl::detail::check_invariants(r);
    expect_content(r, s, ctx);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

namespace {

// The byte offsets where the rope's leaves end (its chunks, in order).
std::vector<std::size_t> leaf_ends(const fl::rope& r) {
  std::vector<std::size_t> ends;
  std::size_t at = 0;
  for (std::string_view c : r.chunks()) ends.push_back(at += c.size());
  return ends;
}

// One keystroke at `cursor` (in chars) of r and of its mirror s, by char or
// by byte: a backspace every fifth step, else `wide` (every third step
// "k"); then the invariants, the content and every metric.
void type_and_check(fl::rope& r, std::string& s, std::size_t& cursor, int step, bool by_char,
                    std::string_view wide, std::mt19937_64& rng, const std::string& at) {
  const naive_metrics m(s);
  if (step % 5 == 4) {  // a backspace: the char before the cursor
    const auto [from, to] = naive_char_range(s, cursor - 1, 1);
    if (by_char) {
      r.erase_chars(cursor - 1, 1);
    } else {
      r.erase(from, to - from);
    }
    s.erase(from, to - from);
    --cursor;
  } else {
    const std::string_view key = step % 3 ? wide : "k";
    const std::size_t pos = m.char_at[cursor];
    if (by_char) {
      r.insert_chars(cursor, key);
    } else {
      r.insert(pos, key);
    }
    s.insert(pos, key);
    ++cursor;
  }
  fl::detail::check_invariants(r);
  expect_content(r, s, at);
  if (::testing::Test::HasFatalFailure()) return;
  expect_metrics(r, s, rng, 4, false, at);
}

}  // namespace

// Typing into the middle of a leaf with room: the second keystroke at the
// cursor cuts the leaf where the text ends (an in-place edit where the
// last one ended, with an eighth of a leaf or more on each side): the leaf
// count grows by one and a leaf ends right after the text, so the next
// keystrokes append at that leaf's end and backspaces remove its last
// chars, by char and by byte alike, with no further cut. Every metric
// after every step.
TEST(RopeTyping, TypingInTheMiddleOfALeafCutsItAtTheCursor) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x63757421ULL);
  std::string s = random_utf8(rng, 5 * fl::detail::leaf_max_bytes);
  // Half-leaf pieces appended to a shared rope: each is a leaf of its own
  // in a chunk of a whole leaf's capacity (room for edits in place).
  fl::rope r = tree_of(s, fl::detail::leaf_max_bytes / 2);
  ASSERT_GE(fl::detail::rope_height(r), 1u);
  for (int round = 0; round < 6 / scale; ++round) {
    const bool by_char = round % 2 == 0;
    const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    // The middle of a leaf that is neither the first nor the last, long
    // enough that each side of the cursor keeps the cut's minimum (an
    // eighth of a leaf) after the step to a char boundary.
    const std::vector<std::size_t> ends = leaf_ends(r);
    std::vector<std::size_t> long_ones;
    for (std::size_t j = 1; j + 1 < ends.size(); ++j)
      if (ends[j] - ends[j - 1] >= fl::detail::leaf_max_bytes / 4 + 16) long_ones.push_back(j);
    ASSERT_FALSE(long_ones.empty()) << ctx;
    const std::size_t j = long_ones[pick(rng, long_ones.size())];
    const std::size_t lo = ends[j - 1], hi = ends[j];
    std::size_t b = lo + (hi - lo) / 2;
    while (!is_char_byte(s[b])) ++b;
    std::size_t cursor = naive_metrics(s).chars[b];
    const std::size_t leaves = ends.size();
    for (int step = 0; step < 40; ++step) {
      const std::string at = ctx + " step " + std::to_string(step);
      type_and_check(r, s, cursor, step, by_char, "\xE2\x82\xAC", rng, at);
      if (::testing::Test::HasFatalFailure()) return;
      // The first keystroke moves the tail (it may be the only one there);
      // the second types on and cuts: one more leaf, one ending at the
      // cursor.
      const std::vector<std::size_t> now = leaf_ends(r);
      ASSERT_EQ(now.size(), step == 0 ? leaves : leaves + 1) << at;
      if (step == 0) continue;
      const std::size_t cur = naive_metrics(s).char_at[cursor];
      ASSERT_NE(std::find(now.begin(), now.end(), cur), now.end()) << at;
    }
  }
}

// Typing near the start of a leaf (fewer bytes than the cut's minimum
// before the cursor): the second keystroke moves the leaf boundary to the
// cursor, so the keystrokes after it append at a leaf's end instead of
// moving the rest of the leaf. The head and the text go to the end of the
// left sibling when it has room (the leaf count stays), or, in the first
// leaf, to a leaf of their own (one more). By char and by byte; every
// metric after every step.
TEST(RopeTyping, TypingNearALeafsStartMovesTheBoundaryToTheCursor) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x68656164ULL);
  std::string s = random_utf8(rng, 5 * fl::detail::leaf_max_bytes);
  // Half-leaf leaves under one root, each in a chunk with room.
  fl::rope r = tree_of(s, fl::detail::leaf_max_bytes / 2);
  ASSERT_EQ(fl::detail::rope_height(r), 1u);
  for (int round = 0; round < 4; ++round) {
    const bool by_char = round % 2 == 0, first_leaf = round == 2;
    const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    const std::vector<std::size_t> ends = leaf_ends(r);
    // Rounds 0 and 1 type near the start of the last leaf but one (the
    // first leaves were a flat text once, in a full chunk: the left sibling
    // with room is one of the appended pieces); round 2 near the start of
    // the first leaf; round 3 near the start of the second, whose left
    // sibling is then the leaf round 2 made.
    const std::size_t lo = round < 2 ? ends[ends.size() - 3] : round == 2 ? 0 : ends[0];
    std::size_t b = lo + 1 + pick(rng, fl::detail::leaf_max_bytes / 16);
    while (!is_char_byte(s[b])) ++b;
    std::size_t cursor = naive_metrics(s).chars[b];
    std::size_t leaves = ends.size();
    for (int step = 0; step < 30; ++step) {
      const std::string at = ctx + " step " + std::to_string(step);
      type_and_check(r, s, cursor, step, by_char, "\xC3\xA9", rng, at);
      if (::testing::Test::HasFatalFailure()) return;
      const std::vector<std::size_t> now = leaf_ends(r);
      if (!first_leaf) { ASSERT_EQ(now.size(), leaves) << at; }
      if (step == 0) {
        // (The first leaf, a full chunk, is rewritten into pieces.)
        leaves = now.size();
        continue;
      }
      ASSERT_EQ(now.size(), first_leaf ? leaves + 1 : leaves) << at;
      const std::size_t cur = naive_metrics(s).char_at[cursor];
      ASSERT_NE(std::find(now.begin(), now.end(), cur), now.end()) << at;
    }
  }
}

// A backspace by char of a leaf's last char stays an edit inside the leaf
// only when that char's bytes end with the leaf: a tree whose leaves were
// cut by byte may hold a char whose last bytes begin the next leaf, and
// erasing it must take all of its bytes from both leaves.
TEST(RopeTyping, ErasingACharSplitAcrossTwoLeaves) {
  // Leaves of 4096 bytes over a text of 3-byte chars: 4096 = 3 * 1365 + 1,
  // so the first leaf ends one byte into char 1365.
  std::string s;
  for (int i = 0; i < 3000; ++i) s += "\xE2\x82\xAC";
  fl::rope r = tree_of(s, fl::detail::leaf_max_bytes);
  ASSERT_EQ(leaf_ends(r).front(), fl::detail::leaf_max_bytes);
  const std::size_t split = fl::detail::leaf_max_bytes / 3;  // the char split across
  r.erase_chars(split, 1);
  s.erase(3 * split, 3);
  fl::detail::check_invariants(r);
  expect_content(r, s, "erase of the split char");
  // The leaf's last whole char, erased at the same place: the range ends
  // where the leaf's next char starts.
  r.erase_chars(split - 1, 1);
  s.erase(3 * (split - 1), 3);
  fl::detail::check_invariants(r);
  expect_content(r, s, "erase of the char before it");
  EXPECT_EQ(r.char_count(), 2998u);
}

namespace {
// Whether the tree's root keeps a cursor (detail::rope_cursor): the place
// where typing by char skips the descent.
bool keeps_cursor(const fl::rope& r) {
  const fl::detail::edge& root = fl::detail::rope_engine::root(r);
  return root.p && root.p->height > 0 &&
         static_cast<const fl::detail::inner*>(root.p)->cursor.depth != 0;
}
}  // namespace

// Typing by char or by byte at a cursor goes through the root's cursor, which every
// other change of the tree must drop or keep true: edits by byte and by
// char elsewhere (before the cursor's leaf: its position moves), appends
// and prepends, a swap and an assignment, anchors, and copies and
// substrings kept alive, whose shared nodes the cursor's in-place edits
// must never write. check_invariants recomputes a kept cursor from the
// tree after every step; the kept copies are compared at the end.
TEST(RopeTyping, TheCursorFollowsEveryOtherEdit) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x63757273ULL);
  std::string s = random_utf8(rng, 40000);
  fl::rope r = tree_of(s, fl::detail::leaf_max_bytes / 2);
  static constexpr std::string_view keys[] = {"a", " ", "\n", "\xC3\xA9", "\xF0\x9F\x98\x80"};
  std::vector<std::pair<fl::rope, std::string>> kept;
  // Anchors and where rope.hpp's rules put them (by byte).
  struct placed {
    fl::rope::anchor a;
    bool after;
    std::size_t want;
  };
  std::vector<placed> anchors;
  // The mirror's side of an edit of bytes [pos, pos + n) into `text`.
  const auto mirror = [&](std::size_t pos, std::size_t n, std::string_view text) {
    s.replace(pos, n, text);
    for (placed& x : anchors) {
      if (x.want > pos + n)
        x.want = x.want - n + text.size();
      else if (x.want >= pos)
        x.want = x.after ? pos + text.size() : pos;
    }
  };
  std::size_t cursor = naive_metrics(s).chars.back() / 2;  // in chars
  int typed = 0, at_cursor = 0;
  for (int step = 0; step < 3000 / scale; ++step) {
    const std::string at = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    const naive_metrics m(s);
    const std::size_t chars = m.char_at.size() - 1;
    cursor = std::min(cursor, chars);
    const std::size_t what = pick(rng, 100);
    if (what < 70) {  // a keystroke at the cursor, by char or by byte
      if (keeps_cursor(r)) ++at_cursor;
      ++typed;
      const bool by_byte = pick(rng, 3) == 0;
      if (what < 55 || cursor == 0) {
        const std::string_view key = keys[pick(rng, std::size(keys))];
        if (by_byte)
          r.insert(m.char_at[cursor], key);
        else
          r.insert_chars(cursor, key);
        mirror(m.char_at[cursor], 0, key);
        ++cursor;
      } else {
        const auto [b, e] = naive_char_range(s, cursor - 1, 1);
        if (by_byte)
          r.erase(b, e - b);
        else
          r.erase_chars(cursor - 1, 1);
        mirror(b, e - b, {});
        --cursor;
      }
    } else if (what < 82) {  // an edit elsewhere, by byte (at char boundaries) or by char
      // (One in six erases a selection, across leaves as often as not.)
      const std::size_t c = pick(rng, chars + 1),
                        del = what % 6 == 0 ? pick(rng, fl::detail::leaf_max_bytes / 8)
                                            : pick(rng, 4);
      const auto [b, e] = naive_char_range(s, c, del);
      const std::string text = del > 4 ? std::string() : random_utf8(rng, pick(rng, 9));
      if (what < 76)
        r.replace(b, e - b, text);
      else
        r.replace_chars(c, del, text);
      mirror(b, e - b, text);
      const std::size_t gone = std::min(del, chars - c);
      if (c < cursor)
        cursor = cursor >= c + gone ? cursor - gone + naive_metrics(text).chars.back() : c;
    } else if (what < 85) {  // a substring kept: its nodes are shared
      const std::size_t b = pick(rng, s.size() + 1), n = pick(rng, 9000);
      kept.emplace_back(r.substr(b, n), s.substr(b, n));
    } else if (what < 87) {  // a copy kept
      kept.emplace_back(r, s);
    } else if (what < 89) {  // text added at an end
      const std::string text = random_utf8(rng, pick(rng, 300) + 1);
      if (pick(rng, 2)) {
        r.append(text);
        mirror(s.size(), 0, text);
      } else {
        r.prepend(text);
        mirror(0, 0, text);
        cursor += naive_metrics(text).chars.back();
      }
    } else if (what < 91) {  // swapped away and back; assigned from a copy
      fl::rope other("other");
      r.swap(other);
      ASSERT_EQ(r, "other") << at;
      r.swap(other);
      if (pick(rng, 2)) {
        fl::rope copy = r;
        r = copy;
      }
      // A whole text given at once: anchors keep their offsets, clamped.
      for (placed& x : anchors) x.want = std::min(x.want, std::size_t{5});
    } else if (what < 93) {  // an anchor at the cursor or at a random char boundary
      const bool after = pick(rng, 2) != 0;
      const std::size_t pos = m.char_at[pick(rng, 2) ? cursor : pick(rng, chars + 1)];
      anchors.push_back(
          {r.anchor_at(pos, after ? fl::rope::bias::after : fl::rope::bias::before), after, pos});
    } else if (what < 95 && !kept.empty()) {  // a kept rope dropped
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(pick(rng, kept.size())));
    } else {  // the cursor jumps
      cursor = pick(rng, chars + 1);
    }
    fl::detail::check_invariants(r);
    expect_content(r, s, at);
    if (::testing::Test::HasFatalFailure()) return;
    for (std::size_t k = 0; k < anchors.size(); ++k)
      ASSERT_EQ(r.position(anchors[k].a), anchors[k].want) << at << " anchor " << k;
  }
  for (const auto& [copy, text] : kept) {
    fl::detail::check_invariants(copy);
    expect_content(copy, text, "a kept rope, seed " + std::to_string(seed));
  }
  // Most keystrokes found the cursor the one before them left.
  EXPECT_GT(at_cursor, typed / 2) << "seed " << seed;
}

// A flat text edited like a string is cut in two leaves at a cursor where
// typing goes on in its middle, so that later keystrokes do not move its
// tail; typing at its end or at scattered places keeps it flat.
TEST(RopeTyping, TypingInTheMiddleOfAFlatTextCutsItThere) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x666c6375ULL);
  // The middle, and near the start of a text of nearly the flat size,
  // where the tail cut off is longer than a leaf an edit may grow to
  // (it overran its chunk once).
  for (const auto& [ascii, size, at_start] :
       {std::tuple{true, 6000, false}, std::tuple{false, 6000, false},
        std::tuple{true, 8000, true}, std::tuple{false, 8000, true}}) {
    std::string s = ascii ? std::string(size, 'x') : random_utf8(rng, size);
    fl::rope r(s);
    ASSERT_EQ(fl::detail::rope_height(r), 0u);
    std::size_t cursor = at_start ? naive_metrics(s).chars[600] : naive_metrics(s).chars.back() / 2;
    for (int step = 0; step < 20; ++step) {
      const std::string at = "seed " + std::to_string(seed) + (ascii ? " ascii" : " utf8") +
                             " size " + std::to_string(size) + " step " + std::to_string(step);
      const naive_metrics m(s);
      r.insert_chars(cursor, "k");
      s.insert(m.char_at[cursor], "k");
      ++cursor;
      fl::detail::check_invariants(r);
      expect_content(r, s, at);
      if (::testing::Test::HasFatalFailure()) return;
      // The first keystroke moves the tail; the second types on and cuts.
      EXPECT_EQ(fl::detail::rope_height(r), step == 0 ? 0u : 1u) << at;
      if (step > 0) {
        const std::vector<std::size_t> ends = leaf_ends(r);
        ASSERT_EQ(ends.size(), 2u) << at;
        EXPECT_EQ(ends[0], naive_metrics(s).char_at[cursor]) << at;
      }
    }
  }
  std::string s(6000, 'y');
  fl::rope r(s);
  for (int step = 0; step < 50; ++step) {
    r.insert_chars(r.char_count(), "z");
    s += 'z';
  }
  EXPECT_EQ(fl::detail::rope_height(r), 0u);
  expect_content(r, s, "typing at the end");
}

// A selection erased across leaves of one node (by byte or by char) cuts
// the first leaf's edge short where the range starts and starts the last
// one's where it ends, drops the leaves between, and leaves the root's
// cursor at the first leaf's end, so that typing on there needs no
// descent. Shared leaves too: a copy of the rope is kept through every
// step. Every metric after every step.
TEST(RopeTyping, ASelectionErasedAcrossLeavesKeepsTheCursorThere) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x73656c65ULL);
  // About 13 leaves, all under the root.
  std::string s = random_utf8(rng, 7 * fl::detail::leaf_max_bytes);
  fl::rope r = tree_of(s, fl::detail::leaf_max_bytes / 2);
  for (int round = 0; round < 8; ++round) {
    const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    ASSERT_EQ(fl::detail::rope_height(r), 1u) << ctx;
    const fl::rope copy = r;
    const std::string copied = s;
    const std::vector<std::size_t> ends = leaf_ends(r);
    ASSERT_GE(ends.size(), 4u) << ctx;
    // From inside a leaf to inside the next one, or the one after it (of
    // 16 bytes or more each: an erase may have left a short one).
    const auto len = [&](std::size_t x) { return ends[x] - ends[x - 1]; };
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (std::size_t j = 1; j + 1 < ends.size(); ++j)
      for (std::size_t k = j + 1; k <= j + 2 && k < ends.size(); ++k)
        if (len(j) >= 16 && len(k) >= 16) spans.emplace_back(j, k);
    ASSERT_FALSE(spans.empty()) << ctx;
    const auto [j, k] = spans[pick(rng, spans.size())];
    // (Both ends at chars, strictly inside their leaves: a char has at
    // most four bytes.)
    std::size_t from = ends[j - 1] + 1 + pick(rng, ends[j] - ends[j - 1] - 8);
    std::size_t to = ends[k - 1] + 4 + pick(rng, ends[k] - ends[k - 1] - 8);
    while (!is_char_byte(s[from])) ++from;
    while (!is_char_byte(s[to])) --to;
    ASSERT_LT(from, ends[j]) << ctx;
    ASSERT_GT(to, ends[k - 1]) << ctx;
    if (round % 2 == 0) {
      r.erase(from, to - from);
    } else {
      const naive_metrics m(s);
      r.erase_chars(m.chars[from], m.chars[to] - m.chars[from]);
    }
    s.erase(from, to - from);
    fl::detail::check_invariants(r);
    expect_content(r, s, ctx);
    if (::testing::Test::HasFatalFailure()) return;
    expect_metrics(r, s, rng, 4, false, ctx);
    if (::testing::Test::HasFatalFailure()) return;
    ASSERT_TRUE(keeps_cursor(r)) << ctx;
    const std::vector<std::size_t> now = leaf_ends(r);
    ASSERT_EQ(now.size(), ends.size() - (k - j - 1)) << ctx;
    ASSERT_NE(std::find(now.begin(), now.end(), from), now.end()) << ctx;
    // Typing on where the selection was, by byte.
    for (int key = 0; key < 3; ++key) {
      r.insert(from, "x");
      s.insert(from, "x");
      ++from;
      ASSERT_TRUE(keeps_cursor(r)) << ctx << " key " << key;
    }
    fl::detail::check_invariants(r);
    expect_content(r, s, ctx);
    if (::testing::Test::HasFatalFailure()) return;
    fl::detail::check_invariants(copy);
    expect_content(copy, copied, ctx + " (the copy)");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

namespace {
// Whether the root's cursor serves a keystroke by char (type_at_cursor):
// it knows the chars before its leaf and where the last edit ended in chars.
bool keeps_char_cursor(const fl::rope& r) {
  if (!keeps_cursor(r)) return false;
  const fl::detail::rope_cursor& cu =
      static_cast<const fl::detail::inner*>(fl::detail::rope_engine::root(r).p)->cursor;
  return cu.char_lo != static_cast<std::size_t>(-1) && cu.hint_k != fl::detail::cursor_no_hint;
}
}  // namespace

// Typing by char at the end of a node's last leaf (the next leaf is the
// first under the root's next child, not a sibling): the first keystroke
// there, an insert at the first byte of a node's first leaf, goes to the
// end of the leaf before it by the edits by byte, and leaves a cursor that
// knows its chars; the keystrokes after it, and the backspaces, go through
// that cursor, which asks the next leaf (under the next node) whether it
// starts a char. Over 2-byte chars the leaves end at chars; over 3-byte
// ones (2048 = 3 * 682 + 2) they end inside one, and the range by char
// must not end at the leaf's end.
TEST(RopeTyping, TypingAtTheEndOfANodesLastLeaf) {
  static constexpr std::string_view keys[] = {"x", "\xC3\xA9", "\xF0\x9F\x98\x80", "\n"};
  for (const std::string_view unit :
       {std::string_view("\xC3\xA9"), std::string_view("\xE2\x82\xAC")}) {
    std::string s;
    while (s.size() < 40000) s += unit;
    fl::rope r = tree_of(s, fl::detail::leaf_max_bytes / 2);
    ASSERT_EQ(fl::detail::rope_height(r), 2u);
    const fl::detail::edge& root = fl::detail::rope_engine::root(r);
    // The chars of the root's first child: typing there is at the end of
    // its last leaf.
    std::size_t cursor = static_cast<const fl::detail::inner*>(root.p)->child[0].chars;
    for (int step = 0; step < 16; ++step) {
      const std::string ctx =
          "unit of " + std::to_string(unit.size()) + " bytes, step " + std::to_string(step);
      if (step % 4 == 3) {
        const auto [b, e] = naive_char_range(s, cursor - 1, 1);
        r.erase_chars(cursor - 1, 1);
        s.erase(b, e - b);
        --cursor;
      } else {
        const std::string_view key = keys[static_cast<std::size_t>(step) % std::size(keys)];
        const std::size_t b = naive_char_range(s, cursor, 0).first;
        r.insert_chars(cursor, key);
        s.insert(b, key);
        ++cursor;
      }
      fl::detail::check_invariants(r);
      expect_content(r, s, ctx);
      if (::testing::Test::HasFatalFailure()) return;
      if (unit.size() == 2) { EXPECT_TRUE(keeps_char_cursor(r)) << ctx; }
    }
  }
}
