// src/json/object_tree.cpp: object trees (format 5, fl/detail/json_format.hpp):
// building both trees bottom-up (import, compact, a flat object that grows
// past leaf_max), the checked read of a node, the descents (member i, a
// key's last member, a rank by separator), and the persistent edit of one
// object (set, add, remove) that copies the nodes on its descent paths.
//
// Both trees are B+-trees edited by position, as array trees are: a node
// keeps between half of and all of its shape's maximum (splits, merges and
// even refills as tree.cpp does), and each inner entry keeps the count of
// leaf entries under its child and the child's first leaf entry (or its
// seq) as separator, recomputed for every node an edit writes. An edit
// finds its position first (the member's index; a key's rank among the
// key entries, by separators), then copies that one path. The member tree
// is ordered by seq and by position at once (members are only appended),
// so a seq's rank is its member's index. Each node an edit copies is added
// to replaced_ as it is read (docs/design.md "Block lifetimes").
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

const store_file::tree_kind store_file::member_tree{member_node_tag,
                                                    sizeof(member_entry),
                                                    sizeof(member_child),
                                                    sizeof(std::uint64_t),
                                                    1,
                                                    node_form::member_leaf,
                                                    node_form::member_inner,
                                                    "an object's member tree"};
const store_file::tree_kind store_file::key_tree{
    key_node_tag,        sizeof(key_entry),    sizeof(key_child),     sizeof(key_entry), 0,
    node_form::key_leaf, node_form::key_inner, "an object's key tree"};

namespace {

// The largest entry of either tree (member_entry, key_child): 40 bytes.
struct oentry {
  unsigned char b[40];
};
static_assert(sizeof(member_entry) == sizeof(oentry) && sizeof(key_child) == sizeof(oentry));

using tree_kind = store_file::tree_kind;

std::uint64_t child_count(const unsigned char* inner) {
  std::uint64_t c;
  std::memcpy(&c, inner + 8, 8);
  return c;
}
std::uint64_t child_node(const unsigned char* inner) {
  std::uint64_t c;
  std::memcpy(&c, inner, 8);
  return c;
}

std::uint64_t add_onode(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                        const tree_kind& t, std::uint16_t level, const void* entries,
                        std::uint32_t count) {
  const std::uint32_t eb = t.entry_bytes(level);
  std::uint64_t at;
  unsigned char* p = add_block(out, base, blocks, object_node_bytes(eb, count), kind::object, count,
                               at, level == 0 ? t.leaf_form : t.inner_form);
  const tree_node h{level, static_cast<std::uint16_t>(count), t.tag};
  std::memcpy(p, &h, sizeof h);
  std::memcpy(p + sizeof h, entries, std::size_t{count} * eb);
  return at;
}

// The inner entry of a node at `level` holding `count` leaf entries whose
// first entry is `first` (its bytes as stored at that level).
oentry inner_entry(const tree_kind& t, std::uint64_t node, std::uint64_t count, std::uint16_t level,
                   const unsigned char* first) {
  oentry e{};
  std::memcpy(e.b, &node, 8);
  std::memcpy(e.b + 8, &count, 8);
  std::memcpy(e.b + 16, first + (level == 0 ? 0 : 16), t.sep_bytes);
  return e;
}

// A tree of `n` leaf entries (contiguous, t.leaf_bytes each) built level
// by level, k nodes sharing each level's entries evenly (floor or ceil of
// n/k, at least half a node when k >= 2). Returns the root's offset.
std::uint64_t build_otree(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                          const tree_kind& t, const unsigned char* leaves, std::size_t n,
                          const tree_shape& shape) {
  std::vector<unsigned char> level;  // the next level's inner entries
  std::size_t m = 0;                 // how many
  std::uint64_t root = 0;
  {
    const std::size_t k = (n + shape.leaf_max - 1) / shape.leaf_max;
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t lo = n * i / k, hi = n * (i + 1) / k;
      const unsigned char* first = leaves + lo * t.leaf_bytes;
      root = add_onode(out, base, blocks, t, 0, first, static_cast<std::uint32_t>(hi - lo));
      const oentry e = inner_entry(t, root, hi - lo, 0, first);
      level.insert(level.end(), e.b, e.b + t.inner_bytes);
    }
    m = k;
  }
  for (std::uint16_t height = 1; m > 1; ++height) {
    const std::size_t k = (m + shape.inner_max - 1) / shape.inner_max;
    std::vector<unsigned char> up;
    for (std::size_t i = 0; i < k; ++i) {
      const std::size_t lo = m * i / k, hi = m * (i + 1) / k;
      std::uint64_t count = 0;
      for (std::size_t j = lo; j < hi; ++j) count += child_count(level.data() + j * t.inner_bytes);
      const unsigned char* first = level.data() + lo * t.inner_bytes;
      root = add_onode(out, base, blocks, t, height, first, static_cast<std::uint32_t>(hi - lo));
      const oentry e = inner_entry(t, root, count, height, first);
      up.insert(up.end(), e.b, e.b + t.inner_bytes);
    }
    level.swap(up);
    m = k;
  }
  return root;
}

}  // namespace

json_ref build_object_tree(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                           const json_member* ms, std::size_t n, std::string_view keys,
                           const tree_shape& shape) {
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("fl::json_store: an object of 2^32 members or more");
  std::vector<member_entry> me(n);
  std::vector<std::string_view> kv(n);
  for (std::size_t i = 0; i < n; ++i) {
    kv[i] = keys.substr(static_cast<std::size_t>(ms[i].key), ms[i].key_len);
    std::uint64_t at = 0;
    if (ms[i].key_len)
      std::memcpy(add_block(out, base, blocks, ms[i].key_len, kind::string, ms[i].key_len, at),
                  kv[i].data(), kv[i].size());
    me[i] = {i, at, ms[i].key_len, 0, ms[i].value};
  }
  std::vector<std::uint32_t> order(n);
  write_member_index(order.data(), static_cast<std::uint32_t>(n),
                     [&](std::uint32_t i) { return kv[i]; });
  std::vector<key_entry> ke(n);
  for (std::size_t j = 0; j < n; ++j) {
    const member_entry& m = me[order[j]];
    ke[j] = {m.key, m.key_len, 0, m.seq};
  }
  object_tree h;
  h.tag = object_tree_tag;
  h.members = build_otree(out, base, blocks, store_file::member_tree,
                          reinterpret_cast<const unsigned char*>(me.data()), n, shape);
  h.keys = build_otree(out, base, blocks, store_file::key_tree,
                       reinterpret_cast<const unsigned char*>(ke.data()), n, shape);
  h.next_seq = n;
  json_ref r{static_cast<std::uint8_t>(kind::object), {}, static_cast<std::uint32_t>(n), 0};
  std::memcpy(
      add_block(out, base, blocks, sizeof h, kind::object, r.n, r.x, node_form::object_head), &h,
      sizeof h);
  r.set_tree(true);
  return r;
}

store_file::node_view store_file::read_onode(const tree_kind& t, std::uint64_t off,
                                             std::uint64_t limit, int level) const {
  node_view v;
  std::memcpy(&v.h, bytes(off, sizeof(tree_node), limit), sizeof v.h);
  if (v.h.tag != t.tag) damaged(std::string(t.name) + " refers to bytes that are not its node");
  if (v.h.count == 0 || v.h.count > max_node_entries)
    damaged(std::string(t.name) + "'s node holds " + std::to_string(v.h.count) + " entries");
  if (level < 0 ? v.h.level < t.root_min_level || v.h.level >= max_tree_levels
                : v.h.level != static_cast<unsigned>(level))
    damaged(std::string(t.name) + "'s levels are out of order");
  v.entries =
      bytes(off, object_node_bytes(t.entry_bytes(v.h.level), v.h.count), limit) + sizeof(tree_node);
  return v;
}

object_tree store_file::object_head(const json_ref& o, std::uint64_t limit) const {
  object_tree h;
  std::memcpy(&h, bytes(o.x, sizeof h, limit), sizeof h);
  if (h.tag != object_tree_tag) damaged("an object tree refers to bytes that are not its head");
  return h;
}

member_entry store_file::read_member_entry(std::uint64_t off, std::uint64_t limit) const {
  member_entry m;
  std::memcpy(&m, bytes(off, sizeof m, limit), sizeof m);
  if (!valid_kind(m.value.k)) damaged("a value of unknown kind " + std::to_string(m.value.k));
  return m;
}

std::uint64_t store_file::member_offset(const json_ref& o, std::uint64_t limit, std::uint64_t i,
                                        child_hint* leaf) const {
  const std::uint64_t index = i;
  std::uint64_t off = object_head(o, limit).members;
  int level = -1;
  for (;;) {
    const node_view nv = read_onode(member_tree, off, limit, level);
    if (nv.h.level == 0) {
      if (i >= nv.h.count) damaged("an object's member tree's counts disagree with its leaves");
      if (leaf) *leaf = {index - i, nv.h.count, off + sizeof(tree_node)};
      return off + sizeof(tree_node) + i * sizeof(member_entry);
    }
    std::uint32_t j = 0;
    for (; j < nv.h.count; ++j) {
      const std::uint64_t c = child_count(nv.entries + std::size_t{j} * sizeof(member_child));
      if (i < c) break;
      i -= c;
    }
    if (j == nv.h.count) damaged("an object's member tree's counts disagree with its size");
    off = child_node(nv.entries + std::size_t{j} * sizeof(member_child));
    level = nv.h.level - 1;
  }
}

template <class Cmp>
store_file::rank_result store_file::rank_in(const tree_kind& t, std::uint64_t root,
                                            std::uint64_t limit, const Cmp& cmp) const {
  rank_result r;
  std::uint64_t off = root;
  int level = -1;
  for (;;) {
    const node_view nv = read_onode(t, off, limit, level);
    const std::uint32_t eb = t.entry_bytes(nv.h.level), n = nv.h.count;
    if (nv.h.level == 0) {
      // The entries below the target (binary search: a leaf is sorted).
      std::uint32_t lo = 0, hi = n;
      while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (cmp(nv.entries + std::size_t{mid} * eb) < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      r.rank += lo;
      if (lo > 0) {
        r.has_prev = true;
        std::memcpy(r.prev, nv.entries + std::size_t{lo - 1} * eb, eb);
      }
      if (lo < n) {
        r.has_at = true;
        std::memcpy(r.at, nv.entries + std::size_t{lo} * eb, eb);
      }
      return r;
    }
    // The last child whose first entry is not above the target (the first
    // child when none is): what lies below the target is in it or before.
    std::uint32_t lo = 0, hi = n;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (cmp(nv.entries + std::size_t{mid} * eb + 16) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    const std::uint32_t j = lo ? lo - 1 : 0;
    for (std::uint32_t k = 0; k < j; ++k) r.rank += child_count(nv.entries + std::size_t{k} * eb);
    off = child_node(nv.entries + std::size_t{j} * eb);
    level = nv.h.level - 1;
  }
}

namespace {

// A key_entry (or the separator that copies one) against the target (key,
// seq), in key_order then seq.
struct key_cmp {
  const store_file& f;
  std::uint64_t limit;
  std::string_view key;
  std::uint64_t seq;
  int operator()(const unsigned char* sep) const {
    key_entry e;
    std::memcpy(&e, sep, sizeof e);
    const std::string_view k = f.key_bytes(e.key, e.key_len, limit);
    const int c =
        key_order(k.data(), e.key_len, key.data(), static_cast<std::uint32_t>(key.size()));
    if (c) return c;
    return e.seq < seq ? -1 : e.seq > seq ? 1 : 0;
  }
};
struct seq_cmp {
  std::uint64_t seq;
  int operator()(const unsigned char* sep) const {
    std::uint64_t s;
    std::memcpy(&s, sep, 8);
    return s < seq ? -1 : s > seq ? 1 : 0;
  }
};

}  // namespace

std::size_t store_file::find_tree_member(const json_ref& o, std::uint64_t limit,
                                         std::string_view key, member_entry* found) const {
  const object_tree h = object_head(o, limit);
  const rank_result kr =
      rank_in(key_tree, h.keys, limit, key_cmp{*this, limit, key, ~std::uint64_t{0}});
  if (!kr.has_prev) return std::string_view::npos;
  key_entry e;
  std::memcpy(&e, kr.prev, sizeof e);
  if (key_bytes(e.key, e.key_len, limit) != key) return std::string_view::npos;
  const rank_result mr = rank_in(member_tree, h.members, limit, seq_cmp{e.seq});
  member_entry m;
  std::memcpy(&m, mr.at, sizeof m);
  if (!mr.has_at || mr.rank >= o.n || m.seq != e.seq || m.key != e.key || m.key_len != e.key_len)
    damaged("an object's key tree names a member its member tree lacks");
  if (!valid_kind(m.value.k)) damaged("a value of unknown kind " + std::to_string(m.value.k));
  if (found) *found = m;
  return static_cast<std::size_t>(mr.rank);
}

namespace {

struct ocontent {
  std::uint16_t level = 0;
  std::vector<oentry> e;
};

// Two halves of an overfull node's entries.
std::vector<ocontent> halves(const ocontent& c) {
  const auto h = static_cast<std::ptrdiff_t>(c.e.size() / 2);
  return {ocontent{c.level, {c.e.begin(), c.e.begin() + h}},
          ocontent{c.level, {c.e.begin() + h, c.e.end()}}};
}

// One positional edit of one tree of an object (the recursive part is
// tree.cpp's tree_editor over entries of the tree's sizes): `v` set at,
// inserted before, or removed from leaf position `pos`. `expect`, for set
// and remove, is the leaf entry the caller found there; a different one
// (counts that lie) is damage.
class otree_editor {
 public:
  otree_editor(store_file& f, std::uint64_t limit, const tree_shape& s, const tree_kind& t,
               store_file::op what, const oentry& v, const oentry* expect)
      : f_(f), limit_(limit), shape_(s), t_(t), what_(what), v_(v), expect_(expect) {}

  std::uint32_t max_of(std::uint16_t level) const {
    return level == 0 ? shape_.leaf_max : shape_.inner_max;
  }
  std::uint64_t count(const ocontent& c) const {
    if (c.level == 0) return c.e.size();
    std::uint64_t n = 0;
    for (const oentry& x : c.e) n += child_count(x.b);
    return n;
  }
  ocontent take(std::uint64_t off, int level) {
    const store_file::node_view nv = f_.read_onode(t_, off, limit_, level);
    const std::uint32_t eb = t_.entry_bytes(nv.h.level);
    ocontent c{nv.h.level, std::vector<oentry>(nv.h.count)};
    for (std::uint32_t j = 0; j < nv.h.count; ++j)
      std::memcpy(c.e[j].b, nv.entries + std::size_t{j} * eb, eb);
    f_.add_replaced_block(off, object_node_bytes(eb, nv.h.count));
    return c;
  }
  oentry put(const ocontent& c) {
    const std::uint32_t eb = t_.entry_bytes(c.level);
    std::vector<unsigned char> buf(c.e.size() * eb);
    for (std::size_t j = 0; j < c.e.size(); ++j) std::memcpy(buf.data() + j * eb, c.e[j].b, eb);
    const std::uint64_t node = add_onode(f_.tail_, f_.tail_base_, f_.tail_blocks_, t_, c.level,
                                         buf.data(), static_cast<std::uint32_t>(c.e.size()));
    return inner_entry(t_, node, count(c), c.level, c.e[0].b);
  }

  ocontent update(std::uint64_t off, int level, std::uint64_t pos, bool root) {
    ocontent c = take(off, level);
    const bool insert = what_ == store_file::op::insert;
    if (c.level == 0) {
      if (pos > c.e.size() || (!insert && pos == c.e.size()))
        f_.damaged(std::string(t_.name) + "'s counts disagree with its leaves");
      const auto at = c.e.begin() + static_cast<std::ptrdiff_t>(pos);
      if (!insert && expect_ && std::memcmp(at->b, expect_->b, t_.leaf_bytes) != 0)
        f_.damaged(std::string(t_.name) + " does not hold the entry its descent found");
      if (insert)
        c.e.insert(at, v_);
      else if (what_ == store_file::op::remove)
        c.e.erase(at);
      else
        *at = v_;
      return c;
    }
    std::size_t j = 0;
    for (; j < c.e.size(); ++j) {
      const std::uint64_t n = child_count(c.e[j].b);
      if (pos < n || (insert && pos == n && j + 1 == c.e.size())) break;
      pos -= n;
    }
    if (j == c.e.size()) f_.damaged(std::string(t_.name) + "'s counts disagree with its size");
    const std::uint64_t old_count = child_count(c.e[j].b);
    ocontent sub = update(child_node(c.e[j].b), c.level - 1, pos, false);
    const std::uint64_t want = old_count + (insert ? 1 : 0) - (what_ == store_file::op::remove);
    if (count(sub) != want) f_.damaged(std::string(t_.name) + "'s counts disagree with its leaves");
    const std::uint32_t max = max_of(sub.level), min = max / 2;
    std::vector<ocontent> pieces;
    std::size_t first = j, span = 1;
    if (sub.e.size() > max) {
      pieces = halves(sub);
    } else if (sub.e.size() < min && c.e.size() > 1) {
      const std::size_t k = j + 1 < c.e.size() ? j + 1 : j - 1;
      ocontent sib = take(child_node(c.e[k].b), sub.level);
      ocontent both{sub.level, {}};
      const ocontent& left = k > j ? sub : sib;
      const ocontent& right = k > j ? sib : sub;
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
    std::vector<oentry> written;
    for (const ocontent& p : pieces) written.push_back(put(p));
    const auto at = c.e.begin() + static_cast<std::ptrdiff_t>(first);
    c.e.erase(at, at + static_cast<std::ptrdiff_t>(span));
    c.e.insert(c.e.begin() + static_cast<std::ptrdiff_t>(first), written.begin(), written.end());
    return c;
  }

  // The new root written (a root that overflows gains a level), after
  // checking that it holds the `want` leaf entries the object counts.
  std::uint64_t put_root(ocontent r, std::uint64_t want) {
    if (r.e.empty() || count(r) != want)
      f_.damaged(std::string(t_.name) + "'s counts disagree with its object's size");
    if (r.e.size() > max_of(r.level)) {
      if (r.level + 1 >= static_cast<int>(max_tree_levels))
        throw std::length_error("fl::json_store: an object tree deeper than the format allows");
      const std::vector<ocontent> two = halves(r);
      r = ocontent{static_cast<std::uint16_t>(r.level + 1), {put(two[0]), put(two[1])}};
    }
    return child_node(put(r).b);
  }

 private:
  store_file& f_;
  std::uint64_t limit_;
  tree_shape shape_;
  const tree_kind& t_;
  store_file::op what_;
  oentry v_;
  const oentry* expect_;
};

oentry as_oentry(const void* p, std::size_t n) {
  oentry e{};
  std::memcpy(e.b, p, n);
  return e;
}

}  // namespace

json_ref store_file::edit_object_tree(const json_ref& o, std::uint64_t limit, std::size_t pos,
                                      op what, const json_ref& v, std::string_view key) {
  const object_tree h = object_head(o, limit);
  const tree_shape shape = current_tree_shape();
  object_tree h2 = h;
  std::uint32_t n2 = o.n;
  if (what == op::set) {
    const member_entry m = read_member_entry(member_offset(o, limit, pos), limit);
    member_entry m2 = m;
    m2.value = v;
    const oentry want = as_oentry(&m, sizeof m);
    otree_editor ed(*this, limit, shape, member_tree, op::set, as_oentry(&m2, sizeof m2), &want);
    h2.members = ed.put_root(ed.update(h.members, -1, pos, true), n2);
  } else if (what == op::add) {
    if (n2 == std::numeric_limits<std::uint32_t>::max() || h.next_seq == ~std::uint64_t{0})
      throw std::length_error("fl::json_store: container too large");
    ++n2;
    // Its rank among the keys: after every entry of an equal key (whose
    // seqs are all below next_seq).
    const rank_result kr = rank_in(key_tree, h.keys, limit, key_cmp{*this, limit, key, h.next_seq});
    member_entry m{h.next_seq, 0, static_cast<std::uint32_t>(key.size()), 0, v};
    if (!key.empty())
      std::memcpy(new_block(key.size(), kind::string, m.key_len, m.key), key.data(), key.size());
    const key_entry k{m.key, m.key_len, 0, m.seq};
    otree_editor med(*this, limit, shape, member_tree, op::insert, as_oentry(&m, sizeof m),
                     nullptr);
    h2.members = med.put_root(med.update(h.members, -1, o.n, true), n2);
    otree_editor ked(*this, limit, shape, key_tree, op::insert, as_oentry(&k, sizeof k), nullptr);
    h2.keys = ked.put_root(ked.update(h.keys, -1, kr.rank, true), n2);
    ++h2.next_seq;
  } else {
    --n2;
    const member_entry m = read_member_entry(member_offset(o, limit, pos), limit);
    const std::string k(key_bytes(m.key, m.key_len, limit));  // the tail may move
    if (m.key_len) add_replaced_block(m.key, m.key_len);
    const oentry want = as_oentry(&m, sizeof m);
    otree_editor med(*this, limit, shape, member_tree, op::remove, {}, &want);
    ocontent mr = med.update(h.members, -1, pos, true);
    if (mr.level == 0) {
      if (mr.e.size() != n2) damaged("an object's member tree's counts disagree with its size");
      // One leaf left: the object is a flat table again (at most leaf_max
      // members), its keys copied into the table's block. Every block of
      // the tree goes: the key tree's nodes (which this edit did not
      // copy), the keys, the member tree's nodes (taken above).
      auto retire = [&](std::uint64_t off, std::uint64_t payload) {
        add_replaced_block(off, payload);
      };
      auto none = [](const unsigned char*) {};
      if (walk_onode(key_tree, h.keys, limit, -1, retire, none) != o.n)
        damaged("an object tree's key count disagrees with its size");
      std::vector<json_member> ms;
      std::string keys;
      for (const oentry& e : mr.e) {
        member_entry x;
        std::memcpy(&x, e.b, sizeof x);
        ms.push_back({keys.size(), x.key_len, 0, x.value});
        keys.append(key_bytes(x.key, x.key_len, limit));
        if (x.key_len) add_replaced_block(x.key, x.key_len);
      }
      return new_flat_object(ms, keys, nullptr);
    }
    const rank_result kr = rank_in(key_tree, h.keys, limit, key_cmp{*this, limit, k, m.seq});
    const key_entry ke{m.key, m.key_len, 0, m.seq};
    if (!kr.has_at || std::memcmp(kr.at, &ke, sizeof ke) != 0)
      damaged("an object's key tree lacks a member of its member tree");
    const oentry kwant = as_oentry(&ke, sizeof ke);
    h2.members = med.put_root(std::move(mr), n2);
    otree_editor ked(*this, limit, shape, key_tree, op::remove, {}, &kwant);
    h2.keys = ked.put_root(ked.update(h.keys, -1, kr.rank, true), n2);
  }
  json_ref r{static_cast<std::uint8_t>(kind::object), {}, n2, 0};
  std::memcpy(add_block(tail_, tail_base_, tail_blocks_, sizeof h2, kind::object, n2, r.x,
                        node_form::object_head),
              &h2, sizeof h2);
  r.set_tree(true);
  return r;
}

}  // namespace json
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
