// fl::rope replaying editing traces (tests/rope_trace.hpp) with the
// library's leaf size: a keystroke trace generated from a fixed seed always,
// and the public editing-traces corpus when its files are found
// (FL_TRACE_DATA, else ../shared/data/traces beside the source tree).
// Positions by code point (replace_chars), by byte on the ascii-only variant
// (replace), and by UTF-16 unit (replace_utf16). The final text must equal
// the trace's endContent. Release builds replay whole traces and compare
// every 1000 transactions; sanitizer builds replay a prefix (4,000 patches,
// or less for a trace that starts from a big text) and compare after every
// transaction.
#include <fl/detail/rope_debug.hpp>
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "rope_trace.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr std::size_t max_patches = 4'000;  // a prefix, checked after every transaction
constexpr std::size_t check_every = 1;
constexpr std::size_t gen_patches = 4'000;
// The prefix also ends once the checks have compared this many bytes (a
// trace that starts from a big text would otherwise compare it whole 4,000
// times).
constexpr std::size_t check_budget = std::size_t{24} << 20;
#else
constexpr std::size_t max_patches = static_cast<std::size_t>(-1);
constexpr std::size_t check_every = 1000;
constexpr std::size_t gen_patches = fl_trace::gen_typing_patches;
constexpr std::size_t check_budget = static_cast<std::size_t>(-1);
#endif

enum class unit { chars, bytes, utf16 };

// Replays t (or its first max_patches patches, whole transactions) into a
// rope, checked against fl_trace::reference_text every check_every
// transactions and, for a whole replay, against t.end.
void replay(const fl_trace::trace& t, unit u, const std::string& what) {
  fl::rope r(t.start);
  fl_trace::reference_text ref(t.start);
  std::size_t from = 0, txn = 0, compared = 0;
  for (const std::size_t to : t.txn_end) {
    if (to > max_patches || compared > check_budget) break;
    for (std::size_t i = from; i < to; ++i) {
      const fl_trace::patch& p = t.patches[i];
      const std::string_view ins = t.ins(p);
      switch (u) {
        case unit::chars: r.replace_chars(p.pos, p.del, ins); break;
        case unit::bytes: r.replace(p.pos, p.del, ins); break;
        case unit::utf16: {
          // The same patch by UTF-16 unit: its code point range converted
          // through the rope's own metrics first.
          const std::size_t b = r.char_to_byte(p.pos);
          const std::size_t e = r.char_to_byte(p.pos + p.del);
          const std::size_t ub = r.byte_to_utf16(b);
          r.replace_utf16(ub, r.byte_to_utf16(e) - ub, ins);
          break;
        }
      }
      ref.apply(p.pos, p.del, ins);
    }
    from = to;
    if (++txn % check_every == 0) {
      compared += r.size();
      const std::string want = ref.utf8();
      ASSERT_EQ(r.size(), want.size()) << what << " transaction " << txn;
      ASSERT_EQ(r.to_std(), want) << what << " transaction " << txn;
      ASSERT_EQ(r.char_count(), ref.size()) << what << " transaction " << txn;
    }
  }
  fl::detail::check_invariants(r);
  ASSERT_EQ(r.to_std(), ref.utf8()) << what;
  if (from == t.patches.size()) {
    ASSERT_EQ(r.to_std(), t.end) << what << ": final text";
  }
}

TEST(RopeTrace, GeneratedTypingByChar) {
  replay(fl_trace::generated_typing(gen_patches), unit::chars, "gen_typing chars");
}
TEST(RopeTrace, GeneratedTypingByByte) {
  replay(fl_trace::generated_typing(gen_patches, true), unit::bytes, "gen_typing bytes");
}
TEST(RopeTrace, GeneratedTypingByUtf16Unit) {
  replay(fl_trace::generated_typing(gen_patches / 4), unit::utf16, "gen_typing utf16");
}

// The generator is a fixed function of its seed: the same trace every run,
// non-ASCII included, and its ASCII variant has the same patches.
TEST(RopeTrace, GeneratedTraceIsFixedAndHasWideChars) {
  const fl_trace::trace a = fl_trace::generated_typing(3000), b = fl_trace::generated_typing(3000);
  const fl_trace::trace c = fl_trace::generated_typing(3000, true);
  ASSERT_EQ(a.patches.size(), 3000u);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.text, b.text);
  ASSERT_EQ(c.patches.size(), a.patches.size());
  for (std::size_t i = 0; i < a.patches.size(); ++i) {
    EXPECT_EQ(a.patches[i].pos, c.patches[i].pos);
    EXPECT_EQ(a.patches[i].del, c.patches[i].del);
  }
  std::size_t wide = 0, astral = 0;
  for (unsigned char ch : a.end) {
    wide += ch >= 0x80;
    astral += ch >= 0xF0;
  }
  EXPECT_GT(wide, 0u);
  EXPECT_GT(astral, 0u);
  for (unsigned char ch : c.end) ASSERT_LT(ch, 0x80);
}

// The corpus, when its files are found.
class RopeRealTrace : public ::testing::TestWithParam<std::string_view> {};

TEST_P(RopeRealTrace, ReplaysToEndContent) {
  const auto dir = fl_trace::data_dir(FL_TEST_SOURCE_DIR);
  if (!dir) GTEST_SKIP() << "no data: set FL_TRACE_DATA to the editing-traces directory";
  const std::string name(GetParam());
  replay(fl_trace::load_trace(*dir, name, false), unit::chars, name + " chars");
  if (HasFatalFailure()) return;
  replay(fl_trace::load_trace(*dir, name, true), unit::bytes, name + " bytes");
}

INSTANTIATE_TEST_SUITE_P(Corpus, RopeRealTrace, ::testing::ValuesIn(fl_trace::real_traces),
                         [](const auto& param_info) {
                           std::string n(param_info.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
