// src/json/store_file.hpp: the store behind a fl::json_store: its
// fl::mapped_space (laid out as fl/detail/json_format.hpp says), the root, and
// the tail where an edit builds its blocks. One class, its members defined by
// job:
//   read.cpp    bytes reached through json_value, member lookup, pointers
//   edit.cpp    edits by path copying, publishing an edit, retiring blocks
//   dump.cpp    RFC 8259 text of a value
//   store.cpp   the space: create, open, refresh, sync, compact
//   verify.cpp  json_store::verify: the committed document over the space's census
//   tree.cpp    array trees (format 4): building, descent, edits
//   object_tree.cpp  object trees (format 5): building, descent, edits
//
// Edits build their blocks in `tail_` (at offsets from the space's end, as
// labels) and move each into a block of the space (allocate: a free block of
// its class, or the end) when the edit is complete, translating the labels; a
// failed edit leaves the space untouched. What an edit replaces (the old
// copies of the containers on its path, the old value) is retired to the
// space, which reuses it once no state that may be read refers to it, or,
// when an edit since the last commit made it, freed at once (born_).
//
// Threads: one thread at a time (fl/json_store.hpp).
#pragma once

#include "json/json_internal.hpp"
#include "json/offset_set.hpp"

#include <fl/mapped_space.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

inline bool valid_kind(std::uint8_t k) noexcept {
  return k >= static_cast<std::uint8_t>(kind::null_v) &&
         k <= static_cast<std::uint8_t>(kind::object);
}

// A value held entirely in its json_ref (null, booleans, int64, uint64,
// real): it refers to no bytes, so writing it anywhere keeps every
// reference below its container.
inline bool inline_kind(std::uint8_t k) noexcept {
  return k >= static_cast<std::uint8_t>(kind::null_v) && k <= static_cast<std::uint8_t>(kind::real);
}

// An array or an object: a level of nesting (max_depth counts these).
inline bool container_kind(std::uint8_t k) noexcept {
  return k == static_cast<std::uint8_t>(kind::array) ||
         k == static_cast<std::uint8_t>(kind::object);
}

// `p` with `suffix` appended to its last component ("doc" -> "doc.tmp").
std::filesystem::path with_suffix(const std::filesystem::path& p, const char* suffix);

class store_file {
 public:
  std::filesystem::path path_;  // where the store lives once published
  std::optional<mapped_space> space_;
  bool published_ = false;  // false: a new import under path_ + ".tmp", not yet synced
  fptr<json_head> head_;
  json_ref root_;     // head_->root, or the uncommitted new root
  byte_buffer tail_;  // an edit's blocks, for offsets [tail_base_, ...)
  std::vector<tail_block> tail_blocks_;
  // Where publish_edit() placed each of tail_blocks_ in the space; kept
  // between edits for its capacity (an allocation per edit otherwise).
  std::vector<std::uint64_t> placed_;
  std::uint64_t tail_base_ = 0;     // the space's end (a block's start) while tail_ is built
  bool tail_page_checked_ = false;  // the page holding tail_base_ passed checked()
  // What the store's format holds, which its edits keep to: a format-2
  // store is edited without reclaiming (every value with bytes owns its
  // block from format 3), a format-3 store keeps every container flat (big
  // arrays are trees from format 4, big objects from format 5), a format-5
  // store's key entries carry no hash (format 6).
  format_rules rules_;
  // compact(): the store being replaced, kept open (and locked) until the
  // sync() that publishes the compact copy.
  std::optional<mapped_space> old_space_;
  // The change feed (feed.cpp). Format 5: the ring of the newest records
  // (null in older formats, which keep no feed). `pending_` holds the RFC
  // 6902 operations of the edits since the last commit, comma-separated;
  // sync() writes them as the next record. `staged_` is a record written
  // into the space for a commit that has not succeeded yet (a sync() that
  // threw): the next sync() commits it, or rewrites it when edits followed.
  fptr<feed_ring> ring_;
  std::string pending_;
  struct staged_record {
    bool active = false;       // a sequence is staged (a record too, unless the ring keeps none)
    std::uint64_t record = 0;  // its block; 0: none
    std::uint64_t record_bytes = 0;  // its text
    std::uint64_t sequence = 0;
    std::size_t bytes = 0;     // pending_.size() when it was written
  } staged_;
  // The blocks the edit in progress replaces (old container tables on its
  // path, whose children move to the copies, and every block of the value
  // it replaces or removes), found and checked before the edit changes
  // anything, retired once it is published.
  std::vector<std::uint64_t> replaced_;
  // The blocks edits published since the last sync() began: no commit names
  // them and no reader can see them, so one that a later edit replaces is
  // freed at once rather than retired, and the next edit's copies take it
  // back (each class's free list is last in, first out). A run of edits on
  // one path then writes the same few blocks and pages until it commits,
  // where retired copies would come back two commits later, one block on
  // each of many pages, each page a fault to write and a page to commit.
  // Cleared as a sync() starts (from then on a commit may name them: a sync
  // that fails leaves them retired, as before) and by compact().
  offset_set born_;
  // Edits published since the last sync() began (or compact()).
  std::uint64_t edits_since_sync_ = 0;
  // Whether an edit may write over the block at `off` (a tree node on its
  // path, an object tree's head, a table's entry) instead of copying it: a
  // block in born_, or any block once more than in_place_after edits wait
  // for the next commit. Either way only the working document sees the
  // change, as it alone would see a copy: every container has one parent, a
  // view is valid until the next edit, and readers read the file (their own
  // mappings), which a commit changes only where readers allow (pages a
  // reader's older commit needs lag; reader_table.cpp). Why not always: a
  // commit that carries one edit writes fewer pages with copies, which the
  // allocator places in the blocks the last copies freed, than with the
  // path's own nodes, scattered over the file (a durable add at 100k: 7.2
  // writes in place a commit against 10.5, 8 us more CPU). One that carries
  // many touches many pages either way, and in place nothing is copied,
  // allocated or retired, and edits that undo each other leave their pages
  // as they were (500 erases of random members of 10m and their undos:
  // 1,500 pages and 1.75 MB of log a commit copied, 650 pages and 0.2 MB in
  // place).
  static constexpr std::uint64_t in_place_after = 4;
  bool writable(std::uint64_t off) const noexcept {
    return rules_.reuse && (edits_since_sync_ > in_place_after || born_.contains(off));
  }
  // No block writable in place until edits come again: as a commit starts
  // (it may name them) and when the space is replaced (they are another's).
  void forget_writable() noexcept {
    born_.clear();
    edits_since_sync_ = 0;
  }
  // Changes an edit makes in place to writable blocks instead of copying
  // them. Staged while the edit runs (its checks may still refuse it) and
  // made by publish_edit once the tail's blocks have their offsets (a write
  // may name one); a failed edit drops them. A run of edits between two
  // commits then writes over the nodes the first of them copied, where each
  // used to copy them again and free the copies.
  struct staged_write {
    std::uint64_t at = 0;    // the space's bytes written
    std::uint64_t from = 0;  // shift: [from, from + len) moves to `at`
    std::uint32_t len = 0;
    bool shift = false;
    // A write of one entry of this form (its offsets translated from tail
    // labels), or of raw bytes (none).
    node_form form = node_form::none;
    unsigned char b[40] = {};
  };
  // Each made in the vector's own element: one built on the stack by narrow
  // stores and pushed whole was read back by 16-byte loads the CPU cannot
  // forward from those stores (a stall per staged write, most of
  // tree_editor::in_place's time in an add to an object of 1,000 members).
  std::vector<staged_write> in_place_;
  void stage_write(std::uint64_t at, const void* p, std::uint32_t len, node_form form) {
    staged_write& w = in_place_.emplace_back();
    w.at = at;
    w.len = len;
    w.form = form;
    std::memcpy(w.b, p, len);
  }
  void stage_shift(std::uint64_t to, std::uint64_t from, std::uint32_t len) {
    staged_write& w = in_place_.emplace_back();
    w.at = to;
    w.from = from;
    w.len = len;
    w.shift = true;
  }
  // Container `c`, which find_replaced_table gave to replaced_, is kept:
  // the edit changes it in place (or not at all).
  void keep_table(const json_ref& c);
  // Edits that may have moved or freed blocks so far (publish_edit, compact,
  // refresh): views taken at an earlier edition are stale.
  std::uint64_t edition_ = 0;

  store_file() = default;
  store_file(const store_file&) = delete;
  store_file& operator=(const store_file&) = delete;
  ~store_file();

  [[noreturn]] void damaged(const std::string& reason) const { throw persist_error(path_, reason); }
  // The bytes from `off`, an offset the document gave, to the end of the
  // space's live block that holds it: none holds it in a damaged file.
  std::size_t block_room(std::uint64_t off) const;

  std::uint64_t root_limit() const noexcept { return tail_base_ + tail_.size(); }
  // A view of value `r` (whose references lie below `limit`) of the current
  // document.
  json_value view(const json_ref& r, std::uint64_t limit) const {
    return json_value(this, r, limit, stamp());
  }
  json_value root_value() const { return view(root_, root_limit()); }

  // Stale views (fl/json_store.hpp, docs/json_store.md "Views"): the stamp a
  // new view takes, and the check every read of the store through a view
  // makes. Without FL_JSON_CHECK_VIEWS both are empty.
  view_stamp stamp() const noexcept {
#if FL_JSON_CHECK_VIEWS
    return {edition_};
#else
    return {};
#endif
  }
  void check(view_stamp s) const {
#if FL_JSON_CHECK_VIEWS
    if (s.edition != edition_) stale_view(s);
#else
    (void)s;
#endif
  }
  [[noreturn]] void stale_view(view_stamp s) const;  // read.cpp

  // The bytes [off, off + len) of a record that must lie below `limit`,
  // verified (mapped_space::checked). Throws persist_error for a reference
  // outside its bounds or a page that fails its checksum. Inline: every read
  // of a value comes through here.
  const unsigned char* bytes(std::uint64_t off, std::uint64_t len, std::uint64_t limit) const {
    static constexpr unsigned char none[1] = {0};
    if (len == 0) return none;  // an empty string or container has no block
    if (const unsigned char* t = tail_bytes(off, len, limit)) return t;
    return reinterpret_cast<const unsigned char*>(space_->checked(fptr<const void>(off), len));
  }
  // bytes(), for one call that reads many small pieces, most of them in the
  // page of the piece before (a scan of an object's keys): `page` is the
  // page of the caller's last checked read within one page (~0 for none),
  // and a read within it is not checked again. Only within one call of the
  // API: between calls a rollback makes pages unchecked, and a handle taken
  // over in this process throws "superseded" at its next check.
  const unsigned char* bytes_in(std::uint64_t off, std::uint64_t len, std::uint64_t limit,
                                std::uint64_t& page) const {
    if (len == 0) return bytes(off, len, limit);
    if (const unsigned char* t = tail_bytes(off, len, limit)) return t;
    const std::uint64_t first = off / space_page;
    const bool one_page = (off + len - 1) / space_page == first;
    if (one_page && first == page)
      return reinterpret_cast<const unsigned char*>(space_->get(fptr<const void>(off)));
    const std::byte* p = space_->checked(fptr<const void>(off), len);
    if (one_page) page = first;
    return reinterpret_cast<const unsigned char*>(p);
  }

  // The bounds checks of a reference to len > 0 bytes (throws for a damaged
  // one), and its bytes if they are in the tail; nullptr for committed
  // bytes, which the caller reads through the space, checked.
  const unsigned char* tail_bytes(std::uint64_t off, std::uint64_t len, std::uint64_t limit) const {
    if (off == 0 || off > limit || len > limit - off)
      damaged("a reference points outside its container");
    if (off >= tail_base_) {
      if (off - tail_base_ > tail_.size() || len > tail_.size() - (off - tail_base_))
        damaged("a reference points past the data");
      return tail_.data() + (off - tail_base_);
    }
    if (len > tail_base_ - off) damaged("a reference points past the carved blocks");
    return nullptr;
  }

  json_ref read_ref(const unsigned char* p) const {
    json_ref r;
    std::memcpy(&r, p, sizeof r);
    if (!valid_kind(r.k)) damaged("a value of unknown kind " + std::to_string(r.k));
    return r;
  }

  // ---- array trees (tree.cpp) ----

  // A node of an array tree below `limit`, checked: its tag, a count of 1
  // to max_node_entries, and its level (`level` < 0: a root, whose level
  // must lie in [1, max_tree_levels); otherwise exactly `level`). `entries`
  // points at its count 16-byte entries.
  struct node_view {
    tree_node h;
    const unsigned char* entries;
  };
  node_view read_node(std::uint64_t off, std::uint64_t limit, int level) const;
  // The offset of element `i` (< a.n) of array `a` (flat or tree); one
  // descent, O(log n). `leaf`, if given, receives the leaf it found.
  std::uint64_t element_offset(const json_ref& a, std::uint64_t limit, std::uint64_t i,
                               child_hint* leaf = nullptr) const;
  json_ref element_ref(const json_ref& a, std::uint64_t limit, std::uint64_t i) const {
    return read_ref(bytes(element_offset(a, limit, i), sizeof(json_ref), limit));
  }
  // The same, reading from the leaf in `h` when it holds element `i` (an
  // iterator's next element), else descending and keeping the leaf in `h`.
  json_ref element_ref(const json_ref& a, std::uint64_t limit, std::uint64_t i,
                       child_hint& h) const {
    if (!a.tree()) return element_ref(a, limit, i);
    const std::uint64_t off = i - h.first < h.count
                                  ? h.at + (i - h.first) * sizeof(json_ref)
                                  : element_offset(a, limit, i, &h);
    return read_ref(bytes(off, sizeof(json_ref), limit));
  }
  // Every node (node(offset, payload bytes)) and element (element(ref)) of
  // tree array `a`, in order. Bounded: levels fall by one per step and
  // each node holds at most max_node_entries entries. Checks each child's
  // count and the array's size against the elements found, so a walk sees
  // exactly the elements a descent does.
  template <class Node, class Element>
  void walk_tree(const json_ref& a, std::uint64_t limit, Node&& node, Element&& element) const {
    if (walk_node(a.x, limit, -1, node, element) != a.n)
      damaged("an array tree's counts disagree with its size");
  }
  template <class Node, class Element>
  std::uint64_t walk_node(std::uint64_t off, std::uint64_t limit, int level, Node& node,
                          Element& element) const {
    const node_view nv = read_node(off, limit, level);
    node(off, tree_node_bytes(nv.h.count));
    if (nv.h.level == 0) {
      for (std::uint32_t j = 0; j < nv.h.count; ++j)
        element(read_ref(bytes(off + sizeof(tree_node) + std::uint64_t{j} * sizeof(json_ref),
                               sizeof(json_ref), limit)));
      return nv.h.count;
    }
    std::uint64_t total = 0;
    for (std::uint32_t j = 0; j < nv.h.count; ++j) {
      // Re-read per entry: a callback may grow the tail, which moves its
      // bytes (a node in the tail is an uncommitted edit's).
      const unsigned char* e =
          bytes(off + sizeof(tree_node) + std::uint64_t{j} * sizeof(json_ref), sizeof(json_ref),
                limit);
      tree_child c;
      std::memcpy(&c, e, sizeof c);
      if (walk_node(c.node, limit, nv.h.level - 1, node, element) != c.count)
        damaged("an array tree's counts disagree with its leaves");
      total += c.count;
    }
    return total;
  }
  // Array tree `a` with element `pos` replaced by `v` (op set), `v` put
  // before element `pos` (op insert; pos == a.n appends) or element `pos`
  // removed (op remove): copies of the nodes on the descent path (and of a
  // sibling it merges with or borrows from) in the tail, each original
  // added to replaced_. Returns the new array: a tree, or a flat table
  // when it shrank to one leaf.
  enum class op { set, add, remove, insert };
  json_ref edit_tree(const json_ref& a, std::uint64_t limit, std::uint64_t pos, op what,
                     const json_ref& v);

  // ---- object trees (object_tree.cpp) ----

  using tree_kind = json::tree_kind;
  static const tree_kind array_tree, member_tree, key_tree;
  // A node of tree `t` below `limit`, checked as read_node checks an array
  // tree's (`level` < 0: a root, at t.root_min_level or above).
  node_view read_onode(const tree_kind& t, std::uint64_t off, std::uint64_t limit,
                       int level) const;
  // The head block of object tree `o`, checked (its tag).
  object_tree object_head(const json_ref& o, std::uint64_t limit) const;
  // The offset of member i's member_entry (i < o.n); one descent. `leaf`
  // as element_offset's.
  std::uint64_t member_offset(const json_ref& o, std::uint64_t limit, std::uint64_t i,
                              child_hint* leaf = nullptr) const;
  member_entry read_member_entry(std::uint64_t off, std::uint64_t limit) const;
  std::string_view key_bytes(std::uint64_t off, std::uint32_t len, std::uint64_t limit) const {
    return {reinterpret_cast<const char*>(bytes(off, len, limit)), len};
  }
  // Key lookup in object tree `o`: the position of the last member named
  // `key`, or npos. A descent of each tree, O(log n).
  std::size_t find_tree_member(const json_ref& o, std::uint64_t limit, std::string_view key) const;
  // The same lookup when only the member is wanted: its entry into `found`,
  // or false. It counts no positions, so each level of a descent reads the
  // entries its binary search probes, not every entry before the child it
  // takes (a descent of an object of 10m members read some 40 cache lines
  // an inner node for the counts alone).
  bool find_tree_entry(const json_ref& o, std::uint64_t limit, std::string_view key,
                       member_entry& found) const;
  // Where a leaf entry compared with a target would go: `rank` entries are
  // below it (counted only when the descent is `ranked`; else 0); `at`
  // (when `has_at`) is the first entry not below it, in the leaf the
  // descent ended in; `prev` (when `has_prev`) the last below it.
  struct rank_result {
    std::uint64_t rank = 0;
    bool has_at = false, has_prev = false;
    unsigned char at[40] = {}, prev[40] = {};
    std::uint64_t at_offset = 0;  // where `at` lies in its leaf (when has_at)
  };
  // The path of a lookup's descent of one object tree, for the edit of the
  // same tree that follows it in the same edit() (tree_editor::in_place),
  // which would otherwise read the same nodes again: each inner node passed,
  // root first (its offset, level, entries as read_onode checked and mapped
  // them, their count, and the child taken), and the leaf reached (its
  // offset, and the position of its first entry in the tree). The entries
  // stay mapped until the edit publishes (the space grows only then).
  // `root` 0: none (a tree deeper than `steps` holds).
  struct tree_path {
    struct step {
      std::uint64_t off;
      const unsigned char* entries;
      std::uint16_t level;
      std::uint32_t count, j;
    };
    static constexpr std::uint32_t max_steps = 8;
    step steps[max_steps];
    std::uint32_t depth = 0;
    std::uint64_t root = 0, leaf = 0, leaf_first = 0;
  };
  // The final token's lookup in an object tree as edit() makes it, kept for
  // the edit it then makes (entry(), edit_object_tree), which would
  // otherwise descend the same trees again: the member found at `pos` (if
  // `found`), and the key tree's rank result for the key above every seq
  // (the first entry past its last member: where an added member's key
  // goes; the entry before it is the found member's). Valid for object `obj`
  // of `n` members during one edit() only.
  struct edit_lookup {
    bool valid = false, found = false;
    std::uint64_t obj = 0, n = 0;
    std::size_t pos = 0;
    member_entry m;
    std::uint64_t m_offset = 0;  // where `m` lies in its member leaf
    rank_result key;
    bool names(const json_ref& o) const noexcept { return valid && obj == o.x && n == o.n; }
    bool at(const json_ref& o, std::size_t p) const noexcept { return names(o) && found && pos == p; }
  };
  edit_lookup lookup_;
  // The descents of lookup_ (valid with it): the key tree's, and the member
  // tree's when it was asked for.
  tree_path key_path_, member_path_;
  // find_tree_member for edit(), filling lookup_ and key_path_, and with
  // `member_path` member_path_ (not for an inline value, which a found
  // member takes in place: overwrite_entry, no tree edit).
  std::size_t find_tree_member_to_edit(const json_ref& o, std::uint64_t limit, std::string_view key,
                                       bool member_path);
  // Asks the CPU for the `len` committed bytes at `off` (a node, a key),
  // every line at once (object_tree.cpp): a hint, nothing is read, and
  // bytes in the tail or past the carved blocks are left alone.
  void prefetch(std::uint64_t off, std::uint64_t len) const noexcept;
  // `cmp(separator bytes)` < 0, 0, > 0 as the entry is below, at, above the
  // target (a separator is a leaf entry's first t.sep_bytes bytes).
  // With `path` (and `ranked`), the descent is recorded there. With
  // `ahead`, each node below the root is asked for (prefetch()) as
  // soon as its parent names it: for a tree too big to stay in cache, where
  // a binary search over a node not in cache waits for one line after
  // another, four or five a node.
  template <class Cmp>
  rank_result rank_in(const tree_kind& t, std::uint64_t root, std::uint64_t limit, const Cmp& cmp,
                      bool ranked, tree_path* path = nullptr, bool ahead = false) const;
  // Every node (node(offset, payload bytes)) and leaf entry (entry(bytes))
  // of tree `t` under `root`, in order; checks each child's count and
  // returns the leaf entries found. Bounded as walk_tree.
  template <class Node, class Entry>
  std::uint64_t walk_onode(const tree_kind& t, std::uint64_t off, std::uint64_t limit, int level,
                           Node& node, Entry& entry) const {
    const node_view nv = read_onode(t, off, limit, level);
    const std::uint32_t eb = t.entry_bytes(nv.h.level);
    node(off, object_node_bytes(eb, nv.h.count));
    std::uint64_t total = 0;
    for (std::uint32_t j = 0; j < nv.h.count; ++j) {
      // Re-read per entry: a callback may grow the tail (see walk_node).
      const unsigned char* e =
          bytes(off + sizeof(tree_node) + std::uint64_t{j} * eb, eb, limit);
      if (nv.h.level == 0) {
        entry(e);
        ++total;
        continue;
      }
      std::uint64_t child, count;
      std::memcpy(&child, e, 8);
      std::memcpy(&count, e + 8, 8);
      if (walk_onode(t, child, limit, nv.h.level - 1, node, entry) != count)
        damaged(std::string(t.name) + "'s counts disagree with its leaves");
      total += count;
    }
    return total;
  }
  // Every block of object tree `o` (node(offset, payload bytes): the head,
  // both trees' nodes, the keys) and every member (member(entry)), in
  // document order. Checks both trees' totals against o.n.
  template <class Node, class Member>
  void walk_object(const json_ref& o, std::uint64_t limit, bool key_tree_too, Node&& node,
                   Member&& member) const {
    const object_tree h = object_head(o, limit);
    node(o.x, std::uint64_t{sizeof(object_tree)});
    auto on_member = [&](const unsigned char* e) {
      member_entry m;
      std::memcpy(&m, e, sizeof m);
      if (!valid_kind(m.value.k)) damaged("a value of unknown kind");
      if (m.key_len) node(m.key, std::uint64_t{m.key_len});
      member(m);
    };
    if (walk_onode(member_tree, h.members, limit, -1, node, on_member) != o.n)
      damaged("an object tree's member count disagrees with its size");
    if (!key_tree_too) return;
    auto skip = [](const unsigned char*) {};
    if (walk_onode(key_tree, h.keys, limit, -1, node, skip) != o.n)
      damaged("an object tree's key count disagrees with its size");
  }
  // Every child value of container `c` (child(json_ref)), in order, and for
  // a tree the blocks walk_tree and walk_object report (node(offset, payload
  // bytes); `key_tree_too` as walk_object's); nothing for a scalar. The
  // walks that go down a value's containers (find_replaced, nests_within)
  // share it.
  template <class Node, class Child>
  void each_child(const json_ref& c, std::uint64_t limit, bool key_tree_too, Node&& node,
                  Child&& child) const {
    if (!container_kind(c.k)) return;
    const bool array = c.k == static_cast<std::uint8_t>(kind::array);
    if (c.tree()) {
      if (array)
        walk_tree(c, limit, node, child);
      else
        walk_object(c, limit, key_tree_too, node, [&](const member_entry& m) { child(m.value); });
      return;
    }
    if (array) {
      const unsigned char* t = bytes(c.x, std::uint64_t{c.n} * sizeof(json_ref), limit);
      for (std::uint32_t i = 0; i < c.n; ++i)
        child(read_ref(t + std::size_t{i} * sizeof(json_ref)));
      return;
    }
    const unsigned char* t = bytes(c.x, std::uint64_t{c.n} * sizeof(json_member), limit);
    for (std::uint32_t i = 0; i < c.n; ++i) {
      json_member m;
      std::memcpy(&m, t + std::size_t{i} * sizeof m, sizeof m);
      if (!valid_kind(m.value.k)) damaged("a value of unknown kind");
      child(m.value);
    }
  }
  // Object tree `o` with member `pos` set to `v` (op set), `v` added under
  // `key` at the end (op add) or before member `pos` (op insert), or member
  // `pos` removed (op remove): copies of the nodes on the paths and of the
  // head, each original added to replaced_ (and a removed member's key).
  // Returns the new object: a tree, or a flat table when its member tree
  // shrank to one leaf. An insert takes `seq` when it lies between its
  // neighbours' (a member put back where it was taken out), else one in the
  // middle of them; when they are consecutive (the tree was rebuilt since
  // the member was taken out), the object is rebuilt whole
  // (rebuild_object_tree).
  json_ref edit_object_tree(const json_ref& o, std::uint64_t limit, std::size_t pos, op what,
                            const json_ref& v, std::string_view key, std::uint64_t seq = no_index);
  // Object tree `o` copied whole with `v` under `key` put before member
  // `pos`, every block of the old one added to replaced_ (its head by the
  // edit's path): O(n), new seqs in document order.
  json_ref rebuild_object_tree(const json_ref& o, std::uint64_t limit, std::size_t pos,
                               const json_ref& v, std::string_view key);
  // An object of members `ms` (keys: offsets into `keys`) in the tail: a
  // tree when the store's format has them and there are more than leaf_max,
  // else a flat table (new_flat_object, `index` as there).
  json_ref new_object(std::vector<json_member>& ms, const std::string& keys,
                      const unsigned char* index);
  // A flat object table in the tail of members `ms` whose keys are offsets
  // into `keys`; `index`, if given, is the member index to keep (set).
  json_ref new_flat_object(std::vector<json_member>& ms, const std::string& keys,
                           const unsigned char* index);

  // ---- reading (read.cpp) ----

  // Member lookup in object `obj` (below `limit`): the position of the last
  // member named `key`, or npos.
  std::size_t find_member(const json_ref& obj, std::uint64_t limit, std::string_view key) const;
  // The same in an object stored as a table (not a tree), the found
  // member's value into `*value` when asked; `page` as bytes_in's.
  std::size_t find_table_member(const json_ref& obj, std::uint64_t limit, std::string_view key,
                                json_ref* value, std::uint64_t& page) const;
  // The value at pointer `ptr` below `v`, or nullopt.
  std::optional<json_value> lookup(json_value v, std::string_view ptr) const;

  // ---- dump (dump.cpp) ----

  // RFC 8259 text of `v`, no whitespace.
  fl::string dump(const json_value& v) const;

  // ---- edits (edit.cpp) ----

  std::uint64_t tail_offset() const noexcept { return tail_base_ + tail_.size(); }
  // A new block in the tail of `bytes` payload bytes; `at` its offset.
  unsigned char* new_block(std::uint64_t bytes, kind k, std::uint32_t n, std::uint64_t& at) {
    return add_block(tail_, tail_base_, tail_blocks_, bytes, k, n, at);
  }
  // A copy of container `c` in the tail with entry `pos` replaced by `v` (op
  // set), `v` added with key `key` (op add; arrays append), `v` put before
  // entry `pos` (op insert; in an object, under `key`, with `seq` in a tree:
  // edit_object_tree), or entry `pos` removed (op remove).
  // A table of n2 elements `e` for an array in the tail: flat, or a tree
  // when rules_.trees and n2 > leaf_max (a flat array that grows past it).
  json_ref new_array(const json_ref* e, std::size_t n2);
  json_ref copy_container(const json_ref& c, std::uint64_t limit, std::size_t pos, op what,
                          const json_ref& v, std::string_view key, std::uint64_t seq = no_index);
  // Where the value of entry `pos` of container `c` is stored (an array's
  // element, a member's value ref; a descent in a tree).
  std::uint64_t entry_offset(const json_ref& c, std::uint64_t limit, std::size_t pos) const;
  // Entry `pos` of container `c` becomes `v`, an inline value, in place.
  json_ref overwrite_entry(const json_ref& c, std::uint64_t limit, std::size_t pos,
                           const json_ref& v);
  // Entry `pos` of container `c` made `r` without copying `c` (unchanged, or
  // a born table's entry staged in in_place_); false when `c` must be copied.
  bool entry_in_place(const json_ref& c, std::uint64_t limit, std::size_t pos, const json_ref& r);
  // Entry `pos` of container `c`, as stored.
  json_ref entry(const json_ref& c, std::uint64_t limit, std::size_t pos) const;
  // set (v given), insert (v given, `insert`) or erase (v null) at pointer
  // `ptr`; false when erase finds nothing there. With `place` (v given),
  // `ptr` names a member of an object by its key, which is put before
  // member place->pos of that object whatever members the key names already
  // (a removed member put back where it was: apply_patch's undo). With
  // `taken`, the value the edit removes or replaces is not retired but
  // returned there, its blocks still live: the caller puts it back into the
  // document (apply_patch's move, and its undo) by another edit, so that a
  // value moves without a copy, O(log n) however big it is. `height` bounds
  // v's (builder::height(): the containers it nests): v is refused with
  // std::length_error, before anything changes, when it would take the
  // document past max_depth where it goes, and its containers are walked
  // (nests_within) only when the bound does not settle that (a value moved
  // to a deeper place than it came from).
  bool edit(std::string_view ptr, const json_ref* v, bool insert = false,
            const member_place* place = nullptr, json_ref* taken = nullptr,
            std::uint32_t height = max_depth);
  // Whether value `r` nests at most `room` containers, one in the other (a
  // walk of its containers that stops below `room` levels; bounded by the
  // live blocks as find_replaced is).
  bool nests_within(const json_ref& r, std::uint64_t limit, std::uint32_t room) const;
  // Edits by value, for apply_patch and its undo (patch.cpp): as
  // json_store's set (insert: its insert; `place`: before member place->pos,
  // edit()'s), erase and set of `text`, all or nothing, refused on a
  // reader, but recording nothing in the change feed. take_value takes the
  // value at `ptr` out (false: none there), exchange_value returns the one
  // `text` replaces, and put_value with `taken` hands over the one `v`
  // replaces: each with its blocks live (edit()'s `taken`), to be put back
  // into the document by a put_value, or retired by retire_values.
  // put_value's `height` is edit()'s: nesting_room() of the place `v` was
  // taken from bounds it.
  void put_value(std::string_view ptr, const json_ref& v, bool insert,
                 const member_place* place = nullptr, json_ref* taken = nullptr,
                 std::uint32_t height = max_depth);
  bool take_value(std::string_view ptr, json_ref& taken);
  json_ref exchange_value(std::string_view ptr, std::string_view text);
  // Retires every block of `values`, taken out of the document and no
  // longer in it; all or none (a damaged value throws before any is).
  void retire_values(std::span<const json_ref> values);
  // The value of the JSON text `text` built in the tail (inside an
  // atomic_edit, for its edit to publish), and its height; throws json_error.
  json_ref build_in_tail(std::string_view text, std::uint32_t& height);
  // The RFC 6902 operation the last successful edit() was: "add",
  // "replace" or "remove" (the change feed records it).
  const char* edit_op_ = nullptr;
  // Where the member the last edit() removed or replaced was in its object:
  // its position, and its seq in an object tree (no_index in a flat one),
  // for an undo that puts it back there (apply_patch's); {} (pos npos)
  // when the edit added, failed, or its parent is an array.
  member_place edit_place_{};
  // The containers edit() passes through, root first: each with its
  // bounds and the position of the child the pointer names in it. Kept
  // between edits for its capacity (an edit is a few levels deep).
  struct edit_step {
    json_ref c;
    std::uint64_t limit;
    std::size_t pos;
  };
  std::vector<edit_step> edit_path_;
  // Runs the edit `e` (returning edit()'s result) all or nothing and
  // publishes it (json_store::set, insert, erase).
  template <class Edit>
  bool atomic_edit(Edit&& e);
  // Moves the tail's blocks into the space and retires what the edit replaced.
  void publish_edit();
  void retire_replaced();
  // Does `r` refer to bytes (its own block, in format 3)?
  static bool has_block(const json_ref& r) noexcept { return r.n != 0 && !inline_kind(r.k); }
  void add_replaced(const json_ref& r);
  void add_replaced_block(std::uint64_t off, std::uint64_t payload);
  void find_replaced_table(const json_ref& c);
  void find_replaced(const json_ref& r);
  void find_replaced(const json_ref& r, std::uint32_t depth, std::uint64_t& budget);

  // ---- the space (store.cpp) ----

  void publish_import();
  void start_tail();
  void check_tail_page();
  mapped_space new_space(const char* suffix);
  void create();
  // The bytes of finished blocks a streaming builder (import, compact)
  // holds before they go to the file.
  static constexpr std::size_t stream_chunk = std::size_t{4} << 20;
  // Streams `b`'s finished chunks to the end of `space` (its end block at
  // `base`); the call returned ends the stream, after b.finish().
  std::function<void()> stream_to(builder& b, mapped_space& space, std::uint64_t base) const;
  void emit(const json_ref& r, builder& b, std::uint64_t end_bound, std::uint32_t depth) const;
  void compact();
  void sync();
  void open(open_mode mode);
  void refresh();
  void refuse_read_only(const char* what) const;
  void read_head();

  // ---- the change feed (feed.cpp) ----

  // Appends to pending_ the operation `name` ("add", "replace", "remove",
  // "move") at `ptr`, with the JSON text `value` (minified) unless it is
  // null, and the pointer `from` (a move's) unless it is null.
  void record_op(const char* name, std::string_view ptr, const std::string_view* value,
                 const std::string_view* from = nullptr);
  // A new ring in `space` (its head's feed), empty or with the fields of `like`.
  // `zeroed`: `space` was just created and the ring is among its first
  // blocks, whose bytes read as zeros: its slots are not cleared (clearing
  // would copy the pages into the mapping, a fault each, to write zeros).
  static fptr<feed_ring> new_ring(mapped_space& space, const feed_ring* like, std::uint32_t capacity,
                                  bool zeroed = false);
  // The committed ring's header, checked.
  feed_ring ring() const;
  // The offset held in slot `sequence % capacity`.
  std::uint64_t slot(const feed_ring& r, std::uint64_t sequence) const;
  // The text of record `sequence` (held), checked.
  std::string_view record_text(const feed_ring& r, std::uint64_t sequence) const;
  // Before a commit: pending_ as the next record (staged_), its slot set and
  // the record it pushes out retired. Nothing without pending edits.
  void stage_record();
  // compact(): the ring and held records copied into `fresh` (whose head
  // `head` gets the copy), staged records left out (pending_ holds them).
  void copy_feed(mapped_space& fresh, fptr<json_head> head);
  void keep_changes(std::uint32_t capacity, std::uint64_t max_bytes);
  // The text bytes of the record at `off` (a held one), checked: a record
  // that is not a block of the space holding its text is a damaged file.
  std::uint64_t record_bytes(std::uint64_t off) const;
  std::uint64_t committed_sequence(const feed_ring& r) const noexcept {
    return staged_.active ? staged_.sequence - 1 : r.sequence;
  }
  [[noreturn]] void no_feed(const char* what) const;
};

}  // namespace json
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
