// src/json/object_tree.cpp: object trees (formats 5 and 6, fl/detail/json_format.hpp):
// building both trees bottom-up (import, compact, a flat object that grows
// past leaf_max), the checked read of a node, the descents (member i, a
// key's last member, a rank by separator), and the persistent edit of one
// object (set, add, remove) that copies the nodes on its descent paths.
//
// Both trees are B+-trees edited by position by tree_edit.hpp's
// tree_editor, as array trees are (over 40-byte entries, nodes of at most
// object_node_max entries): a node keeps between tree_min_entries of its
// shape's maximum and all of it, and each inner entry keeps the count of
// leaf entries under its child and the child's first leaf entry (or its
// seq) as separator, recomputed for every node an edit writes. An edit
// finds its position first (the member's index; a key's rank among the
// key entries, by separators), then copies that one path. The member tree
// is ordered by seq and by position at once (members are only appended),
// so a seq's rank is its member's index. Each node an edit copies is added
// to replaced_ as it is read (docs/design.md "Block lifetimes").
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

const store_file::tree_kind store_file::member_tree{member_node_tag,
                                                    sizeof(member_entry),
                                                    sizeof(member_child),
                                                    sizeof(std::uint64_t),
                                                    1,
                                                    node_form::member_leaf,
                                                    node_form::member_inner,
                                                    "an object's member tree",
                                                    kind::object};
const store_file::tree_kind store_file::key_tree{key_node_tag,
                                                 sizeof(key_entry),
                                                 sizeof(key_child),
                                                 sizeof(key_entry),
                                                 0,
                                                 node_form::key_leaf,
                                                 node_form::key_inner,
                                                 "an object's key tree",
                                                 kind::object};

namespace {

// The largest entry of either tree (member_entry, key_child): 40 bytes.
using oentry = tree_entry<40>;
static_assert(sizeof(member_entry) == sizeof(oentry) && sizeof(key_child) == sizeof(oentry));

using tree_kind = store_file::tree_kind;

}  // namespace

object_loader::object_loader(tree_shape shape, const std::filesystem::path* scratch_dir,
                             format_rules rules)
    : members_(store_file::member_tree, object_node_shape(shape)),
      keys_tree_(store_file::key_tree, object_node_shape(shape)),
      keys_(scratch_dir, rules) {}

void object_loader::add(const tree_loader::sink& s, const json_member* m, std::size_t n,
                        std::string_view keys) {
  if (members_.size() + n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("fl::json_store: an object of 2^32 members or more");
  // In batches of one node, so the entries wait in a buffer of that size.
  member_entry batch[object_node_max];
  for (std::size_t done = 0; done < n;) {
    const std::size_t b = std::min<std::size_t>(n - done, object_node_max);
    for (std::size_t i = 0; i < b; ++i) {
      const json_member& x = m[done + i];
      const std::string_view key = keys.substr(static_cast<std::size_t>(x.key), x.key_len);
      std::uint64_t at = 0;
      if (x.key_len)
        std::memcpy(add_block(s.out, s.base, s.blocks, x.key_len, kind::string, x.key_len, at),
                    key.data(), x.key_len);
      const std::uint64_t seq = members_.size() + i;
      batch[i] = {seq, at, x.key_len, 0, x.value};
      keys_.add(at, key, static_cast<std::uint32_t>(seq));
    }
    members_.add(s, batch, b);
    done += b;
  }
}

json_ref object_loader::finish(const std::function<tree_loader::sink()>& next) {
  const std::uint64_t n = members_.size();
  object_tree h;
  h.tag = object_tree_tag;
  h.members = members_.finish(next());
  keys_.finish([&](const key_entry* e, std::size_t b) { keys_tree_.add(next(), e, b); });
  h.keys = keys_tree_.finish(next());
  h.next_seq = n;
  json_ref r{static_cast<std::uint8_t>(kind::object), {}, static_cast<std::uint32_t>(n), 0};
  const tree_loader::sink s = next();
  std::memcpy(add_block(s.out, s.base, s.blocks, sizeof h, kind::object, r.n, r.x,
                        node_form::object_head),
              &h, sizeof h);
  r.set_tree(true);
  return r;
}

json_ref build_object_tree(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                           const json_member* ms, std::size_t n, std::string_view keys,
                           const tree_shape& shape, format_rules rules) {
  // Nodes of object_node_max entries at most; `shape.leaf_max` (the flat
  // table's bound, below n) is above that, so the member tree's root is an
  // inner node.
  object_loader o(shape, nullptr, rules);
  const tree_loader::sink s{out, base, blocks};
  o.add(s, ms, n, keys);
  return o.finish([&] { return s; });
}

store_file::node_view store_file::read_onode(const tree_kind& t, std::uint64_t off,
                                             std::uint64_t limit, int level) const {
  node_view v;
  // The head's page, once checked, is not checked again for the entries
  // that lie in it (most nodes lie in one page).
  std::uint64_t page = ~std::uint64_t{0};
  std::memcpy(&v.h, bytes_in(off, sizeof(tree_node), limit, page), sizeof v.h);
  if (v.h.tag != t.tag) damaged(std::string(t.name) + " refers to bytes that are not its node");
  if (v.h.count == 0 || v.h.count > max_node_entries)
    damaged(std::string(t.name) + "'s node holds " + std::to_string(v.h.count) + " entries");
  if (level < 0 ? v.h.level < t.root_min_level || v.h.level >= max_tree_levels
                : v.h.level != static_cast<unsigned>(level))
    damaged(std::string(t.name) + "'s levels are out of order");
  v.entries = bytes_in(off, object_node_bytes(t.entry_bytes(v.h.level), v.h.count), limit, page) +
              sizeof(tree_node);
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

void store_file::prefetch(std::uint64_t off, std::uint64_t len) const noexcept {
  if (off == 0 || off >= tail_base_ || len > tail_base_ - off) return;
  const char* p = space_->get(fptr<const char>(off));
  for (std::uint64_t at = 0; at < len; at += 64) __builtin_prefetch(p + at);
}

template <class Cmp>
store_file::rank_result store_file::rank_in(const tree_kind& t, std::uint64_t root,
                                            std::uint64_t limit, const Cmp& cmp, bool ranked,
                                            tree_path* path, bool ahead) const {
  rank_result r;
  std::uint64_t off = root;
  int level = -1;
  if (path) {
    path->root = root;
    path->depth = 0;
  }
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
      if (path && path->root != 0) {
        path->leaf = off;
        path->leaf_first = r.rank;
        if (!ranked || path->depth == 0) path->root = 0;  // nothing for an edit to skip
      }
      if (ranked) r.rank += lo;
      if (lo > 0) {
        r.has_prev = true;
        std::memcpy(r.prev, nv.entries + std::size_t{lo - 1} * eb, eb);
      }
      if (lo < n) {
        r.has_at = true;
        std::memcpy(r.at, nv.entries + std::size_t{lo} * eb, eb);
        r.at_offset = off + sizeof(tree_node) + std::uint64_t{lo} * eb;
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
    if (ranked)
      for (std::uint32_t k = 0; k < j; ++k) r.rank += child_count(nv.entries + std::size_t{k} * eb);
    const unsigned char* e = nv.entries + std::size_t{j} * eb;
    if (path && path->root != 0) {
      if (path->depth == tree_path::max_steps) {
        path->root = 0;
      } else {
        path->steps[path->depth++] = {off, nv.entries, nv.h.level, n, j};
      }
    }
    off = child_node(e);
    level = nv.h.level - 1;
    // A leaf holds the entries its parent counts under it; an inner node,
    // up to the shape's most.
    if (ahead)
      prefetch(off, object_node_bytes(t.entry_bytes(static_cast<std::uint32_t>(level)),
                                      level == 0
                                          ? std::min<std::uint64_t>(child_count(e), object_node_max)
                                          : object_node_max));
  }
}

namespace {

// A key_entry (or the separator that copies one) against the target (key,
// its hash in the store's format, seq), in the key tree's order then seq.
struct key_cmp {
  key_cmp(const store_file& file, std::uint64_t at_limit, std::string_view target,
          std::uint32_t target_hash, std::uint64_t target_seq)
      : f(file),
        limit(at_limit),
        key(target),
        hash(target_hash),
        seq(target_seq),
        prefix(key_tree_prefix(target.size(), target_hash)) {}
  const store_file& f;
  std::uint64_t limit;
  std::string_view key;
  std::uint32_t hash;
  std::uint64_t seq;
  std::uint64_t prefix;  // the target's key_tree_prefix, once a lookup
  int operator()(const unsigned char* sep) const {
    key_entry e;
    std::memcpy(&e, sep, sizeof e);
    // The entry holds its key's length and hash, which settle the order of
    // nearly every pair: the bytes, a block elsewhere in the file (a page to
    // fault in and check in a big store), are read only for a key equal to
    // the target in both (in format 5, whose hashes are 0, for a key of the
    // target's length).
    const std::uint64_t pe = key_tree_prefix(e.key_len, e.hash);
    if (pe != prefix) return pe < prefix ? -1 : 1;
    const int c = key_tree_order(f.key_bytes(e.key, e.key_len, limit), e.hash, key, hash);
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

namespace {

// The most members an object may have for a lookup to skip prefetching its
// nodes (store_file::rank_in). Below it the nodes a loop of lookups keeps
// visiting stay in the caches, and so do the page-table entries that map
// them, and the prefetches only cost instructions: with them a find took 5%
// longer at 1,000 members, 8% at 100,000, 3% at a million (a set 8% less).
// At 10 million members (trees of some 640 MB, whose page tables alone
// outgrow the caches) a set took a quarter less time, and a find between
// rounds of sets and commits 30% less (a find in a loop of finds, level;
// docs/performance.md).
constexpr std::uint64_t prefetch_min_members = std::uint64_t{1} << 20;

// The last member named `key` in object tree `o`: its entry and, when
// `ranked`, its position; false when there is none.
bool tree_member(const store_file& f, const format_rules& rules, const json_ref& o,
                 std::uint64_t limit, std::string_view key, bool ranked, member_entry& found,
                 std::uint64_t& rank, store_file::rank_result* key_rank = nullptr,
                 std::uint64_t* found_at = nullptr, store_file::tree_path* key_path = nullptr,
                 store_file::tree_path* member_path = nullptr) {
  const object_tree h = f.object_head(o, limit);
  const std::uint32_t hash = rules.key_hash(key);
  // The key tree's rank is wanted only by an edit (key_rank): the member's
  // position is its rank in the member tree.
  const bool ahead = o.n > prefetch_min_members;
  const store_file::rank_result kr = f.rank_in(store_file::key_tree, h.keys, limit,
                                               key_cmp{f, limit, key, hash, ~std::uint64_t{0}},
                                               key_rank != nullptr, key_path, ahead);
  if (key_rank) *key_rank = kr;
  if (!kr.has_prev) return false;
  key_entry e;
  std::memcpy(&e, kr.prev, sizeof e);
  // The entry before an absent key (an add's lookup) mostly differs in
  // length or hash, which the entry holds: its key's bytes, a block
  // elsewhere in the file and a cache miss in a big object, are read only
  // when both agree, and then nearly always match (keys of one length and
  // hash are rare), so the member tree is descended before they are
  // compared: in a big object the key's line comes in while the descent
  // waits for its own.
  if (key_tree_prefix(e.key_len, e.hash) != key_tree_prefix(key.size(), hash)) return false;
  if (ahead) f.prefetch(e.key, e.key_len);
  const store_file::rank_result mr = f.rank_in(store_file::member_tree, h.members, limit,
                                               seq_cmp{e.seq}, ranked, member_path, ahead);
  if (f.key_bytes(e.key, e.key_len, limit) != key) {
    if (member_path) member_path->root = 0;  // another key's member
    return false;
  }
  member_entry m;
  std::memcpy(&m, mr.at, sizeof m);
  if (!mr.has_at || (ranked && mr.rank >= o.n) || m.seq != e.seq || m.key != e.key ||
      m.key_len != e.key_len)
    f.damaged("an object's key tree names a member its member tree lacks");
  if (!valid_kind(m.value.k)) f.damaged("a value of unknown kind " + std::to_string(m.value.k));
  found = m;
  rank = mr.rank;
  if (found_at) *found_at = mr.at_offset;
  return true;
}

}  // namespace

std::size_t store_file::find_tree_member(const json_ref& o, std::uint64_t limit,
                                         std::string_view key) const {
  member_entry m;
  std::uint64_t rank = 0;
  if (!tree_member(*this, rules_, o, limit, key, true, m, rank)) return std::string_view::npos;
  return static_cast<std::size_t>(rank);
}

std::size_t store_file::find_tree_member_to_edit(const json_ref& o, std::uint64_t limit,
                                                 std::string_view key, bool member_path) {
  lookup_ = {};
  member_path_.root = 0;  // none unless the member tree is descended for it
  std::uint64_t rank = 0;
  const bool found =
      tree_member(*this, rules_, o, limit, key, true, lookup_.m, rank, &lookup_.key,
                  &lookup_.m_offset, &key_path_, member_path ? &member_path_ : nullptr);
  lookup_.valid = true;
  lookup_.found = found;
  lookup_.obj = o.x;
  lookup_.n = o.n;
  lookup_.pos = static_cast<std::size_t>(rank);
  return found ? static_cast<std::size_t>(rank) : std::string_view::npos;
}

bool store_file::find_tree_entry(const json_ref& o, std::uint64_t limit, std::string_view key,
                                 member_entry& found) const {
  std::uint64_t rank = 0;
  return tree_member(*this, rules_, o, limit, key, false, found, rank);
}

namespace {

using otree_editor = tree_editor<40>;
using ocontent = tree_content<40>;

// The new root of tree `t` written, after checking that it holds the `want`
// leaf entries the object counts.
std::uint64_t put_checked_root(store_file& f, otree_editor& ed, const tree_kind& t, ocontent r,
                               std::uint64_t want) {
  if (r.e.empty() || ed.count(r) != want)
    f.damaged(std::string(t.name) + "'s counts disagree with its object's size");
  return ed.put_root(std::move(r));
}

oentry as_oentry(const void* p, std::size_t n) {
  oentry e{};
  std::memcpy(e.b, p, n);
  return e;
}

}  // namespace

json_ref store_file::edit_object_tree(const json_ref& o, std::uint64_t limit, std::size_t pos,
                                      op what, const json_ref& v, std::string_view key,
                                      std::uint64_t wanted_seq) {
  const object_tree h = object_head(o, limit);
  const tree_shape shape = object_node_shape(current_tree_shape());
  object_tree h2 = h;
  std::uint32_t n2 = o.n;
  if (what == op::set) {
    const member_entry m =
        lookup_.at(o, pos) ? lookup_.m : read_member_entry(member_offset(o, limit, pos), limit);
    member_entry m2 = m;
    m2.value = v;
    const oentry want = as_oentry(&m, sizeof m);
    otree_editor ed(*this, limit, shape, member_tree, op::set, as_oentry(&m2, sizeof m2), &want);
    if (!ed.in_place(h.members, pos, o.n, lookup_.at(o, pos) ? &member_path_ : nullptr))
      h2.members = put_checked_root(*this, ed, member_tree, ed.update(h.members, -1, pos, true, o.n), n2);
  } else if (what == op::add || what == op::insert) {
    if (n2 == std::numeric_limits<std::uint32_t>::max() || h.next_seq == ~std::uint64_t{0})
      throw std::length_error("fl::json_store: container too large");
    // Document order is seq order: an added member takes next_seq, one put
    // before member `pos` a seq between its neighbours': its own when it is
    // free there (a rollback puts members back in the reverse order of
    // their removal, so each finds its seq free), else the middle one.
    const std::size_t at = what == op::add ? o.n : pos;
    std::uint64_t seq = h.next_seq;
    if (at < o.n) {
      const std::uint64_t above = read_member_entry(member_offset(o, limit, at), limit).seq;
      const std::uint64_t free_from =
          at > 0 ? read_member_entry(member_offset(o, limit, at - 1), limit).seq + 1 : 0;
      if (above <= free_from) return rebuild_object_tree(o, limit, at, v, key);
      seq = wanted_seq >= free_from && wanted_seq < above ? wanted_seq
                                                          : free_from + (above - free_from) / 2;
    }
    ++n2;
    // Its rank among the keys: after every entry of an equal key and a
    // lower seq.
    const std::uint32_t hash = rules_.key_hash(key);
    // An add's lookup found its rank above every seq: the same place, as
    // every seq is below next_seq.
    rank_result kr;
    const tree_path* key_path = nullptr;
    if (what == op::add && lookup_.names(o) && !lookup_.found) {
      kr.rank = lookup_.key.rank;
      key_path = &key_path_;
    } else {
      kr = rank_in(key_tree, h.keys, limit, key_cmp{*this, limit, key, hash, seq}, true);
    }
    member_entry m{seq, 0, static_cast<std::uint32_t>(key.size()), 0, v};
    if (!key.empty())
      std::memcpy(new_block(key.size(), kind::string, m.key_len, m.key), key.data(), key.size());
    const key_entry k{m.key, m.key_len, hash, m.seq};
    otree_editor med(*this, limit, shape, member_tree, op::insert, as_oentry(&m, sizeof m),
                     nullptr);
    if (!med.in_place(h.members, at, o.n))
      h2.members = put_checked_root(*this, med, member_tree, med.update(h.members, -1, at, true, o.n), n2);
    otree_editor ked(*this, limit, shape, key_tree, op::insert, as_oentry(&k, sizeof k), nullptr);
    if (!ked.in_place(h.keys, kr.rank, o.n, key_path))
      h2.keys = put_checked_root(*this, ked, key_tree, ked.update(h.keys, -1, kr.rank, true, o.n), n2);
    if (seq == h.next_seq) ++h2.next_seq;
  } else {
    --n2;
    const member_entry m =
        lookup_.at(o, pos) ? lookup_.m : read_member_entry(member_offset(o, limit, pos), limit);
    const std::string k(key_bytes(m.key, m.key_len, limit));  // the tail may move
    if (m.key_len) add_replaced_block(m.key, m.key_len);
    const oentry want = as_oentry(&m, sizeof m);
    otree_editor med(*this, limit, shape, member_tree, op::remove, {}, &want);
    const bool members_in_place =
        med.in_place(h.members, pos, o.n, lookup_.at(o, pos) ? &member_path_ : nullptr);
    ocontent mr = members_in_place ? ocontent{} : med.update(h.members, -1, pos, true, o.n);
    if (!members_in_place && mr.level == 0) {
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
    const std::uint32_t hash = rules_.key_hash(k);
    // The lookup found this member as the last of its key: its key entry is
    // the one before the lookup's rank.
    rank_result kr;
    const tree_path* key_path = nullptr;
    if (lookup_.at(o, pos) && lookup_.key.has_prev && lookup_.key.rank > 0) {
      kr.rank = lookup_.key.rank - 1;
      kr.has_at = true;
      std::memcpy(kr.at, lookup_.key.prev, sizeof kr.at);
      key_path = &key_path_;
    } else {
      kr = rank_in(key_tree, h.keys, limit, key_cmp{*this, limit, k, hash, m.seq}, true);
    }
    const key_entry ke{m.key, m.key_len, hash, m.seq};
    if (!kr.has_at || std::memcmp(kr.at, &ke, sizeof ke) != 0)
      damaged("an object's key tree lacks a member of its member tree");
    const oentry kwant = as_oentry(&ke, sizeof ke);
    if (!members_in_place) h2.members = put_checked_root(*this, med, member_tree, std::move(mr), n2);
    otree_editor ked(*this, limit, shape, key_tree, op::remove, {}, &kwant);
    if (!ked.in_place(h.keys, kr.rank, o.n, key_path))
      h2.keys = put_checked_root(*this, ked, key_tree, ked.update(h.keys, -1, kr.rank, true, o.n), n2);
  }
  json_ref r{static_cast<std::uint8_t>(kind::object), {}, n2, 0};
  r.set_tree(true);
  // The head kept where it is when both trees kept their roots (an erase
  // in place) or when it is writable (store_file::writable); else a new one.
  const bool same_head = std::memcmp(&h2, &h, sizeof h) == 0;
  if (same_head || writable(o.x)) {
    if (!same_head) stage_write(o.x, &h2, sizeof h2, node_form::object_head);
    keep_table(o);
    r.x = o.x;
    return r;
  }
  std::memcpy(add_block(tail_, tail_base_, tail_blocks_, sizeof h2, kind::object, n2, r.x,
                        node_form::object_head),
              &h2, sizeof h2);
  return r;
}

json_ref store_file::rebuild_object_tree(const json_ref& o, std::uint64_t limit, std::size_t pos,
                                         const json_ref& v, std::string_view key) {
  std::vector<json_member> ms;
  std::string keys;
  const auto add = [&](std::string_view k, const json_ref& value) {
    ms.push_back({keys.size(), static_cast<std::uint32_t>(k.size()), 0, value});
    keys.append(k);
  };
  // The head is on the edit's path (find_replaced_table); the nodes and the
  // keys go with it.
  walk_object(
      o, limit, true,
      [&](std::uint64_t off, std::uint64_t payload) {
        if (off != o.x) add_replaced_block(off, payload);
      },
      [&](const member_entry& m) {
        if (ms.size() == pos) add(key, v);
        add(key_bytes(m.key, m.key_len, limit), m.value);
      });
  if (ms.size() == pos) add(key, v);
  return new_object(ms, keys, nullptr);
}

}  // namespace json
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
