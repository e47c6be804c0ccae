// src/json/verify.cpp: json_store::verify(): the committed document walked
// from its root over the space's census (mapped_space::census), every fault
// reported with the JSON pointer of the value where it was found. Reads the
// committed bytes only (the census's), so a writer's uncommitted edits and a
// writer committing beside a reader change nothing it sees.
#include "json/store_file.hpp"

#include <fl/mapped_space.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

namespace {

class verifier {
 public:
  verifier(const store_file& f, const space_census& c)
      : f_(f), c_(c), visited_(c.block_count(), false) {}

  std::uint64_t run() {
    blocks_ok_ = c_.damage().empty();
    const std::uint64_t head = c_.root();
    if (head == 0) fault("not a json_store file (the space has no root object)");
    in_document_ = false;
    // Format 5 heads carry the change feed's ring after the json_head.
    json_head jh;
    const bool feed = peek(head, jh) && jh.version >= feed_format_version;
    const unsigned char* h =
        block(head, feed ? sizeof(json_head_v5) : sizeof(json_head), "the store's head", true);
    std::memcpy(&jh, h, sizeof jh);
    if (jh.magic != file_magic) fault("not a json_store file (bad magic in the root object)");
    if (jh.version < oldest_format_version || jh.version > format_version)
      fault("json_store format version " + std::to_string(jh.version) + ", this build reads " +
            std::to_string(oldest_format_version) + " to " + std::to_string(format_version));
    // Blocks the census could not walk: the page checksums alone, which
    // may name the value above the damage, then the census's finding.
    rules_ = format_rules::of(jh.version);
    owned_ = rules_.reuse && blocks_ok_;
    if (feed) {
      json_feed_head fh;
      std::memcpy(&fh, h + sizeof(json_head), sizeof fh);
      change_feed(fh.ring);
    }
    in_document_ = true;
    value(jh.root, 0);
    // Pages no value reached (free blocks, the space's own): checked last,
    // so damage under a value names the value.
    in_document_ = false;
    if (const std::string why = c_.check_all_pages(); !why.empty()) fault(why);
    if (!blocks_ok_) throw persist_error(f_.path_, c_.damage());
    return values_;
  }

 private:
  [[noreturn]] void fault(const std::string& reason) const {
    std::string where = !in_document_ ? std::string() : ptr_.empty() ? "\"\" (the root)" : ptr_;
    if (!where.empty()) where += ": ";
    throw persist_error(f_.path_, "verify: " + where + reason);
  }

  // The `len` bytes of value bytes at `off` ("a string's block", ...):
  // inside the file, on pages that match their checksums, and in format 3
  // a live block of their own, big enough (`own`: in format 2 too).
  const unsigned char* block(std::uint64_t off, std::uint64_t len, const std::string& what,
                             bool own = false) {
    if (off == 0) fault(what + " has no offset (0)");
    if (c_.bytes(off, len) == nullptr)
      fault(what + " at " + hex(off) + " (" + std::to_string(len) +
            " bytes) lies past the end of the file");
    const space_census::block b = c_.at(off);
    using st = space_census::block_state;
    if (owned_ || (own && blocks_ok_)) {
      switch (b.state) {
        case st::none: fault(what + " at " + hex(off) + " is not a block of the space");
        case st::free: fault(what + " is on the free list (offset " + hex(off) + ")");
        case st::retired:
          fault(what + " waits in a retired (deferred) batch (offset " + hex(off) + ")");
        case st::space: fault(what + " is one of the space's own blocks (offset " + hex(off) + ")");
        case st::live: break;
      }
      if (b.bytes < len)
        fault(what + " holds " + std::to_string(b.bytes) + " bytes, fewer than its " +
              std::to_string(len) + " (offset " + hex(off) + ")");
      if (visited_[b.index])
        fault(what + " is also reached from another value (offset " + hex(off) + ")");
      visited_[b.index] = true;
    }
    if (const std::string why = c_.check_pages(off, len); !why.empty()) fault(why);
    return reinterpret_cast<const unsigned char*>(c_.bytes(off, len));
  }

  // Bytes inside a block already checked (an object's keys): [off, off + len)
  // within [lo, hi) in format 3, within the file otherwise.
  const unsigned char* inside(std::uint64_t off, std::uint64_t len, std::uint64_t lo,
                              std::uint64_t hi, const std::string& what) {
    if (len == 0) return nullptr;
    if (owned_ && (off < lo || off > hi || len > hi - off))
      fault(what + " at " + hex(off) + " lies outside its object's block");
    if (c_.bytes(off, len) == nullptr) fault(what + " at " + hex(off) + " lies past the file");
    if (const std::string why = c_.check_pages(off, len); !why.empty()) fault(why);
    return reinterpret_cast<const unsigned char*>(c_.bytes(off, len));
  }

  // The change feed: the ring and every record it names, each a live block
  // of its own, in the slot of its sequence, and nothing outside the held
  // sequences.
  void change_feed(std::uint64_t ring_off) {
    feed_ring r;
    if (!peek(ring_off, r)) block(ring_off, sizeof r, "the change feed's ring", true);  // faults
    if (r.tag != feed_ring_tag) fault("the change feed's ring has a bad tag");
    if (r.capacity > max_feed_capacity)
      fault("the change feed's ring holds " + std::to_string(r.capacity) + " slots");
    if (r.first > r.sequence) fault("the change feed begins after its newest record");
    const unsigned char* slots =
        block(ring_off, sizeof r + std::uint64_t{r.capacity} * 8, "the change feed's ring", true) +
        sizeof r;
    const std::uint64_t lowest =
        std::max(r.first, r.sequence > r.capacity ? r.sequence - r.capacity : 0);
    std::uint64_t held_bytes = 0;
    for (std::uint32_t i = 0; i < r.capacity; ++i) {
      std::uint64_t off;
      std::memcpy(&off, slots + std::size_t{i} * 8, sizeof off);
      // The sequence slot i holds, if it holds one: the newest s <= sequence with s % capacity == i.
      const std::uint64_t back = (r.sequence % r.capacity + r.capacity - i) % r.capacity;
      const bool held = r.sequence >= back && r.sequence - back > lowest;
      const std::uint64_t s = r.sequence - back;
      const std::string what = "change record " + std::to_string(s);
      if (!held) {
        if (off != 0)
          fault("the change feed's slot " + std::to_string(i) + " names a record it does not hold");
        continue;
      }
      change_record ch;
      if (!peek(off, ch)) block(off, sizeof ch, what, true);  // faults
      if (ch.tag != change_record_tag || ch.sequence != s)
        fault(what + ": its slot names another block");
      if (ch.bytes > (std::uint64_t{1} << 40))
        fault(what + " claims " + std::to_string(ch.bytes) + " bytes");
      const unsigned char* text = block(off, sizeof ch + ch.bytes, what, true) + sizeof ch;
      if (ch.bytes < 2 || text[0] != '[' || text[ch.bytes - 1] != ']')
        fault(what + " is not a JSON array");
      held_bytes += ch.bytes;
      const std::size_t n = static_cast<std::size_t>(ch.bytes);
      if (utf8_valid_prefix(text, n) != n) fault(what + " is not valid UTF-8");
    }
    if (held_bytes != r.bytes)
      fault("the change feed's ring counts " + std::to_string(r.bytes) +
            " bytes of records, which hold " + std::to_string(held_bytes));
  }

  // The fixed header at `off`, before block() checks the whole record it
  // sizes: false when it lies past the file.
  template <class T>
  bool peek(std::uint64_t off, T& out) const {
    const std::byte* p = off ? c_.bytes(off, sizeof out) : nullptr;
    if (!p) return false;
    std::memcpy(&out, p, sizeof out);
    return true;
  }

  void utf8(const unsigned char* p, std::uint32_t n, const std::string& what) {
    const std::size_t bad = utf8_valid_prefix(p, n);
    if (bad != n) fault(what + " is not valid UTF-8 (byte " + std::to_string(bad) + ")");
  }

  void value(const json_ref& r, std::uint32_t depth) {
    ++values_;
    if (!valid_kind(r.k)) fault("a value of unknown kind " + std::to_string(r.k));
    switch (static_cast<kind>(r.k)) {
      case kind::null_v:
      case kind::false_v:
      case kind::true_v:
      case kind::int64:
      case kind::uint64: return;
      case kind::real: {
        double d;
        std::memcpy(&d, &r.x, sizeof d);
        if (!std::isfinite(d)) fault("a number that is not finite");
        return;
      }
      case kind::number_text: {
        if (r.n == 0) fault("a number without text");
        const unsigned char* p = block(r.x, r.n, "a number's block");
        for (std::uint32_t i = 0; i < r.n; ++i)
          if (std::strchr("0123456789+-.eE", p[i]) == nullptr || p[i] == 0)
            fault("a number's text holds a byte that is not part of a number (byte " +
                  std::to_string(i) + ")");
        return;
      }
      case kind::string: {
        if (r.n == 0) return;
        utf8(block(r.x, r.n, "a string's block"), r.n, "a string");
        return;
      }
      case kind::array:
      case kind::object: {
        if (depth >= max_depth) fault("nesting deeper than the format allows");
        if (r.n == 0) return;
        const bool array = static_cast<kind>(r.k) == kind::array;
        if (r.tree())
          array ? tree(r, depth) : tree_object(r, depth);
        else
          array ? flat_array(r, depth) : object(r, depth);
        return;
      }
    }
  }

  // An array tree (format 4): each node a block reached once, with its
  // tag, a count of 1 to max_node_entries, its level one below its
  // parent's (the root's at least 1), every child's count the count of the
  // elements under it, and the root's total the array's size. How full a
  // node is depends on the shape that wrote it, which the file does not
  // record; what keeps the levels logarithmic whatever the shape is
  // checked: every inner node but the root has two children or more.
  void tree(const json_ref& r, std::uint32_t depth) {
    if (!rules_.trees) fault("an array tree in a file of a format before version 4");
    std::uint64_t index = 0;
    const std::uint64_t total = node(r.x, -1, depth, index);
    if (total != r.n)
      fault("an array tree holds " + std::to_string(total) + " elements, its array says " +
            std::to_string(r.n));
  }
  std::uint64_t node(std::uint64_t off, int level, std::uint32_t depth, std::uint64_t& index) {
    const auto* hp = reinterpret_cast<const unsigned char*>(c_.bytes(off, sizeof(tree_node)));
    if (hp == nullptr) fault("an array tree's node at " + hex(off) + " lies past the file");
    tree_node h;
    std::memcpy(&h, hp, sizeof h);
    if (h.tag != tree_node_tag) fault("an array tree's node at " + hex(off) + " has no node tag");
    if (h.count == 0 || h.count > max_node_entries)
      fault("an array tree's node at " + hex(off) + " holds " + std::to_string(h.count) +
            " entries");
    if (level < 0 ? h.level == 0 || h.level >= max_tree_levels
                  : h.level != static_cast<unsigned>(level))
      fault("an array tree's node at " + hex(off) + " is at level " + std::to_string(h.level) +
            (level < 0 ? std::string(" (a root is at 1 or more)")
                       : ", not " + std::to_string(level)));
    if (level >= 0 && h.level > 0 && h.count < 2)
      fault("an array tree's inner node at " + hex(off) + " has one child");
    const unsigned char* t =
        block(off, tree_node_bytes(h.count), "an array tree's node") + sizeof(tree_node);
    std::vector<unsigned char> e(t, t + std::size_t{h.count} * sizeof(json_ref));
    std::uint64_t total = 0;
    const std::size_t len = ptr_.size();
    for (std::uint32_t j = 0; j < h.count; ++j) {
      if (h.level == 0) {
        json_ref x;
        std::memcpy(&x, e.data() + std::size_t{j} * sizeof x, sizeof x);
        ptr_ += '/';
        ptr_ += std::to_string(index++);
        value(x, depth + 1);
        ptr_.resize(len);
        ++total;
      } else {
        tree_child c;
        std::memcpy(&c, e.data() + std::size_t{j} * sizeof c, sizeof c);
        const std::uint64_t got = node(c.node, h.level - 1, depth, index);
        if (got != c.count)
          fault("an array tree's node at " + hex(off) + " counts " + std::to_string(c.count) +
                " elements under child " + std::to_string(j) + ", which holds " +
                std::to_string(got));
        total += got;
      }
    }
    return total;
  }

  // An object tree (format 5): its head a block with its tag; each tree's
  // nodes checked as an array tree's (tag, entries, levels, counts, every
  // inner node but the root with two children or more; the member tree's
  // root at level 1 or more), each separator the first leaf entry under
  // its child; the members in strictly rising seq below next_seq, the key
  // entries each with its key's hash (0 before format 6) and in strictly
  // rising (key tree order, seq); both trees hold o.n
  // entries and agree: each key entry names a distinct member by seq, with
  // the same key block. Each key is a block reached once, valid UTF-8.
  void tree_object(const json_ref& r, std::uint32_t depth) {
    if (!rules_.object_trees) fault("an object tree in a file of a format before version 5");
    object_tree h;
    std::memcpy(&h, block(r.x, sizeof h, "an object tree's head"), sizeof h);
    if (h.tag != object_tree_tag) fault("an object tree's head at " + hex(r.x) + " has no tag");
    std::vector<unsigned char> mbytes, kbytes;
    unsigned char first[40];
    const std::uint64_t nm = onode(store_file::member_tree, h.members, -1, mbytes, first);
    const std::uint64_t nk = onode(store_file::key_tree, h.keys, -1, kbytes, first);
    if (nm != r.n || nk != r.n)
      fault("an object tree holds " + std::to_string(nm) + " members and " + std::to_string(nk) +
            " keys, its object says " + std::to_string(r.n));
    std::vector<member_entry> ms(nm);
    std::memcpy(ms.data(), mbytes.data(), mbytes.size());
    std::vector<std::string_view> keys(nm);
    for (std::size_t i = 0; i < nm; ++i) {
      const member_entry& m = ms[i];
      if (m.seq >= h.next_seq || (i > 0 && m.seq <= ms[i - 1].seq))
        fault("an object tree's member " + std::to_string(i) + " has seq " + std::to_string(m.seq) +
              ", out of order (next " + std::to_string(h.next_seq) + ")");
      const std::string what = "member " + std::to_string(i) + "'s key";
      if (m.key_len) {
        const unsigned char* k = block(m.key, m.key_len, what + " block");
        utf8(k, m.key_len, what);
        keys[i] = {reinterpret_cast<const char*>(k), m.key_len};
      }
    }
    std::vector<bool> seen(nm, false);
    key_entry prev{};
    std::string_view prev_key;
    for (std::size_t j = 0; j < nk; ++j) {
      key_entry e;
      std::memcpy(&e, kbytes.data() + j * sizeof e, sizeof e);
      const auto it =
          std::lower_bound(ms.begin(), ms.end(), e.seq,
                           [](const member_entry& m, std::uint64_t s) { return m.seq < s; });
      if (it == ms.end() || it->seq != e.seq || it->key != e.key || it->key_len != e.key_len)
        fault("the key tree's entry " + std::to_string(j) + " (seq " + std::to_string(e.seq) +
              ") names no member of the member tree");
      const auto i = static_cast<std::size_t>(it - ms.begin());
      if (seen[i]) fault("the key tree names member " + std::to_string(i) + " twice");
      seen[i] = true;
      if (e.hash != rules_.key_hash(keys[i]))
        fault("the key tree's entry " + std::to_string(j) + " carries hash " + hex(e.hash) +
              ", not its key's " + hex(rules_.key_hash(keys[i])));
      if (j > 0) {
        const int c = key_tree_order(prev_key, prev.hash, keys[i], e.hash);
        if (c > 0 || (c == 0 && prev.seq >= e.seq))
          fault("the key tree is not sorted at entry " + std::to_string(j));
      }
      prev = e;
      prev_key = keys[i];
    }
    const std::size_t len = ptr_.size();
    for (std::size_t i = 0; i < nm; ++i) {
      append_token(ptr_, keys[i]);
      value(ms[i].value, depth + 1);
      ptr_.resize(len);
    }
  }
  // A node of an object's tree `t` and all below it: appends its leaf
  // entries to `leaves`, writes its first leaf entry to `first`, returns
  // how many leaf entries it holds.
  std::uint64_t onode(const store_file::tree_kind& t, std::uint64_t off, int level,
                      std::vector<unsigned char>& leaves, unsigned char* first) {
    const std::string what = std::string(t.name) + "'s node at " + hex(off);
    const auto* hp = reinterpret_cast<const unsigned char*>(c_.bytes(off, sizeof(tree_node)));
    if (hp == nullptr) fault(what + " lies past the file");
    tree_node h;
    std::memcpy(&h, hp, sizeof h);
    if (h.tag != t.tag) fault(what + " has no node tag of its tree");
    if (h.count == 0 || h.count > max_node_entries)
      fault(what + " holds " + std::to_string(h.count) + " entries");
    if (level < 0 ? h.level < static_cast<unsigned>(t.root_min_level) || h.level >= max_tree_levels
                  : h.level != static_cast<unsigned>(level))
      fault(what + " is at level " + std::to_string(h.level));
    if (level >= 0 && h.level > 0 && h.count < 2) fault(what + " is an inner node with one child");
    const std::uint32_t eb = t.entry_bytes(h.level);
    const unsigned char* p = block(off, object_node_bytes(eb, h.count), t.name) + sizeof(tree_node);
    std::vector<unsigned char> e(p, p + std::size_t{h.count} * eb);
    if (h.level == 0) {
      leaves.insert(leaves.end(), e.begin(), e.end());
      std::memcpy(first, e.data(), eb);
      return h.count;
    }
    std::uint64_t total = 0;
    for (std::uint32_t j = 0; j < h.count; ++j) {
      const unsigned char* x = e.data() + std::size_t{j} * eb;
      std::uint64_t child, count;
      std::memcpy(&child, x, 8);
      std::memcpy(&count, x + 8, 8);
      unsigned char sub[40];
      const std::uint64_t got = onode(t, child, h.level - 1, leaves, sub);
      if (got != count)
        fault(what + " counts " + std::to_string(count) + " entries under child " +
              std::to_string(j) + ", which holds " + std::to_string(got));
      if (std::memcmp(x + 16, sub, t.sep_bytes) != 0)
        fault(what + "'s separator of child " + std::to_string(j) +
              " is not the first entry under it");
      if (j == 0) std::memcpy(first, sub, t.leaf_bytes);
      total += got;
    }
    return total;
  }

  // A flat array's elements, each checked under its pointer.
  void flat_array(const json_ref& r, std::uint32_t depth) {
    const unsigned char* t = block(r.x, std::uint64_t{r.n} * sizeof(json_ref), "an array's block");
    const std::size_t len = ptr_.size();
    for (std::uint32_t i = 0; i < r.n; ++i) {
      json_ref e;
      std::memcpy(&e, t + std::size_t{i} * sizeof e, sizeof e);
      ptr_ += '/';
      ptr_ += std::to_string(i);
      value(e, depth + 1);
      ptr_.resize(len);
    }
  }

  void object(const json_ref& r, std::uint32_t depth) {
    const std::uint32_t n = r.n;
    const bool indexed = n >= index_min_members;
    const std::uint64_t table = std::uint64_t{n} * sizeof(json_member) + (indexed ? 4ull * n : 0);
    const unsigned char* t = block(r.x, table, "an object's block");
    const std::uint64_t lo = r.x + table, hi = r.x + c_.at(r.x).bytes;
    std::vector<json_member> ms(n);
    std::memcpy(ms.data(), t, std::size_t{n} * sizeof(json_member));
    // Keys first: a member's pointer needs its key.
    std::vector<std::string_view> keys(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::string what = "member " + std::to_string(i) + "'s key";
      const unsigned char* k = inside(ms[i].key, ms[i].key_len, lo, hi, what);
      if (k) utf8(k, ms[i].key_len, what);
      keys[i] = k ? std::string_view(reinterpret_cast<const char*>(k), ms[i].key_len)
                  : std::string_view();
    }
    if (indexed) {
      // n positions, each member once, in key_order, ties by position.
      std::vector<bool> seen(n, false);
      std::uint32_t prev = 0;
      for (std::uint32_t j = 0; j < n; ++j) {
        std::uint32_t p;
        std::memcpy(&p, t + std::size_t{n} * sizeof(json_member) + std::size_t{j} * 4, 4);
        if (p >= n)
          fault("the key index's entry " + std::to_string(j) + " is " + std::to_string(p) +
                ", past the object's " + std::to_string(n) + " members");
        if (seen[p])
          fault("the key index names member " + std::to_string(p) +
                " twice (it is not a permutation)");
        seen[p] = true;
        if (j > 0) {
          const int c =
              key_order(keys[prev].data(), ms[prev].key_len, keys[p].data(), ms[p].key_len);
          if (c > 0 || (c == 0 && prev > p))
            fault("the key index is not sorted at entry " + std::to_string(j) + " (member " +
                  std::to_string(prev) + " before member " + std::to_string(p) + ")");
        }
        prev = p;
      }
    }
    const std::size_t len = ptr_.size();
    for (std::uint32_t i = 0; i < n; ++i) {
      append_token(ptr_, keys[i]);
      value(ms[i].value, depth + 1);
      ptr_.resize(len);
    }
  }

  const store_file& f_;
  const space_census& c_;
  std::vector<bool> visited_;  // per census block: reached from a value already
  std::string ptr_;            // the JSON pointer of the value being checked
  bool in_document_ = false;   // false: a fault outside the document (no pointer)
  format_rules rules_;         // what the file's format holds
  bool owned_ = true;          // format 3: every value with bytes owns its block
  bool blocks_ok_ = true;      // the census walked every block
  std::uint64_t values_ = 0;
};

}  // namespace

}  // namespace json
}  // namespace detail

std::uint64_t json_store::verify() const {
  const detail::json::store_file& f = *file_;
  if (!f.published_)
    throw persist_error(f.path_,
                        "verify: the store has no commit to verify yet (an import or compact() "
                        "is published by the next sync())");
  const space_census census = f.space_->census();
  return detail::json::verifier(f, census).run();
}

}  // namespace FL_ABI_NS
}  // namespace fl
