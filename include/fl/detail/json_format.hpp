// fl/detail/json_format.hpp: the layout of an fl::json_store inside its
// fl::mapped_space, in one place. Every read and write of the store goes
// through these structs; the store code never restates an offset or a field
// width.
//
// The store is a mapped_space file (src/persist/persist_format.hpp: meta slots,
// redo log, page CRC-32C table); its root object is a json_head, which holds
// the document's root value. Format 3: every value with bytes (a non-empty
// string or number text, a non-empty container's table) is a block of the
// space of its own, so an edit can free exactly what it replaces. Import
// lays the blocks out in memory as the space carves them at its end and
// writes them as one run; an edit builds its new value and new copies of the
// containers on its path (path copying) as blocks at offsets from the
// space's end, then moves each into a block of the space (a freed block of
// its class, or the end), translating those offsets, switches
// json_head::root and retires (mapped_space::retire) the blocks it replaced:
// they are reused once no committed state and no reader can reach them.
// Empty strings and containers have no block (x = 0). Format 2 (values
// packed into a few blocks, each container above everything it refers to)
// is read and edited without reclaiming; format 3 (every container a flat
// table) is read and edited as it is, its containers staying flat;
// compact() rewrites either as format 4.
//
// Format 4 adds array trees. A flat table costs an edit O(n) time and
// O(n) written bytes (path copying copies the whole table), so an array of
// more than tree_shape::leaf_max elements (255 by default: a table of one
// 4 KiB block, the size past which a copy costs more than a descent; see
// docs/design.md "Array trees") is a persistent B+-tree of blocks instead,
// marked in its json_ref (json_ref::tree()):
//   json_ref              k = array, n = element count, x = the root node
//   tree_node (8 bytes)   level (0: a leaf), count of entries, a tag
//   leaf entries          count json_ref elements, in order
//   inner entries         count tree_child {node offset, elements under it}
// Element i is found by one descent (subtracting the children's counts);
// insert, erase, set and append copy the nodes on the descent path only (a
// node above leaf_max/inner_max entries splits in two, one below
// tree_min_entries merges with or borrows from a sibling, which is copied
// too), so an edit writes O(log n) blocks of at most 4 KiB. The root of a
// tree is always an inner node: a tree shrunk to one leaf is stored as a
// flat table again, so small arrays are exactly as compact as in format 3.
//
// Format 5 adds object trees (docs/design.md "Object trees"). A new member
// is always appended, so document order is the order of a counter that
// only grows (its sequence number, seq). An object of more than
// tree_shape::leaf_max members is two B+-trees beside one head block:
//   json_ref              k = object, n = member count, x = an object_tree
//   object_tree           tag, the member tree's root, the key tree's root,
//                         the next seq to give
//   member tree           leaves: member_entry {seq, key, value} in
//                         document order (so in seq order); inner entries
//                         member_child {node, members under it, the first
//                         seq under it}
//   key tree              leaves: key_entry {key, hash, seq} in the key
//                         tree's order (a key's length, its hash, its
//                         bytes; format 6), ties by seq; inner entries
//                         key_child {node, entries under it, the first
//                         key_entry under it}
// Each key is a block of its own (as a string's bytes), referred to by its
// member_entry, its key_entry and the key_child separators above it (which
// lie on the path to it, so an erase rewrites them). Member i is a descent
// of the member tree by counts; a lookup descends the key tree to the last
// entry with that key, then the member tree by seq (counting the members
// before it, its position); add appends to the member tree and inserts into
// the key tree, erase removes from both, set rewrites one member leaf: each
// copies the nodes on its descent paths and the head, O(log n) blocks. The
// member tree's root is an inner node (a member tree shrunk to one leaf
// makes the object a flat table again); the key tree's root may be a leaf.
// Nodes carry their tree's tag (member_node_tag, key_node_tag), so a
// reference into the wrong tree is caught.
//
// Values (json_ref, 16 bytes) refer to their bytes by offset in the space:
//   string, number_text   x = offset of the UTF-8 bytes, n = byte count
//   array                 x = offset of n json_ref elements
//   object                x = offset of n json_member records, followed, when
//                         n >= index_min_members, by n uint32 member positions
//                         sorted by key_order (length, then bytes, then
//                         position), so a lookup in a big object is a binary
//                         search, then the members' keys (in the same block)
//   int64, uint64, real   x = the value (uint64 only above INT64_MAX; real is
//                         the bit pattern of a finite double)
//   null, false, true     no payload
// Invariants for a crafted file whose checksums match (blocks are reused, so
// nothing orders a container against what it refers to, and a crafted file
// may make a container contain itself or share a value): every reference
// lies inside the carved blocks (checked on every read), and every walk is
// bounded: a lookup takes one step per pointer token; dump() and compact()
// stop past max_depth levels and when their output passes 8 bytes per
// stored byte; an edit's walk of the value it replaces stops past max_depth
// levels or the space's count of live blocks, and checks that each block is
// live and holds the value's bytes before the edit changes anything; a
// tree's walk is bounded by its levels: the root's level is below
// max_tree_levels, each child's level is its parent's minus one, every node
// holds 1 to max_node_entries entries and carries tree_node_tag, and a
// descent for element i checks i against the counts it meets. Each limit
// raises persist_error. Every byte is read through
// mapped_space::checked, which verifies each committed page against its CRC
// the first time it is touched: opening costs O(1), reading a value costs
// the pages under it once. Object trees are bounded as array trees are:
// each node carries its own tree's tag (member_node_tag, key_node_tag; the
// head object_tree_tag), its level is its parent's minus one, counts are
// checked on every path an edit copies and on every walk, and an edit
// checks that the entry its descent found is the one it removes or
// replaces.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

// "flJSONst" read as a little-endian uint64.
inline constexpr std::uint64_t file_magic = 0x74734e4f534a6c66ULL;
// Version 6: a key tree's entries carry their key's hash (key_entry::hash)
// and the tree is ordered by it before the key's bytes, so a lookup reads
// the bytes of one key instead of one per entry it compares (a build of
// version 5 refuses the file by this number: it would search the tree in
// the order of version 5 and miss keys). Version 5 trees, whose entries
// hold 0 there, are read and edited in their own order until compacted.
// Version 5: big objects are trees too (a build of version 4 refuses the
// file by this number: it would read an object tree as a table), and the
// head carries the change feed (json_feed_head below).
// Version 4: big arrays are trees of blocks (a build of version 3 refuses
// the file by this number, as it must: it would read a tree as a table).
// Version 3: every value with bytes has a block of its own (reused once
// freed); version 2 (blocks of many values, ordered below their containers)
// is read and edited without reclaiming space until compacted.
inline constexpr std::uint32_t format_version = 6;
// The first version with blocks reused (3), with array trees (4), with
// object trees and the change feed (5), with hashed key entries (6).
inline constexpr std::uint32_t reuse_format_version = 3;
inline constexpr std::uint32_t tree_format_version = 4;
inline constexpr std::uint32_t object_tree_format_version = 5;
inline constexpr std::uint32_t feed_format_version = 5;
inline constexpr std::uint32_t key_hash_format_version = 6;
inline constexpr std::uint32_t oldest_format_version = 2;

// Containers nested deeper than this are rejected by the parser and treated as
// damage by the reader (which recurses once per level when dumping). The same
// limit as simdjson's default, so both parsers accept the same texts.
inline constexpr std::uint32_t max_depth = 1024;

// Objects with at least this many members carry the sorted member index; below
// it, a scan of the member table (length compare first) is as fast.
inline constexpr std::uint32_t index_min_members = 16;

enum class kind : std::uint8_t {
  // 0 is not a kind, so zeroed bytes never read as a value.
  null_v = 1,
  false_v = 2,
  true_v = 3,
  int64 = 4,
  uint64 = 5,
  real = 6,
  number_text = 7,  // a number outside the range of uint64/int64/double, kept as its text
  string = 8,
  array = 9,
  object = 10,
};

struct json_ref {
  std::uint8_t k = 0;  // a kind
  // pad[0]: the form of an array or object, flat_form (a table at x) or
  // tree_form (an array's root tree_node, an object's object_tree at x); 0
  // for every other kind. pad[1..2]: 0.
  std::uint8_t pad[3] = {};
  std::uint32_t n = 0;
  std::uint64_t x = 0;

  static constexpr std::uint8_t flat_form = 0, tree_form = 1;
  bool tree() const noexcept { return pad[0] == tree_form; }
  void set_tree(bool t) noexcept { pad[0] = t ? tree_form : flat_form; }
};
static_assert(sizeof(json_ref) == 16 && alignof(json_ref) == 8 &&
              std::is_trivially_copyable_v<json_ref>);

struct json_member {
  std::uint64_t key = 0;  // offset of the key's UTF-8 bytes
  std::uint32_t key_len = 0;
  std::uint32_t pad = 0;
  json_ref value;
};
static_assert(sizeof(json_member) == 32 && alignof(json_member) == 8);

// ---- array trees (format 4) ----

// Every node of an array tree starts with this header; `count` entries
// follow it: json_ref elements in a leaf (level 0), tree_child records in an
// inner node (level >= 1).
struct tree_node {
  std::uint16_t level = 0;
  std::uint16_t count = 0;
  std::uint32_t tag = 0;  // tree_node_tag: a reference to a node finds one
};
static_assert(sizeof(tree_node) == 8 && std::is_trivially_copyable_v<tree_node>);

// An inner node's entry: a child node and the count of elements under it,
// kept in the parent so that a descent reads one node per level.
struct tree_child {
  std::uint64_t node = 0;
  std::uint64_t count = 0;
};
static_assert(sizeof(tree_child) == 16 && sizeof(tree_child) == sizeof(json_ref));

// "ftre" read as a little-endian uint32.
inline constexpr std::uint32_t tree_node_tag = 0x65727466u;
// Bounds a reader checks, whatever shape wrote the tree: entries per node
// (a count field of 16 bits), and levels (with at least 2 children per inner
// node, 33 levels hold the 2^32 elements a json_ref can count).
inline constexpr std::uint32_t max_node_entries = 4095;
inline constexpr std::uint32_t max_tree_levels = 40;

// The payload bytes of a node of `count` entries.
inline constexpr std::uint64_t tree_node_bytes(std::uint32_t count) noexcept {
  return sizeof(tree_node) + std::uint64_t{count} * sizeof(json_ref);
}

// How big a writer makes its nodes: at most leaf_max elements in a leaf and
// inner_max children in an inner node, and at least tree_min_entries of
// that in every node but the root (an import's nodes are at least half
// full); an array of at most leaf_max elements is a flat table. The
// default fills a block of the 4 KiB class (8 bytes of block header, 8 of
// tree_node, 255 entries of 16 bytes). An object of at most leaf_max
// members is a flat table too; object trees' nodes take the same counts
// capped at object_node_max (object_node_shape). Readers accept any shape
// within max_node_entries and max_tree_levels.
struct tree_shape {
  std::uint32_t leaf_max = 255;
  std::uint32_t inner_max = 255;
};
static_assert(tree_node_bytes(tree_shape{}.leaf_max) + 8 == 4096);

// The fewest entries an edit leaves in a node other than the root, for a
// shape's maximum `max`: a quarter, and at least 2 in an inner node (so a
// tree of n entries has at most about log2(n) levels, within
// max_tree_levels). Not half: a node an even split made holds half, so
// with half as the floor the first erase there merged it or refilled it
// from a sibling, and an object whose members are erased at random and
// added at the end (a cache, a table of sessions) copied two nodes and
// their parent on about one erase in five. A quarter leaves an edit a
// quarter of a node of slack either way. Not a format: readers accept any
// count from 1 to max_node_entries.
inline constexpr std::uint32_t tree_min_entries(std::uint32_t max) noexcept {
  const std::uint32_t quarter = max / 4, floor = max / 2 < 2 ? max / 2 : 2;
  return quarter > floor ? quarter : floor;
}
static_assert(tree_min_entries(2) == 1 && tree_min_entries(4) == 2 && tree_min_entries(64) == 16);

// The most entries an object tree's node holds: its entries are 24 to 40
// bytes, so 255 of them made nodes of up to 10 KiB (three pages), and an
// edit copies one node per level of two trees: a commit of one added member
// wrote 11 pages at 100,000 members, 13 at a million. At 64 a node is at
// most 2.5 KiB and the same commit writes 7.5 and 9 pages, while a lookup
// still reads about as many keys (docs/performance.md, json/scale). Not a
// format: a node of any count up to max_node_entries reads, and an edit
// splits a bigger node an older writer made.
inline constexpr std::uint32_t object_node_max = 64;
inline constexpr tree_shape object_node_shape(tree_shape s) noexcept {
  return {s.leaf_max < object_node_max ? s.leaf_max : object_node_max,
          s.inner_max < object_node_max ? s.inner_max : object_node_max};
}

// The shape new trees and edits use (src/json/tree.cpp). A test hook, not
// API: tests set a tiny shape so that small documents make deep trees.
// Throws std::invalid_argument outside 2 <= leaf_max, 4 <= inner_max, both
// at most 1024. Not thread-safe: set it before any store is used.
tree_shape current_tree_shape() noexcept;
void set_tree_shape(tree_shape s);

// ---- object trees (format 5) ----

// What an object tree's json_ref points at (a block of its own, copied by
// every edit of the object).
struct object_tree {
  std::uint32_t tag = 0;  // object_tree_tag
  std::uint32_t pad = 0;
  std::uint64_t members = 0;   // the member tree's root node (level >= 1)
  std::uint64_t keys = 0;      // the key tree's root node (level >= 0)
  std::uint64_t next_seq = 0;  // above every member's seq
};
static_assert(sizeof(object_tree) == 32 && std::is_trivially_copyable_v<object_tree>);

// A member tree's leaf entry: the member in document order.
struct member_entry {
  std::uint64_t seq = 0;  // first: the separator an inner entry keeps
  std::uint64_t key = 0;  // offset of the key's block (0 for "")
  std::uint32_t key_len = 0;
  std::uint32_t pad = 0;
  json_ref value;
};
static_assert(sizeof(member_entry) == 40 && std::is_trivially_copyable_v<member_entry>);

// A key tree's leaf entry. The tree's order: the key's length, then
// `hash`, then the key's bytes (key_order's rules with the hash between),
// then seq. The hash is key_hash of the key's bytes in format 6 and 0 in
// format 5, whose order is then key_order's: both read by one comparison.
// Length and hash settle nearly every comparison from the entry itself; the
// key's bytes, a block elsewhere in the file, are read for a key equal in
// both (a lookup's last step).
struct key_entry {
  std::uint64_t key = 0;
  std::uint32_t key_len = 0;
  std::uint32_t hash = 0;
  std::uint64_t seq = 0;
};
static_assert(sizeof(key_entry) == 24 && std::is_trivially_copyable_v<key_entry>);

// Inner entries: a child, the leaf entries under it, and the first leaf
// entry under it (its separator: all of a key_entry, a member_entry's seq).
struct member_child {
  std::uint64_t node = 0;
  std::uint64_t count = 0;
  std::uint64_t seq = 0;
};
static_assert(sizeof(member_child) == 24);
struct key_child {
  std::uint64_t node = 0;
  std::uint64_t count = 0;
  key_entry first;
};
static_assert(sizeof(key_child) == 40);

// "fobj", "fobm", "fobk" read as little-endian uint32s.
inline constexpr std::uint32_t object_tree_tag = 0x6a626f66u;
inline constexpr std::uint32_t member_node_tag = 0x6d626f66u;
inline constexpr std::uint32_t key_node_tag = 0x6b626f66u;

// The bytes of an entry at `level` (0: a leaf) of each tree, and of a node.
inline constexpr std::uint32_t member_entry_bytes(std::uint32_t level) noexcept {
  return level == 0 ? sizeof(member_entry) : sizeof(member_child);
}
inline constexpr std::uint32_t key_entry_bytes(std::uint32_t level) noexcept {
  return level == 0 ? sizeof(key_entry) : sizeof(key_child);
}
inline constexpr std::uint64_t object_node_bytes(std::uint32_t entry_bytes,
                                                 std::uint32_t count) noexcept {
  return sizeof(tree_node) + std::uint64_t{count} * entry_bytes;
}

// The order of the member index: only equality lookups use it, so keys are
// ordered by length first (one integer compare settles most pairs), then by
// bytes. Returns <0, 0, >0.
inline int key_order(const char* a, std::uint32_t an, const char* b, std::uint32_t bn) noexcept {
  if (an != bn) return an < bn ? -1 : 1;
  return an ? __builtin_memcmp(a, b, an) : 0;
}

// The space's root object.
struct json_head {
  std::uint64_t magic = 0;    // file_magic
  std::uint32_t version = 0;  // format_version
  std::uint32_t reserved = 0;
  json_ref root;
};
static_assert(sizeof(json_head) == 32 && std::is_trivially_copyable_v<json_head>);

// ---- the change feed (format 5) ----
//
// Every commit that changes the document gets the next sequence number and
// a record: the RFC 6902 patch that turns the previous committed document
// into this one. The newest `capacity` records are kept, each a block of
// its own, named by a ring of offsets (slot = sequence % capacity) in one
// block; a record that falls out of the ring is retired like any replaced
// value, so a reader still holding an older commit still reads it. A commit
// writes its record's block and one slot (a page or two), whatever the
// document's size. compact() copies the ring and the records: the history
// outlives a compaction; an import starts a new one (a new history id).
//
// In format 5 the head block is a json_head followed by this; older formats
// have the json_head alone (and no feed).
struct json_feed_head {
  std::uint64_t ring = 0;  // offset of the feed_ring block
  std::uint64_t reserved = 0;
};
struct json_head_v5 {
  json_head head;
  json_feed_head feed;
};
static_assert(sizeof(json_head_v5) == 48 && std::is_trivially_copyable_v<json_head_v5>);

// "ffed" and "fchg" read as little-endian uint32.
inline constexpr std::uint32_t feed_ring_tag = 0x64656666u;
inline constexpr std::uint32_t change_record_tag = 0x67686366u;

// The ring block: this header, then `capacity` uint64 record offsets (0: no
// record). Records sequence() - capacity + 1 .. sequence() are held, and
// none before `first`, the sequence at which this history began (the
// document then is the history's start: an import, or a create).
struct feed_ring {
  std::uint32_t tag = 0;  // feed_ring_tag
  std::uint32_t capacity = 0;
  std::uint64_t history = 0;   // a random id, new at every import or create
  std::uint64_t sequence = 0;  // the newest committed record's (0: none yet)
  std::uint64_t first = 0;     // no record at or before it (the history's start, or dropped)
  std::uint64_t bytes = 0;     // the held records' text
  std::uint64_t max_bytes = 0; // the oldest records go while `bytes` passes it (not the newest)
};
static_assert(sizeof(feed_ring) == 48 && std::is_trivially_copyable_v<feed_ring>);

// A record block: this header, then `bytes` of UTF-8 JSON text (an RFC 6902
// patch, an array of operations).
struct change_record {
  std::uint32_t tag = 0;  // change_record_tag
  std::uint32_t reserved = 0;
  std::uint64_t sequence = 0;
  std::uint64_t bytes = 0;
};
static_assert(sizeof(change_record) == 24 && std::is_trivially_copyable_v<change_record>);

// Records a new store keeps (json_store::keep_changes changes it): the newest
// 1,024 commits' or fewer, as long as their text passes 256 KiB; and the
// most a ring may name: a reader bounds its reads by it.
inline constexpr std::uint32_t default_feed_capacity = 1024;
inline constexpr std::uint64_t default_feed_bytes = 256 * 1024;
inline constexpr std::uint32_t max_feed_capacity = 1u << 20;

}  // namespace json
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
