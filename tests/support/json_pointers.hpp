// tests/support/json_pointers.hpp: RFC 6901 pointers into an nlohmann
// document, for the json_store tests (which edit at random pointers) and the
// json/ benchmarks (which look up pointers picked from every value).
// Header-only and templated over the nlohmann type (nlohmann::json,
// nlohmann::ordered_json), so the benchmark program uses it without the test
// library.
//
// Threads: no shared state.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace fl_test {

// `key` as one pointer token ('~' written "~0" and '/' written "~1"), as
// the reference library escapes it: nlohmann's json_pointer, not fl's own
// escaping, so a test of fl's pointers does not check fl against itself.
inline std::string pointer_token(const std::string& key) {
  return (nlohmann::json::json_pointer() / key).to_string().substr(1);
}

// Appends `at` (the pointer of v) and then the pointer of every value inside
// v, depth first in document order.
template <class Json>
void collect_pointers(const Json& v, const std::string& at, std::vector<std::string>& out) {
  out.push_back(at);
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      collect_pointers(it.value(), at + "/" + pointer_token(it.key()), out);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i)
      collect_pointers(v[i], at + "/" + std::to_string(i), out);
  }
}

}  // namespace fl_test
