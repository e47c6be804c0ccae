// The C API seen from C++: an fl_str viewed in place as an fl::string
// (fl::as_string) without copying, buffers moved between the two, and a
// seeded differential test replaying random edits through the C functions
// and on std::string side by side.
#include <fl/fl.h>
#include <fl/string.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

namespace {

using fl_test::test_seed;

std::string_view c_view(const fl_str* s) { return {fl_str_cstr(s), fl_str_len(s)}; }

}  // namespace

TEST(CApiInteropTest, ViewSharesTheBytes) {
  for (std::size_t n : {0, 5, 22, 23, 24, 100}) {
    const std::string text(n, 'q');
    fl_str s;
    ASSERT_EQ(fl_str_from_n(&s, text.data(), n), FL_OK);
    fl::string& v = fl::as_string(&s);
    EXPECT_EQ(static_cast<const void*>(v.data()), static_cast<const void*>(fl_str_cstr(&s)));
    EXPECT_EQ(v.size(), fl_str_len(&s));
    EXPECT_EQ(std::string_view(v), text);
    // Edits through either side are seen by the other.
    v += "++";
    EXPECT_EQ(c_view(&s), text + "++");
    ASSERT_EQ(fl_str_append(&s, "--"), FL_OK);
    EXPECT_EQ(std::string_view(fl::as_string(&s)), text + "++--");
    const fl_str* cs = &s;
    EXPECT_EQ(fl::as_string(cs).size(), n + 4);
    fl_str_free(&s);
    EXPECT_TRUE(fl::as_string(&s).empty());
  }
}

TEST(CApiInteropTest, BuffersMoveWithoutCopying) {
  // C to C++: the heap block changes owner.
  fl_str s;
  ASSERT_EQ(fl_str_from(&s, "a string longer than the twenty-three inline bytes"), FL_OK);
  const char* buf = fl_str_cstr(&s);
  fl::string owned = std::move(fl::as_string(&s));
  EXPECT_EQ(owned.data(), buf);
  EXPECT_EQ(fl_str_len(&s), 0u);
  // C++ to C.
  fl::string big(1000, 'z');
  const char* big_buf = big.data();
  fl::as_string(&s) = std::move(big);
  EXPECT_EQ(fl_str_cstr(&s), big_buf);
  EXPECT_EQ(fl_str_len(&s), 1000u);
  fl_str_free(&s);
  // FL_STR_INIT is the empty fl::string's bytes.
  fl_str e = FL_STR_INIT;
  const fl::string empty;
  EXPECT_EQ(std::memcmp(&e, &empty, sizeof e), 0);
}

TEST(CApiInteropTest, RandomEditsAgreeWithStdString) {
  const auto seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::string alphabet("abc\0xyz-", 8);
  auto random_text = [&](std::size_t max) {
    const std::size_t n = rng() % (max + 1);
    return fl_test::random_text(rng, n, alphabet);
  };
  fl_str s = FL_STR_INIT;
  std::string want;
  for (int step = 0; step < 200000; ++step) {
    const std::size_t len = want.size();
    const std::size_t pos = rng() % (len + 2);  // sometimes one past the end
    const std::string t = random_text(rng() % 4 == 0 ? 40 : 6);
    fl_status st = FL_OK;
    fl_status expect = FL_OK;
    // Whether `pos` is a valid position; when not, the call must give FL_ERANGE.
    auto pos_valid = [&] {
      if (pos <= len) return true;
      expect = FL_ERANGE;
      return false;
    };
    switch (rng() % 10) {
      case 0:
        st = fl_str_append_n(&s, t.data(), t.size());
        want += t;
        break;
      case 1:
        st = fl_str_insert(&s, pos, t.data(), t.size());
        if (pos_valid()) want.insert(pos, t);
        break;
      case 2: {
        const std::size_t n = rng() % 8;
        st = fl_str_erase(&s, pos, n);
        if (pos_valid()) want.erase(pos, n);
        break;
      }
      case 3: {
        const std::size_t n = rng() % 8;
        st = fl_str_replace(&s, pos, n, t.data(), t.size());
        if (pos_valid()) want.replace(pos, n, t);
        break;
      }
      case 4: {  // self-aliasing append of a slice
        const std::size_t from = len == 0 ? 0 : rng() % len;
        const std::size_t n = std::min<std::size_t>(rng() % 30, len - from);
        st = fl_str_append_n(&s, fl_str_cstr(&s) + from, n);
        want += want.substr(from, n);
        break;
      }
      case 5: {
        const std::size_t got = fl_str_find(&s, t.data(), t.size(), pos);
        ASSERT_EQ(got, want.find(t, pos)) << "seed " << seed << " step " << step;
        ASSERT_EQ(fl_str_rfind(&s, t.data(), t.size(), pos), want.rfind(t, pos)) << "seed " << seed;
        break;
      }
      case 6: {
        fl_str out = FL_STR_INIT;
        const std::size_t n = rng() % 30;
        st = fl_str_substr(&s, pos, n, &out);
        if (pos_valid()) {
          ASSERT_EQ(c_view(&out), want.substr(pos, n)) << "seed " << seed << " step " << step;
        }
        fl_str_free(&out);
        break;
      }
      case 7:
        st = fl_str_appendf(&s, "%zu", pos);
        want += std::to_string(pos);
        break;
      case 8:
        if (rng() % 20 == 0) {
          fl_str_clear(&s);
          want.clear();
        }
        break;
      default: {
        fl_str other;
        ASSERT_EQ(fl_str_from_n(&other, t.data(), t.size()), FL_OK);
        const int c = fl_str_cmp(&s, &other);
        const int w = want.compare(t);
        ASSERT_EQ((c > 0) - (c < 0), (w > 0) - (w < 0)) << "seed " << seed << " step " << step;
        ASSERT_EQ(fl_str_eq(&s, &other), want == t);
        fl_str_free(&other);
        break;
      }
    }
    ASSERT_EQ(st, expect) << "seed " << seed << " step " << step;
    ASSERT_EQ(c_view(&s), want) << "seed " << seed << " step " << step;
    ASSERT_EQ(fl_str_cstr(&s)[want.size()], '\0');
    if (want.size() > 3000) {
      fl_str_clear(&s);
      want.clear();
    }
  }
  fl_str_free(&s);
}
