// src/json/tree_edit.hpp: the one persistent edit of a B+-tree of blocks by
// position, shared by array trees (tree.cpp) and both trees of an object
// (object_tree.cpp): an entry set at, inserted before, or removed from leaf
// position `pos`, copying the nodes on the descent path into the tail.
//
// The rebalance keeps the bounds that make an edit O(log n): every node but
// the root holds between tree_min_entries of its shape's maximum (a
// quarter) and all of it (an overfull node splits evenly; an underfull one
// merges with a sibling, or both are refilled evenly when one node cannot
// hold them), and each inner entry keeps its child, the leaf entries under
// it and, for object trees, its separator (the child's first leaf entry, or
// its seq), recomputed for every node the edit writes. The trees differ
// only in what tree_kind says: tag, entry sizes, separator bytes, the
// block's kind and forms. Each node the edit copies (the path, and the
// sibling of a merge) is added to replaced_ as it is read, before anything
// is written to the space (the block-lifetime rule of docs/design.md).
#pragma once

#include "json/store_file.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

// An inner entry starts {child node, leaf entries under it}, in every tree.
inline std::uint64_t child_count(const unsigned char* inner) {
  std::uint64_t c;
  std::memcpy(&c, inner + 8, 8);
  return c;
}
inline std::uint64_t child_node(const unsigned char* inner) {
  std::uint64_t c;
  std::memcpy(&c, inner, 8);
  return c;
}

// A node of tree `t` at `level` and `count` entries in the tail, its
// header written; returns where its entries go (t.entry_bytes(level) each),
// its offset in `at`.
unsigned char* add_kind_node_room(byte_buffer& out, std::uint64_t base,
                                  std::vector<tail_block>& blocks, const store_file::tree_kind& t,
                                  std::uint16_t level, std::uint32_t count, std::uint64_t& at);
// The same node, its entries copied from `entries`; returns its offset.
std::uint64_t add_kind_node(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                            const store_file::tree_kind& t, std::uint16_t level,
                            const void* entries, std::uint32_t count);

// An entry as an edit moves it: `B` bytes, the largest entry of its trees.
template <std::size_t B>
struct tree_entry {
  unsigned char b[B];
};
static_assert(sizeof(tree_entry<16>) == 16 && sizeof(tree_entry<40>) == 40,
              "a run of entries of B bytes is a node's entries as stored");

// `n` entries of `eb` bytes from `from` (one every `from_step` bytes) to
// `to` (one every `to_step`): a node's entries into entries padded to B
// (tree_entry), and back. Entries as wide as their steps (an array's at
// every level; an object's member leaves and key tree's inner nodes) are
// one copy; 24-byte ones are spelled out so that each is a few moves, not a
// call (a node is up to 255 entries, copied twice a level by every edit).
inline void copy_entries(unsigned char* to, std::size_t to_step, const unsigned char* from,
                         std::size_t from_step, std::size_t n, std::uint32_t eb) {
  if (to_step == eb && from_step == eb) {
    std::memcpy(to, from, n * eb);
  } else if (eb == 24) {
    for (std::size_t j = 0; j < n; ++j) std::memcpy(to + j * to_step, from + j * from_step, 24);
  } else {
    for (std::size_t j = 0; j < n; ++j) std::memcpy(to + j * to_step, from + j * from_step, eb);
  }
}

// The inner entry of a node at `level` holding `count` leaf entries whose
// first entry is `first` (its bytes as stored at that level).
template <std::size_t B>
tree_entry<B> inner_entry(const store_file::tree_kind& t, std::uint64_t node, std::uint64_t count,
                          std::uint16_t level, const unsigned char* first) {
  tree_entry<B> e{};
  std::memcpy(e.b, &node, 8);
  std::memcpy(e.b + 8, &count, 8);
  // A separator follows {node, count} only in entries wider than that
  // (object trees'); an array's inner entry is those 16 bytes alone.
  if constexpr (B > 16) {
    if (t.sep_bytes) std::memcpy(e.b + 16, first + (level == 0 ? 0 : 16), t.sep_bytes);
  }
  return e;
}

template <std::size_t B>
struct tree_content {
  static constexpr std::uint64_t unknown = ~std::uint64_t{0};
  std::uint16_t level = 0;
  std::vector<tree_entry<B>> e;
  // An inner node's leaf entries (the sum of its children's counts), kept
  // by the edit that changes e, or `unknown` until count() sums them once.
  // A node of 255 children was summed twice a level (the copy's check, its
  // parent's entry), and the root's twice more.
  mutable std::uint64_t total = unknown;
  // The entries [fix_first, fix_end) are the only ones that may name a
  // block in the tail (tail_block): those the edit wrote. Every entry of a
  // node it made some other way (a split, a merge, a new root).
  std::uint32_t fix_first = 0, fix_end = ~std::uint32_t{0};
  void wrote(std::size_t first, std::size_t n) noexcept {
    fix_first = static_cast<std::uint32_t>(first);
    fix_end = static_cast<std::uint32_t>(first + n);
  }
};

// An overfull node's entries in pieces of at most `max`, evenly: two
// halves after one insert or a merge, more for a node an older writer made
// bigger than the shape in use.
template <std::size_t B>
std::vector<tree_content<B>> split_evenly(const tree_content<B>& c, std::uint32_t max) {
  const std::size_t n = c.e.size(), k = std::max<std::size_t>(2, (n + max - 1) / max);
  std::vector<tree_content<B>> out;
  out.reserve(k);
  for (std::size_t i = 0; i < k; ++i)
    out.push_back(tree_content<B>{c.level,
                                  {c.e.begin() + static_cast<std::ptrdiff_t>(n * i / k),
                                   c.e.begin() + static_cast<std::ptrdiff_t>(n * (i + 1) / k)}});
  return out;
}

// One positional edit of one tree over the store's tail: `v` set at,
// inserted before, or removed from leaf position `pos`. `expect`, for set
// and remove, is the leaf entry the caller found there (its first
// t.leaf_bytes bytes); a different one (counts that lie) is damage.
template <std::size_t B>
class tree_editor {
 public:
  using entry = tree_entry<B>;
  using content = tree_content<B>;
  // An inner node on in_place()'s path: the entry of the child it took.
  struct step {
    std::uint64_t off;
    std::uint16_t level;
    std::uint32_t j;
    entry e;  // that entry, as stored
  };

  tree_editor(store_file& f, std::uint64_t limit, const tree_shape& s,
              const store_file::tree_kind& t, store_file::op what, const entry& v,
              const entry* expect)
      : f_(f), limit_(limit), shape_(s), t_(t), what_(what), v_(v), expect_(expect) {}

  std::uint32_t max_of(std::uint16_t level) const {
    return level == 0 ? shape_.leaf_max : shape_.inner_max;
  }
  // The leaf entries under `n` inner entries one every `stride` bytes (a
  // node's as stored, or a content's padded to B).
  static std::uint64_t sum_counts(const unsigned char* first, std::size_t stride, std::size_t n) {
    std::uint64_t sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += child_count(first + j * stride);
    return sum;
  }
  static std::uint64_t sum_counts(const entry* first, std::size_t n) {
    return sum_counts(first->b, B, n);
  }
  // The child of an inner node (`n` entries one every `stride` bytes, holding
  // `recorded` leaf entries) that holds leaf position `pos`, which becomes
  // the position in that child; `n` when the counts put it past the end.
  // An append (an insert at `recorded`) goes to the last child without a
  // walk of the counts (a count that lies is caught by the caller's check).
  std::size_t child_at(const unsigned char* first, std::size_t stride, std::size_t n,
                       std::uint64_t recorded, std::uint64_t& pos) const {
    const bool insert = what_ == store_file::op::insert;
    if (insert && pos == recorded && n != 0) {
      pos = child_count(first + (n - 1) * stride);
      return n - 1;
    }
    std::size_t j = 0;
    for (; j < n; ++j) {
      const std::uint64_t c = child_count(first + j * stride);
      if (pos < c || (insert && pos == c && j + 1 == n)) break;
      pos -= c;
    }
    return j;
  }
  // Leaf content `c` with the edit made at `pos`.
  void edit_leaf(content& c, std::uint64_t pos) const {
    const auto at = c.e.begin() + static_cast<std::ptrdiff_t>(pos);
    if (what_ == store_file::op::insert)
      c.e.insert(at, v_);
    else if (what_ == store_file::op::remove)
      c.e.erase(at);
    else
      *at = v_;
    if (what_ != store_file::op::remove) c.wrote(pos, 1);
  }
  std::uint64_t count(const content& c) const {
    if (c.level == 0) return c.e.size();
    if (c.total == content::unknown) c.total = sum_counts(c.e.data(), c.e.size());
    return c.total;
  }

  // Node `off` (at `level`, < 0 for the root), copied: added to replaced_.
  content take(std::uint64_t off, int level) {
    const store_file::node_view nv = f_.read_onode(t_, off, limit_, level);
    const std::uint32_t eb = t_.entry_bytes(nv.h.level);
    // Room for the entry an insert or a split below adds: a full node's
    // vector would otherwise grow to twice its size, a second allocation
    // and copy of the whole node.
    content c{nv.h.level, {}};
    c.e.reserve(std::size_t{nv.h.count} + 1);
    c.e.resize(nv.h.count);
    copy_entries(c.e.data()->b, B, nv.entries, eb, nv.h.count, eb);
    c.wrote(0, 0);  // a node of the space names no block of the tail
    if (f_.rules_.reuse) f_.add_replaced_block(off, object_node_bytes(eb, nv.h.count));
    return c;
  }

  // `c` written as a node in the tail; its parent's entry for it.
  entry put(const content& c) {
    std::uint64_t node;
    unsigned char* p = add_kind_node_room(f_.tail_, f_.tail_base_, f_.tail_blocks_, t_, c.level,
                                          static_cast<std::uint32_t>(c.e.size()), node);
    const std::uint32_t eb = t_.entry_bytes(c.level);
    copy_entries(p, eb, c.e.data()->b, B, c.e.size(), eb);
    f_.tail_blocks_.back().fix_first = c.fix_first;
    f_.tail_blocks_.back().fix_end = c.fix_end;
    return inner_entry<B>(t_, node, count(c), c.level, c.e[0].b);
  }

  // The new entries of node `off` after the edit at `pos` below it, not yet
  // written (its parent may merge or split them). For the root (`root`), a
  // collapse returns the content of its only remaining child instead.
  // `recorded`: the leaf entries under the node as its parent (or, for the
  // root, its container) counts them; the edit's checks hold it to that.
  content update(std::uint64_t off, int level, std::uint64_t pos, bool root,
                 std::uint64_t recorded) {
    content c = take(off, level);
    const bool insert = what_ == store_file::op::insert;
    if (c.level == 0) {
      if (pos > c.e.size() || (!insert && pos == c.e.size()))
        f_.damaged(std::string(t_.name) + "'s counts disagree with its leaves");
      const auto at = c.e.begin() + static_cast<std::ptrdiff_t>(pos);
      if (!insert && expect_ && std::memcmp(at->b, expect_->b, t_.leaf_bytes) != 0)
        f_.damaged(std::string(t_.name) + " does not hold the entry its descent found");
      edit_leaf(c, pos);
      return c;
    }
    // The child holding `pos` (a count that lies is caught by the check
    // below, or the root's).
    const std::size_t j = child_at(c.e.data()->b, B, c.e.size(), recorded, pos);
    if (j == c.e.size()) f_.damaged(std::string(t_.name) + "'s counts disagree with its size");
    const std::uint64_t old_count = child_count(c.e[j].b);
    content sub = update(child_node(c.e[j].b), c.level - 1, pos, false, old_count);
    // The count the parent keeps, checked on the path the edit copies (a
    // walk checks them all): the copy's count is derived from its entries.
    const std::uint64_t want = old_count + (insert ? 1 : 0) - (what_ == store_file::op::remove);
    if (count(sub) != want) f_.damaged(std::string(t_.name) + "'s counts disagree with its leaves");
    const std::uint32_t max = max_of(sub.level), min = tree_min_entries(max);
    if (!sub.e.empty() && sub.e.size() <= max && (sub.e.size() >= min || c.e.size() == 1)) {
      // The child keeps its shape (most edits): its copy's entry replaces
      // the old one, the general case below without its vectors.
      if (root && c.e.size() == 1) return sub;
      const entry w = put(sub);
      if (c.total != content::unknown) c.total = c.total - old_count + child_count(w.b);
      c.e[j] = w;
      c.wrote(j, 1);
      return c;
    }
    std::vector<content> pieces;
    std::size_t first = j, span = 1;
    if (sub.e.size() > max) {
      pieces = split_evenly(sub, max);
    } else if (sub.e.size() < min && c.e.size() > 1) {
      // Merge with the next sibling (the previous for the last child), or
      // share both nodes' entries evenly when one node would be full: a
      // merge that filled its node made the next insert there split it
      // again, and an erase and an add of one key (a cache's churn)
      // alternated a split and a merge, each copying two nodes and their
      // parent.
      const std::size_t k = j + 1 < c.e.size() ? j + 1 : j - 1;
      content sib = take(child_node(c.e[k].b), sub.level);
      content both{sub.level, {}};
      const content& left = k > j ? sub : sib;
      const content& right = k > j ? sib : sub;
      both.e.reserve(left.e.size() + right.e.size());
      both.e = left.e;
      both.e.insert(both.e.end(), right.e.begin(), right.e.end());
      first = std::min(j, k);
      span = 2;
      if (both.e.size() < max)
        pieces.push_back(std::move(both));
      else
        pieces = split_evenly(both, max);
    }  // else an empty child: its entry goes (a child that keeps its shape returned above)
    if (root && span == c.e.size() && pieces.size() == 1) return std::move(pieces[0]);
    std::vector<entry> written;
    for (const content& p : pieces) written.push_back(put(p));
    const auto at = c.e.begin() + static_cast<std::ptrdiff_t>(first);
    // The total changes by what the edit moved below the span it rewrote.
    if (c.total != content::unknown)
      c.total = c.total - sum_counts(&*at, span) + sum_counts(written.data(), written.size());
    c.e.erase(at, at + static_cast<std::ptrdiff_t>(span));
    c.e.insert(c.e.begin() + static_cast<std::ptrdiff_t>(first), written.begin(), written.end());
    c.wrote(first, written.size());
    return c;
  }

  // The edit made in place, when the root is writable (store_file::writable:
  // born since the last commit, or any node once enough edits wait for it)
  // and the leaf keeps between tree_min_entries of its shape's maximum and
  // all of it (within its block), so that no node splits, merges or moves:
  // staged as writes (store_file::in_place_) of the leaf's entries and count
  // and of each inner entry whose count or separator changes; the nodes
  // under the first one on the path that is not writable are copied, and the
  // entry of the writable node above them is written. The tree keeps its
  // root. Anything update() would find wrong (a count that lies, an entry other
  // than `expect`) returns false, staging nothing, and the update() the
  // caller then makes reports it.
  // `via`: the path a lookup of this tree just recorded (store_file's
  // tree_path), taken for the inner nodes instead of descending again when
  // it leads to the leaf that holds `pos`.
  bool in_place(std::uint64_t root, std::uint64_t pos, std::uint64_t recorded,
                const store_file::tree_path* via = nullptr) {
    const bool insert = what_ == store_file::op::insert;
    const bool remove = what_ == store_file::op::remove;
    step path[max_tree_levels];
    std::size_t depth = 0;
    // The nodes from path[copied] down are copied (the first not writable
    // and those under it); the writable ones above them are written in place.
    std::size_t copied = max_tree_levels;
    std::uint64_t off = root;
    int level = -1;
    // Node `at`, next on the path: whether it is writable (`writable`);
    // false (no edit in place) when the root is not: all copies, update()'s
    // job.
    bool writable = false;
    const auto reach = [&](std::uint64_t at) {
      writable = copied == max_tree_levels && f_.writable(at);
      if (writable) return true;
      if (depth == 0) return false;
      copied = std::min(copied, depth);
      return true;
    };
    // Inner node `at` (`n` entries at `entries`), entered through child j:
    // checked as update() checks it (no more entries than its shape allows,
    // an older writer's being update()'s to split; counts adding up to
    // `recorded`), its entry for child j kept in path[depth]; `recorded`
    // becomes that child's count.
    const auto enter = [&](std::uint64_t at, std::uint16_t lvl, const unsigned char* entries,
                           std::uint32_t n, std::size_t j) {
      const std::uint32_t eb = t_.entry_bytes(lvl);
      if (n > max_of(lvl) || sum_counts(entries, eb, n) != recorded || j >= n ||
          depth == max_tree_levels)
        return false;
      step& p = path[depth++];
      p.off = at;
      p.level = lvl;
      p.j = static_cast<std::uint32_t>(j);
      p.e = entry{};
      std::memcpy(p.e.b, entries + j * eb, eb);
      recorded = child_count(p.e.b);
      return true;
    };
    if (via && via->root == root && via->depth != 0 && pos >= via->leaf_first) {
      const store_file::tree_path::step& last = via->steps[via->depth - 1];
      const std::uint64_t in_leaf = pos - via->leaf_first,
                          leaf_n = child_count(last.entries +
                                               std::size_t{last.j} * t_.entry_bytes(last.level));
      if (in_leaf < leaf_n || (insert && in_leaf == leaf_n)) {
        // The inner nodes as the descent below would read them (read_onode
        // checked them for the lookup), with its checks; `pos` is in the
        // leaf the path reached.
        for (std::uint32_t k = 0; k < via->depth; ++k) {
          const store_file::tree_path::step& v = via->steps[k];
          if (!reach(v.off) || !enter(v.off, v.level, v.entries, v.count, v.j)) return false;
        }
        off = via->leaf;
        level = 0;
        pos = in_leaf;
      }
    }
    for (;;) {
      if (!reach(off)) return false;
      const store_file::node_view nv = f_.read_onode(t_, off, limit_, level);
      const std::uint32_t eb = t_.entry_bytes(nv.h.level), n = nv.h.count;
      if (nv.h.level == 0) {
        if (n > max_of(0) || n != recorded || pos > n || (!insert && pos == n)) return false;
        const unsigned char* at = nv.entries + pos * eb;
        if (!insert && expect_ && std::memcmp(at, expect_->b, t_.leaf_bytes) != 0) return false;
        const std::uint32_t n2 = insert ? n + 1 : remove ? n - 1 : n;
        if (insert &&
            (n2 > max_of(0) || (writable && f_.block_room(off) < object_node_bytes(eb, n2))))
          return false;
        if (remove && (n2 == 0 || (depth > 0 && n2 < tree_min_entries(max_of(0))))) return false;
        // The leaf's first entry after the edit, whose separator its parent
        // keeps.
        const unsigned char* first = pos != 0 ? nv.entries : remove ? nv.entries + eb : v_.b;
        const bool first_moved =
            t_.sep_bytes != 0 && std::memcmp(first, nv.entries, t_.sep_bytes) != 0;
        if (!writable) {
          // The leaf and the inner nodes from path[copied] copied as
          // update() copies them (each keeps its entry count, so none splits
          // or merges); the entry of the writable node above them written in
          // place, and the path above it as below.
          content c = take(off, 0);
          edit_leaf(c, pos);
          const entry new_first = c.e[0];
          bool moved = first_moved;
          entry e = put(c);
          for (std::size_t k = depth; k-- > copied;) {
            content ci = take(path[k].off, path[k].level);
            ci.e[path[k].j] = e;
            ci.wrote(path[k].j, 1);
            e = put(ci);
            moved = moved && path[k].j == 0;
          }
          step& p = path[copied - 1];
          p.e = e;
          stage_inner(p);
          stage_path(path, copied - 1, moved && p.j == 0, new_first.b);
          return true;
        }
        const std::uint64_t e0 = off + sizeof(tree_node);
        if (insert) {
          if (pos < n) f_.stage_shift(e0 + (pos + 1) * eb, e0 + pos * eb, (n - pos) * eb);
          f_.stage_write(e0 + pos * eb, v_.b, eb, t_.leaf_form);
        } else if (remove) {
          if (pos + 1 < n) f_.stage_shift(e0 + pos * eb, e0 + (pos + 1) * eb, (n - pos - 1) * eb);
          const entry zeros{};
          f_.stage_write(e0 + std::uint64_t{n - 1} * eb, zeros.b, eb, node_form::none);
        } else {
          f_.stage_write(e0 + pos * eb, v_.b, eb, t_.leaf_form);
        }
        if (n2 != n) {
          const std::uint16_t c = static_cast<std::uint16_t>(n2);
          f_.stage_write(off + offsetof(tree_node, count), &c, sizeof c, node_form::none);
        }
        stage_path(path, depth, first_moved, first);
        return true;
      }
      const std::size_t j = child_at(nv.entries, eb, n, recorded, pos);
      if (!enter(off, nv.h.level, nv.entries, n, j)) return false;
      off = child_node(path[depth - 1].e.b);
      level = nv.h.level - 1;
    }
  }

  // The writes of in_place() to the inner nodes path[0, depth): each count
  // by one for an insert or a remove, each separator (from `first`, the
  // leaf's new first entry) while the first entry below moved.
  void stage_path(step* path, std::size_t depth, bool moved, const unsigned char* first) {
    const bool resized = what_ != store_file::op::set;
    for (std::size_t k = depth; k-- > 0 && (moved || resized);) {
      step& p = path[k];
      std::uint64_t count = child_count(p.e.b);
      count = what_ == store_file::op::insert ? count + 1 : resized ? count - 1 : count;
      std::memcpy(p.e.b + 8, &count, 8);
      if (moved) std::memcpy(p.e.b + 16, first, t_.sep_bytes);
      stage_inner(p);
      moved = moved && p.j == 0;
    }
  }
  // The entry p.e written over entry p.j of node p.off.
  void stage_inner(const step& p) {
    f_.stage_write(p.off + sizeof(tree_node) + std::uint64_t{p.j} * t_.inner_bytes, p.e.b,
                   t_.inner_bytes, t_.inner_form);
  }

  // The new root `r` (not empty) written: a root that overflows gains a
  // level. Returns its offset.
  std::uint64_t put_root(content r) {
    if (r.e.size() > max_of(r.level)) {
      if (r.level + 1 >= static_cast<int>(max_tree_levels))
        throw std::length_error(std::string("fl::json_store: ") + t_.name +
                                " deeper than the format allows");
      const std::vector<content> parts = split_evenly(r, max_of(r.level));
      content top{static_cast<std::uint16_t>(r.level + 1), {}};
      for (const content& p : parts) top.e.push_back(put(p));
      r = std::move(top);
    }
    return child_node(put(r).b);
  }

 private:
  store_file& f_;
  std::uint64_t limit_;
  tree_shape shape_;
  const store_file::tree_kind& t_;
  store_file::op what_;
  entry v_;
  const entry* expect_;
};

}  // namespace json
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
