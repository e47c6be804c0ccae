// Tests of fl::rope's tree engine below the public interface (src/rope/):
// join and split on edges directly, on the rope of 16-byte leaves (fan-out
// 4), so a few hundred bytes make trees of height 3-5. Every result is
// checked with detail::check_tree (balance, sizes, counts, metrics) and
// read back leaf by leaf; join is checked against its plan (plan_join: the
// inner nodes it takes from the stash and how the leaves that meet merge),
// split against the strong guarantee (each allocation failing in turn).
#include "rope/metrics.hpp"
#include "rope/rope_impl.hpp"

#include <gtest/gtest.h>
#include "rope_support.hpp"

#include <cstddef>
#include <new>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace d = fl::detail;
using namespace rope_test;  // rope_support.hpp

// The bytes under an edge, leaf by leaf.
void append_text(const d::edge& e, std::string& out) {
  if (!e.p) return;
  if (e.p->height == 0) {
    out.append(d::leaf_text(e));
    return;
  }
  const auto* n = static_cast<const d::inner*>(e.p);
  for (unsigned i = 0; i < n->count; ++i) append_text(n->child[i], out);
}
std::string text_of(const d::edge& e) {
  std::string out;
  append_text(e, out);
  return out;
}

std::size_t leaf_count(const d::edge& e) {
  if (!e.p) return 0;
  if (e.p->height == 0) return 1;
  const auto* n = static_cast<const d::inner*>(e.p);
  std::size_t k = 0;
  for (unsigned i = 0; i < n->count; ++i) k += leaf_count(n->child[i]);
  return k;
}

// What an edit leaves behind: metrics computed (rope_engine::settle), then checked.
void settle_and_check(d::edge& e) {
  if (e.p && e.p->height > 0) d::fill_metrics(e);
  d::check_tree(e);
}

// An owned tree of `text` in one of several shapes: built (full, even
// leaves), the right part of a split of a longer build (a ragged left
// edge), or a single leaf with spare room (one that joins may write into).
d::edge make_tree(const std::string& text, int shape, std::mt19937_64& rng) {
  if (text.empty()) return d::edge{};
  d::edge t{};
  if (shape == 1) {
    const std::string head = random_text(rng, 1 + pick(rng, 60), 26);
    d::edge whole = d::build(head + text, head.size() + text.size());
    auto [l, r] = d::split(whole, head.size());
    d::release(l.p);
    t = r;
  } else if (shape == 2 && text.size() <= d::leaf_max_bytes) {
    t = d::make_leaf(text, d::leaf_max_bytes);
  } else {
    t = d::build(text, text.size());
  }
  settle_and_check(t);
  return t;
}

TEST(RopeJoin, EveryShapeKeepsTextBalanceAndPlan) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::size_t sizes[] = {0, 1, 3, 4, 5, 12, 16, 17, 30, 64, 65, 200, 700, 3000};
  for (const std::size_t na : sizes) {
    for (const std::size_t nb : sizes) {
      for (int shape = 0; shape < 9; ++shape) {
        const std::string ctx = "seed " + std::to_string(seed) + " sizes " + std::to_string(na) +
                                "+" + std::to_string(nb) + " shape " + std::to_string(shape);
        const std::string ta = random_text(rng, na, 26), tb = random_text(rng, nb, 26);
        d::edge a = make_tree(ta, shape % 3, rng), b = make_tree(tb, shape / 3, rng);
        const std::size_t leaves = leaf_count(a) + leaf_count(b);
        const d::join_plan plan = d::plan_join(a, b);
        d::edge j{};
        {
          d::join_reserve res;
          res.add(a, b);
          const unsigned stash = d::thread_spares().count;
          ASSERT_GE(stash, plan.nodes) << ctx;
          j = d::join(a, b);
          // The join took no more nodes than its plan counted, and used the
          // merge chunk the plan asked for.
          ASSERT_LE(stash - d::thread_spares().count, plan.nodes) << ctx;
          if (plan.merge == d::leaf_merge::copy) {
            for (const d::chunk* c : d::thread_spares().merge) ASSERT_EQ(c, nullptr) << ctx;
          }
        }
        ASSERT_NO_THROW(settle_and_check(j)) << ctx;
        ASSERT_EQ(text_of(j), ta + tb) << ctx;
        // Two leaves that the plan merges become one.
        const std::size_t merged = plan.merge == d::leaf_merge::none ? 0 : 1;
        ASSERT_EQ(leaf_count(j), leaves - merged) << ctx;
        d::release(j.p);
      }
    }
  }
}

// A join of shared trees copies the nodes it changes: the operands, still
// held elsewhere, keep their text and invariants.
TEST(RopeJoin, SharedOperandsAreNotChanged) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 300; ++round) {
    const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round);
    const std::string ta = random_text(rng, pick(rng, 400), 26);
    const std::string tb = random_text(rng, pick(rng, 400), 26);
    const d::edge a = make_tree(ta, static_cast<int>(pick(rng, 3)), rng);
    const d::edge b = make_tree(tb, static_cast<int>(pick(rng, 3)), rng);
    d::acquire(a.p);
    d::acquire(b.p);
    d::edge j{};
    {
      d::join_reserve res;
      res.add(a, b);
      j = d::join(a, b);
    }
    ASSERT_NO_THROW(settle_and_check(j)) << ctx;
    ASSERT_EQ(text_of(j), ta + tb) << ctx;
    ASSERT_EQ(text_of(a), ta) << ctx;
    ASSERT_EQ(text_of(b), tb) << ctx;
    ASSERT_NO_THROW(d::check_tree(a)) << ctx;
    ASSERT_NO_THROW(d::check_tree(b)) << ctx;
    d::release(j.p);
    d::release(a.p);
    d::release(b.p);
  }
}

// Split at every position of trees of every shape: both halves hold the
// right bytes and are valid trees; the tree split stays intact when shared.
TEST(RopeSplit, EveryPositionOfEveryShape) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  for (const std::size_t n : {1, 5, 16, 17, 48, 130, 600}) {
    for (int shape = 0; shape < 3; ++shape) {
      const std::string text = random_text(rng, n, 26);
      const d::edge t = make_tree(text, shape, rng);
      for (std::size_t pos = 0; pos <= n; ++pos) {
        const std::string ctx = "seed " + std::to_string(seed) + " n " + std::to_string(n) +
                                " shape " + std::to_string(shape) + " pos " + std::to_string(pos);
        d::acquire(t.p);  // split consumes one reference; t keeps the other
        auto [l, r] = d::split(t, pos);
        ASSERT_NO_THROW(settle_and_check(l)) << ctx;
        ASSERT_NO_THROW(settle_and_check(r)) << ctx;
        ASSERT_EQ(text_of(l), text.substr(0, pos)) << ctx;
        ASSERT_EQ(text_of(r), text.substr(pos)) << ctx;
        ASSERT_EQ(text_of(t), text) << ctx;
        d::release(l.p);
        d::release(r.p);
      }
      ASSERT_NO_THROW(d::check_tree(t));
      d::release(t.p);
    }
  }
}

// split gives the strong guarantee: with its k-th allocation failing it
// throws, the tree is still the caller's and unchanged, and nothing leaks.
TEST(RopeSplit, FailedAllocationLeavesTheTreeAndNoBlocks) {
  std::mt19937_64 rng(7);
  const std::string text = random_text(rng, 900, 26);
  d::edge t = make_tree(text, 1, rng);
  for (std::size_t pos : {1, 17, 450, 899}) {
    for (std::size_t k = 1;; ++k) {
      const long live = d::rope_live_blocks();
      d::rope_fail_after(k);
      try {
        auto [l, r] = d::split(t, pos);
        d::rope_fail_after(0);
        ASSERT_EQ(text_of(l) + text_of(r), text);
        t = d::join_piece(l, r, true);
        settle_and_check(t);
        break;
      } catch (const std::bad_alloc&) {
        d::rope_fail_after(0);
        ASSERT_EQ(text_of(t), text) << "pos " << pos << " k " << k;
        ASSERT_NO_THROW(d::check_tree(t));
        ASSERT_EQ(d::rope_live_blocks(), live) << "pos " << pos << " k " << k;
      }
    }
  }
  d::release(t.p);
}

}  // namespace
