// Tests for detail::string_core, the one owner of the 24-byte encoding, the
// growth policy, max_size and pool-block hand-over: its constants equal the C
// header's, bytes written by C code alone read as an fl::string (the rule in
// fl.h), and every container grows and limits itself by the same functions.
#include <fl/builder.hpp>
#include <fl/detail/string_access.hpp>
#include <fl/detail/string_core.hpp>
#include <fl/detail/string_layout.h>
#include <fl/fl.h>
#include <fl/string.hpp>
#include <fl/string_stream.hpp>

#include <gtest/gtest.h>
#include "string_core_c_side.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <memory_resource>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

namespace {

using fl::detail::string_core;

// The same constants on both sides, at compile time.
static_assert(string_core::bytes_total == FL_STR_BYTES && sizeof(string_core) == FL_STR_BYTES);
static_assert(sizeof(fl::string) == FL_STR_BYTES && sizeof(fl_str) == FL_STR_BYTES);
static_assert(string_core::inline_capacity == FL_STR_INLINE_CAPACITY);
static_assert(string_core::tag_index == FL_STR_TAG_BYTE);
static_assert(string_core::tag_heap == FL_STR_TAG_HEAP);
static_assert(string_core::heap_flag == FL_STR_HEAP_FLAG);
static_assert(string_core::empty_cap_word == FL_STR_EMPTY_CAP_WORD);
static_assert(offsetof(string_core, ptr) == FL_STR_WORD_PTR * sizeof(std::size_t));
static_assert(offsetof(string_core, size) == FL_STR_WORD_SIZE * sizeof(std::size_t));
static_assert(offsetof(string_core, cap) == FL_STR_WORD_CAP * sizeof(std::size_t));
static_assert(std::is_standard_layout_v<fl::string> && std::is_trivially_copyable_v<fl_str>);

const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz";

std::string_view c_view(const fl_str* s) { return {c_side_cstr(s), c_side_len(s)}; }

}  // namespace

TEST(StringCoreTest, EmptyStringIsTheInitializerOnBothSides) {
  const fl_str c = FL_STR_INIT;
  const fl::string cxx;
  EXPECT_EQ(std::memcmp(&c, &cxx, FL_STR_BYTES), 0);
  string_core core;
  core.set_empty();
  EXPECT_EQ(std::memcmp(&core, &c, FL_STR_BYTES), 0);
  EXPECT_EQ(core.tag(), FL_STR_INLINE_CAPACITY);
  EXPECT_FALSE(core.is_heap());
}

TEST(StringCoreTest, BytesWrittenByCAloneReadAsString) {
  for (std::size_t n = 0; n <= FL_STR_INLINE_CAPACITY; ++n) {
    fl_str s;
    c_side_write_inline(&s, text, n);  // no library call, no C++ write
    const fl_str before = s;
    const fl::string& cv = fl::as_string(static_cast<const fl_str*>(&s));
    EXPECT_EQ(std::string_view(cv), std::string_view(text, n)) << n;
    EXPECT_EQ(cv.capacity(), FL_STR_INLINE_CAPACITY);
    EXPECT_EQ(std::memcmp(&before, &s, FL_STR_BYTES), 0) << "a view changes no byte";
    // An edit through the view is seen by the C functions, and back.
    fl::string& v = fl::as_string(&s);
    v += "+";
    EXPECT_EQ(c_view(&s), std::string(text, n) + "+");
    ASSERT_TRUE(c_side_append(&s, "-", 1));
    EXPECT_EQ(std::string_view(fl::as_string(&s)), std::string(text, n) + "+-");
    c_side_free(&s);
    EXPECT_TRUE(fl::as_string(&s).empty());
  }
}

TEST(StringCoreTest, HeapStringsMadeByCInlineCodeMoveToCxx) {
  for (std::size_t n : {24u, 30u, 36u}) {
    fl_str s;
    ASSERT_TRUE(c_side_from_n(&s, text, n));  // fl.h's inline path, compiled as C
    EXPECT_NE(c_side_tag(&s) & FL_STR_TAG_HEAP, 0u);
    const char* block = c_side_cstr(&s);
    fl::string owned = std::move(fl::as_string(&s));  // takes the block
    EXPECT_EQ(owned.data(), block);
    EXPECT_EQ(std::string_view(owned), std::string_view(text, n));
    EXPECT_EQ(c_side_len(&s), 0u);
    EXPECT_EQ(c_side_tag(&s), FL_STR_INLINE_CAPACITY);
    owned.append(1000, 'x');  // a block from C grows like any other
    EXPECT_EQ(owned.size(), n + 1000);
    c_side_free(&s);
  }
}

TEST(StringCoreTest, LoadAndStoreCopyTheRepresentation) {
  const fl::string heap(100, 'h');
  const string_core c = string_core::load(&heap);
  EXPECT_TRUE(c.is_heap());
  EXPECT_EQ(c.ptr, heap.data());
  EXPECT_EQ(c.size_any(), 100u);
  EXPECT_EQ(c.capacity_any(), heap.capacity());
  fl_str raw;
  c.store(&raw);
  EXPECT_EQ(std::memcmp(&raw, &heap, FL_STR_BYTES), 0);
}

TEST(StringCoreTest, PushBackFitsFillsBothModesThenRefuses) {
  string_core c;
  c.set_empty();
  std::string want;
  for (std::size_t i = 0; i < FL_STR_INLINE_CAPACITY; ++i) {
    ASSERT_TRUE(c.push_back_fits(text[i]));
    want += text[i];
    ASSERT_EQ(std::string_view(c.data_any(), c.size_any()), want);
    ASSERT_EQ(c.data_any()[c.size_any()], '\0');
  }
  EXPECT_FALSE(c.push_back_fits('!'));  // full: the caller grows
  EXPECT_EQ(c.size_any(), FL_STR_INLINE_CAPACITY);
  char block[8];
  c.set_heap(block, 0, sizeof block - 1);
  block[0] = '\0';
  for (std::size_t i = 0; i + 1 < sizeof block; ++i) ASSERT_TRUE(c.push_back_fits('q'));
  EXPECT_FALSE(c.push_back_fits('!'));
  EXPECT_EQ(std::string_view(block, 7), "qqqqqqq");
  EXPECT_EQ(block[7], '\0');
}

TEST(StringCoreTest, AdoptAndReleaseHandBlocksOver) {
  string_core c;
  c.set_empty();
  EXPECT_EQ(c.release().data, nullptr);  // inline: nothing to hand over
  auto* raw = static_cast<char*>(fl::detail::pool_allocate(16));
  std::memcpy(raw, "adopted", 7);
  c.adopt({raw, 7, 15});
  EXPECT_TRUE(c.is_heap());
  EXPECT_EQ(std::string_view(c.data_any(), c.size_any()), "adopted");
  EXPECT_EQ(raw[7], '\0');
  const fl::detail::heap_block b = c.release();
  EXPECT_EQ(b.data, raw);
  EXPECT_EQ(b.size, 7u);
  EXPECT_EQ(b.capacity, 15u);
  EXPECT_FALSE(c.is_heap());
  fl::string s = fl::detail::string_access::adopt(b);  // the same decision, through the gate
  EXPECT_EQ(s, "adopted");
  EXPECT_EQ(s.data(), raw);
}

TEST(StringCoreTest, MaxSizeHasOneDefinition) {
  EXPECT_EQ(fl::string().max_size(), fl::detail::pool_string_max_size);
  EXPECT_EQ(fl::string_builder::max_size(), fl::detail::pool_string_max_size);
  const fl::pmr::string p;
  EXPECT_EQ(
      p.max_size(),
      fl::detail::string_max_size(
          std::allocator_traits<fl::pmr::string::allocator_type>::max_size(p.get_allocator())));
  EXPECT_LT(fl::detail::pool_string_max_size, FL_STR_HEAP_FLAG);  // the flag never collides
}

// set_inline_copy composes the inline words from loads that stay inside the
// source: every length, from a source that ends where its allocation ends (so
// ASan reports any read past it), gives the same bytes as an inline string
// written char by char, zeros after the text and the tag last.
TEST(StringCoreTest, InlineCopyOfEveryLengthReadsOnlyItsSource) {
  for (std::size_t n = 0; n <= string_core::inline_capacity; ++n) {
    const auto src = std::make_unique<char[]>(n == 0 ? 1 : n);  // exactly the text
    for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<char>('A' + i);
    string_core c;
    c.set_inline_copy(src.get(), n);
    string_core want;
    want.set_empty();
    std::memcpy(want.bytes(), src.get(), n);
    want.set_inline_size(n);
    ASSERT_EQ(std::memcmp(&c, &want, sizeof c), 0) << "n = " << n;
    ASSERT_FALSE(c.is_heap());
    ASSERT_EQ(c.size_any(), n);
    ASSERT_EQ(std::string_view(c.data_any(), n), std::string_view(src.get(), n));
    ASSERT_EQ(c.data_any()[n], '\0');
  }
}

TEST(StringCoreTest, GrowthPolicyDoublesAndNeverPassesMax) {
  using fl::detail::grown_capacity;
  EXPECT_EQ(grown_capacity(23, 24, 1000), 63u);  // the floor: a 64-byte block
  EXPECT_EQ(grown_capacity(40, 41, 1000), 80u);
  EXPECT_EQ(grown_capacity(100, 500, 1000), 500u);   // needed beats doubling
  EXPECT_EQ(grown_capacity(600, 601, 1000), 1000u);  // capped at max
  EXPECT_EQ(grown_capacity(0, 1, 1000), 63u);
  EXPECT_EQ(grown_capacity(0, 1, 16), 16u);  // the floor never passes max
}

// fl::string and the builder (and read_file, fl::writer) take every growth
// from grown_capacity, rounded up to the pool's block: each new capacity is
// exactly that of the one before.
TEST(StringCoreTest, StringAndBuilderGrowByTheSamePolicy) {
  const std::size_t max = fl::detail::pool_string_max_size;
  auto next = [&](std::size_t cap, std::size_t needed) {
    return fl::detail::pool_block_capacity(fl::detail::grown_capacity(cap, needed, max));
  };
  // Appends 5,000 times; every capacity change must be the policy's next step.
  auto check_growth = [&](auto& x, auto append) {
    std::size_t cap = x.capacity();
    int growths = 0;
    for (int i = 0; i < 5000; ++i) {
      append(x);
      if (x.capacity() != cap) {
        ASSERT_EQ(x.capacity(), next(cap, x.size())) << i;
        cap = x.capacity();
        ++growths;
      }
    }
    EXPECT_GE(growths, 5);
  };
  fl::string s;
  check_growth(s, [](fl::string& x) { x.push_back('s'); });
  fl::string_builder b;
  b.append('b');
  EXPECT_EQ(b.capacity(), FL_STR_INLINE_CAPACITY);  // the builder is an fl::string: inline first
  check_growth(b, [](fl::string_builder& x) { x.append("bb"); });
}

// <fl/string.hpp> declares the extractors against <iosfwd>; fl::string's
// come compiled from libfl (string_test), and <fl/string_stream.hpp> gives
// them to a basic_string over any other allocator.
TEST(StringCoreTest, StreamHeaderServesOtherAllocators) {
  using std_alloc_string = fl::basic_string<std::allocator<char>>;
  std::istringstream in("  word rest\nnext line\n");
  std_alloc_string w;
  in >> w;
  EXPECT_EQ(w, "word");
  EXPECT_TRUE(fl::getline(in, w));
  EXPECT_EQ(w, " rest");
  EXPECT_TRUE(fl::getline(in, w, ' '));
  EXPECT_EQ(w, "next");
  std::ostringstream out;
  out << w << '|' << fl::string("fl");
  EXPECT_EQ(out.str(), "next|fl");
}
