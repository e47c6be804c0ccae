// The settings program of json_settings.cpp written with nlohmann::json, to
// compare the two: the same reads, writes and output, and the same crash
// guarantee (json_store::sync() commits atomically and durably; here a
// temporary file, fsync, rename and an fsync of the directory do it).
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

// A crash leaves the old file or the new one, never a torn one.
void save(const std::filesystem::path& file, const std::string& text) {
  const std::string tmp = file.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  if (!ok || ::fsync(fd) != 0 || ::close(fd) != 0) throw std::runtime_error("cannot write " + tmp);
  std::filesystem::rename(tmp, file);
  const int dir = ::open(file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || ::fsync(dir) != 0 || ::close(dir) != 0) throw std::runtime_error("cannot sync");
}

int main() {
  const auto file = std::filesystem::temp_directory_path() / "nlohmann_json_settings.json";
  std::filesystem::remove(file);
  for (int run = 0; run < 2; ++run) {
    nlohmann::ordered_json settings = nlohmann::ordered_json::object();
    if (std::ifstream in(file); in) settings = nlohmann::ordered_json::parse(in);
    const std::string theme = settings.value("theme", "light");
    const int launches = settings.value("launches", 0);
    std::cout << "theme " << theme << ", launches " << launches << '\n';
    settings["theme"] = "dark";
    settings["launches"] = launches + 1;
    settings["window"]["size"] = std::vector<int>{1280, 800};
    settings["recent"] = {"notes.txt", "todo \"now\".md"};
    save(file, settings.dump());
    std::cout << settings.dump(2) << '\n';
  }
  std::filesystem::remove(file);
}
