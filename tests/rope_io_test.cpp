// fl::write_file(path, rope): the chunks written as they are (writev in
// batches), read back equal, with the library's leaf size; errors name the
// path like write_file of a string_view.
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
