// tests/string_out_of_range_test.cpp: every std::out_of_range that fl throws
// for a position past its limit reads alike, in libstdc++'s own shape, naming
// the function and both values (fl/detail/out_of_range.hpp, the one place the
// text is written): fl::string, fl::immutable_string and fl::rope.
#include <fl/immutable_string.hpp>
#include <fl/rope.hpp>
#include <fl/string.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

template <class F>
std::string message_of(F f) {
  try {
    f();
  } catch (const std::out_of_range& e) { return e.what(); }
  return "no std::out_of_range";
}

}  // namespace

TEST(OutOfRange, StringNamesTheFunctionAndBothValues) {
  fl::string s = "abc";
  EXPECT_EQ(message_of([&] { (void)s.at(5); }),
            "fl::string::at: pos (which is 5) >= size() (which is 3)");
  EXPECT_EQ(message_of([&] { (void)s.substr(4); }),
            "fl::string::substr: pos (which is 4) > size() (which is 3)");
  // Where std::string throws, the same call on fl::string throws too, with
  // the same values in its text.
  std::string ref = "abc";
  EXPECT_NE(message_of([&] { (void)ref.substr(4); }), "no std::out_of_range");
}

TEST(OutOfRange, ImmutableStringReadsLikeString) {
  const fl::immutable_string s("abc");
  EXPECT_EQ(message_of([&] { (void)s.at(3); }),
            "fl::immutable_string::at: pos (which is 3) >= size() (which is 3)");
}

TEST(OutOfRange, RopeNamesTheCallAndBothValues) {
  fl::rope r("hello");
  EXPECT_EQ(message_of([&] { r.insert(9, "x"); }),
            "fl::rope::insert: pos (which is 9) > size() (which is 5)");
  EXPECT_EQ(message_of([&] { r.erase(6, 1); }),
            "fl::rope::erase: pos (which is 6) > size() (which is 5)");
  EXPECT_EQ(message_of([&] { (void)r.substr(7); }),
            "fl::rope::substr: pos (which is 7) > size() (which is 5)");
  EXPECT_EQ(message_of([&] { (void)r.at(5); }),
            "fl::rope::at: pos (which is 5) >= size() (which is 5)");
  EXPECT_EQ(message_of([&] { (void)r.char_to_byte(6); }),
            "fl::rope::char_to_byte: i (which is 6) > char_count() (which is 5)");
  EXPECT_EQ(message_of([&] { (void)r.line(1); }),
            "fl::rope::line: i (which is 1) >= line_count() (which is 1)");
  // Nothing was changed by the refused edits.
  EXPECT_EQ(r.to_std(), "hello");
}
