// Tests of fl::rope's interface: construction, element access, iterators,
// search, comparison, substr, streams, operators and conversions, on the
// rope of 16-byte leaves (rope_support.hpp), flat and as trees.
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

static_assert(std::random_access_iterator<fl::rope::const_iterator>);
static_assert(std::ranges::forward_range<fl::rope::chunk_range>);
static_assert(std::ranges::input_range<fl::rope::line_range>);

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
