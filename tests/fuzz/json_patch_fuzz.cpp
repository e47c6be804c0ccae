// libFuzzer target: json_store::apply_patch over any document and patch.
//
// The input is a document, a zero byte, then a patch (an input without a
// zero byte is skipped). For a document json_store imports:
// 1. A refused patch (std::invalid_argument, std::out_of_range or
//    fl::json_error, the errors apply_patch documents) leaves the document
//    as it was: its undo put every value back, each removed member at its
//    place in its object.
// 2. Accepted or refused, the next commit verifies, and a reader opened
//    after it sees the document the writer holds; so do later commits
//    whose edits reuse the blocks the patch's commit freed.
// The process builds trees of a tiny shape (2 to 4 entries a node), so that
// short documents make object and array trees of several levels, whose
// members a refused patch puts back between their neighbours by seq (or,
// where the tree was numbered again, by rebuilding the object).
#include "json/json_internal.hpp"

#include "fuzz_input.hpp"

#include <fl/json_store.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <unistd.h>

namespace {

// The store every run imports to, and its log and reader table beside it,
// removed when the process exits.
const std::filesystem::path& scratch_file() {
  struct scratch {
    std::filesystem::path p = std::filesystem::temp_directory_path() /
                              ("fl_json_patch_fuzz_" + std::to_string(::getpid()) + ".fljson");
    ~scratch() {
      std::error_code ec;
      for (const char* end : {"", "-log", "-readers"})
        std::filesystem::remove(p.string() + end, ec);
    }
  };
  static const scratch s;
  return s.p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool tiny = (fl::detail::json::set_tree_shape({2, 4}), true);
  (void)tiny;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::size_t zero = in.find('\0');
  if (zero == std::string_view::npos) return 0;
  const std::string_view doc = in.substr(0, zero), patch = in.substr(zero + 1);
  std::optional<fl::json_store> s;
  try {
    s.emplace(fl::json_store::import(doc, scratch_file()));
  } catch (const fl::json_error&) {
    return 0;
  }
  s->sync();
  const fl::string before = s->dump();
  bool refused = false;
  try {
    s->apply_patch(patch);
  } catch (const std::invalid_argument&) {
    refused = true;
  } catch (const std::out_of_range&) {
    refused = true;
  } catch (const fl::json_error&) {
    refused = true;
  }
  if (refused) fl_fuzz::check(s->dump() == before);
  s->sync();
  s->verify();  // throws persist_error (a crash here) on a damaged store
  const fl::string after = s->dump();
  fl_fuzz::check(fl::json_store::open(scratch_file(), fl::open_mode::read_only).dump() == after);
  // More commits, each adding a value at the root and removing it: the
  // blocks the patch's commit retired return to the free lists, and the
  // root's copies take them. Every value the patch kept, moved or put back
  // must read as before.
  for (int round = 0; round < 3; ++round) {
    const fl::json_value root = s->root();
    if (root.is_object() && !root.find("fuzz")) {
      s->set("/fuzz", "[0,1]");
      s->erase("/fuzz");
    } else if (root.is_array()) {
      s->insert("/0", "[0,1]");
      s->erase("/0");
    } else {
      break;
    }
    s->sync();
    fl_fuzz::check(s->dump() == after);
  }
  s->verify();
  return 0;
}
