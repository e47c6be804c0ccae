// src/json/tree.cpp: array trees (format 4, fl/detail/json_format.hpp):
// building one bottom-up (import, compact, a flat array that grows past
// leaf_max), the checked read of a node (of any tree kind), the descent to
// element i, and the persistent edit, which tree_edit.hpp's tree_editor
// makes over 16-byte entries (json_ref elements, tree_child records).
//
// The edit keeps the B+-tree bounds that make it O(log n) (tree_edit.hpp);
// an array's root is an inner node of at least two children, and a tree
// that shrinks to one leaf becomes a flat table.
#include "json/store_file.hpp"
#include "json/tree_edit.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

namespace {
tree_shape shape_in_use;
}  // namespace

tree_shape current_tree_shape() noexcept { return shape_in_use; }

void set_tree_shape(tree_shape s) {
  // inner_max >= 4 keeps two children in every inner node but the root,
  // which bounds the levels of 2^32 elements below max_tree_levels.
  if (s.leaf_max < 2 || s.inner_max < 4 || s.leaf_max > 1024 || s.inner_max > 1024)
    throw std::invalid_argument(
        "fl::json_store: a tree shape needs 2 <= leaf_max <= 1024 and "
        "4 <= inner_max <= 1024");
  shape_in_use = s;
}

const store_file::tree_kind store_file::array_tree{tree_node_tag,
                                                   sizeof(json_ref),
                                                   sizeof(tree_child),
                                                   0,
                                                   1,
                                                   node_form::leaf,
                                                   node_form::inner,
                                                   "an array tree",
                                                   kind::array};

std::uint64_t add_kind_node(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                            const store_file::tree_kind& t, std::uint16_t level,
                            const void* entries, std::uint32_t count) {
  const std::uint32_t eb = t.entry_bytes(level);
  std::uint64_t at;
  unsigned char* p = add_block(out, base, blocks, object_node_bytes(eb, count), t.block_kind,
                               count, at, level == 0 ? t.leaf_form : t.inner_form);
  const tree_node h{level, static_cast<std::uint16_t>(count), t.tag};
  std::memcpy(p, &h, sizeof h);
  std::memcpy(p + sizeof h, entries, std::size_t{count} * eb);
  return at;
}

std::uint64_t add_tree_node(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                            std::uint16_t level, const void* entries, std::uint32_t count) {
  return add_kind_node(out, base, blocks, store_file::array_tree, level, entries, count);
}

json_ref build_array_tree(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                          const json_ref* e, std::size_t n, const tree_shape& shape) {
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("fl::json_store: an array of 2^32 elements or more");
  // Level by level: k nodes share the entries evenly (each gets floor or
  // ceil of n/k, which is at least half a node when k >= 2).
  std::vector<tree_child> level;
  {
    const std::size_t k = (n + shape.leaf_max - 1) / shape.leaf_max;
    level.reserve(k);
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t lo = n * i / k, hi = n * (i + 1) / k;
      level.push_back(
          {add_tree_node(out, base, blocks, 0, e + lo, static_cast<std::uint32_t>(hi - lo)),
           hi - lo});
    }
  }
  std::uint16_t height = 1;
  // n > leaf_max makes two leaves at least, so the root is an inner node.
  for (;; ++height) {
    const std::size_t m = level.size(), k = (m + shape.inner_max - 1) / shape.inner_max;
    std::vector<tree_child> up;
    up.reserve(k);
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t lo = m * i / k, hi = m * (i + 1) / k;
      std::uint64_t count = 0;
      for (std::size_t j = lo; j < hi; ++j) count += level[j].count;
      up.push_back({add_tree_node(out, base, blocks, height, level.data() + lo,
                                  static_cast<std::uint32_t>(hi - lo)),
                    count});
    }
    level.swap(up);
    if (level.size() == 1) break;
  }
  json_ref r{
      static_cast<std::uint8_t>(kind::array), {}, static_cast<std::uint32_t>(n), level[0].node};
  r.set_tree(true);
  return r;
}

store_file::node_view store_file::read_node(std::uint64_t off, std::uint64_t limit,
                                            int level) const {
  return read_onode(array_tree, off, limit, level);
}

std::uint64_t store_file::element_offset(const json_ref& a, std::uint64_t limit, std::uint64_t i,
                                         child_hint* leaf) const {
  if (!a.tree()) return a.x + i * sizeof(json_ref);
  const std::uint64_t index = i;
  std::uint64_t off = a.x;
  int level = -1;
  for (;;) {
    const node_view nv = read_node(off, limit, level);
    if (nv.h.level == 0) {
      if (i >= nv.h.count) damaged("an array tree's counts disagree with its leaves");
      if (leaf) *leaf = {index - i, nv.h.count, off + sizeof(tree_node)};
      return off + sizeof(tree_node) + i * sizeof(json_ref);
    }
    std::uint32_t j = 0;
    tree_child c;
    for (; j < nv.h.count; ++j) {
      std::memcpy(&c, nv.entries + std::size_t{j} * sizeof c, sizeof c);
      if (i < c.count) break;
      i -= c.count;
    }
    if (j == nv.h.count) damaged("an array tree's counts disagree with its size");
    off = c.node;
    level = nv.h.level - 1;
  }
}

namespace {

using array_editor = tree_editor<sizeof(json_ref)>;
static_assert(sizeof(json_ref) == sizeof(tree_child));

}  // namespace

json_ref store_file::edit_tree(const json_ref& a, std::uint64_t limit, std::uint64_t pos, op what,
                               const json_ref& v) {
  if (what == op::add) what = op::insert;  // an append inserts at a.n
  const tree_shape shape = current_tree_shape();
  std::uint64_t n2 = a.n;
  if (what == op::insert) {
    if (n2 == std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("fl::json_store: container too large");
    ++n2;
  } else if (what == op::remove) {
    --n2;
  }
  array_editor::entry e;
  std::memcpy(e.b, &v, sizeof v);
  array_editor ed(*this, limit, shape, array_tree, what, e, nullptr);
  array_editor::content r = ed.update(a.x, -1, pos, true);
  json_ref out{static_cast<std::uint8_t>(kind::array), {}, static_cast<std::uint32_t>(n2), 0};
  if (ed.count(r) != n2) damaged("an array tree's counts disagree with its size");
  if (r.e.empty()) return out;
  if (r.level == 0) {
    // One leaf left: stored flat, as an array of its size always is.
    unsigned char* dst = new_block(r.e.size() * sizeof(json_ref), kind::array,
                                   static_cast<std::uint32_t>(r.e.size()), out.x);
    std::memcpy(dst, r.e.data(), r.e.size() * sizeof(json_ref));
    return out;
  }
  out.x = ed.put_root(std::move(r));
  out.set_tree(true);
  return out;
}

json_ref store_file::new_array(const json_ref* e, std::size_t n2) {
  const tree_shape shape = current_tree_shape();
  if (trees_ && n2 > shape.leaf_max)
    return build_array_tree(tail_, tail_base_, tail_blocks_, e, n2, shape);
  json_ref r{static_cast<std::uint8_t>(kind::array), {}, static_cast<std::uint32_t>(n2), 0};
  if (n2 == 0) return r;
  unsigned char* dst = new_block(std::uint64_t{n2} * sizeof(json_ref), kind::array, r.n, r.x);
  std::memcpy(dst, e, n2 * sizeof(json_ref));
  return r;
}

}  // namespace json
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
