// libFuzzer target: json_store::import over any bytes.
//
// 1. The strict parser and the simdjson path (the same text behind 600
//    bytes of leading whitespace, which takes it past simdjson's threshold)
//    must agree: both reject it at the same offset, or both build the very
//    same store bytes.
// 2. A text import() accepts dumps to text that imports again to the same
//    dump, and every value the root holds can be read back by pointer.
// The process builds trees of a tiny shape (2 to 4 entries a node), so
// that short inputs make array and object trees (format 5) of several
// levels.
#include "json/json_internal.hpp"

#include "fuzz_input.hpp"

#include <fl/json_store.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

using fl::detail::json::builder;
using fl::detail::json::byte_buffer;

struct outcome {
  std::optional<std::size_t> error_at;
  byte_buffer bytes;
  std::vector<fl::detail::json::tail_block> blocks;
  fl::detail::json::json_ref root;
};

template <class Parse>
void run(std::string_view text, outcome& o, Parse parse) {
  // Any block start: both parsers must build the same bytes from it.
  // Trees past leaf_max, hashed key entries: as import builds.
  builder b(o.bytes, o.blocks, 8200,
            fl::detail::json::format_rules::of(fl::detail::json::format_version));
  try {
    parse(text, b);
    o.root = b.result();
  } catch (const fl::json_error& e) { o.error_at = e.offset(); }
}

const std::filesystem::path& scratch_file() {
  static const std::filesystem::path p =
      std::filesystem::temp_directory_path() /
      ("fl_json_import_fuzz_" + std::to_string(::getpid()) + ".fljson");
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool tiny = (fl::detail::json::set_tree_shape({2, 4}), true);
  (void)tiny;
  const std::string text =
      std::string(600, ' ') + std::string(reinterpret_cast<const char*>(data), size);
  outcome strict, fast;
  run(text, strict, fl::detail::json::parse_strict);
  run(text, fast, [](std::string_view t, builder& b) { fl::detail::json::parse_fast(t, b); });
  fl_fuzz::check(strict.error_at == fast.error_at);
  if (!strict.error_at) {
    fl_fuzz::check(strict.bytes.size() == fast.bytes.size());
    fl_fuzz::check(strict.bytes.size() == 0 ||
                   std::memcmp(strict.bytes.data(), fast.bytes.data(), strict.bytes.size()) == 0);
    fl_fuzz::check(std::memcmp(&strict.root, &fast.root, sizeof strict.root) == 0);
  }

  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  try {
    auto s = fl::json_store::import(raw, scratch_file());
    const fl::string d = s.dump();
    auto again = fl::json_store::import(std::string_view(d), scratch_file().string() + "2");
    fl_fuzz::check(again.dump() == d);
    const fl::json_value root = s.root();
    std::size_t i = 0;
    for (fl::json_member m : root.members()) {
      std::string ptr = "/";
      for (char c : m.key)
        ptr += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
      const auto v = s.find(ptr);
      fl_fuzz::check(v.has_value());
      // The last member of a repeated name wins; others must dump the same.
      if (root.find(m.key)->dump() == m.value.dump()) fl_fuzz::check(v->dump() == m.value.dump());
      if (++i == 16) break;
    }
    for (i = 0; i < root.size() && i < 16 && root.is_array(); ++i) {
      fl_fuzz::check(s.find("/" + std::to_string(i))->dump() == root[i].dump());
    }
  } catch (const fl::json_error& e) {
    fl_fuzz::check(strict.error_at.has_value() && *strict.error_at == e.offset() + 600);
  }
  std::error_code ec;
  std::filesystem::remove(scratch_file().string() + ".tmp", ec);
  return 0;
}
