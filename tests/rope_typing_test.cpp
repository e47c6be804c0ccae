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

#include <random>
#include <string>

static_assert(fl::detail::leaf_max_bytes == 4096 && fl::detail::leaf_block == 128,
              "rope_typing_test checks the library's own leaf size");

using namespace rope_test;  // rope_check.hpp

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int scale = 4;  // sanitizers slow every byte the checks read
#else
constexpr int scale = 1;
#endif

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
  if (scale == 1) {
    EXPECT_GE(fl::detail::rope_height(r), 1u) << "seed " << seed;
  }
}

// A tree of full leaves (rope_check.hpp: tree_of), with
// copies kept now and then: edits of shared leaves copy a window, in-place
// edits truncate the leaf index, and typing runs at the cursor use the hint.
TEST(RopeTyping, TreeOfFullLeaves) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed ^ 0x74726565ULL);
  std::string s = random_utf8(rng, 14000);
  fl::rope r = tree_of(s, fl::detail::leaf_max_bytes);
  ASSERT_GE(fl::detail::rope_height(r), 1u);
  type_at_cursor(r, s, rng, 1500 / scale, "seed " + std::to_string(seed));
}
