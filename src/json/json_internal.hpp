// src/json/json_internal.hpp: what the json_store sources share: the byte
// buffer that new data is appended to, the builder that turns parse events
// into store records and the parsers (parse.cpp), RFC 6901 pointer tokens
// (read.cpp), and the number and string output (dump.cpp). The store itself
// is store_file.hpp.
//
// Threads: nothing here is shared between objects; one store_file is used by
// one thread at a time (see fl/json_store.hpp).
#pragma once

#include "persist/crc32c.hpp"
#include <fl/detail/json_format.hpp>
#include <fl/detail/utf8.hpp>  // utf8_sequence, utf8_valid_prefix, utf8_encode
#include "persist/persist_format.hpp"
#include "persist/posix.hpp"
#include <fl/json_store.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

// A growable byte array that is never zero-filled (the builder writes every
// byte it keeps), holding the bytes of file offsets [base, base + size).
class byte_buffer {
 public:
  byte_buffer() = default;
  byte_buffer(const byte_buffer&) = delete;
  byte_buffer& operator=(const byte_buffer&) = delete;
  ~byte_buffer() { std::free(p_); }

  std::size_t size() const noexcept { return size_; }
  unsigned char* data() noexcept { return p_; }
  const unsigned char* data() const noexcept { return p_; }
  void clear() noexcept { size_ = 0; }
  void reserve(std::size_t n) {
    if (n <= cap_) return;
    std::size_t c = cap_ ? cap_ : 4096;
    while (c < n) c *= 2;
    void* q = std::realloc(p_, c);
    if (!q) throw std::bad_alloc();
    p_ = static_cast<unsigned char*>(q);
    cap_ = c;
  }
  // Room for n more bytes; returns where they go (never null, even for 0).
  unsigned char* extend(std::size_t n) {
    if (cap_ - size_ < n || p_ == nullptr) reserve(size_ + n + 1);
    unsigned char* at = p_ + size_;
    size_ += n;
    return at;
  }
  void append(const void* src, std::size_t n) {
    if (n) std::memcpy(extend(n), src, n);
  }
  // Zero bytes up to a multiple of `a` (a power of two).
  void pad_to(std::size_t a) {
    const std::size_t k = (a - (size_ & (a - 1))) & (a - 1);
    if (k) std::memset(extend(k), 0, k);
  }
  void truncate(std::size_t n) noexcept { size_ = n; }

 private:
  unsigned char* p_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
};

// A block laid out in a tail (json_format.hpp: every non-empty string,
// number text and container table is a block of its own): its payload's
// offset, payload bytes, and what it holds (for an object, the member table,
// its index and its keys; n is the entry count of a container).
// An array tree's nodes are blocks too: `node` says which entries the
// publish step translates (json_ref elements after a leaf's header, child
// offsets after an inner node's); n is then the node's entry count.
// An object tree's blocks likewise (object_tree.cpp): its head (two root
// offsets), member leaves (keys and values), member inner nodes (child
// offsets), key leaves (keys), key inner nodes (child offsets and the
// separators' keys).
enum class node_form : std::uint8_t {
  none,
  leaf,
  inner,
  object_head,
  member_leaf,
  member_inner,
  key_leaf,
  key_inner
};
struct tail_block {
  std::uint64_t off;
  std::uint64_t bytes;
  kind k;
  std::uint32_t n;
  node_form node = node_form::none;
  // The entries [fix_first, fix_end) are the only ones that may name a
  // block of the tail (publish_edit translates those alone): a tree edit's
  // copy of a node changes one or two of its up to 255 entries. Every
  // entry, unless the block's maker says otherwise.
  std::uint32_t fix_first = 0, fix_end = ~std::uint32_t{0};
};

// Appends to `out` (whose first byte is file offset `base`, a block's start)
// a block of `bytes` payload bytes laid out as the space carves one at its
// end: the block header, the payload (returned, for the caller to fill),
// zeros to the class size. Records it in `blocks`; `at` receives the
// payload's offset.
unsigned char* add_block(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                         std::uint64_t bytes, kind k, std::uint32_t n, std::uint64_t& at,
                         node_form node = node_form::none);

// A kind of tree (an array's, an object's member or key tree): its nodes'
// tag, entry sizes, the bytes of a leaf entry that an inner entry keeps
// as its separator (after {node, count}; none for arrays), the lowest
// level of a root, and its blocks' kind and forms (publish_edit
// translates the offsets in them by form). The three are
// store_file::array_tree, member_tree and key_tree.
struct tree_kind {
  std::uint32_t tag;
  std::uint32_t leaf_bytes, inner_bytes, sep_bytes;
  int root_min_level;
  node_form leaf_form, inner_form;
  const char* name;  // for messages: "an object's member tree"
  kind block_kind;
  std::uint32_t entry_bytes(std::uint32_t level) const noexcept {
    return level == 0 ? leaf_bytes : inner_bytes;
  }
};

// A tree of kind `t` built bottom-up from its leaf entries, given in order
// (tree.cpp). A level's first `max` entries become a node once twice that
// many wait, and finish() shares what is left evenly (floor or ceil each,
// at least half a node when there are two or more), so every node but the
// root is at least half full and the loader holds at most two nodes' worth
// of entries a level, however many it is given. Each call names where the
// nodes go (a streaming builder's base moves at every spill).
class tree_loader {
 public:
  struct sink {
    byte_buffer& out;
    std::uint64_t base;
    std::vector<tail_block>& blocks;
  };
  tree_loader(const tree_kind& t, tree_shape shape) noexcept : t_(&t), shape_(shape) {}
  // Appends `n` leaf entries (t.leaf_bytes each).
  void add(const sink& s, const void* entries, std::size_t n);
  // The root's offset; after at least one entry.
  std::uint64_t finish(const sink& s);
  std::uint64_t size() const noexcept { return count_; }

 private:
  std::size_t max_at(std::size_t h) const noexcept {
    return h == 0 ? shape_.leaf_max : shape_.inner_max;
  }
  // A node of height h over the `n` entries at `first`, its inner entry
  // appended to level h + 1.
  void make_node(const sink& s, std::size_t h, const unsigned char* first, std::size_t n);
  const tree_kind* t_;
  tree_shape shape_;
  std::vector<std::vector<unsigned char>> levels_{1};  // pending entries by height
  std::uint64_t count_ = 0;
};

// What a store of one format version may hold (fl/detail/json_format.hpp):
// a store is edited in its own format, so that a build of that version
// still reads it after any edit, until compact() rewrites it in the newest.
struct format_rules {
  bool reuse = true;         // 3: every value with bytes owns its block
  bool trees = true;         // 4: arrays past leaf_max elements are trees
  bool object_trees = true;  // 5: objects past leaf_max members are trees
  bool hashed_keys = true;   // 6: key entries carry their key's hash

  static constexpr format_rules of(std::uint32_t version) noexcept {
    return {version >= reuse_format_version, version >= tree_format_version,
            version >= object_tree_format_version, version >= key_hash_format_version};
  }
  // The hash a key entry of this format carries (key_entry::hash): CRC-32C
  // of the key's bytes (a hash no version may change: files are ordered by
  // it), or 0 before format 6.
  std::uint32_t key_hash(std::string_view key) const noexcept {
    return hashed_keys ? crc32c(key.data(), key.size()) : 0;
  }
};

// The key tree's order of two keys with their entries' hashes (key_entry):
// length, hash, bytes. The first two are one integer, key_tree_prefix, whose
// order settles nearly every pair from the entries alone, so a caller that
// must fetch a key's bytes (a lookup, from a block elsewhere in the file) or
// sorts many keys compares prefixes first and the bytes only on a tie.
constexpr std::uint64_t key_tree_prefix(std::uint64_t len, std::uint32_t hash) noexcept {
  return len << 32 | hash;  // a key_entry's length is 32 bits
}
// Returns <0, 0, >0.
inline int key_tree_order(std::string_view a, std::uint32_t ha, std::string_view b,
                          std::uint32_t hb) noexcept {
  const std::uint64_t pa = key_tree_prefix(a.size(), ha), pb = key_tree_prefix(b.size(), hb);
  if (pa != pb) return pa < pb ? -1 : 1;
  return a.empty() ? 0 : __builtin_memcmp(a.data(), b.data(), a.size());
}

// The entries of an object's key tree in the tree's order (key_entry: a
// key's length, its hash, its bytes, then its member's seq) from the keys
// given in seq order (key_sort.cpp). Keys are copied and sorted in runs of about run_bytes;
// with a scratch directory, an object of more than one run writes each
// sorted run to an unnamed temporary file there and finish() merges them,
// so memory stays at a run and a read buffer per run however many members
// (an import); without one, every key stays in memory until finish() (an
// edit's conversion of a flat object just past the flat bound).
class key_sorter {
 public:
  // A run's records (32 bytes each) and keys' bytes, before it spills.
  static constexpr std::size_t default_run_bytes = std::size_t{4} << 20;
  // `rules`: the format of the store the entries go to (their hashes).
  key_sorter(const std::filesystem::path* scratch_dir, format_rules rules,
             std::size_t run_bytes = default_run_bytes) noexcept
      : dir_(scratch_dir), rules_(rules), run_bytes_(run_bytes) {}
  // The key of member `seq` (seqs ascending), its bytes in block `block`.
  void add(std::uint64_t block, std::string_view key, std::uint32_t seq);
  // Calls emit with every key entry in order, in batches.
  void finish(const std::function<void(const key_entry*, std::size_t)>& emit);

 private:
  struct rec {
    std::uint64_t block;
    std::uint64_t at;  // the key's bytes in keys_
    std::uint32_t len;
    std::uint32_t hash;
    std::uint32_t seq;
  };
  // Sorts the run in memory and appends it to the file, opened first.
  void spill();
  // The run's records in order, by index into recs_.
  std::vector<std::uint32_t> sorted() const;
  void merge(const std::function<void(const key_entry*, std::size_t)>& emit);
  const std::filesystem::path* dir_;
  format_rules rules_;
  std::size_t run_bytes_;
  std::vector<rec> recs_;  // the run
  std::string keys_;       // its keys' bytes
  unique_fd file_;  // the spilled runs, once there is one
  std::uint64_t file_end_ = 0;
  std::vector<std::uint64_t> run_ends_;  // each spilled run's end in the file
};

// An object tree (format 5) built from its members in order (object
// tree.cpp): each key a block of its own and the member tree as they come,
// the key tree and the head at finish(), from a key_sorter. `shape` is the
// flat table's (its nodes are object_node_shape of it); `scratch_dir` and
// `rules` are the key_sorter's.
class object_loader {
 public:
  object_loader(tree_shape shape, const std::filesystem::path* scratch_dir, format_rules rules);
  // Members [m, m + n), their keys at offsets into `keys` (copied: `keys`
  // need not outlive the call). Throws std::length_error past 2^32 - 1
  // members.
  void add(const tree_loader::sink& s, const json_member* m, std::size_t n,
           std::string_view keys);
  // The object's json_ref (tree form); at least one member was added.
  // `next` gives where each next batch of nodes goes (a streaming builder
  // spills between them).
  json_ref finish(const std::function<tree_loader::sink()>& next);

 private:
  tree_loader members_, keys_tree_;
  key_sorter keys_;
};

// Appends (as add_block does) a new node of `level` holding `count`
// entries copied from `entries` (json_ref for a leaf, tree_child above);
// returns its offset.
std::uint64_t add_tree_node(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                            std::uint16_t level, const void* entries, std::uint32_t count);
// Appends an array tree holding elements [e, e + n) (n > shape.leaf_max),
// laid out bottom-up by a tree_loader (every node but the root at least
// half full), and returns the array's json_ref (tree form). Throws
// std::length_error past 2^32 - 1 elements.
json_ref build_array_tree(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                          const json_ref* e, std::size_t n, const tree_shape& shape);

// Appends an object tree (format 5) holding the n members `ms` (key
// offsets into `keys`), in that order (n > shape.leaf_max), with an
// object_loader: each key a block, both trees, and the head; returns the
// object's json_ref (tree form).
json_ref build_object_tree(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                           const json_member* ms, std::size_t n, std::string_view keys,
                           const tree_shape& shape, format_rules rules);

// Turns a stream of parse events into store records appended to `out` as
// blocks (add_block), whose first byte is file offset `base`. A string is
// written when it arrives; keys wait in memory for their object, whose
// block holds its member table, its index and its keys; an array's table is
// written when it closes, as a tree (format 4) when `rules.trees` and it
// has more than current_tree_shape().leaf_max elements, and an object's
// likewise (format 5) when `rules.object_trees`. Empty strings and
// containers have no block (x 0).
class builder {
 public:
  builder(byte_buffer& out, std::vector<tail_block>& blocks, std::uint64_t base,
          format_rules rules) noexcept
      : out_(out), blocks_(blocks), base_(base), rules_(rules) {}
  // Where out's first byte will land; only before the first event.
  void rebase(std::uint64_t base) noexcept { base_ = base; }
  // The offset just past what the builder wrote (streamed or not).
  std::uint64_t end() const noexcept { return base_ + out_.size(); }

  // Streaming (import): once `out` holds `chunk` bytes or more after a
  // value, spill(bytes, blocks) receives its whole blocks (`blocks` of them,
  // `bytes` bytes from out.data(), their first at the current base), which
  // then leave `out` and the base moves past them; finish() spills the rest.
  // Blocks the builder lays out itself are counted, not recorded in
  // `blocks` (trees' nodes are, and are dropped at each spill), so memory
  // stays at about `chunk`, two nodes' worth a level of each open
  // container's trees (open_tree), a run of keys of each open object with
  // a tree (key_sorter, whose sorted runs go to a temporary file in
  // `scratch_dir`), and the largest value. Safe because the builder never
  // reads back what it wrote.
  using spill_fn = std::function<void(const unsigned char*, std::size_t, std::size_t)>;
  void stream(spill_fn spill, std::size_t chunk, std::filesystem::path scratch_dir) {
    spill_ = std::move(spill);
    spill_at_ = chunk;
    scratch_dir_ = std::move(scratch_dir);
  }
  void finish() {
    if (spill_ && out_.size() != 0) spill();
  }

  void null_value() { put(kind::null_v, 0, 0); }
  void boolean(bool b) { put(b ? kind::true_v : kind::false_v, 0, 0); }
  void int64(std::int64_t v) { put(kind::int64, 0, static_cast<std::uint64_t>(v)); }
  void uint64(std::uint64_t v);
  void real(double d);
  void number_text(std::string_view text);
  void string(std::string_view s) { bytes(kind::string, s); }
  void key(std::string_view k);
  void begin_array() { open(false); }
  void begin_object() { open(true); }
  void end_array();
  void end_object();

  // The one top-level value, after the last event.
  json_ref result() const noexcept { return top_; }
  // Its height: the most containers it nests, one in the other (a scalar's
  // is 0), which an edit checks against the depth the value goes to.
  std::uint32_t height() const noexcept { return height_; }

 private:
  struct frame {
    bool object;
    std::size_t first;  // its first entry in scratch_
    std::size_t keys;   // its first key byte in keys_
    // Once it has nodes: its tree is open_trees_.back() while it is the
    // innermost open container (the trees of those inside it are closed).
    bool tree = false;
  };
  // An open container's tree, built as its entries come once it has more
  // than a flat table holds (flush_entries): its elements or members go to
  // a loader, which keeps two nodes' worth a level, and for an object a run
  // of its keys (key_sorter), so an open container takes bounded memory
  // however long while streaming.
  using open_tree = std::variant<tree_loader, object_loader>;
  void open(bool object) {
    frames_.push_back({object, scratch_.size(), keys_.size()});
    if (frames_.size() > height_) height_ = static_cast<std::uint32_t>(frames_.size());
  }
  // Moves the entries of the container at the top into its tree.
  void flush_entries();
  tree_loader::sink sink() noexcept { return {out_, base_, blocks_}; }
  void spill_if_full() {
    if (out_.size() >= spill_at_) [[unlikely]]
      spill();
  }
  // Writes s as a block of kind k (none when empty) and puts its json_ref.
  void bytes(kind k, std::string_view s);
  // A block of the builder's own (a string, a flat table): as add_block,
  // but only counted while streaming.
  unsigned char* block(std::uint64_t bytes, kind k, std::uint32_t n, std::uint64_t& at) {
    if (!spill_) return add_block(out_, base_, blocks_, bytes, k, n, at);
    const std::uint64_t cs = fl::detail::class_size(fl::detail::payload_class(bytes));
    const std::size_t start = out_.size();
    unsigned char* h = out_.extend(static_cast<std::size_t>(cs));
    fl::detail::lay_live_block(h, bytes);
    at = base_ + start + 8;
    ++own_blocks_;
    return h + 8;
  }
  void spill();
  // The value just finished: the top one, the open object's member (whose
  // key came first), or the open array's next element.
  void put(kind k, std::uint32_t n, std::uint64_t x,
           std::uint8_t form = json_ref::flat_form) {
    if (frames_.empty()) {
      store_halves(&top_, ref_head(k, form, n), x);
    } else {
      const frame& f = frames_.back();
      json_ref* dst = f.object ? &scratch_.back().value : &scratch_.emplace_back().value;
      store_halves(dst, ref_head(k, form, n), x);
      if (scratch_.size() - f.first >= (f.object ? object_flush_at_ : array_flush_at_))
          [[unlikely]]
        flush_entries();
    }
    spill_if_full();
  }
  void put(const json_ref& r) { put(static_cast<kind>(r.k), r.n, r.x, r.pad[0]); }

  // Entries are written in whole 16-byte halves (a json_ref; a member's key
  // and length), the width end_object and end_array copy them in: a half
  // stored in narrower pieces and loaded whole soon after stalls the load
  // (store forwarding fails), and on twitter.json those stalls were most of
  // the builder's samples.
  static std::uint64_t ref_head(kind k, std::uint8_t form, std::uint32_t n) noexcept {
    static_assert(std::endian::native == std::endian::little);  // json_ref's layout
    return static_cast<std::uint64_t>(k) | std::uint64_t{form} << 8 | std::uint64_t{n} << 32;
  }
  static void store_halves(void* dst, std::uint64_t lo, std::uint64_t hi) noexcept {
    using u64x2 = std::uint64_t __attribute__((vector_size(16)));
    const u64x2 v = {lo, hi};
    std::memcpy(dst, &v, sizeof v);
  }

  byte_buffer& out_;
  std::vector<tail_block>& blocks_;
  std::uint64_t base_;
  format_rules rules_;
  std::vector<frame> frames_;
  std::uint32_t height_ = 0;  // the most frames_ held at once
  // Open containers' entries (arrays: value only; objects: key = offset of
  // the key in keys_).
  std::vector<json_member> scratch_;
  std::string keys_;  // the keys of the open objects, in order
  const tree_shape shape_ = current_tree_shape();
  // An open container's entry count that sends its entries to its tree:
  // past a flat table's bound, so that only trees get one (never, without
  // trees; then objects are flat too).
  const std::size_t array_flush_at_ =
      rules_.trees ? 2 * std::size_t{shape_.leaf_max} : ~std::size_t{0};
  const std::size_t object_flush_at_ =
      rules_.object_trees ? 2 * std::size_t{shape_.leaf_max} : ~std::size_t{0};
  std::vector<open_tree> open_trees_;  // one per open container with a tree, innermost last
  std::filesystem::path scratch_dir_;  // where key_sorter spills runs, while streaming
  json_ref top_;
  spill_fn spill_;
  std::size_t spill_at_ = ~std::size_t{0};  // never, unless streaming
  std::size_t own_blocks_ = 0;              // blocks in out_ not in blocks_

  // The member indexes of the last few indexed objects, by their keys.
  // Records in an array mostly share their keys, in one order (every "user"
  // of a feed): an object whose keys equal one of these takes its index as
  // it is, where sorting them was a tenth of an import's samples.
  struct index_shape {
    std::string keys;  // the keys, one after another
    std::vector<std::uint32_t> lens, index;
  };
  // Writes the index of the n members `m` whose keys are `keys` (offsets
  // relative to keys_ position `first_key`).
  void write_index(std::uint32_t* index, const json_member* m, std::uint32_t n,
                   std::string_view keys, std::size_t first_key);
  std::array<index_shape, 4> shapes_;
  unsigned next_shape_ = 0;
};

// A key's first 8 bytes (fewer: zero-padded) as a big-endian number. Read
// in whole loads, never past the key: a short key copied into a zeroed word
// and loaded back stalls the load (the bytes' stores cannot forward to it).
inline std::uint64_t key_head(const char* p, std::size_t n) noexcept {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  if (n >= 8) {
    std::uint64_t h;
    std::memcpy(&h, b, 8);
    return __builtin_bswap64(h);
  }
  if (n >= 4) {  // two loads that overlap when n < 8
    std::uint32_t first, last;
    std::memcpy(&first, b, 4);
    std::memcpy(&last, b + n - 4, 4);
    return std::uint64_t{__builtin_bswap32(first)} << 32 |
           std::uint64_t{__builtin_bswap32(last)} << (8 * (8 - n));
  }
  if (n == 0) return 0;
  return std::uint64_t{b[0]} << 56 | std::uint64_t{b[n / 2]} << (8 * (7 - n / 2)) |
         std::uint64_t{b[n - 1]} << (8 * (8 - n));
}

// Writes the sorted member index of an object of n members (n uint32 positions
// in key_order, ties by position). key(i) gives member i's key.
//
// The sort runs over a compact copy of what decides most comparisons, each
// key's length and its first 8 bytes read as a big-endian number (for keys
// of one length, the same order as comparing those bytes): a key's bytes
// are looked up only to break a tie past them. Sorting positions and
// comparing through key() cost a random read and a memcmp call per
// comparison, 7% of an import's samples.
template <class KeyOf>
void write_member_index(std::uint32_t* index, std::uint32_t n, KeyOf key) {
  struct entry {
    std::uint64_t head;  // the first 8 bytes, big-endian, zero-padded
    std::uint32_t len;
    std::uint32_t at;
  };
  constexpr std::uint32_t on_stack = 128;
  entry stack[on_stack];
  std::vector<entry> heap;
  entry* e = stack;
  if (n > on_stack) {
    heap.resize(n);
    e = heap.data();
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::string_view k = key(i);
    e[i] = {key_head(k.data(), k.size()), static_cast<std::uint32_t>(k.size()), i};
  }
  std::sort(e, e + n, [&](const entry& a, const entry& b) {
    if (a.len != b.len) return a.len < b.len;
    if (a.head != b.head) return a.head < b.head;
    if (a.len > 8) {
      const int c = __builtin_memcmp(key(a.at).data() + 8, key(b.at).data() + 8, a.len - 8);
      if (c != 0) return c < 0;
    }
    return a.at < b.at;
  });
  for (std::uint32_t i = 0; i < n; ++i) index[i] = e[i].at;
}

// Parses exactly one RFC 8259 text into `b`. Throws fl::json_error with the
// byte offset and the reason. The reference parser, used directly for small
// texts and whenever simdjson rejects a text (to name the error, or to accept
// numbers simdjson does not represent).
void parse_strict(std::string_view text, builder& b);
// The same parse, checking `text` only: throws the json_error parse_strict
// would, and builds nothing.
void check_json(std::string_view text);
// The parse import() uses: simdjson when available, parse_strict otherwise
// and on any simdjson error; past 64 MiB, parse_strict alone, in one pass.
// `valid`, if given, runs before the first event reaches `b` (import creates
// the store's new space there and rebases `b`): once the text is known to be
// valid, so that an invalid text never touches a file, except past 64 MiB,
// where it runs first and an invalid text throws with the space created.
void parse_fast(std::string_view text, builder& b, const std::function<void()>& valid = nullptr);
// The value of `text` when it is one JSON integer of at most 18 digits and
// nothing else ("7", "-42": no sign but '-', no leading zero, no space), the
// value most edits set: read without a parser or a builder, whose setup was
// most of a set's parse (build_in_tail: 375 of a set's 3,984 instructions
// at 1k, 66 now); build_in_tail (an edit's value) asks it first, import
// (a whole document) does not. nullopt for any other text, which the
// parsers read (and refuse where it is not JSON).
std::optional<json_ref> small_integer_ref(std::string_view text) noexcept;

// RFC 6901: splits the next reference token off `rest`, which is empty (no
// more tokens) or starts with '/'. Returns it unescaped ("~0" is '~', "~1" is
// '/'), in `buf` when it had escapes. Throws std::invalid_argument for a
// pointer that does not start with '/' or has '~' not followed by 0 or 1.
std::string_view next_token(std::string_view& rest, std::string& buf);
// set() or insert() (`call`) of text that is not JSON at `pointer`: `e`
// again, its reason saying that the call takes JSON text and that put()
// stores a C++ string (read.cpp).
[[noreturn]] void not_json_text(const json_error& e, const char* call, std::string_view pointer);
// Its inverse: appends '/' and `key` as one reference token ('~' written
// "~0", '/' written "~1") to `out` (diff's paths, patch's child pointers).
inline void append_token(std::string& out, std::string_view key) {
  out += '/';
  for (const char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
}
// How many containers a value at `pointer` may still nest, one in the other,
// before the document passes max_depth: max_depth less the pointer's tokens
// (each begins with '/': an escaped one is "~1"), 0 past them.
inline std::uint32_t nesting_room(std::string_view pointer) noexcept {
  std::size_t tokens = 0;
  for (const char c : pointer) tokens += c == '/';
  return tokens < max_depth ? max_depth - static_cast<std::uint32_t>(tokens) : 0;
}
// The array index an RFC 6901 token names: "0" or digits without a leading
// zero, below 2^53; npos for anything else (including "-").
inline constexpr std::uint64_t no_index = ~std::uint64_t{0};
std::uint64_t token_index(std::string_view token) noexcept;

// Where a member of an object is (apply_patch's undo of a removal puts it
// back there): its position and, in an object tree, its seq (no_index in a
// flat table, which has none).
struct member_place {
  std::size_t pos = static_cast<std::size_t>(no_index);
  std::uint64_t seq = no_index;
};

// RFC 8259 string escapes, read by both parsers (parse.cpp and the patch
// reader in patch.cpp). unescape: the byte the two-character escape "\c"
// stands for (c one of " \ / b f n r t), 0 for any other c ('u' included).
inline char unescape(char c) noexcept {
  switch (c) {
    case '"':
    case '\\':
    case '/': return c;
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return 0;
  }
}
// UTF-16 surrogates in \uXXXX escapes: a high one (D800-DBFF) followed by a
// low one (DC00-DFFF) stands for one code point past U+FFFF.
inline constexpr bool is_high_surrogate(std::uint32_t u) noexcept {
  return u >= 0xD800 && u <= 0xDBFF;
}
inline constexpr bool is_low_surrogate(std::uint32_t u) noexcept {
  return u >= 0xDC00 && u <= 0xDFFF;
}
inline constexpr std::uint32_t join_surrogates(std::uint32_t high, std::uint32_t low) noexcept {
  return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
}

// Appends the RFC 8259 text of a double (shortest round-trip; ".0" added to
// an integral value) or of a string (quoted, escaped).
// Appends code point `cp` (at most U+10FFFF, no surrogate) to `out` as UTF-8.
void append_utf8(std::string& out, std::uint32_t cp);
void dump_double(double d, byte_buffer& out);
void dump_string(std::string_view s, byte_buffer& out);

}  // namespace json
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
