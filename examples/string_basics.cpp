// fl::string where std::string was: short strings never allocate, the
// interface is std::string's, and the hash is std::string_view's.
#include <fl/pool.hpp>
#include <fl/string.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

int main() {
  // Up to 23 chars live inside the 24-byte object: no allocation.
  const fl::pool_statistics before = fl::pool_stats();
  fl::string name = "user:42";
  name += ":active";
  const fl::pool_statistics after = fl::pool_stats();
  const bool no_alloc = after.hits + after.misses == before.hits + before.misses;

  // std::string's interface, including the C++23 members.
  fl::string path = "/var/log/app/server.log";
  const std::size_t slash = path.rfind('/');
  const fl::string file = path.substr(slash + 1);
  const bool is_log = file.ends_with(".log") && path.contains("app");

  // std::hash<fl::string> hashes like std::hash<std::string_view>.
  std::unordered_map<fl::string, int> hits{{"server.log", 3}};
  const auto it = hits.find(file);
  const bool same_hash =
      std::hash<fl::string>{}(file) == std::hash<std::string_view>{}("server.log");

  std::printf("%s %s %d %d\n", name.c_str(), file.c_str(), it != hits.end() ? it->second : -1,
              no_alloc);
  return no_alloc && is_log && same_hash && it != hits.end() ? 0 : 1;
}
