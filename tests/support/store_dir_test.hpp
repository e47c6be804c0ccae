// tests/support/store_dir_test.hpp: the fixture of json_store tests that
// make stores in a directory of their own, and `str`, a store's text as a
// std::string for comparisons that print. (Apart from json_test_support.hpp,
// which the benchmark program includes too: this one needs GoogleTest.)
#pragma once

#include <fl/string.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "test_support.hpp"

namespace fl_test {

inline std::string str(const fl::string& s) { return std::string(std::string_view(s)); }

// A test with a directory of its own (removed after it) for its stores:
// file() names one in it.
class store_dir_test : public ::testing::Test {
 protected:
  temp_dir dir_;
  std::filesystem::path file(const std::string& name = "doc.fljson") const { return dir_ / name; }
};

}  // namespace fl_test
