// The messages of fl::json_store's errors name what the user did, in the
// user's terms: set() of text that is not JSON names the pointer and points
// to put(); a malformed pointer is quoted with the rule it breaks; typed
// reads name the pointer and the C++ type asked for; nothing names the
// library's internals (open modes the user never wrote, temporary files).
#include <fl/json_store.hpp>

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace {

// The what() of the exception `fn` throws (as E), or "" when it throws
// nothing.
template <class E>
std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

struct JsonMessagesTest : ::testing::Test {
  fl_test::temp_dir dir;
  std::filesystem::path file() const { return dir.path() / "store.fl"; }
  fl::json_store store() {
    auto s = fl::json_store::import(R"({"theme":"light","n":300,"x":1.5,"a~b":true})", file());
    s.sync();
    return s;
  }
};

TEST_F(JsonMessagesTest, SetOfTextThatIsNotJsonNamesThePointerAndPut) {
  auto s = store();
  const std::string m = message_of<fl::json_error>([&] { s.set("/theme", "dark"); });
  EXPECT_NE(m.find("set(\"/theme\", text) takes JSON text (a string in quotes)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("put(\"/theme\", value) stores a C++ string as a JSON string"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.rfind("fl::json_error: at line 1, column 1 (byte 0): ", 0), 0u) << m;
  const std::string i = message_of<fl::json_error>([&] { s.insert("/list", "[1,"); });
  EXPECT_NE(i.find("insert(\"/list\", text) takes JSON text"), std::string::npos) << i;
  s.put("/theme", "dark");  // what the user meant
  EXPECT_EQ(s.get<std::string>("/theme"), "dark");
}

TEST_F(JsonMessagesTest, APointerWithoutSlashIsQuotedWithTheRule) {
  auto s = store();
  EXPECT_EQ(message_of<std::invalid_argument>([&] { (void)s.find("theme"); }),
            "fl::json_store: the JSON pointer \"theme\" must be empty or start with '/' (did you "
            "mean \"/theme\"?)");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { s.set("theme", "1"); }),
            "fl::json_store: the JSON pointer \"theme\" must be empty or start with '/' (did you "
            "mean \"/theme\"?)");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { (void)s.find("/a~2b"); }),
            "fl::json_store: in the JSON pointer token \"a~2b\", '~' must be followed by 0 "
            "('~') or 1 ('/')");
}

TEST_F(JsonMessagesTest, TypedReadsNameThePointerAndTheCppType) {
  auto s = store();
  EXPECT_EQ(message_of<std::invalid_argument>([&] { (void)s.get<int>("/theme"); }),
            "fl::json_store: cannot read the value at \"/theme\" as int: it is a string");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { (void)s.get<long long>("/x"); }),
            "fl::json_store: cannot read the value at \"/x\" as long long: it is the number 1.5");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { (void)s.get<std::string>("/n"); }),
            "fl::json_store: cannot read the value at \"/n\" as std::string: it is the number 300");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { (void)s.value<bool>("/n", false); }),
            "fl::json_store: cannot read the value at \"/n\" as bool: it is the number 300");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { (void)s.get<double>("/a~0b"); }),
            "fl::json_store: cannot read the value at \"/a~0b\" as double: it is true");
  EXPECT_EQ(message_of<std::out_of_range>([&] { (void)s.get<unsigned char>("/n"); }),
            "fl::json_store: cannot read the value at \"/n\" as unsigned char: the number 300 is "
            "outside its range");
  EXPECT_EQ(message_of<std::out_of_range>([&] { (void)s.get<int>("/missing"); }),
            "fl::json_store: no value at \"/missing\"");
  // Through a json_value there is no pointer: the value and the type.
  const fl::json_value theme = *s.find("/theme");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { (void)theme.get<float>(); }),
            "fl::json_value: cannot read the value as float: it is a string");
  EXPECT_EQ(message_of<std::invalid_argument>([&] { (void)theme.as_int64(); }),
            "fl::json_value: cannot read the value as std::int64_t: it is a string");
}

TEST_F(JsonMessagesTest, NoInternalNames) {
  const std::filesystem::path missing = dir.path() / "missing.fl";
  for (const fl::open_mode mode : {fl::open_mode::read_write, fl::open_mode::read_only}) {
    const std::string m =
        message_of<fl::persist_error>([&] { (void)fl::json_store::open(missing, mode); });
    EXPECT_EQ(m, "fl::persist: \"" + missing.string() + "\": no such file");
  }
  // An import whose directory is missing names the store, not the
  // temporary file it builds first.
  const std::filesystem::path nowhere = dir.path() / "no-dir" / "x";
  const std::string m =
      message_of<fl::persist_error>([&] { (void)fl::json_store::import("{}", nowhere); });
  EXPECT_EQ(m.rfind("fl::persist: \"" + nowhere.string() + "\": ", 0), 0u) << m;
  EXPECT_EQ(m.find(".tmp"), std::string::npos) << m;
  EXPECT_EQ(m.find("open_mode"), std::string::npos) << m;
}

}  // namespace
