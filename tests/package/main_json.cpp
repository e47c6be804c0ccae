// A consumer of fl::json (<fl/json_store.hpp>) against an installed fl:
// imports a small document into a store file, builds and puts a member with
// fl::json_text (compiled at -O3 -Wall -Werror, as a release build of a
// user's program compiles the header's templates), and reads it back.
#include <fl/json_store.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::filesystem::path dir = argc > 1 ? argv[1] : std::filesystem::temp_directory_path();
  const std::filesystem::path file = dir / "package_json.store";
  std::filesystem::remove(file);
  bool ok = false;
  {
    fl::json_store store = fl::json_store::import(R"({"name":"fl","parts":[1,2,3]})", file);
    const std::vector<int> sizes{4, 5};
    store.put("/built", fl::json_text::object({{"sizes", fl::json_text(sizes)}}));
    const auto built = store.find("/built/sizes/1");
    const auto name = store.root().find("name");
    const auto parts = store.root().find("parts");
    ok = name && name->as_string_view() == "fl" && parts && parts->size() == 3 &&
         (*parts)[2].as_int64() == 3 && built && built->as_int64() == 5;
  }
  std::filesystem::remove(file);
  std::puts(ok ? "fl::json package ok" : "fl::json package BROKEN");
  return ok ? 0 : 1;
}
