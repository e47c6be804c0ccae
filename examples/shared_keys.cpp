// fl::immutable_string and fl::string_builder: build text once, then share it
// between owners and threads with O(1) copies and a cached hash.
#include <fl/builder.hpp>
#include <fl/immutable_string.hpp>

#include <cstdio>
#include <string_view>
#include <unordered_map>
#include <vector>

int main() {
  // The builder sizes every piece of one append first: one growth at most.
  fl::string_builder b;
  for (int i = 0; i < 3; ++i) b.append("tenant-", i, ":region-eu-west-", 1 + i, ';');
  const fl::string built = std::move(b).build();  // hands its buffer over, no copy

  // Immutable, shared text: copies bump a count, the hash is computed once.
  const fl::immutable_string key(built);
  std::vector<fl::immutable_string> owners(100, key);
  // Transparent: find() by std::string_view without making a key.
  std::unordered_map<fl::immutable_string, int, fl::immutable_string_hash,
                     fl::immutable_string_equal>
      index;
  index.emplace(key, 7);
  const auto it = index.find(std::string_view(built));

  const bool ok = owners.back() == key && owners.back().data() == key.data() && it != index.end() &&
                  it->second == 7;
  std::printf("%s (%zu bytes, %zu owners)\n", key.c_str(), key.size(), owners.size() + 1);
  return ok ? 0 : 1;
}
