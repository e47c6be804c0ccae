// fl::rope's strong guarantee: every edit run with each of its allocations
// failing in turn (FL_ROPE_FAIL_HOOK, built into fl_rope_small) leaves the
// rope, its copies and its arguments unchanged, and leaks nothing.
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
      {"flat_big",
       [] {
         // (Built by append: GCC 12 with the tests' precompiled header sees
         // string(300, 'x') + "tail" as a copy past a 32-byte object.)
         std::string s(300, 'x');
         s.append("tail");
         return fl::rope(s);
       }},
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
