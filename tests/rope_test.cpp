// Tests for fl::rope. Built with FL_ROPE_LEAF_MAX=16 (tests/rope_test.cmake
// compiles this program's own copy of src/rope.cpp), so a few hundred bytes
// already make trees of depth 3-6 and every edit crosses leaf boundaries.
// Every edit in the differential tests is followed by
// detail::check_invariants (depth, balance, sizes, offsets, counts).
//
// Seeds: FL_TEST_SEED from the environment, else the clock; every failure
// message carries the seed.
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

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

static_assert(fl::detail::leaf_max_bytes == 16, "rope_test must be built with FL_ROPE_LEAF_MAX=16");
static_assert(std::random_access_iterator<fl::rope::const_iterator>);
static_assert(std::ranges::forward_range<fl::rope::chunk_range>);
static_assert(std::ranges::input_range<fl::rope::line_range>);

namespace {

using fl_test::test_seed;

// Small alphabet so that find() has many partial matches.
std::string random_text(std::mt19937_64& rng, std::size_t n, int alphabet = 4) {
  std::string s(n, '\0');
  for (char& c : s)
    c = static_cast<char>('a' + static_cast<int>(rng() % static_cast<unsigned>(alphabet)));
  return s;
}

std::size_t pick(std::mt19937_64& rng, std::size_t n) {
  return n == 0 ? 0 : static_cast<std::size_t>(rng() % n);
}

// Every way of reading a rope must give `want`.
void expect_content(const fl::rope& r, const std::string& want, const std::string& ctx) {
  ASSERT_EQ(r.size(), want.size()) << ctx;
  ASSERT_EQ(r.empty(), want.empty()) << ctx;
  std::string via_chunks;
  for (std::string_view c : r.chunks()) {
    ASSERT_FALSE(c.empty()) << ctx;
    via_chunks.append(c);
  }
  ASSERT_EQ(via_chunks, want) << ctx;
  ASSERT_EQ(std::string(r.begin(), r.end()), want) << ctx;
  ASSERT_EQ(r.to_std(), want) << ctx;
  ASSERT_EQ(std::string_view(r.flatten()), want) << ctx;
}

}  // namespace

TEST(RopeTest, EmptyRope) {
  fl::rope r;
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.size(), 0u);
  EXPECT_EQ(r.begin(), r.end());
  EXPECT_EQ(r.chunks().begin(), r.chunks().end());
  EXPECT_EQ(r.find(""), 0u);
  EXPECT_EQ(r.find("a"), fl::rope::npos);
  EXPECT_EQ(r.flatten().size(), 0u);
  EXPECT_EQ(r, "");
  EXPECT_EQ(r.compare(fl::rope()), 0);
  EXPECT_EQ(std::hash<fl::rope>{}(r), std::hash<fl::rope>{}(fl::rope("")));
  fl::detail::check_invariants(r);
}

TEST(RopeTest, Constructors) {
  const std::string text =
      "the quick brown fox jumps over the lazy dog, twice: the quick brown fox";
  fl::rope a(text);
  expect_content(a, text, "string_view");
  fl::detail::check_invariants(a);
  // A contiguous text is one chunk, however long; edits share it piecewise.
  EXPECT_EQ(fl::detail::rope_height(a), 0u);
  EXPECT_EQ(std::distance(a.chunks().begin(), a.chunks().end()), 1);

  fl::rope b("literal");
  expect_content(b, "literal", "c string");

  const fl::string fs(text.c_str());
  fl::rope c(fs);
  expect_content(c, text, "const fl::string&");

  fl::string moved(text.c_str());
  fl::rope d(std::move(moved));
  expect_content(d, text, "fl::string&&");
  fl::detail::check_invariants(d);
  EXPECT_TRUE(moved.empty() || std::string_view(moved) == text);

  fl::string short_one("abc");
  fl::rope e(std::move(short_one));
  expect_content(e, "abc", "short fl::string&&");

  fl::rope f(100, 'x');
  expect_content(f, std::string(100, 'x'), "count, ch");
  fl::detail::check_invariants(f);
  fl::rope g(0, 'x');
  EXPECT_TRUE(g.empty());
  fl::rope h(5, 'y');
  expect_content(h, "yyyyy", "short fill");
}

TEST(RopeTest, AdoptedStringCanBeEdited) {
  fl::string big(std::string(200, 'q').c_str());
  fl::rope r(std::move(big));
  fl::rope copy = r;
  r.append("tail");
  r.insert(100, "mid");
  r.erase(0, 10);
  std::string want(200, 'q');
  want += "tail";
  want.insert(100, "mid");
  want.erase(0, 10);
  expect_content(r, want, "adopted edit");
  expect_content(copy, std::string(200, 'q'), "adopted copy");
  fl::detail::check_invariants(r);
}

TEST(RopeTest, AtThrowsPastEnd) {
  fl::rope r("hello world, a rope");
  EXPECT_EQ(r.at(0), 'h');
  EXPECT_EQ(r.at(r.size() - 1), 'e');
  EXPECT_THROW((void)r.at(r.size()), std::out_of_range);
  EXPECT_THROW((void)fl::rope().at(0), std::out_of_range);
}

TEST(RopeTest, EditsPastEndThrowAndLeaveRopeUnchanged) {
  const std::string text = "0123456789abcdefghijklmnopqrstuvwxyz0123456789";
  fl::rope r(text);
  const fl::rope copy = r;
  const std::size_t past = r.size() + 1;
  EXPECT_THROW(r.insert(past, "x"), std::out_of_range);
  EXPECT_THROW(r.insert(past, fl::rope("x")), std::out_of_range);
  EXPECT_THROW(r.erase(past, 1), std::out_of_range);
  EXPECT_THROW(r.replace(past, 1, "x"), std::out_of_range);
  EXPECT_THROW(r.replace(past, 1, fl::rope("x")), std::out_of_range);
  EXPECT_THROW((void)r.substr(past), std::out_of_range);
  char buf[4];
  EXPECT_THROW((void)r.copy(buf, 4, past), std::out_of_range);
  expect_content(r, text, "after throws");
  EXPECT_EQ(r, copy);
  fl::detail::check_invariants(r);
  // pos == size() is valid for all of them.
  r.insert(r.size(), "!");
  r.erase(r.size(), 5);
  r.replace(r.size(), 3, "?");
  EXPECT_TRUE(r.substr(r.size()).empty());
  expect_content(r, text + "!?", "at end");
}

TEST(RopeTest, SplitAtZeroAndEnd) {
  const std::string text = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  fl::rope r(text);
  EXPECT_EQ(r.substr(0).to_std(), text);
  EXPECT_EQ(r.substr(0, 0).size(), 0u);
  EXPECT_EQ(r.substr(0, 1).to_std(), "a");
  EXPECT_EQ(r.substr(text.size() - 1).to_std(), "Z");
  r.insert(0, "<");
  r.insert(r.size(), ">");
  expect_content(r, "<" + text + ">", "ends");
  fl::detail::check_invariants(r);
}

TEST(RopeTest, AppendOfSelfAndPrependOfSelf) {
  // The older rope emptied `a` when rotating during `b += a`; here shared
  // nodes are never changed.
  fl::rope a(std::string(70, 'a'));
  fl::rope b(std::string(50, 'b'));
  for (int i = 0; i < 6; ++i) {
    b += a;
    fl::detail::check_invariants(b);
    expect_content(a, std::string(70, 'a'), "a after b += a");
  }
  fl::rope s("xyz0123456789");
  std::string want = "xyz0123456789";
  for (int i = 0; i < 5; ++i) {
    s += s;
    want += want;
    s.prepend(s);
    want = want + want;
    s.insert(s.size() / 2, s);
    want.insert(want.size() / 2, std::string(want));
    fl::detail::check_invariants(s);
    expect_content(s, want, "self edits");
  }
  s.replace(3, 7, s);
  want.replace(3, 7, std::string(want));
  expect_content(s, want, "self replace");
}

TEST(RopeTest, FindAcrossManyLeaves) {
  // 16-byte leaves: a 60-byte needle spans 4-5 leaves.
  std::string text(1000, 'a');
  const std::string needle = std::string(59, 'a') + "b";
  text.replace(777, needle.size(), needle);
  fl::rope r;
  for (std::size_t i = 0; i < text.size(); i += 7) r.append(std::string_view(text).substr(i, 7));
  fl::detail::check_invariants(r);
  EXPECT_EQ(r.find(needle), text.find(needle));
  EXPECT_EQ(r.find(needle, 777), 777u);
  EXPECT_EQ(r.find(needle, 778), fl::rope::npos);
  EXPECT_EQ(r.find("b"), text.find("b"));
  EXPECT_EQ(r.find('b'), text.find('b'));
  EXPECT_EQ(r.find("", 1000), 1000u);
  EXPECT_EQ(r.find("", 1001), fl::rope::npos);
  EXPECT_EQ(r.find(std::string(1001, 'a')), fl::rope::npos);
  EXPECT_TRUE(r.contains("ab"));
  EXPECT_FALSE(r.contains("bb"));
  // Needle exactly one byte per leaf boundary, built from 1-byte pieces.
  fl::rope ones;
  std::string ones_want;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 500; ++i) {
    const std::string piece = random_text(rng, 1, 2);
    ones.prepend(piece);
    ones_want.insert(0, piece);
  }
  for (std::size_t len = 1; len < 40; ++len) {
    for (std::size_t at = 0; at + len <= ones_want.size(); at += 37) {
      const std::string nd = ones_want.substr(at, len);
      ASSERT_EQ(ones.find(nd), ones_want.find(nd)) << len << " " << at;
      ASSERT_EQ(ones.find(nd, at + 1), ones_want.find(nd, at + 1)) << len << " " << at;
    }
  }
}

TEST(RopeTest, CompareAndOrdering) {
  fl::rope a("apple pie with cream and sugar");
  fl::rope b("apple pie with cream and salt");
  EXPECT_GT(a.compare(b), 0);
  EXPECT_TRUE(b < a);
  EXPECT_TRUE(a != b);
  EXPECT_TRUE(a == fl::rope(a.to_std()));
  EXPECT_EQ(a.compare("apple"), 1);
  EXPECT_EQ(fl::rope("apple").compare(a), -1);
  EXPECT_EQ(a <=> a.substr(0), std::strong_ordering::equal);
  EXPECT_TRUE(a.starts_with("apple pie"));
  EXPECT_FALSE(a.starts_with("apple pig"));
  EXPECT_TRUE(a.ends_with("and sugar"));
  EXPECT_FALSE(a.ends_with(std::string(100, 'x')));
  EXPECT_EQ(std::hash<fl::rope>{}(a), std::hash<fl::rope>{}(a.substr(0, 10) + a.substr(10)));
  EXPECT_NE(std::hash<fl::rope>{}(a), std::hash<fl::rope>{}(b));
}

// A tree of `text` cut into `piece`-byte leaves: a copy alive during each
// append keeps the rope shared, so each piece joins as a leaf instead of
// growing one flat chunk in place.
fl::rope tree_of(std::string_view text, std::size_t piece) {
  fl::rope r;
  for (std::size_t i = 0; i < text.size(); i += piece) {
    const fl::rope before = r;
    r.append(text.substr(i, piece));
  }
  return r;
}

TEST(RopeTest, IteratorsAreRandomAccess) {
  std::mt19937_64 rng(11);
  const std::string text = random_text(rng, 500, 26);
  for (const bool flat : {false, true}) {
    SCOPED_TRACE(flat ? "flat" : "tree");
    const fl::rope r = flat ? fl::rope(text) : tree_of(text, 13);
    EXPECT_EQ(fl::detail::rope_height(r) == 0, flat);
    auto it = r.begin();
    EXPECT_EQ(r.end() - r.begin(), static_cast<std::ptrdiff_t>(text.size()));
    for (int k = 0; k < 2000; ++k) {
      const std::size_t i = pick(rng, text.size());
      ASSERT_EQ(it[static_cast<std::ptrdiff_t>(i)], text[i]);
      ASSERT_EQ(*(r.begin() + static_cast<std::ptrdiff_t>(i)), text[i]);
      ASSERT_EQ(r[i], text[i]);
    }
    std::string backwards;
    for (auto e = r.end(); e != r.begin();) backwards.push_back(*--e);
    std::reverse(backwards.begin(), backwards.end());
    EXPECT_EQ(backwards, text);
    EXPECT_TRUE(r.begin() < r.end());
    EXPECT_EQ((r.end() - 1).index(), text.size() - 1);
    EXPECT_EQ(std::count(r.begin(), r.end(), 'q'), std::count(text.begin(), text.end(), 'q'));
    std::size_t steps = 0;
    for (auto i = r.begin(); i != r.end(); ++i) ASSERT_EQ(i.index(), steps++);
    EXPECT_EQ(steps, text.size());
    // The end reached by ++, by + and by -- then ++ is the end() iterator.
    auto last = r.begin() + static_cast<std::ptrdiff_t>(text.size() - 1);
    EXPECT_EQ(++last, r.end());
    EXPECT_EQ(r.begin() + static_cast<std::ptrdiff_t>(text.size()), r.end());
    auto back = r.end();
    --back;
    EXPECT_EQ(*back, text.back());
    EXPECT_NE(back, r.end());
    EXPECT_EQ(++back, r.end());
    EXPECT_EQ(r.end().index(), text.size());
  }
}

// rope(count, ch) shares one chunk between its leaves: iterators must still
// tell the leaves apart (equal bytes at equal addresses, different indices).
TEST(RopeTest, IteratorsOverLeavesSharingOneChunk) {
  const fl::rope r(100, 'z');
  ASSERT_GT(fl::detail::rope_height(r), 0u);
  std::size_t n = 0;
  for (auto i = r.begin(); i != r.end(); ++i) {
    ASSERT_EQ(*i, 'z');
    ASSERT_EQ(i.index(), n);
    ++n;
  }
  EXPECT_EQ(n, 100u);
  EXPECT_EQ(r.end() - r.begin(), 100);
  EXPECT_NE(r.begin() + 16, r.begin());
  EXPECT_EQ(r.begin() + 100, r.end());
  EXPECT_EQ(r.end() - 100, r.begin());
  EXPECT_EQ(fl::rope().begin(), fl::rope().end());
}

TEST(RopeTest, SubstrInsideOneLeafSharesItsChunk) {
  std::mt19937_64 rng(5);
  const std::string text = random_text(rng, 1000, 26);
  const fl::rope flat(text);
  const fl::rope s = flat.substr(300, 200);
  expect_content(s, text.substr(300, 200), "flat substr");
  EXPECT_EQ((*s.chunks().begin()).data(), (*flat.chunks().begin()).data() + 300);
  const fl::rope tree = tree_of(text, 16);
  ASSERT_GT(fl::detail::rope_height(tree), 1u);
  const fl::rope inside = tree.substr(33, 10);  // bytes 33..42 of leaf 2
  expect_content(inside, text.substr(33, 10), "one-leaf substr");
  EXPECT_EQ(fl::detail::rope_height(inside), 0u);
  const fl::rope across = tree.substr(10, 15);  // leaves 0 and 1: one fresh chunk
  expect_content(across, text.substr(10, 15), "short cross-leaf substr");
  EXPECT_EQ(fl::detail::rope_height(across), 0u);
  const fl::rope longer = tree.substr(10, 500);
  expect_content(longer, text.substr(10, 500), "long substr");
  fl::detail::check_invariants(inside);
  fl::detail::check_invariants(across);
  fl::detail::check_invariants(longer);
}

TEST(RopeTest, AppendsGrowOneFlatChunkAndRvalueFlattenHandsItOver) {
  std::mt19937_64 rng(6);
  std::string want;
  fl::rope r;
  for (int i = 0; i < 200; ++i) {
    const std::string piece = random_text(rng, pick(rng, 40) + 1, 26);
    r += piece;
    want += piece;
    fl::detail::check_invariants(r);
  }
  ASSERT_GT(want.size(), 16u * 100);
  EXPECT_EQ(fl::detail::rope_height(r), 0u);  // never copied: one chunk
  const char* bytes = (*r.chunks().begin()).data();
  const fl::rope copy = r;  // shared: the rvalue flatten must copy
  fl::string a = fl::rope(copy).flatten();
  EXPECT_EQ(std::string_view(a), want);
  fl::string b = std::move(r).flatten();
  EXPECT_EQ(std::string_view(b), want);
  EXPECT_NE(b.data(), bytes);  // copy still shares the chunk
  expect_content(copy, want, "copy after flatten");
  EXPECT_TRUE(r.empty());  // NOLINT(bugprone-use-after-move): flatten() && leaves it empty

  fl::rope u;
  for (int i = 0; i < 100; ++i) u += "0123456789";
  const char* ub = (*u.chunks().begin()).data();
  fl::string s = std::move(u).flatten();
  EXPECT_EQ(s.data(), ub);  // unique: the buffer itself
  EXPECT_EQ(s.size(), 1000u);
  EXPECT_EQ(s[999], '9');
  EXPECT_EQ(s.c_str()[1000], '\0');
  s += "more";  // the string owns the block
  EXPECT_EQ(s.size(), 1004u);

  fl::rope small("abc");
  EXPECT_EQ(std::string_view(std::move(small).flatten()), "abc");
  EXPECT_TRUE(std::move(fl::rope()).flatten().empty());
}

TEST(RopeTest, BigFlatChunkEditedInTheMiddleAndCopiesStayUnchanged) {
  std::mt19937_64 rng(7);
  std::string want;
  fl::rope r;
  for (int i = 0; i < 300; ++i) {
    const std::string piece = random_text(rng, 10, 26);
    r += piece;
    want += piece;
  }
  ASSERT_EQ(fl::detail::rope_height(r), 0u);
  const fl::rope before = r;
  const std::string want_before = want;
  r.insert(want.size() / 2, "MIDDLE");
  want.insert(want.size() / 2, "MIDDLE");
  fl::detail::check_invariants(r);
  expect_content(r, want, "insert into big flat chunk");
  r.replace(5, 3, "xy");
  want.replace(5, 3, "xy");
  r.erase(want.size() - 7, 4);
  want.erase(want.size() - 7, 4);
  r.append("end");
  want.append("end");
  fl::detail::check_invariants(r);
  expect_content(r, want, "edits of big flat chunk");
  expect_content(before, want_before, "copy before the edits");

  // A unique flat rope edited after a copy was taken: the copy keeps its text.
  fl::rope g;
  std::string want_g;
  for (int i = 0; i < 50; ++i) {
    g += "abcdefghij";
    want_g += "abcdefghij";
  }
  fl::rope snapshot = g;
  g.append("X");
  g.insert(10, "Y");
  g.replace(0, 2, "Z");
  expect_content(snapshot, want_g, "snapshot");
  snapshot.insert(0, "W");
  EXPECT_EQ(g[0], 'Z');
  EXPECT_EQ(snapshot[0], 'W');
  fl::detail::check_invariants(g);
  fl::detail::check_invariants(snapshot);
}

TEST(RopeTest, SmallRopeEditedLikeAString) {
  // A flat rope of up to two leaves: the first edit of a shared chunk copies
  // it once, later edits are in place; the original never changes.
  const std::string text = "0123456789abcdefghij";  // > one 16-byte leaf
  const fl::rope s(text);
  fl::rope v = s;
  std::string want = text;
  v.insert(0, "q");
  want.insert(0, "q");
  v.replace(3, 2, "RS");
  want.replace(3, 2, "RS");
  v.erase(10, 1);
  want.erase(10, 1);
  expect_content(v, want, "small edits");
  expect_content(s, text, "original");
  fl::detail::check_invariants(v);
}

TEST(RopeTest, StreamOutput) {
  fl::rope r(std::string(40, 'z'));
  r.insert(20, "-mid-");
  std::ostringstream os;
  os << r;
  EXPECT_EQ(os.str(), r.to_std());
  std::ostringstream padded;
  padded.width(50);
  padded << fl::rope("ab");
  EXPECT_EQ(padded.str(), std::string(48, ' ') + "ab");
}

TEST(RopeTest, CopyAndConcatOperators) {
  fl::rope a("left part that is long enough to be a tree");
  fl::rope b(" right part, also quite a few leaves long");
  fl::rope c = a + b;
  EXPECT_EQ(c.to_std(), a.to_std() + b.to_std());
  EXPECT_EQ((a + "!").to_std(), a.to_std() + "!");
  EXPECT_EQ(("!" + a).to_std(), "!" + a.to_std());
  fl::rope m = std::move(c);
  EXPECT_TRUE(c.empty());  // NOLINT: moved-from is empty by contract of this type
  EXPECT_EQ(m.size(), a.size() + b.size());
  m = m;  // self-assignment keeps the text
  EXPECT_EQ(m.size(), a.size() + b.size());
  m.push_back('.');
  m += '.';
  EXPECT_TRUE(m.ends_with(".."));
  swap(a, b);
  EXPECT_TRUE(a.starts_with(" right"));
  m.clear();
  EXPECT_TRUE(m.empty());
  fl::detail::check_invariants(m);
}

// Copies taken before an edit never change, whatever the edit.
TEST(RopeTest, EditingACopyNeverChangesTheOriginal) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::string text = random_text(rng, 700, 26);
  fl::rope original;
  for (std::size_t i = 0; i < text.size(); i += 9)
    original.append(std::string_view(text).substr(i, 9));
  const fl::rope keep = original;
  for (int op = 0; op < 9; ++op) {
    for (int trial = 0; trial < 50; ++trial) {
      fl::rope copy = original;
      const std::size_t pos = pick(rng, copy.size() + 1);
      const std::size_t n = pick(rng, 64);
      const std::string piece = random_text(rng, pick(rng, 40) + 1, 26);
      switch (op) {
        case 0: copy.append(piece); break;
        case 1: copy.prepend(piece); break;
        case 2: copy.insert(pos, piece); break;
        case 3: copy.erase(pos, n); break;
        case 4: copy.replace(pos, n, piece); break;
        case 5: copy = copy.substr(pos, n); break;
        case 6: copy += original; break;
        case 7: copy.insert(pos, original.substr(pos / 2, n)); break;
        case 8: copy.append(piece).append(piece).erase(0, 1); break;
      }
      fl::detail::check_invariants(copy);
      ASSERT_EQ(original.to_std(), text) << "seed " << seed << " op " << op;
      ASSERT_TRUE(original == keep) << "seed " << seed << " op " << op;
      fl::detail::check_invariants(original);
    }
  }
}

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
    switch (op) {
      case 0:
      case 14:
      case 15:
        r.append(piece);
        s.append(piece);
        break;
      case 1:
      case 16:
        r.prepend(piece);
        s.insert(0, piece);
        break;
      case 2:
      case 17:
        r.insert(pos, piece);
        s.insert(pos, piece);
        break;
      case 3:
        r.erase(pos, n);
        s.erase(pos, n);
        break;
      case 4:
      case 18:
        r.replace(pos, n, piece);
        s.replace(pos, n, piece);
        break;
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
    ASSERT_EQ(r.size(), s.size()) << ctx;
    max_height = std::max(max_height, fl::detail::rope_height(r));
    max_size = std::max(max_size, s.size());
    if (step % 64 == 0) {
      for (const auto& [rr, ss] : slots) {
        fl::detail::check_invariants(rr);
        ASSERT_EQ(rr.to_std(), ss) << ctx;
      }
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

#ifdef FL_ROPE_FAIL_HOOK
// ---------------------------------------------------------------- failed allocations
//
// Every edit is run with its 1st, 2nd, 3rd, ... allocation failing
// (detail::rope_fail_after) until it succeeds. After each std::bad_alloc the
// rope must hold exactly its old text with all invariants, copies and
// argument ropes must be unchanged, and once every rope of the attempt is
// gone the rope code must hold no more blocks than before (rope_live_blocks;
// the asan build's leak checker sees the same from outside).
namespace {

using rope_edit = std::function<void(fl::rope&, std::string&)>;

struct fail_shape {
  std::string name;
  std::function<fl::rope()> make;  // a fresh, uniquely owned rope each call
};

// A deep tree built by scattered inserts and erases (fixed seed: every call
// gives the same tree), `bytes` long or a little more.
fl::rope scattered_tree(std::size_t bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  fl::rope r(random_text(rng, 40, 26));
  while (r.size() < bytes) {
    r.insert(pick(rng, r.size() + 1), random_text(rng, 1 + pick(rng, 24), 26));
    if (pick(rng, 5) == 0) r.erase(pick(rng, r.size()), pick(rng, 10));
  }
  return r;
}

// A tree joined from many small ropes (appends of ropes: join paths).
fl::rope joined_tree(std::size_t pieces, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  fl::rope r;
  for (std::size_t i = 0; i < pieces; ++i)
    r.append(fl::rope(random_text(rng, 1 + pick(rng, 40), 26)));
  return r;
}

std::vector<fail_shape> fail_shapes() {
  return {
      {"empty", [] { return fl::rope(); }},
      {"flat_small", [] { return fl::rope("0123456789abcdefghij"); }},
      {"flat_big", [] { return fl::rope(std::string(300, 'x') + "tail"); }},
      {"grown_by_appends",
       [] {
         fl::rope r;
         for (int i = 0; i < 40; ++i) r.append("abcde");
         return r;
       }},
      {"scattered_tree", [] { return scattered_tree(700, 7); }},
      {"joined_tree", [] { return joined_tree(120, 11); }},
  };
}

// Runs `edit` on a fresh rope of `shape` with the n-th allocation failing,
// for n = 1, 2, ... until it succeeds; `args` are argument ropes the edit
// reads (they must never change). With keep_copy, a copy of the rope shares
// its nodes during the edit (copy-on-write paths) and must stay unchanged.
void expect_strong_guarantee(const std::string& ctx, const fail_shape& shape, const rope_edit& edit,
                             const std::vector<const fl::rope*>& args, bool keep_copy) {
  std::vector<std::string> arg_text;
  for (const fl::rope* a : args) arg_text.push_back(a->to_std());
  const fl::rope unrelated = scattered_tree(200, 99);
  const std::string unrelated_text = unrelated.to_std();
  const long base = fl::detail::rope_live_blocks();
  for (std::size_t n = 1;; ++n) {
    const std::string at = ctx + " on " + shape.name + (keep_copy ? " (shared)" : " (unique)") +
                           ", allocation " + std::to_string(n) + " fails";
    ASSERT_LT(n, 10'000u) << at;
    bool threw = false;
    {
      fl::rope r = shape.make();
      const std::string before = r.to_std();
      std::string want = before;
      fl::rope copy;
      if (keep_copy) copy = r;
      fl::detail::rope_fail_after(n);
      try {
        edit(r, want);
      } catch (const std::bad_alloc&) { threw = true; }
      fl::detail::rope_fail_after(0);
      ASSERT_NO_THROW(fl::detail::check_invariants(r)) << at;
      ASSERT_EQ(r.to_std(), threw ? before : want) << at;
      if (keep_copy) {
        ASSERT_NO_THROW(fl::detail::check_invariants(copy)) << at;
        ASSERT_EQ(copy.to_std(), before) << at;
      }
      for (std::size_t i = 0; i < args.size(); ++i) {
        ASSERT_NO_THROW(fl::detail::check_invariants(*args[i])) << at;
        ASSERT_EQ(args[i]->to_std(), arg_text[i]) << at << ", argument " << i;
      }
      ASSERT_EQ(unrelated.to_std(), unrelated_text) << at;
      // The rope is still usable: edit it once more, without failures.
      r.append("!");
      r.insert(r.size() / 2, "mid");
      ASSERT_NO_THROW(fl::detail::check_invariants(r)) << at;
    }
    ASSERT_EQ(fl::detail::rope_live_blocks(), base) << at << ": blocks leaked";
    if (!threw) break;
  }
}

struct named_edit {
  std::string name;
  rope_edit edit;
  std::vector<const fl::rope*> args;
};

// pos and n as fractions of the size, so one edit fits every shape.
std::size_t at_frac(const std::string& s, int num, int den) {
  return s.size() * static_cast<std::size_t>(num) / den;
}

std::vector<named_edit> fail_edits(const fl::rope& arg_tree, const fl::rope& arg_flat) {
  const std::string small = "xyz";
  const std::string longer(70, 'L');
  std::vector<named_edit> e;
  auto add = [&e](std::string name, rope_edit f, std::vector<const fl::rope*> args = {}) {
    e.push_back({std::move(name), std::move(f), std::move(args)});
  };
  add("append sv", [=](fl::rope& r, std::string& s) { r.append(small), s.append(small); });
  add("append long sv", [=](fl::rope& r, std::string& s) { r.append(longer), s.append(longer); });
  add("+= char", [](fl::rope& r, std::string& s) { r += 'c', s += 'c'; });
  add("+= sv", [=](fl::rope& r, std::string& s) { r += std::string_view(longer), s += longer; });
  add("append rope tree",
      [&](fl::rope& r, std::string& s) { r.append(arg_tree), s.append(arg_tree.to_std()); },
      {&arg_tree});
  add("append rope flat",
      [&](fl::rope& r, std::string& s) { r.append(arg_flat), s.append(arg_flat.to_std()); },
      {&arg_flat});
  add("append self", [](fl::rope& r, std::string& s) { r.append(r), s.append(std::string(s)); });
  add("append count", [](fl::rope& r, std::string& s) { r.append(40, 'q'), s.append(40, 'q'); });
  add("prepend sv", [=](fl::rope& r, std::string& s) { r.prepend(small), s.insert(0, small); });
  add("prepend long sv",
      [=](fl::rope& r, std::string& s) { r.prepend(longer), s.insert(0, longer); });
  add("prepend rope",
      [&](fl::rope& r, std::string& s) { r.prepend(arg_tree), s.insert(0, arg_tree.to_std()); },
      {&arg_tree});
  add("prepend self",
      [](fl::rope& r, std::string& s) { r.prepend(r), s.insert(0, std::string(s)); });
  add("insert sv", [=](fl::rope& r, std::string& s) {
    const std::size_t p = at_frac(s, 1, 3);
    r.insert(p, small), s.insert(p, small);
  });
  add("insert long sv", [=](fl::rope& r, std::string& s) {
    const std::size_t p = at_frac(s, 1, 2);
    r.insert(p, longer), s.insert(p, longer);
  });
  add("insert rope",
      [&](fl::rope& r, std::string& s) {
        const std::size_t p = at_frac(s, 2, 3);
        r.insert(p, arg_tree), s.insert(p, arg_tree.to_std());
      },
      {&arg_tree});
  add("insert self", [](fl::rope& r, std::string& s) {
    const std::size_t p = at_frac(s, 1, 2);
    r.insert(p, r), s.insert(p, std::string(s));
  });
  add("erase range", [](fl::rope& r, std::string& s) {
    const std::size_t p = at_frac(s, 1, 4), n = at_frac(s, 1, 2);
    r.erase(p, n), s.erase(p, n);
  });
  add("erase few", [](fl::rope& r, std::string& s) {
    const std::size_t p = at_frac(s, 1, 2);
    r.erase(p, 3), s.erase(p, std::min<std::size_t>(3, s.size() - p));
  });
  add("replace sv", [=](fl::rope& r, std::string& s) {
    const std::size_t p = at_frac(s, 1, 5), n = at_frac(s, 3, 5);
    r.replace(p, n, longer), s.replace(p, n, longer);
  });
  add("replace few", [=](fl::rope& r, std::string& s) {
    const std::size_t p = at_frac(s, 1, 2);
    r.replace(p, 2, small), s.replace(p, std::min<std::size_t>(2, s.size() - p), small);
  });
  add("replace rope",
      [&](fl::rope& r, std::string& s) {
        const std::size_t p = at_frac(s, 1, 3), n = at_frac(s, 1, 3);
        r.replace(p, n, arg_tree), s.replace(p, n, arg_tree.to_std());
      },
      {&arg_tree});
  add("replace self", [](fl::rope& r, std::string& s) {
    const std::size_t p = at_frac(s, 1, 3), n = at_frac(s, 1, 3);
    r.replace(p, n, r), s.replace(p, n, std::string(s));
  });
  add("substr", [](fl::rope& r, std::string& s) {
    const std::size_t p = at_frac(s, 1, 7), n = at_frac(s, 5, 7);
    r = r.substr(p, n), s = s.substr(p, n);
  });
  add("rope(count, ch)", [](fl::rope& r, std::string& s) {
    r = fl::rope(s.size() + 100, 'c'), s.assign(s.size() + 100, 'c');
  });
  add("rope(sv)", [](fl::rope& r, std::string& s) { r = fl::rope(s + "more"), s += "more"; });
  add("flatten", [](fl::rope& r, std::string&) { EXPECT_EQ(r.flatten().size(), r.size()); });
  add("concat",
      [&](fl::rope& r, std::string& s) { r = r + arg_tree + "x", s = s + arg_tree.to_std() + "x"; },
      {&arg_tree});
  return e;
}

}  // namespace

TEST(RopeFailedAllocation, EveryEditIsAllOrNothing) {
  const fl::rope arg_tree = scattered_tree(300, 5);
  const fl::rope arg_flat("a flat argument");
  ASSERT_GE(fl::detail::rope_height(arg_tree), 2u);
  for (const fail_shape& shape : fail_shapes()) {
    for (const named_edit& e : fail_edits(arg_tree, arg_flat)) {
      for (bool keep_copy : {false, true}) {
        expect_strong_guarantee(e.name, shape, e.edit, e.args, keep_copy);
        if (testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(RopeFailedAllocation, RandomEditsOnRandomTreesAreAllOrNothing) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 150; ++round) {
    const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    const std::uint64_t tree_seed = rng();
    const std::size_t bytes = 20 + pick(rng, 1500);
    const bool scattered = pick(rng, 2) == 0;
    const fail_shape shape{"random tree of " + std::to_string(bytes), [=] {
                             return scattered ? scattered_tree(bytes, tree_seed)
                                              : joined_tree(bytes / 20 + 1, tree_seed);
                           }};
    const fl::rope arg = scattered_tree(1 + pick(rng, 400), rng());
    const std::string text = random_text(rng, pick(rng, 60), 26);
    const std::size_t pa = rng(), pb = rng();  // fractions, applied to the size
    const int kind = static_cast<int>(pick(rng, 8));
    auto pos_of = [pa](const std::string& s) { return s.empty() ? 0 : pa % (s.size() + 1); };
    auto len_of = [pb](const std::string& s, std::size_t p) { return pb % (s.size() - p + 1); };
    const rope_edit edit = [=, &arg](fl::rope& r, std::string& s) {
      const std::size_t p = pos_of(s), n = len_of(s, p);
      switch (kind) {
        case 0: r.append(text), s.append(text); break;
        case 1: r.append(arg), s.append(arg.to_std()); break;
        case 2: r.prepend(text), s.insert(0, text); break;
        case 3: r.insert(p, text), s.insert(p, text); break;
        case 4: r.insert(p, arg), s.insert(p, arg.to_std()); break;
        case 5: r.erase(p, n), s.erase(p, n); break;
        case 6: r.replace(p, n, text), s.replace(p, n, text); break;
        default: r = r.substr(p, n), s = s.substr(p, n); break;
      }
    };
    expect_strong_guarantee(ctx + " kind " + std::to_string(kind), shape, edit, {&arg},
                            pick(rng, 2) == 0);
    if (testing::Test::HasFatalFailure()) return;
  }
}
#endif  // FL_ROPE_FAIL_HOOK

// ---------------------------------------------------------------- text metrics

namespace {

// Text with everything the metrics must survive: ASCII, '\n', "\r\n", 2-,
// 3- and 4-byte UTF-8 sequences, and invalid bytes (stray continuation
// bytes, lone lead bytes, 0xF8..0xFF).
std::string random_utf8(std::mt19937_64& rng, std::size_t n) {
  static const char* const pieces[] = {
      "a",    "b",    "\n",   "\r\n", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
      "\x80", "\xBF", "\xC3", "\xF0", "\xFF",     "\xF8\x88",     "x\ny",
      " "};
  std::string s;
  while (s.size() < n) s += pieces[pick(rng, std::size(pieces))];
  s.resize(n);  // may cut a sequence: more invalid bytes
  return s;
}

bool is_char_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }
std::size_t units_of(char c) {
  return is_char_byte(c) ? (static_cast<unsigned char>(c) >= 0xF0 ? 2u : 1u) : 0u;
}

// The metrics of a std::string by plain scans: the definitions of SPEC.
struct naive_metrics {
  std::vector<std::size_t> chars, lines, units;        // prefix counts, size() + 1 entries
  std::vector<std::size_t> char_at, line_at, unit_at;  // char_to_byte, line_to_byte, utf16_to_byte
  explicit naive_metrics(const std::string& s) {
    chars.assign(1, 0);
    lines.assign(1, 0);
    units.assign(1, 0);
    line_at.assign(1, 0);
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (is_char_byte(s[i])) {
        char_at.push_back(i);
        for (std::size_t u = 0; u < units_of(s[i]); ++u) unit_at.push_back(i);
      }
      if (s[i] == '\n') line_at.push_back(i + 1);
      chars.push_back(chars.back() + (is_char_byte(s[i]) ? 1 : 0));
      lines.push_back(lines.back() + (s[i] == '\n' ? 1 : 0));
      units.push_back(units.back() + units_of(s[i]));
    }
    char_at.push_back(s.size());
    unit_at.push_back(s.size());
    line_at.push_back(s.size());
  }
};

// Checks every metric of r against s: the totals, the queries at `probes`
// random arguments (every argument when all is set), and the throws just
// past each end.
void expect_metrics(const fl::rope& r, const std::string& s, std::mt19937_64& rng, int probes,
                    bool all, const std::string& ctx) {
  const naive_metrics m(s);
  ASSERT_EQ(r.char_count(), m.chars.back()) << ctx;
  ASSERT_EQ(r.line_count(), m.lines.back() + 1) << ctx;
  ASSERT_EQ(r.utf16_count(), m.units.back()) << ctx;
  auto by_pos = [&](std::size_t pos) {
    ASSERT_EQ(r.byte_to_char(pos), m.chars[pos]) << ctx << " pos " << pos;
    ASSERT_EQ(r.byte_to_line(pos), m.lines[pos]) << ctx << " pos " << pos;
    ASSERT_EQ(r.byte_to_utf16(pos), m.units[pos]) << ctx << " pos " << pos;
  };
  auto by_char = [&](std::size_t i) {
    ASSERT_EQ(r.char_to_byte(i), m.char_at[i]) << ctx << " char " << i;
  };
  auto by_line = [&](std::size_t i) {
    ASSERT_EQ(r.line_to_byte(i), m.line_at[i]) << ctx << " line " << i;
  };
  auto by_unit = [&](std::size_t i) {
    ASSERT_EQ(r.utf16_to_byte(i), m.unit_at[i]) << ctx << " unit " << i;
  };
  if (all) {
    for (std::size_t i = 0; i <= s.size(); ++i) by_pos(i);
    for (std::size_t i = 0; i < m.char_at.size(); ++i) by_char(i);
    for (std::size_t i = 0; i < m.line_at.size(); ++i) by_line(i);
    for (std::size_t i = 0; i < m.unit_at.size(); ++i) by_unit(i);
  } else {
    for (int k = 0; k < probes; ++k) {
      by_pos(pick(rng, s.size() + 1));
      by_char(pick(rng, m.char_at.size()));
      by_line(pick(rng, m.line_at.size()));
      by_unit(pick(rng, m.unit_at.size()));
    }
    by_pos(s.size());
  }
  ASSERT_THROW((void)r.byte_to_char(s.size() + 1), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.byte_to_line(s.size() + 1), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.byte_to_utf16(s.size() + 1), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.char_to_byte(m.char_at.size()), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.line_to_byte(m.line_at.size()), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.utf16_to_byte(m.unit_at.size()), std::out_of_range) << ctx;
}

}  // namespace

TEST(RopeMetrics, EmptyAndSmall) {
  const fl::rope e;
  EXPECT_EQ(e.char_count(), 0u);
  EXPECT_EQ(e.line_count(), 1u);
  EXPECT_EQ(e.utf16_count(), 0u);
  EXPECT_EQ(e.char_to_byte(0), 0u);
  EXPECT_EQ(e.line_to_byte(0), 0u);
  EXPECT_EQ(e.line_to_byte(1), 0u);
  EXPECT_THROW((void)e.line_to_byte(2), std::out_of_range);
  EXPECT_EQ(e.byte_to_line(0), 0u);
  const fl::rope r("h\xC3\xA9llo\n\xF0\x9F\x98\x80 w\r\nx");
  EXPECT_EQ(r.char_count(), 12u);
  EXPECT_EQ(r.utf16_count(), 13u);
  EXPECT_EQ(r.line_count(), 3u);
  EXPECT_EQ(r.char_to_byte(2), 3u);
  EXPECT_EQ(r.byte_to_char(3), 2u);
  EXPECT_EQ(r.byte_to_char(2), 2u);  // inside the 2-byte char: it started before
  EXPECT_EQ(r.line_to_byte(1), 7u);
  EXPECT_EQ(r.line_to_byte(2), 15u);
  EXPECT_EQ(r.byte_to_line(7), 1u);
  EXPECT_EQ(r.byte_to_line(6), 0u);
  EXPECT_EQ(r.utf16_to_byte(6), 7u);  // the emoji starts at byte 7, unit 6
  EXPECT_EQ(r.utf16_to_byte(7), 7u);  // its second unit: the same char
  EXPECT_EQ(r.utf16_to_byte(8), 11u);
  EXPECT_EQ(r.byte_to_utf16(11), 8u);
  try {
    (void)r.char_to_byte(13);
    FAIL();
  } catch (const std::out_of_range& err) {
    EXPECT_STREQ(err.what(),
                 "fl::rope::char_to_byte: i (which is 13) > char_count() (which is 12)");
  }
  EXPECT_EQ(r.line(0), "h\xC3\xA9llo\n");
  EXPECT_EQ(r.line(1), "\xF0\x9F\x98\x80 w\r\n");
  EXPECT_EQ(r.line(2), "x");
  EXPECT_THROW((void)r.line(3), std::out_of_range);
  std::string joined;
  std::size_t count = 0;
  for (const fl::rope& l : r.lines()) {
    joined += l.to_std();
    ++count;
  }
  EXPECT_EQ(count, r.line_count());
  EXPECT_EQ(joined, r.to_std());
}

// Random edits on shared copies, every metric checked against plain scans
// of a std::string mirror after every step (all positions while small).
TEST(RopeMetrics, RandomEditsAgreeWithNaiveScans) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x6d657472696373ULL);
  std::vector<std::pair<fl::rope, std::string>> slots(4);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr int steps = 4'000;  // sanitizers slow every byte the checks read
#else
  constexpr int steps = 12'000;
#endif
  unsigned max_height = 0;
  for (int step = 0; step < steps; ++step) {
    auto& [r, s] = slots[pick(rng, slots.size())];
    const std::string ctx = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    const std::size_t pos = pick(rng, s.size() + 1);
    const std::size_t n = pick(rng, 2) ? pick(rng, 8) : pick(rng, 200);
    const std::string piece = random_utf8(rng, pick(rng, 3) == 0 ? pick(rng, 100) : pick(rng, 12));
    switch (pick(rng, s.size() > 4000 ? 9 : 12)) {
      case 0:
        r.append(piece);
        s.append(piece);
        break;
      case 1:
        r.prepend(piece);
        s.insert(0, piece);
        break;
      case 2:
        r.insert(pos, piece);
        s.insert(pos, piece);
        break;
      case 3:
        r.erase(pos, n);
        s.erase(pos, n);
        break;
      case 4:
        r.replace(pos, n, piece);
        s.replace(pos, n, piece);
        break;
      case 5: {  // a shared copy edited; the original must keep its metrics
        auto& [r2, s2] = slots[pick(rng, slots.size())];
        r2 = r;
        s2 = s;
        const std::size_t p2 = pick(rng, s2.size() + 1);
        r2.replace(p2, n, piece);
        s2.replace(p2, n, piece);
        break;
      }
      case 6: {
        const std::size_t len = pick(rng, s.size() - pos + 1);
        r = r.substr(pos, len);
        s = s.substr(pos, len);
        break;
      }
      case 7: {  // small appends: the in-place paths (flat and spine)
        for (int k = 0; k < 8; ++k) {
          const std::string small = random_utf8(rng, pick(rng, 6) + 1);
          r += small;
          s += small;
        }
        break;
      }
      case 8: {  // a rope into a rope
        const auto& [r2, s2] = slots[pick(rng, slots.size())];
        if (s.size() + s2.size() < 12000) {
          r.insert(pos, r2);
          s.insert(pos, s2);
        }
        break;
      }
      case 9: {  // a big flat chunk (block index), then appends to it
        s = random_utf8(rng, 500 + pick(rng, 3000));
        r = fl::rope(s);
        (void)r.char_to_byte(pick(rng, r.char_count() + 1));  // builds the index
        for (int k = 0; k < 4; ++k) {
          const std::string more = random_utf8(rng, pick(rng, 300));
          r.append(more);
          s.append(more);
        }
        break;
      }
      case 10: {  // adopt a flattened string, then edit it in place
        r = fl::rope(std::move(r).flatten());
        (void)r.byte_to_line(pick(rng, s.size() + 1));
        r.replace(pos, n, piece);
        s.replace(pos, n, piece);
        break;
      }
      default: {  // rope + rope
        const auto& [r2, s2] = slots[pick(rng, slots.size())];
        if (s.size() + s2.size() < 12000) {
          r = r + r2;
          s = s + s2;
        }
        break;
      }
    }
    fl::detail::check_invariants(r);
    max_height = std::max(max_height, fl::detail::rope_height(r));
    expect_metrics(r, s, rng, 8, s.size() < 300 || step % 50 == 0, ctx);
    if (HasFatalFailure()) return;
    if (step % 100 == 0) {
      for (const auto& [rr, ss] : slots) {
        fl::detail::check_invariants(rr);
        expect_metrics(rr, ss, rng, 16, false, ctx + " (slots)");
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_GE(max_height, 4u) << "seed " << seed;
}

// Several copies of one big flat rope, queried in parallel orders: all
// read the chunk's one block index.
TEST(RopeMetrics, BigFlatRopeQueriesMatchAfterEditsAtBothEnds) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  std::string s = random_utf8(rng, 20000);
  fl::rope r(s);
  expect_metrics(r, s, rng, 200, false, "flat, seed " + std::to_string(seed));
  fl::rope copy = r;
  r.insert(10000, "\n\xF0\x9F\x98\x80\n");
  std::string s2 = s;
  s2.insert(10000, "\n\xF0\x9F\x98\x80\n");
  expect_metrics(r, s2, rng, 200, false, "edited, seed " + std::to_string(seed));
  expect_metrics(copy, s, rng, 200, false, "copy, seed " + std::to_string(seed));
  fl::detail::check_invariants(r);
  fl::detail::check_invariants(copy);
}

// ---------------------------------------------------------------- conversions (no surprises)

namespace {
template <class A, class B>
concept addable = requires(const A& a, const B& b) {
  a + b;
};
template <class A, class B>
concept adds_to_rope = requires(const A& a, const B& b) {
  { a + b } -> std::same_as<fl::rope>;
};
}  // namespace

// An fl::string or a C string never silently becomes a rope.
static_assert(!std::is_convertible_v<const fl::string&, fl::rope>);
static_assert(!std::is_convertible_v<fl::string&&, fl::rope>);
static_assert(std::is_constructible_v<fl::rope, const fl::string&>);
static_assert(!adds_to_rope<fl::string, int>);
static_assert(!adds_to_rope<fl::string, const char*>);
static_assert(!adds_to_rope<const char*, fl::string>);
static_assert(!adds_to_rope<fl::string, std::string_view>);
static_assert(!addable<std::string_view, const char*>);
// With a rope on either side, text of any kind joins it.
static_assert(adds_to_rope<fl::rope, std::string_view>);
static_assert(adds_to_rope<fl::rope, const char*>);
static_assert(adds_to_rope<fl::rope, fl::string>);
static_assert(adds_to_rope<fl::rope, std::string>);
static_assert(adds_to_rope<fl::string, fl::rope>);
static_assert(adds_to_rope<const char*, fl::rope>);
static_assert(adds_to_rope<fl::rope, fl::rope>);

TEST(RopeTest, IndexAtSizeIsNul) {
  const fl::rope empty;
  EXPECT_EQ(empty[0], '\0');
  const fl::rope flat("abc");
  EXPECT_EQ(flat[3], '\0');
  fl::rope tree;
  for (int i = 0; i < 50; ++i) tree.append(fl::rope("0123456789"));
  ASSERT_GT(fl::detail::rope_height(tree), 0u);
  EXPECT_EQ(tree[tree.size()], '\0');
  EXPECT_EQ(tree[tree.size() - 1], '9');
}

TEST(RopeTest, EditsTakeFlStringLvalues) {
  const fl::string s = "<fl::string of more than twenty-three bytes>";
  fl::rope r(s);
  r.append(s);
  r.prepend(s);
  r.insert(3, s);
  r.replace(0, 2, s);
  r += s;
  std::string want(s);
  want += want;
  want.insert(0, std::string(s));
  want.insert(3, std::string(s));
  want.replace(0, 2, std::string(s));
  want += std::string(s);
  EXPECT_EQ(r.to_std(), want);
  EXPECT_EQ((r + s).size(), want.size() + s.size());
  EXPECT_EQ((s + r).size(), want.size() + s.size());
  EXPECT_EQ(fl::rope("a") + "b" + std::string_view("c"), "abc");
}

TEST(RopeTest, SegmentedAlgorithms) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::string s = random_utf8(rng, 5000);
  fl::rope r;
  for (std::size_t i = 0; i < s.size(); i += 37) r.append(fl::rope(s.substr(i, 37)));
  ASSERT_GT(fl::detail::rope_height(r), 1u);
  EXPECT_EQ(fl::count(r, '\n'), static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')));
  EXPECT_EQ(fl::count(r, 'a'), static_cast<std::size_t>(std::ranges::count(r, 'a')));
  EXPECT_EQ(fl::find(r, "\r\nx"), s.find("\r\nx"));
  std::string seen;
  EXPECT_TRUE(fl::for_each_chunk(r, [&](std::string_view c) { seen.append(c); }));
  EXPECT_EQ(seen, s);
  std::size_t visited = 0;
  EXPECT_FALSE(fl::for_each_chunk(r, [&](std::string_view) { return ++visited < 3; }));
  EXPECT_EQ(visited, 3u);
}

// A chunk with a block index handed to an fl::string by flatten() && frees
// the index (the sanitizer build's leak check sees it otherwise).
TEST(RopeMetrics, FlattenOfAnIndexedChunk) {
  fl::rope r(std::string(5000, 'a') + "\n\xC3\xA9");
  EXPECT_EQ(r.byte_to_line(4000), 0u);
  EXPECT_EQ(r.char_to_byte(5001), 5001u);
  const fl::string s = std::move(r).flatten();
  EXPECT_EQ(s.size(), 5003u);
}
