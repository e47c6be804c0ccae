// tests/alloc_failure_test.cpp: every allocation of every mutating operation
// of fl::string, fl::immutable_string, fl::string_builder and the C API is
// made to fail in turn (FL_POOL_FAIL_HOOK: this program's own copy of the
// pool fails the k-th system allocation, for k = 1, 2, ... until the
// operation completes), and after each failure:
//   - the object holds exactly what it held before (the strong guarantee, as
//     std::string gives it; the C API: "a failed call leaves its output
//     unchanged") and still works;
//   - no block leaked: the pool's live system blocks are back to their count
//     before the object was made, once it is destroyed.
// Then the size arithmetic near max_size() / SIZE_MAX: std::length_error (C:
// FL_ERANGE or FL_ENOMEM), never a short allocation or a write past a block.
#include <fl/builder.hpp>
#include <fl/concat.hpp>
#include <fl/fl.h>
#include <fl/immutable_string.hpp>
#include <fl/string.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory_resource>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
// Defined by src/pool/pool.cpp in this test's build (FL_POOL_FAIL_HOOK).
void pool_fail_after(std::size_t n) noexcept;
long pool_live_blocks() noexcept;
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl

namespace {

using fl::detail::pool_fail_after;
using fl::detail::pool_live_blocks;

// Failure points injected by the whole program, for docs/reliability.md.
std::size_t g_points = 0;

// Runs `op` on a fresh object from `make` with the k-th allocation failing,
// for every k until op succeeds; `text` reads the object's observable value.
// Returns the number of allocations op made.
template <class T>
std::size_t every_failure(const char* what, const std::function<T()>& make,
                          const std::function<void(T&)>& op,
                          const std::function<std::string(const T&)>& text, bool strong = true) {
  for (std::size_t k = 1; k < 1000; ++k) {
    const long live0 = pool_live_blocks();
    bool done = false;
    {
      T obj = make();
      const std::string before = text(obj);
      pool_fail_after(k);
      try {
        op(obj);
        done = true;
      } catch (const std::bad_alloc&) {
        ++g_points;
        if (strong) {
          EXPECT_EQ(text(obj), before) << what << ": changed by a failure at allocation " << k;
        }
      }
      pool_fail_after(0);
      // The object still works after a failure.
      if (!done) op(obj);
    }
    EXPECT_EQ(pool_live_blocks(), live0) << what << ": leak after a failure at allocation " << k;
    if (done) return k - 1;
  }
  ADD_FAILURE() << what << ": never completed";
  return 0;
}

std::string str_text(const fl::string& s) {
  EXPECT_EQ(s.c_str()[s.size()], '\0');
  return std::string(s.data(), s.size());
}

const std::string long_a(100, 'a');
const std::string long_b(5000, 'b');

void string_case(const char* what, const std::string& init,
                 const std::function<void(fl::string&)>& op, std::size_t min_allocs = 0) {
  const std::size_t n = every_failure<fl::string>(
      what, [&] { return fl::string(init); }, op, str_text);
  EXPECT_GE(n, min_allocs) << what;
}

TEST(AllocFailure, StringMutatorsAreStrong) {
  string_case(
      "append inline->heap", "short", [](fl::string& s) { s.append(long_a); }, 1);
  string_case(
      "append heap growth", long_a, [](fl::string& s) { s.append(long_b); }, 1);
  string_case(
      "append self", long_a, [](fl::string& s) { s.append(s); }, 1);
  string_case(
      "append count", "x", [](fl::string& s) { s.append(300, 'c'); }, 1);
  string_case(
      "insert", long_a, [](fl::string& s) { s.insert(3, long_b); }, 1);
  string_case(
      "insert self", long_a, [](fl::string& s) { s.insert(3, s.c_str()); }, 1);
  string_case(
      "replace", long_a, [](fl::string& s) { s.replace(1, 5, long_b); }, 1);
  string_case(
      "assign", "short", [](fl::string& s) { s.assign(long_b); }, 1);
  string_case(
      "operator= copy", "short", [](fl::string& s) { s = fl::string(long_b); }, 1);
  string_case(
      "resize", "abc", [](fl::string& s) { s.resize(1000, 'r'); }, 1);
  string_case(
      "reserve", "abc", [](fl::string& s) { s.reserve(4000); }, 1);
  string_case("shrink_to_fit", long_b, [](fl::string& s) {
    s.resize(50);
    s.shrink_to_fit();
  });
  // Many calls: each one is strong, so the loop checks after each failure
  // that the string holds the pushes before it, and passes the failure on.
  string_case("push_back loop", "", [](fl::string& s) {
    for (int i = 0; i < 200; ++i) {
      const std::string before(s);
      try {
        s.push_back('p');
      } catch (const std::bad_alloc&) {
        EXPECT_EQ(std::string(s), before) << "push_back " << i;
        s.clear();  // the caller compares with the text before the loop
        throw;
      }
    }
  });
  string_case(
      "operator+", long_a, [](fl::string& s) { s = s + "-" + fl::string(long_a); }, 1);
  string_case(
      "concat", "x", [](fl::string& s) { s = fl::concat(s, long_a, 42, 3.5); }, 1);
  string_case(
      "append concat", long_a, [](fl::string& s) { fl::append(s, long_b, 7, 'c'); }, 1);
}

TEST(AllocFailure, ImmutableStringConstructionLeaksNothing) {
  using im = fl::immutable_string;
  auto text = [](const im& s) { return std::string(s.view()); };
  EXPECT_GE(every_failure<im>(
                "construct long", [] { return im(); }, [](im& s) { s = im(long_b); }, text),
            1u);
  every_failure<im>(
      "copy shares", [] { return im(long_b); }, [](im& s) { s = im(s); }, text);
  every_failure<im>(
      "from fl::string", [] { return im("x"); }, [](im& s) { s = im(fl::string(long_a)); }, text);
}

TEST(AllocFailure, BuilderAppendAndBuildAreStrong) {
  using sb = fl::string_builder;
  auto text = [](const sb& b) { return std::string(b.view()); };
  auto make = [] {
    sb b;
    b.append("start ", 1);
    return b;
  };
  EXPECT_GE(every_failure<sb>(
                "append", make, [](sb& b) { b.append(long_b, ' ', 12345, 0.25); }, text),
            1u);
  // Many calls: each one is strong (checked here); the sequence is not.
  every_failure<sb>(
      "append many", make,
      [](sb& b) {
        for (int i = 0; i < 100; ++i) {
          const std::string before(b.view());
          try {
            b.append(long_a);
          } catch (const std::bad_alloc&) {
            EXPECT_EQ(b.view(), before) << "append " << i;
            throw;
          }
        }
      },
      text, /*strong=*/false);
  every_failure<sb>(
      "reserve", make, [](sb& b) { b.reserve(100000); }, text);
  every_failure<sb>(
      "build", make,
      [](sb& b) {
        b.append(long_a);
        const fl::string s = std::move(b).build();
        b.append(std::string_view(s).substr(0, 3));  // a built builder is empty and usable
      },
      text, /*strong=*/false);
}

// The C API: a failed call returns FL_ENOMEM and leaves its output unchanged.
struct c_str {
  fl_str s = FL_STR_INIT;
  explicit c_str(const std::string& t) { fl_str_from_n(&s, t.data(), t.size()); }
  c_str(const c_str&) = delete;
  c_str(c_str&& o) noexcept : s(o.s) { fl_str_init(&o.s); }
  ~c_str() { fl_str_free(&s); }
};

void c_case(const char* what, const std::string& init,
            const std::function<fl_status(fl_str*)>& call, std::size_t min_allocs = 1) {
  auto text = [](const c_str& c) { return std::string(fl_str_cstr(&c.s), fl_str_len(&c.s)); };
  const std::size_t n = every_failure<c_str>(
      what, [&] { return c_str(init); },
      [&](c_str& c) {
        const fl_status st = call(&c.s);
        if (st == FL_ENOMEM) throw std::bad_alloc();  // counted as a failure point
        ASSERT_EQ(st, FL_OK) << what;
      },
      text);
  EXPECT_GE(n, min_allocs) << what;
}

TEST(AllocFailure, CApiFailsWithEnomemAndKeepsItsOutput) {
  c_case("fl_str_append", "short", [](fl_str* s) { return fl_str_append(s, long_a.c_str()); });
  c_case("fl_str_append_n", long_a,
         [](fl_str* s) { return fl_str_append_n(s, long_b.data(), long_b.size()); });
  c_case("fl_str_appendf", "x",
         [](fl_str* s) { return fl_str_appendf(s, "%s-%d-%0300d", long_a.c_str(), 7, 1); });
  c_case("fl_str_reserve", "abc", [](fl_str* s) { return fl_str_reserve(s, 10000); });
  c_case("fl_str_from", "old text", [](fl_str* s) { return fl_str_from(s, long_b.c_str()); });
  // substr writes into a separate output: that output must stay as it was.
  c_case(
      "fl_str_substr", "previous output",
      [](fl_str* out) {
        fl_str src = FL_STR_INIT;
        pool_fail_after(0);
        if (fl_str_from_n(&src, long_b.data(), long_b.size()) != FL_OK) return FL_ENOMEM;
        const fl_status st = fl_str_substr(&src, 10, 3000, out);
        fl_str_free(&src);
        return st;
      },
      0);
}

// ---- stateful allocators: assignment and swap ----
//
// The pool above is stateless; here the allocator has a state (an id), so
// assignment and swap must decide whose allocator the target keeps and where
// its block comes from. Each case runs the same operation on fl::basic_string
// and std::basic_string over the same allocator, failing the k-th allocation
// for k = 1, 2, ... until it completes. After each failure the target holds
// its old text and its old allocator (std::string's strong guarantee), the
// source is untouched, and no block is lost; every block is freed through an
// allocator equal to the one that made it.
//
// libstdc++ 12 keeps the text but not always the allocator, so its run checks
// the text only: copy assignment into a short (inline) target with a
// propagating allocator adopts the new allocator before it allocates, and a
// move assignment that must copy (POCMA false, unequal allocators) goes
// through copy assignment, adopting the source's allocator when POCCA is true.
// fl keeps the allocator as the standard's traits say: copy assignment
// adopts it only on success, move assignment only when POCMA is true.

// Allocations by every stateful_alloc and failing_resource, in this thread.
struct stateful_log {
  std::size_t fail_at = 0;  // the allocation to fail (1-based); 0: none
  std::size_t count = 0;
  long live = 0;
  long foreign_frees = 0;  // blocks freed through an allocator that did not make them
};
stateful_log g_stateful;

void* stateful_allocate(std::size_t bytes, int id) {
  if (++g_stateful.count == g_stateful.fail_at) throw std::bad_alloc();
  // The block's first 16 bytes record its maker, so a free can check it.
  auto* block = static_cast<unsigned char*>(::operator new(bytes + 16));
  std::memcpy(block, &id, sizeof id);
  ++g_stateful.live;
  return block + 16;
}
void stateful_deallocate(void* p, int id) noexcept {
  unsigned char* block = static_cast<unsigned char*>(p) - 16;
  int maker;
  std::memcpy(&maker, block, sizeof maker);
  if (maker != id) ++g_stateful.foreign_frees;
  --g_stateful.live;
  ::operator delete(block);
}

// Equal when the ids are equal; the three propagation traits are parameters.
template <class T, class CopyP, class MoveP, class SwapP>
struct stateful_alloc {
  using value_type = T;
  using propagate_on_container_copy_assignment = CopyP;
  using propagate_on_container_move_assignment = MoveP;
  using propagate_on_container_swap = SwapP;
  using is_always_equal = std::false_type;
  int id = 0;
  stateful_alloc() = default;
  explicit stateful_alloc(int i) noexcept : id(i) {}
  template <class U>
  stateful_alloc(const stateful_alloc<U, CopyP, MoveP, SwapP>& o) noexcept : id(o.id) {}
  T* allocate(std::size_t n) { return static_cast<T*>(stateful_allocate(n * sizeof(T), id)); }
  void deallocate(T* p, std::size_t) noexcept { stateful_deallocate(p, id); }
  friend bool operator==(const stateful_alloc& a, const stateful_alloc& b) noexcept {
    return a.id == b.id;
  }
};

// A memory resource with the same failure injection, for the pmr strings.
class failing_resource : public std::pmr::memory_resource {
 public:
  explicit failing_resource(int id) : id_(id) {}

 private:
  void* do_allocate(std::size_t bytes, std::size_t) override {
    return stateful_allocate(bytes, id_);
  }
  void do_deallocate(void* p, std::size_t, std::size_t) override { stateful_deallocate(p, id_); }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
    return this == &o;
  }
  int id_;
};

// The allocator's identity, as the checks compare it.
template <class T, class C, class M, class S>
int alloc_id(const stateful_alloc<T, C, M, S>& a) {
  return a.id;
}
const void* alloc_id(const std::pmr::polymorphic_allocator<char>& a) { return a.resource(); }

template <class Str>
std::string text_of(const Str& s) {
  EXPECT_EQ(s.c_str()[s.size()], '\0');
  return std::string(s.data(), s.size());
}

// Runs op(target, source) on fresh strings, failing each allocation in turn;
// returns the number of allocations op made when it completed.
template <class Str>
std::size_t every_stateful_failure(const std::string& what,
                                   const std::function<Str()>& make_target,
                                   const std::function<Str()>& make_source,
                                   const std::function<void(Str&, Str&)>& op,
                                   bool check_allocator = true) {
  for (std::size_t k = 1; k < 100; ++k) {
    bool done = false;
    {
      Str target = make_target();
      Str source = make_source();
      const std::string target_before = text_of(target), source_before = text_of(source);
      const auto alloc_before = alloc_id(target.get_allocator());
      g_stateful.count = 0;
      g_stateful.fail_at = k;
      try {
        op(target, source);
        done = true;
      } catch (const std::bad_alloc&) {
        ++g_points;
        EXPECT_EQ(text_of(target), target_before) << what << ": failure at allocation " << k;
        if (check_allocator) {
          EXPECT_EQ(alloc_id(target.get_allocator()), alloc_before)
              << what << ": the allocator changed by a failure at allocation " << k;
        }
        EXPECT_EQ(text_of(source), source_before) << what << ": source, allocation " << k;
      }
      g_stateful.fail_at = 0;
      if (!done) op(target, source);  // it still works
    }
    EXPECT_EQ(g_stateful.live, 0) << what << ": leak after a failure at allocation " << k;
    EXPECT_EQ(g_stateful.foreign_frees, 0) << what << ": freed through another allocator";
    g_stateful.live = 0;
    g_stateful.foreign_frees = 0;
    if (done) return k - 1;
  }
  ADD_FAILURE() << what << ": never completed";
  return 0;
}

// Texts on both sides of the inline limit (23 chars) and of each other's size.
const std::string short_text = "short";
const std::string mid_text(40, 'm');

// Every assignment path between two strings over allocators 1 and `source_id`,
// for every pair of inline and heap texts, on the string type Str. `check`
// sees the completed result.
template <class Str, class Alloc>
void assignment_cases(const std::string& what, const Alloc& target_alloc, const Alloc& source_alloc,
                      const std::function<void(Str&, Str&)>& op,
                      const std::function<void(const Str&, const std::string&)>& check,
                      std::size_t* most_allocs = nullptr, bool check_allocator = true) {
  for (const std::string* t : {&short_text, &mid_text, &long_b}) {
    for (const std::string* s : {&short_text, &mid_text, &long_a}) {
      const std::string name =
          what + " (target " + std::to_string(t->size()) + ", source " + std::to_string(s->size()) + ")";
      const std::size_t n = every_stateful_failure<Str>(
          name, [&] { return Str(t->data(), t->size(), target_alloc); },
          [&] { return Str(s->data(), s->size(), source_alloc); },
          [&](Str& target, Str& source) {
            op(target, source);
            check(target, *s);
          },
          check_allocator);
      if (most_allocs) *most_allocs = std::max(*most_allocs, n);
    }
  }
}

using std::false_type;
using std::true_type;

// Copy assignment, move assignment and swap for one choice of propagation
// traits, run on both string types; `unequal` picks allocators 1 and 2 (else 1
// and 1). Swap with unequal allocators that do not propagate is undefined for
// std::string, so it is run only when they propagate or are equal.
template <class C, class M, class S>
void propagation_cases(const char* traits, bool unequal) {
  using alloc = stateful_alloc<char, C, M, S>;
  using fl_str = fl::basic_string<alloc>;
  using std_str = std::basic_string<char, std::char_traits<char>, alloc>;
  const alloc a1(1), a2(unequal ? 2 : 1);
  const std::string tag = std::string(traits) + (unequal ? ", unequal" : ", equal");
  auto run = [&]<class Str>(const char* lib, Str*, bool strict) {
    const std::string w = std::string(lib) + " [" + tag + "] ";
    std::size_t copy_allocs = 0;
    assignment_cases<Str, alloc>(
        w + "copy assignment", a1, a2, [](Str& t, Str& s) { t = s; },
        [&](const Str& t, const std::string& want) {
          EXPECT_EQ(text_of(t), want);
          EXPECT_EQ(t.get_allocator().id, C::value ? a2.id : a1.id);
        },
        &copy_allocs, strict);
    EXPECT_GE(copy_allocs, 1u) << w << "copy assignment never allocated";
    assignment_cases<Str, alloc>(
        w + "move assignment", a1, a2, [](Str& t, Str& s) { t = std::move(s); },
        [&](const Str& t, const std::string& want) {
          EXPECT_EQ(text_of(t), want);
          if (strict) {
            EXPECT_EQ(t.get_allocator().id, M::value ? a2.id : a1.id);
          }
        },
        nullptr, strict);
    if (S::value || !unequal) {
      assignment_cases<Str, alloc>(
          w + "swap", a1, a2,
          [](Str& t, Str& s) {
            const std::size_t before = g_stateful.count;
            t.swap(s);
            EXPECT_EQ(g_stateful.count, before) << "swap allocated";
          },
          [&](const Str& t, const std::string& want) {
            EXPECT_EQ(text_of(t), want);
            EXPECT_EQ(t.get_allocator().id, S::value ? a2.id : a1.id);
          });
    }
  };
  run("fl", static_cast<fl_str*>(nullptr), true);
  run("std", static_cast<std_str*>(nullptr), false);
}

TEST(AllocFailure, CopyAssignmentWithPropagatingAllocatorIsStrong) {
  propagation_cases<true_type, false_type, false_type>("POCCA", true);
  propagation_cases<true_type, false_type, false_type>("POCCA", false);
}

TEST(AllocFailure, MoveAssignmentWithAllocatorsThatStayIsStrong) {
  propagation_cases<false_type, false_type, false_type>("no propagation", true);
  propagation_cases<false_type, false_type, false_type>("no propagation", false);
}

TEST(AllocFailure, AssignmentAndSwapWithAllocatorsThatPropagate) {
  propagation_cases<false_type, true_type, false_type>("POCMA", true);
  propagation_cases<false_type, false_type, true_type>("POCS", true);
  propagation_cases<true_type, true_type, true_type>("all propagate", true);
  propagation_cases<true_type, true_type, true_type>("all propagate", false);
}

// The pmr strings: polymorphic_allocator never propagates, so copy assignment
// allocates from the target's resource and move assignment between unequal
// resources copies; swap is run between strings on one resource.
TEST(AllocFailure, PmrAssignmentIsStrong) {
  failing_resource r1(1), r2(2);
  auto run = [&]<class Str>(const char* lib, Str*) {
    using alloc = std::pmr::polymorphic_allocator<char>;
    const alloc a1(&r1), a2(&r2);
    const std::string w = std::string(lib) + " pmr ";
    auto on = [](const void* r) {
      return [r](const Str& t, const std::string& want) {
        EXPECT_EQ(text_of(t), want);
        EXPECT_EQ(t.get_allocator().resource(), r);
      };
    };
    assignment_cases<Str, alloc>(
        w + "copy assignment", a1, a2, [](Str& t, Str& s) { t = s; }, on(&r1));
    assignment_cases<Str, alloc>(
        w + "move assignment, unequal", a1, a2, [](Str& t, Str& s) { t = std::move(s); }, on(&r1));
    assignment_cases<Str, alloc>(
        w + "move assignment, equal", a1, a1, [](Str& t, Str& s) { t = std::move(s); }, on(&r1));
    assignment_cases<Str, alloc>(
        w + "swap, equal", a1, a1, [](Str& t, Str& s) { t.swap(s); }, on(&r1));
  };
  run("fl", static_cast<fl::pmr::string*>(nullptr));
  run("std", static_cast<std::pmr::string*>(nullptr));
}

// Every other allocating member under a stateful allocator: strong.
TEST(AllocFailure, MutatorsUnderStatefulAllocatorAreStrong) {
  using alloc = stateful_alloc<char, true_type, true_type, true_type>;
  using str = fl::basic_string<alloc>;
  const alloc a1(1);
  using op_t = std::function<void(str&)>;
  const std::pair<const char*, op_t> ops[] = {
      {"append", [](str& s) { s.append(long_a); }},
      {"append self", [](str& s) { s.append(s); }},
      {"operator+=", [](str& s) { s += long_b; }},
      {"insert", [](str& s) { s.insert(2, long_a); }},
      {"replace", [](str& s) { s.replace(1, 3, long_b); }},
      {"assign", [](str& s) { s.assign(long_b); }},
      {"assign count", [](str& s) { s.assign(300, 'x'); }},
      {"assign range", [](str& s) { s.assign(long_a.begin(), long_a.end()); }},
      {"resize", [](str& s) { s.resize(500, 'r'); }},
      {"reserve", [](str& s) { s.reserve(3000); }},
      {"push_back", [](str& s) { s.push_back('p'); }},
      {"operator+", [](str& s) { s = s + "-" + s; }},
      {"copy with allocator", [](str& s) { s = str(s, s.get_allocator()); }},
  };
  for (const std::string* t : {&short_text, &mid_text, &long_b}) {
    for (const auto& [name, op] : ops) {
      every_stateful_failure<str>(
          std::string(name) + " on " + std::to_string(t->size()) + " chars",
          [&] { return str(t->data(), t->size(), a1); }, [&] { return str(a1); },
          [&](str& s, str&) { op(s); });
    }
  }
}

// ---- size arithmetic at the edges ----

// Sizes the compiler cannot see: with constants it would warn (rightly, for
// code that never runs) about the copies past the checks.
std::size_t opaque(std::size_t v) {
  volatile std::size_t x = v;
  return x;
}

TEST(SizeArithmetic, StringLengthsPastMaxSizeThrowLengthError) {
  const fl::string::size_type max = opaque(fl::string().max_size());
  const fl::string::size_type huge = opaque(std::numeric_limits<std::size_t>::max());
  fl::string s = "abc";
  EXPECT_THROW(s.reserve(max + 1), std::length_error);
  EXPECT_THROW(s.reserve(huge), std::length_error);
  EXPECT_THROW(s.resize(max + 1), std::length_error);
  EXPECT_THROW(s.resize(huge, 'x'), std::length_error);
  EXPECT_THROW(s.append(max, 'x'), std::length_error);  // 3 + max overflows max
  EXPECT_THROW(s.append(huge, 'x'), std::length_error);
  EXPECT_THROW(s.append(huge - 1, 'x'), std::length_error);
  EXPECT_THROW(s.insert(1, max - 2, 'x'), std::length_error);
  EXPECT_THROW(s.replace(0, 1, huge, 'x'), std::length_error);
  EXPECT_THROW(fl::string(max + 1, 'x'), std::length_error);
  EXPECT_THROW(fl::string(huge, 'x'), std::length_error);
  EXPECT_EQ(s, "abc");  // every failure left it as it was
  // A view that claims more than max_size(): refused before a byte is read.
  const char* p = s.data();
  EXPECT_THROW(s.append(p, max), std::length_error);
  EXPECT_THROW(s.append(std::string_view(p, huge / 2 + 7)), std::length_error);
  EXPECT_THROW(fl::string(std::string_view(p, max + 1)), std::length_error);
  EXPECT_EQ(s, "abc");
}

TEST(SizeArithmetic, BuilderAndImmutablePastMaxSize) {
  fl::string_builder b;
  b.append("abc");
  EXPECT_THROW(b.reserve(opaque(std::numeric_limits<std::size_t>::max())), std::length_error);
  EXPECT_THROW(b.reserve(opaque(b.max_size() + 1)), std::length_error);
  EXPECT_EQ(b.view(), "abc");
  const char* p = "x";
  EXPECT_THROW(fl::immutable_string(p, opaque(fl::immutable_string::max_size() + 1)),
               std::length_error);
  EXPECT_THROW(fl::immutable_string(p, opaque(std::numeric_limits<std::size_t>::max())),
               std::length_error);
}

TEST(SizeArithmetic, CApiRefusesImpossibleLengths) {
  fl_str s = FL_STR_INIT;
  ASSERT_EQ(fl_str_from(&s, "abc"), FL_OK);
  const std::size_t huge = opaque(std::numeric_limits<std::size_t>::max());
  auto refused = [](fl_status st) { return st == FL_ERANGE || st == FL_ENOMEM; };
  EXPECT_TRUE(refused(fl_str_reserve(&s, huge)));
  EXPECT_TRUE(refused(fl_str_reserve(&s, huge / 2)));
  EXPECT_TRUE(refused(fl_str_append_n(&s, "x", huge)));
  EXPECT_TRUE(refused(fl_str_append_n(&s, "x", huge - 2)));
  EXPECT_TRUE(refused(fl_str_from_n(&s, "x", huge)));
  EXPECT_EQ(std::string(fl_str_cstr(&s), fl_str_len(&s)), "abc");
  fl_str_free(&s);
}

// Prints the figure docs/reliability.md quotes.
TEST(AllocFailure, ZzReport) {
  std::printf("alloc_failure_test: %zu failure points injected\n", g_points);
  EXPECT_GT(g_points, 0u);
}

}  // namespace
