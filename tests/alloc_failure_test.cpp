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

#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

namespace fl::detail {
// Defined by src/pool.cpp in this test's build (FL_POOL_FAIL_HOOK).
void pool_fail_after(std::size_t n) noexcept;
long pool_live_blocks() noexcept;
}  // namespace fl::detail

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
