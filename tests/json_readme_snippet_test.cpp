// README.md's fl::json_store snippet, exactly as the README writes it,
// pasted into one function (the build extracts it between the README's
// readme-snippet markers: tests/json_readme_snippet_test.cmake). It opens a
// second handle on the store while the first still holds it: the open takes
// the store over from the earlier handle of this process, which has nothing
// uncommitted. The snippet's `text` is a document with /user/name; its
// relative path is made in a fresh directory.
#include <fl/json_store.hpp>

#include "persist_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

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

// The snippet's own scope: what it leaves behind is checked by the caller.
void run_readme_snippet(const std::string& text) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#include "readme_json_store_snippet.inc"
#pragma GCC diagnostic pop
}

TEST(ReadmeSnippet, JsonStoreRunsAsWritten) {
  fl_test::scratch_dir d;
  const std::string text = R"({"user":{"name":"Ada","visits":41},"tags":["a","b"]})";
  {
    const in_directory here(d.path());
    ASSERT_NO_THROW(run_readme_snippet(text));
  }
  // Both handles are gone: the store holds the snippet's last commit.
  const fl::json_store s = fl::json_store::open(d / "state.fljson", fl::open_mode::read_only);
  EXPECT_EQ(s.find("/user/name")->as_string_view(), "Ada");
  EXPECT_EQ(s.find("/user/visits")->as_int64(), 42);
  EXPECT_EQ(s.find("/tags")->size(), 2u);
}

}  // namespace
