// Differential tests of fl::rope's edits: random edits on several ropes and
// their copies, mirrored on std::string, with detail::check_invariants after
// every step (depth, balance, sizes, offsets, counts); 16-byte leaves, so
// every edit crosses leaf boundaries.
//
// Seeds: FL_TEST_SEED from the environment, else the clock; every failure
// message carries the seed.
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_support.hpp"

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace rope_test;  // rope_support.hpp

// The main differential test: random edits on a set of ropes mirrored on
// std::string, including copies that are then edited on both sides.
TEST(RopeDifferential, RandomEditsAgreeWithStdString) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  std::vector<std::pair<fl::rope, std::string>> slots(6);
  constexpr int steps = 300'000;
  unsigned max_height = 0;
  std::size_t max_size = 0;
  for (int step = 0; step < steps; ++step) {
    auto& [r, s] = slots[pick(rng, slots.size())];
    const std::string ctx = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    const std::size_t pos = pick(rng, s.size() + 1);
    const std::size_t n = pick(rng, 2) ? pick(rng, 8) : pick(rng, 200);
    const std::size_t plen = pick(rng, 3) == 0 ? pick(rng, 100) : pick(rng, 12);
    const std::string piece = random_text(rng, plen);
    const int op = static_cast<int>(pick(rng, s.size() > 3000 ? 14 : 20));
    // An invariant check throws: name the seed, the step and the edit.
    try {
    switch (op) {
      case 0:
      case 14:
      case 15: apply_edit(basic_edit::append, r, s, pos, n, piece); break;
      case 1:
      case 16: apply_edit(basic_edit::prepend, r, s, pos, n, piece); break;
      case 2:
      case 17: apply_edit(basic_edit::insert, r, s, pos, n, piece); break;
      case 3: apply_edit(basic_edit::erase, r, s, pos, n, piece); break;
      case 4:
      case 18: apply_edit(basic_edit::replace, r, s, pos, n, piece); break;
      case 5: {
        const std::size_t len = pick(rng, 2) ? n * 8 : pick(rng, s.size() - pos + 1);
        r = r.substr(pos, len);
        s = s.substr(pos, len);
        break;
      }
      case 6: {  // copy then edit both
        auto& [r2, s2] = slots[pick(rng, slots.size())];
        r2 = r;
        s2 = s;
        const std::size_t p2 = pick(rng, s2.size() + 1);
        r2.insert(p2, piece);
        s2.insert(p2, piece);
        r.erase(pos, n);
        s.erase(pos, n);
        fl::detail::check_invariants(r2);
        break;
      }
      case 7: {  // rope + rope, rope inserted into rope
        const auto& [r2, s2] = slots[pick(rng, slots.size())];
        if (s.size() + s2.size() < 20000) {
          if (pick(rng, 2)) {
            r += r2;
            s += s2;
          } else {
            r.insert(pos, r2);
            s.insert(pos, s2);
          }
        }
        break;
      }
      case 8: {
        const auto& [r2, s2] = slots[pick(rng, slots.size())];
        const std::size_t p2 = pick(rng, s2.size() + 1);
        const std::size_t n2 = pick(rng, 300);
        const std::string sub = s2.substr(p2, n2);
        if (s.size() + sub.size() < 20000) {
          r.replace(pos, n, r2.substr(p2, n2));
          s.replace(pos, n, sub);
        }
        break;
      }
      case 9: {  // find: a needle cut from the text (present) or random
        std::string needle = pick(rng, 2) && !s.empty()
                                 ? s.substr(pick(rng, s.size()), pick(rng, 60) + 1)
                                 : random_text(rng, pick(rng, 6) + 1);
        const std::size_t from = pick(rng, s.size() + 2);
        ASSERT_EQ(r.find(needle, from), s.find(needle, from)) << ctx << " needle " << needle;
        break;
      }
      case 10: {
        const auto& [r2, s2] = slots[pick(rng, slots.size())];
        const int want = s.compare(s2);
        const int got = r.compare(r2);
        ASSERT_EQ(got < 0, want < 0) << ctx;
        ASSERT_EQ(got > 0, want > 0) << ctx;
        ASSERT_EQ(r == r2, s == s2) << ctx;
        ASSERT_EQ(r.compare(s2) == 0, s == s2) << ctx;
        if (s == s2) { ASSERT_EQ(std::hash<fl::rope>{}(r), std::hash<fl::rope>{}(r2)) << ctx; }
        break;
      }
      case 11: {  // iterate and index, with throws past the end
        std::string walked(r.begin(), r.end());
        ASSERT_EQ(walked, s) << ctx;
        if (!s.empty()) {
          const std::size_t i = pick(rng, s.size());
          ASSERT_EQ(r[i], s[i]) << ctx;
          ASSERT_EQ(r.at(i), s.at(i)) << ctx;
        }
        ASSERT_THROW((void)r.at(s.size() + pick(rng, 3)), std::out_of_range) << ctx;
        break;
      }
      case 12: {  // out-of-range edits leave the rope unchanged
        const std::size_t bad = s.size() + 1 + pick(rng, 5);
        ASSERT_THROW(r.insert(bad, piece), std::out_of_range) << ctx;
        ASSERT_THROW(r.erase(bad, 1), std::out_of_range) << ctx;
        ASSERT_THROW(r.replace(bad, 1, piece), std::out_of_range) << ctx;
        ASSERT_THROW((void)r.substr(bad), std::out_of_range) << ctx;
        break;
      }
      case 13: {  // append many small pieces (the in-place path)
        for (int k = 0; k < 10; ++k) {
          const std::string small = random_text(rng, pick(rng, 5) + 1);
          r += small;
          s += small;
        }
        break;
      }
      default: {  // 19: rebuild from flatten / fl::string&&
        fl::string flat = pick(rng, 2) ? r.flatten() : fl::rope(r).flatten();
        if (pick(rng, 2)) flat = std::move(r).flatten();
        r = fl::rope(std::move(flat));
        break;
      }
    }
    fl::detail::check_invariants(r);
    } catch (const std::logic_error& e) {
      FAIL() << ctx << " op " << op << " pos " << pos << " n " << n << " piece " << piece.size()
             << ": " << e.what();
    }
    ASSERT_EQ(r.size(), s.size()) << ctx;
    max_height = std::max(max_height, fl::detail::rope_height(r));
    max_size = std::max(max_size, s.size());
    if (step % 64 == 0) {
      for (const auto& [rr, ss] : slots) {
        fl::detail::check_invariants(rr);
        ASSERT_EQ(rr.to_std(), ss) << ctx;
      }
      // Code points and lines both ways (rope_check.hpp's reference decoder).
      expect_chars(r, s, rng, 8, step % 1024 == 0, ctx);
      if (HasFatalFailure()) return;
    }
  }
  for (const auto& [rr, ss] : slots) expect_content(rr, ss, "final, seed " + std::to_string(seed));
  // The edits must have exercised deep trees, not only flat ropes.
  EXPECT_GE(max_height, 5u) << "seed " << seed;
  EXPECT_GE(max_size, 3000u) << "seed " << seed;
}

// Edits concentrated in one place (the pattern of an editor's cursor).
TEST(RopeDifferential, CursorEditsStayBalanced) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  fl::rope r;
  std::string s;
  std::size_t cursor = 0;
  for (int step = 0; step < 20'000; ++step) {
    const std::string ctx = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    cursor = std::min(s.size(), cursor + pick(rng, 5) - std::min<std::size_t>(cursor, 2));
    if (pick(rng, 4) != 0 || s.empty()) {
      const std::string piece = random_text(rng, pick(rng, 4) + 1, 26);
      r.insert(cursor, piece);
      s.insert(cursor, piece);
      cursor += piece.size();
    } else {
      const std::size_t n = pick(rng, 4);
      const std::size_t from = cursor - std::min(cursor, n);
      r.erase(from, n);
      s.erase(from, n);
      cursor = from;
    }
    fl::detail::check_invariants(r);
    ASSERT_EQ(r.size(), s.size()) << ctx;
    if (step % 997 == 0) { ASSERT_EQ(r.to_std(), s) << ctx; }
  }
  EXPECT_EQ(r.to_std(), s);
  // Depth stays logarithmic: 2 * min_children^(h-1) <= leaves <= bytes.
  EXPECT_LT(fl::detail::rope_height(r), 2 * 20u);
}

// 16 MB from 100,000 pieces: content, hash, find at the far end, substr.
TEST(RopeTest, LargeRopeFromManyPieces) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  fl::rope r;
  std::string s;
  s.reserve(17u << 20);
  for (int i = 0; i < 100'000; ++i) {
    const std::string piece = random_text(rng, 100 + pick(rng, 140), 26);
    r += piece;
    s += piece;
  }
  ASSERT_GE(s.size(), 16u << 20) << "seed " << seed;
  fl::detail::check_invariants(r);
  ASSERT_EQ(r.size(), s.size());
  ASSERT_EQ(std::string_view(r.flatten()), s) << "seed " << seed;
  const fl::rope rebuilt(s);
  EXPECT_EQ(std::hash<fl::rope>{}(r), std::hash<fl::rope>{}(rebuilt));
  EXPECT_TRUE(r == rebuilt);
  const std::string tail = s.substr(s.size() - 50);
  EXPECT_EQ(r.find(tail), s.find(tail));
  const std::size_t mid = s.size() / 2;
  fl::rope sub = r.substr(mid, 1000);
  EXPECT_EQ(sub.to_std(), s.substr(mid, 1000));
  fl::detail::check_invariants(sub);
  std::uint64_t sum_r = 0, sum_s = 0;
  for (char c : r) sum_r += static_cast<unsigned char>(c);
  for (char c : s) sum_s += static_cast<unsigned char>(c);
  EXPECT_EQ(sum_r, sum_s);
}

// A rope's root keeps the cursor of its last in-leaf edit. A root that a
// later edit keeps as a child (it splits the node in place: the node keeps
// half its leaves under a new root) carries that cursor on, stale; a substr
// that makes the node a root again shares it with the tree it came from,
// and once that tree is gone the stale cursor steered the next keystroke
// (its leaf index past the node's children: a freed edge).
TEST(RopeCursor, AFormerRootsCursorIsNotTrustedWhenItIsARootAgain) {
  const auto type = [](fl::rope& r, std::string& m, std::size_t at) {
    r.insert(at, "!");
    m.insert(at, "!");
  };
  const std::string text = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV";
  // One node over four 12-byte leaves; typing in the last leaf makes it
  // the root's cursor, and typing on there splits the root under a new one.
  const auto make = [&](std::string& s) {
    s = text;
    fl::rope a = tree_of(s, 12);
    type(a, s, 40);
    type(a, s, 41);
    fl::detail::check_invariants(a);
    return a;
  };
  std::string s;
  ASSERT_EQ(fl::detail::rope_height(make(s)), 2u);
  for (std::size_t len = 13; len < s.size(); ++len) {
    fl::rope a = make(s);
    std::string cs = s.substr(0, len);
    fl::rope c = a.substr(0, len);
    ASSERT_NO_THROW(fl::detail::check_invariants(c)) << "len " << len;
    a = fl::rope();  // c alone holds its nodes
    for (std::size_t at : {len - 1, len / 2, len}) {
      type(c, cs, at);
      ASSERT_NO_THROW(fl::detail::check_invariants(c)) << "len " << len << " at " << at;
      ASSERT_EQ(c.to_std(), cs) << "len " << len << " at " << at;
    }
  }
}
