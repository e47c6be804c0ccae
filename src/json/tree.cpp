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

unsigned char* add_kind_node_room(byte_buffer& out, std::uint64_t base,
                                  std::vector<tail_block>& blocks, const store_file::tree_kind& t,
                                  std::uint16_t level, std::uint32_t count, std::uint64_t& at) {
  unsigned char* p = add_block(out, base, blocks, object_node_bytes(t.entry_bytes(level), count),
                               t.block_kind, count, at, level == 0 ? t.leaf_form : t.inner_form);
  const tree_node h{level, static_cast<std::uint16_t>(count), t.tag};
  std::memcpy(p, &h, sizeof h);
  return p + sizeof h;
}

std::uint64_t add_kind_node(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                            const store_file::tree_kind& t, std::uint16_t level,
                            const void* entries, std::uint32_t count) {
  std::uint64_t at;
  std::memcpy(add_kind_node_room(out, base, blocks, t, level, count, at), entries,
              std::size_t{count} * t.entry_bytes(level));
  return at;
}

std::uint64_t add_tree_node(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                            std::uint16_t level, const void* entries, std::uint32_t count) {
  return add_kind_node(out, base, blocks, store_file::array_tree, level, entries, count);
}

void tree_loader::make_node(const sink& s, std::size_t h, const unsigned char* first,
                            std::size_t n) {
  std::uint64_t leaves = n;
  if (h != 0) {
    leaves = 0;
    for (std::size_t i = 0; i < n; ++i) leaves += child_count(first + i * t_->inner_bytes);
  }
  const std::uint64_t node = add_kind_node(s.out, s.base, s.blocks, *t_,
                                           static_cast<std::uint16_t>(h), first,
                                           static_cast<std::uint32_t>(n));
  const tree_entry<40> e = inner_entry<40>(*t_, node, leaves, static_cast<std::uint16_t>(h), first);
  if (levels_.size() == h + 1) levels_.emplace_back();
  levels_[h + 1].insert(levels_[h + 1].end(), e.b, e.b + t_->inner_bytes);
}

void tree_loader::add(const sink& s, const void* entries, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(entries);
  levels_[0].insert(levels_[0].end(), p, p + n * t_->leaf_bytes);
  count_ += n;
  // Each level keeps at least max entries pending, so that the nodes
  // finish() makes of them are at least half full.
  for (std::size_t h = 0; h < levels_.size(); ++h) {
    const std::size_t eb = t_->entry_bytes(static_cast<std::uint32_t>(h)), max = max_at(h);
    std::size_t made = 0;
    while (levels_[h].size() / eb - made >= 2 * max) {
      make_node(s, h, levels_[h].data() + made * eb, max);
      made += max;
    }
    if (made == 0) break;  // no new entry above
    levels_[h].erase(levels_[h].begin(), levels_[h].begin() + static_cast<std::ptrdiff_t>(made * eb));
  }
}

std::uint64_t tree_loader::finish(const sink& s) {
  for (std::size_t h = 0;; ++h) {
    const std::vector<unsigned char> level = std::move(levels_[h]);
    const std::size_t eb = t_->entry_bytes(static_cast<std::uint32_t>(h));
    const std::size_t m = level.size() / eb;
    if (h != 0 && h + 1 == levels_.size() && m == 1) {
      levels_.assign(1, {});
      count_ = 0;
      return child_node(level.data());
    }
    // k nodes share the level's entries evenly (floor or ceil of m/k each).
    const std::size_t k = (m + max_at(h) - 1) / max_at(h);
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t lo = m * i / k, hi = m * (i + 1) / k;
      make_node(s, h, level.data() + lo * eb, hi - lo);
    }
  }
}

json_ref build_array_tree(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                          const json_ref* e, std::size_t n, const tree_shape& shape) {
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("fl::json_store: an array of 2^32 elements or more");
  // n > leaf_max makes two leaves at least, so the root is an inner node.
  tree_loader t(store_file::array_tree, shape);
  const tree_loader::sink s{out, base, blocks};
  t.add(s, e, n);
  json_ref r{static_cast<std::uint8_t>(kind::array), {}, static_cast<std::uint32_t>(n), t.finish(s)};
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
  json_ref out{static_cast<std::uint8_t>(kind::array), {}, static_cast<std::uint32_t>(n2), 0};
  if (ed.in_place(a.x, pos, a.n)) {
    out.x = a.x;
    out.set_tree(true);
    return out;
  }
  array_editor::content r = ed.update(a.x, -1, pos, true, a.n);
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
  if (rules_.trees && n2 > shape.leaf_max)
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
