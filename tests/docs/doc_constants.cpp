// tests/docs/doc_constants.cpp: prints, one "name value" line each, the
// constants that docs/*.md and README.md quote, read from the library's own
// constexpr values (public and private headers alike), never restated here.
// check_docs.py compares every value a doc marks with <!--fl:name--> against
// this list, so a doc cannot drift from the code it describes.
//
// Sizes print in bytes and times in their unit (pool_keep_ms: milliseconds);
// a doc may state them in KiB/MiB/GiB (see check_docs.py for the rounding).
// Per-class pool tables print once per class, keyed by the class size:
// pool_class_depth[4096] is the depth of the 4096-byte class.
#include <fl/detail/find_short.hpp>
#include <fl/detail/immutable_rep.hpp>
#include <fl/detail/json_format.hpp>
#include <fl/detail/rope_node.hpp>
#include <fl/detail/string_core.hpp>
#include <fl/immutable_string.hpp>
#include <fl/pool.hpp>
#include <fl/rope.hpp>
#include <fl/string.hpp>
#include <fl/writer.hpp>

// The library's private headers (tests/docs/CMakeLists.txt puts src/ and its
// component directories on the include path).
#include "persist/persist_format.hpp"
#include "persist/space.hpp"
#include "rope/rope_impl.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace {

void print(const char* name, std::uint64_t value) {
  std::printf("%s %llu\n", name, static_cast<unsigned long long>(value));
}

void print_pool() {
  namespace d = fl::detail;
  print("pool_class_count", d::pool_class_count);
  print("pool_max_cached_bytes", d::pool_max_cached_bytes);
  print("pool_class_of_table_bytes", sizeof(d::pool_class_of));
  print("pool_short_class_bytes", d::pool_short_class_bytes);
  print("pool_short_class_depth", d::pool_short_class_depth);
  print("pool_class_budget_bytes", d::pool_class_budget_bytes);
  print("pool_batch_max_blocks", d::pool_batch_max_blocks);
  print("pool_batch_min_blocks", d::pool_batch_min_blocks);
  print("pool_batch_budget_bytes", d::pool_batch_budget_bytes);
  print("pool_thread_cache_max_bytes", d::pool_thread_cache_max_bytes);
  print("pool_exchange_class_bytes", d::pool_exchange_class_bytes);
  print("pool_exchange_max_bytes", d::pool_exchange_max_bytes);
  print("pool_keep_min_bytes", d::pool_keep_min_bytes);
  print("pool_keep_max_bytes", d::pool_keep_max_bytes);
  print("pool_keep_ms", d::pool_keep_ms);
  print("pool_idle_ms", d::pool_idle_ms);
  print("pool_trim_min_bytes", d::pool_trim_min_bytes);
  // What a thread's cache holds at most in the short classes, from the same
  // depth and size tables the cache uses.
  std::uint64_t short_bytes = 0;
  std::size_t short_classes = 0;
  for (std::size_t c = 0; c < d::pool_class_count; ++c) {
    if (d::pool_class_size[c] <= d::pool_short_class_bytes) {
      short_bytes += std::uint64_t{d::pool_class_depth[c]} * d::pool_class_size[c];
      ++short_classes;
    }
    const std::string key = "[" + std::to_string(d::pool_class_size[c]) + "]";
    print(("pool_class_depth" + key).c_str(), d::pool_class_depth[c]);
    print(("pool_class_batch" + key).c_str(), d::pool_class_batch[c]);
  }
  print("pool_short_class_count", short_classes);
  print("pool_short_classes_cache_bytes", short_bytes);
}

void print_string() {
  print("string_bytes", sizeof(fl::string));
  print("pmr_string_bytes", sizeof(fl::pmr::string));
  print("string_inline_capacity", fl::detail::string_core::inline_capacity);
  print("min_grown_capacity", fl::detail::min_grown_capacity);
  print("short_hay_max", fl::detail::short_hay_max);
  print("immutable_string_bytes", sizeof(fl::immutable_string));
  print("immutable_inline_max", fl::detail::immutable_inline_max);
  print("immutable_rep_header_bytes", sizeof(fl::detail::immutable_rep));
  print("writer_default_buffer_size", fl::writer::default_buffer_size);
}

void print_rope() {
  namespace d = fl::detail;
  print("rope_bytes", sizeof(fl::rope));
  print("rope_leaf_max_bytes", d::leaf_max_bytes);
  print("rope_leaf_edit_max", d::leaf_edit_max);
  print("rope_flat_edit_max", d::flat_edit_max);
  print("rope_merge_max_bytes", d::merge_max_bytes);
  print("rope_max_children", d::max_children);
  print("rope_min_children", d::min_children);
  print("rope_max_depth", d::max_depth);
  print("rope_index_block", d::index_block);
  print("rope_leaf_block", d::leaf_block);
  print("rope_chunk_header_bytes", sizeof(d::chunk));
  print("rope_inner_node_bytes", sizeof(d::inner));
}

void print_persist() {
  namespace d = fl::detail;
  print("persist_value_header_bytes", sizeof(d::value_header));
  print("pstring_bytes", sizeof(fl::pstring));
  print("space_page", d::space_page);
  print("space_class_count", d::space_class_count);
  print("space_default_reserve", d::default_reserve);
  print("space_clean_mapped_max", d::clean_mapped_max);
  print("space_clean_per_written", d::clean_per_written);
  print("space_clean_rented_max", d::clean_rented_max);
  print("space_clean_drop_commits", d::clean_drop_commits);
  print("space_clean_fault_per_drop", d::clean_fault_per_drop);
  print("space_kept_max", d::kept_max);
  print("space_kept_commits", d::kept_commits);
  print("space_kept_commits_max", d::kept_commits_max);
  print("space_lag_chosen_commits", d::lag_chosen_commits);
  print("space_lag_chosen_pages", d::lag_chosen_pages);
  print("space_kept_pages_min", d::kept_pages_min);
  print("log_bound", d::log_bound);
  print("log_record_header_bytes", sizeof(d::log_record));
  print("json_max_depth", d::json::max_depth);
  print("json_index_min_members", d::json::index_min_members);
  print("json_head_bytes", sizeof(d::json::json_head));
  print("json_ref_bytes", sizeof(d::json::json_ref));
  print("json_member_bytes", sizeof(d::json::json_member));
  print("json_tree_leaf_max", d::json::tree_shape{}.leaf_max);
  print("json_tree_inner_max", d::json::tree_shape{}.inner_max);
  print("json_max_node_entries", d::json::max_node_entries);
  print("json_object_node_max", d::json::object_node_max);
  print("json_max_tree_levels", d::json::max_tree_levels);
  print("json_tree_node_header_bytes", sizeof(d::json::tree_node));
}

}  // namespace

int main() {
  print_pool();
  print_string();
  print_rope();
  print_persist();
}
