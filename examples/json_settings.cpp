// A program's settings kept in a json_store: opened (or created) without
// parsing, read with defaults, changed with C++ values, committed by sync().
#include <fl/json_store.hpp>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

int main() {
  const auto file = std::filesystem::temp_directory_path() / "fl_json_settings.store";
  std::filesystem::remove(file);
  for (int run = 0; run < 2; ++run) {
    auto settings = fl::json_store::open_or_create(file);
    const std::string theme = settings.value("/theme", "light");
    const int launches = settings.value("/launches", 0);
    std::cout << "theme " << theme << ", launches " << launches << '\n';
    settings.put("/theme", "dark");
    settings.put("/launches", launches + 1);
    settings.put("/window/size", std::vector<int>{1280, 800}, fl::json_store::parents::create);
    settings.put("/recent", fl::json_text::array({"notes.txt", "todo \"now\".md"}));
    settings.sync();
    std::cout << settings.dump(2) << '\n';
  }
  std::filesystem::remove(file);
}
