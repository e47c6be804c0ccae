// src/json/tree.cpp: array trees (format 4, fl/detail/json_format.hpp):
// building one bottom-up (import, compact, a flat array that grows past
// leaf_max), the checked read of a node, the descent to element i, and the
// persistent edit that copies the nodes on one descent path.
//
// The edit keeps the B+-tree bounds that make it O(log n): every node but
// the root holds between half of and all of its shape's maximum (a split
// makes two halves of an overfull node; an underfull one merges with a
// sibling, or both are refilled evenly when they hold more than one node
// can), the root is an inner node of at least two children, and a tree
// that shrinks to one leaf becomes a flat table. Each node it copies (the
// path, and the sibling of a merge) is added to replaced_ as it is read,
// before anything is written to the space: the block-lifetime rule of
// docs/design.md, for trees.
#include "json/store_file.hpp"

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

std::uint64_t add_tree_node(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                            std::uint16_t level, const void* entries, std::uint32_t count) {
  std::uint64_t at;
  unsigned char* p = add_block(out, base, blocks, tree_node_bytes(count), kind::array, count, at,
                               level == 0 ? node_form::leaf : node_form::inner);
  const tree_node h{level, static_cast<std::uint16_t>(count), tree_node_tag};
  std::memcpy(p, &h, sizeof h);
  std::memcpy(p + sizeof h, entries, std::size_t{count} * sizeof(json_ref));
  return at;
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
  node_view v;
  std::memcpy(&v.h, bytes(off, sizeof(tree_node), limit), sizeof v.h);
  if (v.h.tag != tree_node_tag) damaged("an array tree refers to bytes that are not a node");
  if (v.h.count == 0 || v.h.count > max_node_entries)
    damaged("an array tree's node holds " + std::to_string(v.h.count) + " entries");
  if (level < 0 ? v.h.level == 0 || v.h.level >= max_tree_levels
                : v.h.level != static_cast<unsigned>(level))
    damaged("an array tree's levels are out of order");
  v.entries = bytes(off, tree_node_bytes(v.h.count), limit) + sizeof(tree_node);
  return v;
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

// A node's entries as an edit rebuilds them: json_ref elements at level 0,
// tree_child records above, both 16 bytes as stored.
struct entry {
  unsigned char b[sizeof(json_ref)];
};
static_assert(sizeof(entry) == sizeof(json_ref) && sizeof(entry) == sizeof(tree_child));

entry as_entry(const void* p) {
  entry e;
  std::memcpy(e.b, p, sizeof e.b);
  return e;
}
tree_child child_at(const entry& e) {
  tree_child c;
  std::memcpy(&c, e.b, sizeof c);
  return c;
}

struct content {
  std::uint16_t level = 0;
  std::vector<entry> e;
  std::uint64_t count() const {
    if (level == 0) return e.size();
    std::uint64_t n = 0;
    for (const entry& x : e) n += child_at(x).count;
    return n;
  }
};

// Two halves of an overfull node's entries.
std::vector<content> halves(const content& c) {
  const std::size_t h = c.e.size() / 2;
  return {content{c.level, {c.e.begin(), c.e.begin() + static_cast<std::ptrdiff_t>(h)}},
          content{c.level, {c.e.begin() + static_cast<std::ptrdiff_t>(h), c.e.end()}}};
}

// The recursive part of store_file::edit_tree, over the store's tail.
class tree_editor {
 public:
  tree_editor(store_file& f, std::uint64_t limit, const tree_shape& s, store_file::op what,
              const json_ref& v)
      : f_(f), limit_(limit), shape_(s), what_(what), v_(v) {}

  std::uint32_t max_of(std::uint16_t level) const {
    return level == 0 ? shape_.leaf_max : shape_.inner_max;
  }

  // Node `off` (at `level`, < 0 for the root), copied: added to replaced_.
  content take(std::uint64_t off, int level) {
    const store_file::node_view nv = f_.read_node(off, limit_, level);
    content c{nv.h.level, std::vector<entry>(nv.h.count)};
    std::memcpy(c.e.data(), nv.entries, std::size_t{nv.h.count} * sizeof(entry));
    if (f_.reuse_) f_.add_replaced_block(off, tree_node_bytes(nv.h.count));
    return c;
  }

  entry put(const content& c) {
    const tree_child t{add_tree_node(f_.tail_, f_.tail_base_, f_.tail_blocks_, c.level, c.e.data(),
                                     static_cast<std::uint32_t>(c.e.size())),
                       c.count()};
    return as_entry(&t);
  }

  // The new entries of node `off` after the edit at `pos` below it, not yet
  // written (its parent may merge or split them). For the root (`root`), a
  // collapse returns the content of its only remaining child instead.
  content update(std::uint64_t off, int level, std::uint64_t pos, bool root) {
    content c = take(off, level);
    const bool insert = what_ == store_file::op::insert;
    if (c.level == 0) {
      if (pos > c.e.size() || (!insert && pos == c.e.size()))
        f_.damaged("an array tree's counts disagree with its leaves");
      const auto at = c.e.begin() + static_cast<std::ptrdiff_t>(pos);
      if (insert)
        c.e.insert(at, as_entry(&v_));
      else if (what_ == store_file::op::remove)
        c.e.erase(at);
      else
        *at = as_entry(&v_);
      return c;
    }
    // The child holding `pos`; an append (pos == count) goes to the last.
    std::size_t j = 0;
    for (; j < c.e.size(); ++j) {
      const std::uint64_t n = child_at(c.e[j]).count;
      if (pos < n || (insert && pos == n && j + 1 == c.e.size())) break;
      pos -= n;
    }
    if (j == c.e.size()) f_.damaged("an array tree's counts disagree with its size");
    const tree_child old = child_at(c.e[j]);
    content sub = update(old.node, c.level - 1, pos, false);
    // The count the parent keeps, checked on the path the edit copies (a
    // walk checks them all): the copy's count is derived from its entries.
    const std::uint64_t want = old.count + (insert ? 1 : 0) - (what_ == store_file::op::remove);
    if (sub.count() != want) f_.damaged("an array tree's counts disagree with its leaves");
    const std::uint32_t max = max_of(sub.level), min = max / 2;
    std::vector<content> pieces;
    std::size_t first = j, span = 1;
    if (sub.e.size() > max) {
      pieces = halves(sub);
    } else if (sub.e.size() < min && c.e.size() > 1) {
      // Merge with the next sibling (the previous for the last child), or
      // share both nodes' entries evenly when one node cannot hold them.
      const std::size_t k = j + 1 < c.e.size() ? j + 1 : j - 1;
      content sib = take(child_at(c.e[k]).node, sub.level);
      content both{sub.level, {}};
      const content& left = k > j ? sub : sib;
      const content& right = k > j ? sib : sub;
      both.e = left.e;
      both.e.insert(both.e.end(), right.e.begin(), right.e.end());
      first = std::min(j, k);
      span = 2;
      if (both.e.size() <= max)
        pieces.push_back(std::move(both));
      else
        pieces = halves(both);
    } else if (!sub.e.empty()) {
      pieces.push_back(std::move(sub));
    }
    if (root && span == c.e.size() && pieces.size() == 1) return std::move(pieces[0]);
    std::vector<entry> written;
    for (const content& p : pieces) written.push_back(put(p));
    const auto at = c.e.begin() + static_cast<std::ptrdiff_t>(first);
    c.e.erase(at, at + static_cast<std::ptrdiff_t>(span));
    c.e.insert(c.e.begin() + static_cast<std::ptrdiff_t>(first), written.begin(), written.end());
    return c;
  }

 private:
  store_file& f_;
  std::uint64_t limit_;
  tree_shape shape_;
  store_file::op what_;
  json_ref v_;
};

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
  tree_editor ed(*this, limit, shape, what, v);
  content r = ed.update(a.x, -1, pos, true);
  json_ref out{static_cast<std::uint8_t>(kind::array), {}, static_cast<std::uint32_t>(n2), 0};
  if (r.count() != n2) damaged("an array tree's counts disagree with its size");
  if (r.e.empty()) return out;
  if (r.level == 0) {
    // One leaf left: stored flat, as an array of its size always is.
    unsigned char* dst = new_block(r.e.size() * sizeof(json_ref), kind::array,
                                   static_cast<std::uint32_t>(r.e.size()), out.x);
    std::memcpy(dst, r.e.data(), r.e.size() * sizeof(json_ref));
    return out;
  }
  if (r.e.size() > ed.max_of(r.level)) {
    if (r.level + 1 >= static_cast<int>(max_tree_levels))
      throw std::length_error("fl::json_store: an array tree deeper than the format allows");
    const std::vector<content> two = halves(r);
    content top{static_cast<std::uint16_t>(r.level + 1), {ed.put(two[0]), ed.put(two[1])}};
    r = std::move(top);
  }
  out.x = child_at(ed.put(r)).node;
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
