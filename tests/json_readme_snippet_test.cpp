// README.md's fl::json_store snippet, exactly as the README writes it,
// pasted into one function (the build extracts it between the README's
// readme-snippet markers: tests/json_readme_snippet_test.cmake). It opens a
// second handle on the store while the first still holds it: the open takes
// the store over from the earlier handle of this process, which has nothing
// uncommitted. The snippet's `text` is a document with /user/name; its
// relative path is made in a fresh directory. The snippet keeps what it read
// (`name`) across set() and sync(): it must own its text, since a view into
// the store (a std::string_view from as_string_view(), a json_value) is not
// valid after them (docs/json_store.md, "Views"), and a std::string_view's
// staleness cannot be detected. The test fails to compile when `name` is a
// view, and checks its text after the snippet's last sync().
#include <fl/json_store.hpp>

#include "persist_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <type_traits>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

// The working directory for one scope.
class in_directory {
 public:
  explicit in_directory(const fs::path& d) : before_(fs::current_path()) { fs::current_path(d); }
  ~in_directory() { fs::current_path(before_); }
  in_directory(const in_directory&) = delete;
  in_directory& operator=(const in_directory&) = delete;

 private:
  fs::path before_;
};

// The snippet's own scope: what it leaves behind is checked by the caller;
// returns its `name` as it reads after the snippet's last line.
std::string run_readme_snippet(const std::string& text) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#include "readme_json_store_snippet.inc"
#pragma GCC diagnostic pop
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(name)>, std::string> ||
                    std::is_same_v<std::remove_cvref_t<decltype(name)>, fl::string>,
                "README.md's snippet keeps `name` across set() and sync(): it must be a copy");
  return std::string(name);
}

TEST(ReadmeSnippet, JsonStoreRunsAsWritten) {
  fl_test::scratch_dir d;
  const std::string text = R"({"user":{"name":"Ada","visits":41},"tags":["a","b"]})";
  {
    const in_directory here(d.path());
    std::string name;
    ASSERT_NO_THROW(name = run_readme_snippet(text));
    EXPECT_EQ(name, "Ada");
  }
  // Both handles are gone: the store holds the snippet's last commit.
  const fl::json_store s = fl::json_store::open(d / "state.fljson", fl::open_mode::read_only);
  EXPECT_EQ(s.find("/user/name")->as_string_view(), "Ada");
  EXPECT_EQ(s.find("/user/visits")->as_int64(), 42);
  EXPECT_EQ(s.find("/tags")->size(), 2u);
}

}  // namespace
