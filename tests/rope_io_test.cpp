// fl::write_file(path, rope): the chunks written as they are (writev in
// batches), read back equal, with the library's leaf size; errors name the
// path like write_file of a string_view. fl::read_rope_file: the file's text
// as a rope whose counts and conversions match a rope made from the same
// text, by every path form; errors as read_file's.
#include <fl/io.hpp>
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

TEST(RopeIo, WriteFileOfARopeReadsBackEqual) {
  const fl_test::temp_dir dir;
  std::mt19937_64 rng(fl_test::test_seed());
  const std::string text = fl_test::random_text(rng, 3'000'000);
  // A tree of hundreds of leaves (more than one writev batch), edited in
  // the middle so that some chunks are shared pieces of others.
  fl::rope tree;
  for (std::size_t i = 0; i < text.size(); i += 4096) tree.append(fl::rope(text.substr(i, 4096)));
  std::string want = text;
  for (int k = 0; k < 50; ++k) {
    const std::size_t pos = rng() % want.size();
    tree.replace(pos, 3, "edit");
    want.replace(pos, 3, "edit");
  }
  const auto file = dir / "tree.txt";
  fl::write_file(file, tree);
  EXPECT_EQ(std::string_view(fl::read_file(file)), want);

  const fl::rope flat(text);
  fl::write_file(file.string(), flat);  // std::string_view path
  EXPECT_EQ(std::string_view(fl::read_file(file)), text);

  fl::write_file(file.c_str(), fl::rope());
  EXPECT_TRUE(fl::read_file(file).empty());

  fl::write_file(file.c_str(), "a C string");  // still the string_view overload
  EXPECT_EQ(std::string_view(fl::read_file(file)), "a C string");
}

TEST(RopeIo, WriteFileOfARopeNamesThePathOnError) {
  const fl_test::temp_dir dir;
  const auto bad = dir / "no such dir" / "x.txt";
  try {
    fl::write_file(bad, fl::rope("text"));
    FAIL() << "no throw";
  } catch (const std::system_error& e) {
    EXPECT_NE(std::string(e.what()).find(bad.string()), std::string::npos) << e.what();
    EXPECT_EQ(e.code().value(), ENOENT);
  }
}

// A text of lines with 2-, 3- and 4-byte chars, CRLF and a stray
// continuation byte: the loaded rope's text, counts and conversions equal
// those of a rope made from the string, and it edits like one.
TEST(RopeIo, ReadRopeFileMatchesARopeOfTheText) {
  const fl_test::temp_dir dir;
  std::mt19937_64 rng(fl_test::test_seed());
  static constexpr std::string_view pieces[] = {
      "word ", "\n", "\r\n", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\x80", "tab\t"};
  std::string text;
  while (text.size() < 300'000) text += pieces[rng() % std::size(pieces)];
  const auto file = dir / "text.txt";
  fl::write_file(file, text);
  const fl::rope want(text);
  for (const fl::rope& got : {fl::read_rope_file(file), fl::read_rope_file(file.c_str()),
                              fl::read_rope_file(file.string())}) {
    EXPECT_EQ(std::string_view(got.flatten()), text);
    EXPECT_EQ(got.char_count(), want.char_count());
    EXPECT_EQ(got.line_count(), want.line_count());
    EXPECT_EQ(got.utf16_count(), want.utf16_count());
    for (int k = 0; k < 200; ++k) {
      const std::size_t pos = rng() % (text.size() + 1);
      ASSERT_EQ(got.byte_to_line(pos), want.byte_to_line(pos)) << pos;
      ASSERT_EQ(got.byte_to_char(pos), want.byte_to_char(pos)) << pos;
      const std::size_t line = rng() % want.line_count();
      ASSERT_EQ(got.line_to_byte(line), want.line_to_byte(line)) << line;
    }
  }
  fl::rope edited = fl::read_rope_file(file);
  edited.insert(1000, "inserted");
  std::string edited_text = text;
  edited_text.insert(1000, "inserted");
  EXPECT_EQ(std::string_view(edited.flatten()), edited_text);

  fl::write_file(file, std::string_view());
  EXPECT_TRUE(fl::read_rope_file(file).empty());
}

TEST(RopeIo, ReadRopeFileNamesThePathOnError) {
  const fl_test::temp_dir dir;
  const auto missing = dir / "missing.txt";
  for (int form = 0; form < 2; ++form) {
    try {
      (void)(form == 0 ? fl::read_rope_file(missing) : fl::read_rope_file(missing.string()));
      FAIL() << "no throw";
    } catch (const std::system_error& e) {
      EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
      EXPECT_EQ(e.code().value(), ENOENT);
    }
  }
}
