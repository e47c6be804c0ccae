// Unit tests of fl::basic_string's representation and of the protocols it
// keeps with the rest of fl: the 24-byte layout and inline bytes, capacity
// against the allocator's block, geometric growth, the concatenation-expression
// protocol (concat_fwd.hpp), the buffer hand-over (string_access), the
// terminator on every fast path, and allocator-aware strings. The API itself
// is string_test.
#include <fl/string.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <array>
#include <cstddef>
#include <cstring>
#include <memory_resource>
#include <random>
#include <string>

namespace {

using fl::string;
using namespace std::string_literals;
using namespace std::string_view_literals;

// An allocator that records every block, checks that each is freed with the
// byte count it was allocated with, and lets a test ask how big the block
// behind a pointer really is (so capacity() can be checked against it).
using fl_test::alloc_log;
using fl_test::counting_allocator;
using counted_string = fl::basic_string<counting_allocator<char>>;

// Checks the invariants a user can observe, plus the block size behind a heap
// string of the counting allocator.
void expect_sane(const counted_string& s) {
  EXPECT_LE(s.size(), s.capacity());
  EXPECT_EQ(s.c_str()[s.size()], '\0');
  auto it = alloc_log::live.find(s.data());
  if (it != alloc_log::live.end()) {
    EXPECT_LE(s.capacity() + 1, it->second) << "capacity() claims more than the block holds";
    EXPECT_EQ(s.capacity() + 1, it->second) << "the whole block should be usable capacity";
  } else {
    EXPECT_EQ(s.capacity(), 23u);
  }
}

// A minimal concatenation expression for the protocol of concat_fwd.hpp:
// reads a string by reference (as the real expressions do) and a view.
struct test_expr {
  const fl::string* a;
  std::string_view b;
  std::size_t size() const noexcept { return a->size() + b.size(); }
  char* write(char* out) const noexcept {
    std::memcpy(out, a->data(), a->size());
    std::memcpy(out + a->size(), b.data(), b.size());
    return out + a->size() + b.size();
  }
};

}  // namespace

template <>
struct fl::detail::is_concat_expr<test_expr> : std::true_type {};

namespace {

// ---- layout ----

TEST(StringTest, LayoutIs24BytesStandardLayout) {
  static_assert(sizeof(fl::string) == 24);
  static_assert(std::is_standard_layout_v<fl::string>);
  static_assert(std::is_nothrow_move_constructible_v<fl::string>);
  static_assert(std::is_nothrow_move_assignable_v<fl::string>);
  static_assert(std::is_nothrow_swappable_v<fl::string>);
  static_assert(std::contiguous_iterator<fl::string::iterator>);
  static_assert(std::contiguous_iterator<fl::string::const_iterator>);
  static_assert(std::ranges::contiguous_range<fl::string>);
  static_assert(std::is_convertible_v<fl::string, std::string_view>);
  static_assert(
      std::is_convertible_v<std::string, fl::string>);  // implicit, so std::string code ports
  static_assert(
      std::is_convertible_v<fl::string, std::string>);  // a copy, where const std::string& is taken
  static_assert(
      !std::is_convertible_v<std::string_view, fl::string>);  // explicit, as in the standard
  static_assert(std::is_constructible_v<fl::string, std::string>);
  static_assert(!std::is_constructible_v<fl::string, std::nullptr_t>);
  static_assert(fl::string::npos == std::string_view::npos);
  static_assert(sizeof(fl::pmr::string) == 32);
}

TEST(StringTest, InlineBytesAreTheDocumentedLayout) {
  fl::string s("abc");
  const auto* b = reinterpret_cast<const unsigned char*>(&s);
  EXPECT_EQ(b[0], 'a');
  EXPECT_EQ(b[3], 0);
  EXPECT_EQ(b[23], 23 - 3);
  fl::string full(23, 'z');
  b = reinterpret_cast<const unsigned char*>(&full);
  EXPECT_EQ(b[22], 'z');
  EXPECT_EQ(b[23], 0);  // the length byte doubles as the terminator
  EXPECT_EQ(full.c_str()[23], '\0');
  EXPECT_EQ(full.capacity(), 23u);
  fl::string heap(24, 'h');
  b = reinterpret_cast<const unsigned char*>(&heap);
  EXPECT_NE(b[23] & 0x80, 0);
  EXPECT_GE(heap.capacity(), 24u);
}

TEST(StringTest, ShortStringsNeverAllocate) {
  alloc_log::allocations = 0;
  {
    counted_string a;
    counted_string b("12345678901234567890123");
    counted_string c(b);
    counted_string d(std::move(c));
    a = b;
    a += "";
    d.clear();
    d.append(23, 'x');
    for (int i = 0; i < 23; ++i) c.push_back('y');
    EXPECT_EQ(b.size(), 23u);
  }
  EXPECT_EQ(alloc_log::allocations, 0u);
  const auto before = fl::pool_stats();
  {
    fl::string s;
    for (int i = 0; i < 23; ++i) s.push_back('a');
    fl::string t = s;
    t.assign("short");
  }
  const auto after = fl::pool_stats();
  EXPECT_EQ(after.hits + after.misses, before.hits + before.misses);
}

TEST(StringTest, CapacityNeverExceedsTheBlock) {
  alloc_log::mismatched_frees = 0;
  {
    counted_string s;
    for (int i = 0; i < 5000; ++i) {
      s.push_back(static_cast<char>('a' + i % 26));
      expect_sane(s);
    }
    s.shrink_to_fit();
    expect_sane(s);
    s.reserve(9000);
    expect_sane(s);
    EXPECT_GE(s.capacity(), 9000u);
    s.resize(10);
    s.shrink_to_fit();
    expect_sane(s);
    EXPECT_EQ(s, "abcdefghij");
    counted_string t(100, 'q');
    expect_sane(t);
    t.append(t);
    expect_sane(t);
    t.insert(3, t.data(), 50);
    expect_sane(t);
    t.assign(1000, 'r');
    expect_sane(t);
  }
  EXPECT_EQ(alloc_log::mismatched_frees, 0u);
  EXPECT_TRUE(alloc_log::live.empty());
}

TEST(StringTest, PoolCapacityUsesWholeSizeClass) {
  fl::string s(100, 'a');
  EXPECT_EQ(s.capacity() + 1, fl::detail::pool_good_size(s.capacity() + 1));
  EXPECT_GE(s.capacity(), 100u);
  for (int i = 0; i < 3000; ++i) s.push_back('b');
  EXPECT_EQ(s.capacity() + 1, fl::detail::pool_good_size(s.capacity() + 1));
}

TEST(StringTest, GrowthIsGeometric) {
  fl::string s;
  std::size_t changes = 0, cap = s.capacity();
  for (int i = 0; i < 100000; ++i) {
    s.push_back('x');
    if (s.capacity() != cap) {
      EXPECT_GE(s.capacity(), cap + cap / 2);
      cap = s.capacity();
      ++changes;
    }
  }
  EXPECT_LT(changes, 20u);
}

// ---- concatenation protocol ----

TEST(StringTest, ConcatExpressionProtocol) {
  static_assert(fl::detail::concat_expr<test_expr>);
  fl::string s("abc");
  fl::string c = test_expr{&s, "def"};  // implicit constructor
  EXPECT_EQ(c, "abcdef");
  fl::string big(30, 'b');
  fl::string h = test_expr{&big, "!"};
  EXPECT_EQ(h, std::string(30, 'b') + "!");
  s = test_expr{&s, "x"};  // reads *this
  EXPECT_EQ(s, "abcx");
  big = test_expr{&big, "yz"};
  EXPECT_EQ(big, std::string(30, 'b') + "yz");
  s += test_expr{&s, "!"};  // s += s + "!", in place
  EXPECT_EQ(s, "abcxabcx!");
  s.append(test_expr{&s, "0123456789"});  // grows across the inline limit
  EXPECT_EQ(s, "abcxabcx!abcxabcx!0123456789");
  big += test_expr{&big, ""};
  EXPECT_EQ(big, std::string(32, 'b').replace(30, 2, "yz") + std::string(30, 'b') + "yz");
  counted_string::allocator_type a;
  (void)a;
  fl::pmr::string p(test_expr{&s, "?"}, std::pmr::polymorphic_allocator<char>());
  EXPECT_EQ(p, "abcxabcx!abcxabcx!0123456789?");
}

TEST(StringTest, ConcatExpressionAllocatesOnce) {
  fl::string s(100, 'x');
  s.shrink_to_fit();
  const auto before = fl::pool_stats();
  s += test_expr{&s, "tail"};
  const auto after = fl::pool_stats();
  EXPECT_LE((after.hits + after.misses) - (before.hits + before.misses), 1u);
  EXPECT_EQ(s, std::string(200, 'x') + "tail");
}

// ---- buffer hand-over ----

TEST(StringTest, StringAccessReleaseAndAdopt) {
  fl::string s(100, 'r');
  const char* p = s.data();
  fl::detail::heap_block b = fl::detail::string_access::release(s);
  EXPECT_EQ(b.data, p);
  EXPECT_EQ(b.size, 100u);
  EXPECT_GE(b.capacity, 100u);
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.capacity(), 23u);
  fl::string t = fl::detail::string_access::adopt(b);
  EXPECT_EQ(t.data(), p);
  EXPECT_EQ(t, std::string(100, 'r'));
  t.append(1000, 'x');  // a handed-over block grows like any other
  EXPECT_EQ(t.size(), 1100u);

  fl::string small("inline");
  b = fl::detail::string_access::release(small);
  EXPECT_EQ(b.data, nullptr);
  EXPECT_EQ(small, "inline");

  char* raw = static_cast<char*>(fl::detail::pool_allocate(8));
  std::memcpy(raw, "tiny", 4);
  fl::string tiny = fl::detail::string_access::adopt({raw, 4, 7});
  EXPECT_EQ(tiny, "tiny");
  EXPECT_EQ(tiny.capacity(), 7u);
  tiny += "-grown";
  EXPECT_EQ(tiny, "tiny-grown");
  EXPECT_TRUE(fl::detail::string_access::adopt({nullptr, 0, 0}).empty());
}

// push_back and append have one fast path per mode; a heap string may hold a
// block smaller than the inline capacity (adopt), so both paths must test the
// real capacity, and every step must leave the terminator in place.
TEST(StringTest, FastPathsKeepTerminatorInBothModes) {
  char* raw = static_cast<char*>(fl::detail::pool_allocate(4));
  fl::string h = fl::detail::string_access::adopt({raw, 0, 3});
  fl::string i;
  std::string want;
  for (int k = 0; k < 300; ++k) {
    const char c = static_cast<char>('a' + k % 26);
    want.push_back(c);
    h.push_back(c);
    i.push_back(c);
    ASSERT_EQ(std::string_view(h), want) << k;
    ASSERT_EQ(std::string_view(i), want) << k;
    ASSERT_EQ(h.c_str()[h.size()], '\0') << k;
    ASSERT_EQ(i.c_str()[i.size()], '\0') << k;
  }
  for (std::size_t n = 0; n <= 30; ++n) {
    fl::string a("0123456789", 10 - n % 10);
    std::string b(a.data(), a.size());
    const std::string piece(n, static_cast<char>('A' + n));
    for (int k = 0; k < 5; ++k) {
      a.append(piece.data(), piece.size());
      b.append(piece);
      ASSERT_EQ(std::string_view(a), b) << n << " " << k;
      ASSERT_EQ(a.c_str()[a.size()], '\0');
    }
  }
}

TEST(StringTest, CompareAndCopyAssignAcrossModesAndLengths) {
  for (std::size_t n : {0u, 1u, 15u, 16u, 22u, 23u, 24u, 31u, 32u, 33u, 63u, 64u, 65u, 200u}) {
    for (std::size_t m : {0u, 1u, 23u, 24u, 32u, 33u, 64u, 65u, 200u}) {
      const std::string sa(n, 'q'), sb(m, 'q');
      const fl::string a(sa), b(sb);
      EXPECT_EQ((a.compare(b) > 0) - (a.compare(b) < 0),
                (sa.compare(sb) > 0) - (sa.compare(sb) < 0))
          << n << " " << m;
      fl::string out(300, 'z');  // heap, big enough: reused
      out = a;
      EXPECT_EQ(std::string_view(out), sa);
      EXPECT_EQ(out.c_str()[n], '\0');
      fl::string shortout("x");
      shortout = b;
      EXPECT_EQ(std::string_view(shortout), sb);
    }
  }
  std::string x(64, 'a'), y = x;
  y[63] = 'b';
  EXPECT_LT(fl::string(x).compare(fl::string(y)), 0);
  y[63] = 'a';
  y[0] = 'B';
  EXPECT_GT(fl::string(x).compare(fl::string(y)), 0);
}

TEST(StringTest, CompareOfHeapStringsOrdersBytesAsUnsigned) {
  // Two heap strings are ordered by their first 8 bytes as a big-endian word
  // when those differ: every byte value (0x80..0xff above 0x7f, as memcmp),
  // differences at each of the 8 positions and past them, short heap strings.
  std::mt19937_64 rng(fl_test::test_seed());
  const auto sign = [](int v) { return (v > 0) - (v < 0); };
  for (int i = 0; i < 20'000; ++i) {
    std::string sa(rng() % 20, '\0'), sb;
    for (char& c : sa) c = static_cast<char>(rng() % 4 == 0 ? rng() : 'a' + rng() % 3);
    sb = sa.substr(0, rng() % (sa.size() + 1));
    sb.resize(rng() % 20, 'a');
    if (!sb.empty() && rng() % 2) sb[rng() % sb.size()] = static_cast<char>(rng());
    fl::string a(sa), b(sb);
    a.reserve(40);  // heap mode, whatever the length
    b.reserve(40);
    ASSERT_EQ(sign(a.compare(b)), sign(sa.compare(sb)))
        << "seed " << fl_test::test_seed() << " i " << i;
    ASSERT_EQ(sign(b.compare(a)), sign(sb.compare(sa)));
  }
}

// ---- allocators ----

TEST(StringTest, PmrStringUsesItsResource) {
  std::array<std::byte, 4096> buf;
  std::pmr::monotonic_buffer_resource mr(buf.data(), buf.size(), std::pmr::null_memory_resource());
  fl::pmr::string s("a pmr string longer than twenty three", &mr);
  EXPECT_EQ(s.get_allocator().resource(), &mr);
  const auto* d = reinterpret_cast<const std::byte*>(s.data());
  EXPECT_TRUE(d >= buf.data() && d < buf.data() + buf.size());
  fl::pmr::string copy(s);  // select_on_container_copy_construction: default resource
  EXPECT_EQ(copy.get_allocator().resource(), std::pmr::get_default_resource());
  EXPECT_EQ(copy, s);
}

}  // namespace
