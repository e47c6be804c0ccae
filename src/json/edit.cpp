// src/json/edit.cpp: edits of a json_store by path copying: set, insert and
// erase build new copies of the containers on the pointer's path in the tail
// (an inline value replacing an entry is written over it instead, and blocks
// edits made since the last commit are written over, staged in in_place_),
// then publish_edit() moves the copies into blocks of the space, makes the
// staged writes and retires the blocks the copies replace; put() over set()
// with parent creation. An edit is all or nothing: a throw leaves the
// document as it was (atomic_edit).
#include "json/store_file.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

namespace {

// `ptr` quoted for an error message: whole when short, else its start and
// end (a pointer near the nesting limit runs to thousands of bytes).
std::string pointer_for_error(std::string_view ptr) {
  constexpr std::size_t whole_max = 96, head = 48, tail = 40;
  if (ptr.size() <= whole_max) return "\"" + std::string(ptr) + "\"";
  return "\"" + std::string(ptr.substr(0, head)) + "..." +
         std::string(ptr.substr(ptr.size() - tail)) + "\" (" + std::to_string(ptr.size()) +
         " bytes)";
}

// `"/a/b" (the parent of "/a/b/c")`, or "(a prefix of ...)" when more than
// one token of `whole` follows `prefix`.
std::string edit_fault(std::string_view prefix, std::string_view whole) {
  const bool parent = whole.find('/', prefix.size() + 1) == std::string_view::npos;
  std::string s = "\"";
  s.append(prefix).append(parent ? "\" (the parent of \"" : "\" (a prefix of \"");
  return s.append(whole).append("\")");
}
// "a string", "an array", "null": the type of `v` after "is".
std::string a_type(const json_value& v) {
  const std::string_view n = v.type_name();
  if (v.is_null()) return std::string(n);
  return (n.front() == 'a' || n.front() == 'o' ? "an " : "a ") + std::string(n);
}
// Why the token `tok` names no element of the array at `array`.
std::string index_fault(std::string_view tok, std::string_view array, std::uint64_t size) {
  const std::string where =
      " of the array \"" + std::string(array) + "\" (size " + std::to_string(size) + ")";
  std::string s;
  if (token_index(tok) == no_index && tok != "-")
    s.append("\"").append(tok).append("\" is not an index");
  else
    s.append("index ").append(tok).append(" is past the end");
  return s + where;
}

// The bytes a value with a block keeps in it.
std::uint64_t payload_bytes(const json_ref& r) noexcept {
  switch (static_cast<kind>(r.k)) {
    case kind::array: return std::uint64_t{r.n} * sizeof(json_ref);
    case kind::object: return std::uint64_t{r.n} * sizeof(json_member);
    default: return r.n;
  }
}

}  // namespace

// Runs `e`, an edit that builds in the tail and may change root_ (and, for
// an inline value, one entry in place), then publishes it when `e` returns
// true. All or nothing: when `e` returns false or anything throws, the tail,
// the root and the blocks to retire are as before.
template <class Edit>
bool store_file::atomic_edit(Edit&& e) {
  const std::size_t mark = tail_.size(), blocks_mark = tail_blocks_.size();
  const json_ref old_root = root_;
  auto roll_back = [&]() noexcept {
    tail_.truncate(mark);
    tail_blocks_.resize(blocks_mark);
    root_ = old_root;
    replaced_.clear();
    in_place_.clear();
  };
  try {
    if (!e()) {
      roll_back();
      return false;
    }
    publish_edit();
    return true;
  } catch (...) {
    roll_back();
    throw;
  }
}

// Returns the new container. An object's keys are copied into the new block
// with its table (they live in the table's block, which the edit retires).
json_ref store_file::copy_container(const json_ref& c, std::uint64_t limit, std::size_t pos,
                                    op what, const json_ref& v, std::string_view key,
                                    std::uint64_t seq) {
  const std::uint32_t n = c.n;
  const bool grows = what == op::add || what == op::insert;
  const std::uint32_t n2 = grows ? n + 1 : what == op::remove ? n - 1 : n;
  if (grows && n == std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("fl::json_store: container too large");
  if (c.k == static_cast<std::uint8_t>(kind::array)) {
    if (c.tree()) return edit_tree(c, limit, what == op::add ? n : pos, what, v);
    // A flat table: copied whole (it holds at most leaf_max elements in a
    // store with trees, where one more makes new_array build a tree).
    std::vector<json_ref> e(n);
    if (n) std::memcpy(e.data(), bytes(c.x, std::uint64_t{n} * sizeof(json_ref), limit),
                       std::size_t{n} * sizeof(json_ref));
    const auto at = e.begin() + static_cast<std::ptrdiff_t>(pos);
    if (what == op::remove)
      e.erase(at);
    else if (what == op::insert)
      e.insert(at, v);
    else if (what == op::add)
      e.push_back(v);
    else
      *at = v;
    return new_array(e.data(), n2);
  }
  if (c.tree()) return edit_object_tree(c, limit, pos, what, v, key, seq);
  // The kept members and their keys, read before the tail grows.
  const std::size_t e = sizeof(json_member);
  const bool old_indexed = n >= index_min_members;
  const unsigned char* src =
      bytes(c.x, std::uint64_t{n} * e + (old_indexed ? std::uint64_t{n} * 4 : 0), limit);
  std::vector<json_member> ms;
  ms.reserve(n2);
  std::string keys;
  const auto add_new = [&] {
    ms.push_back({keys.size(), static_cast<std::uint32_t>(key.size()), 0, v});
    keys.append(key);
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    if (what == op::remove && i == pos) continue;
    if (what == op::insert && i == pos) add_new();
    json_member m;
    std::memcpy(&m, src + std::size_t{i} * e, e);
    const auto* k = reinterpret_cast<const char*>(bytes(m.key, m.key_len, limit));
    m.key = keys.size();
    keys.append(k, m.key_len);
    if (what == op::set && i == pos) m.value = v;
    ms.push_back(m);
  }
  if (what == op::add || (what == op::insert && pos == n)) add_new();
  // Same keys in the same places after a set: the old order stands.
  return new_object(ms, keys, what == op::set && old_indexed ? src + std::size_t{n} * e : nullptr);
}

json_ref store_file::new_object(std::vector<json_member>& ms, const std::string& keys,
                                const unsigned char* old_index) {
  // A flat object that grows past leaf_max becomes a tree (format 5), its
  // members copied once.
  const tree_shape shape = current_tree_shape();
  if (rules_.object_trees && ms.size() > shape.leaf_max)
    return build_object_tree(tail_, tail_base_, tail_blocks_, ms.data(), ms.size(), keys, shape,
                             rules_);
  return new_flat_object(ms, keys, old_index);
}

json_ref store_file::new_flat_object(std::vector<json_member>& ms, const std::string& keys,
                                     const unsigned char* old_index) {
  const std::size_t e = sizeof(json_member);
  const auto n2 = static_cast<std::uint32_t>(ms.size());
  json_ref r{static_cast<std::uint8_t>(kind::object), {}, n2, 0};
  if (n2 == 0) return r;
  const bool indexed = n2 >= index_min_members;
  const std::size_t table = std::size_t{n2} * e, index_bytes = indexed ? std::size_t{n2} * 4 : 0;
  // The old index is read before new_block may move the tail (it lies in
  // the space: the containers an edit copies are committed or published).
  std::vector<std::uint32_t> index(indexed ? n2 : 0);
  if (indexed && old_index) {
    std::memcpy(index.data(), old_index, std::size_t{n2} * 4);
  } else if (indexed) {
    write_member_index(index.data(), n2, [&](std::uint32_t i) {
      return std::string_view(keys.data() + ms[i].key, ms[i].key_len);
    });
  }
  unsigned char* dst = new_block(table + index_bytes + keys.size(), kind::object, n2, r.x);
  if (indexed) std::memcpy(dst + table, index.data(), index_bytes);
  if (!keys.empty()) std::memcpy(dst + table + index_bytes, keys.data(), keys.size());
  for (std::uint32_t i = 0; i < n2; ++i) {
    ms[i].key += r.x + table + index_bytes;
    std::memcpy(dst + std::size_t{i} * e, &ms[i], e);
  }
  return r;
}

// Entry `pos` of container `c` becomes `v`, an inline value, in place: no
// path copy, so a commit of a changed number or flag logs the one page the
// entry is on. Every container reachable from the root has one reachable
// parent (path copying leaves old parents unreachable), so no other value
// sees the change; views taken before are invalidated by the edit (see
// fl/json_store.hpp). The entry is found through bytes(), so its page is
// checked against its CRC before the write, which never hides damage there
// (an array's entry is not otherwise read on the way). bytes() returns a
// read view of memory the store may write: the private mapping, or the tail.
// Returns the entry's old value.
std::uint64_t store_file::entry_offset(const json_ref& c, std::uint64_t limit,
                                       std::size_t pos) const {
  if (c.k == static_cast<std::uint8_t>(kind::array)) return element_offset(c, limit, pos);
  if (!c.tree()) return c.x + pos * sizeof(json_member) + offsetof(json_member, value);
  // The edit's own lookup found the member's entry: no second descent.
  const std::uint64_t at = lookup_.at(c, pos) ? lookup_.m_offset : member_offset(c, limit, pos);
  return at + offsetof(member_entry, value);
}

json_ref store_file::overwrite_entry(const json_ref& c, std::uint64_t limit, std::size_t pos,
                                     const json_ref& v) {
  const std::uint64_t off = entry_offset(c, limit, pos);
  const unsigned char* at = bytes(off, sizeof v, limit);
  const json_ref old = read_ref(at);
  std::memcpy(const_cast<unsigned char*>(at), &v, sizeof v);
  space_->wrote(fptr<const void>(off), sizeof v);
  return old;
}

// Entry `pos` of container `c`, as stored: read where entry_offset finds
// it, not through json_value::member()/element(), which return a view by
// memory that the caller read back by 16-byte loads the CPU cannot forward
// from the callee's 8-byte stores (a stall per step of an edit's path), and
// member() reads the key too, which an edit's descent never needs.
json_ref store_file::entry(const json_ref& c, std::uint64_t limit, std::size_t pos) const {
  if (lookup_.at(c, pos)) return lookup_.m.value;
  return read_ref(bytes(entry_offset(c, limit, pos), sizeof(json_ref), limit));
}

namespace {
// A step of an edit's path, made in the vector's own element: one built on
// the stack and pushed was read back by 16-byte loads the CPU cannot forward
// from the 8-byte stores that made it (a stall per step).
void add_step(std::vector<store_file::edit_step>& path, const json_ref& c, std::uint64_t limit,
              std::size_t pos) {
  store_file::edit_step& s = path.emplace_back();
  s.c = c;
  s.limit = limit;
  s.pos = pos;
}
}  // namespace

// set (v given) or erase (v null): the path to the parent of the last token,
// then copies of the containers on it, bottom-up; an inline value replacing
// an entry is written over it (overwrite_entry).
// insert (v given): RFC 6902 "add", which puts an array element before
// the index instead of replacing it.
bool store_file::edit(std::string_view ptr, const json_ref* v, bool insert,
                      const member_place* place, json_ref* taken, std::uint32_t height) {
  using step = edit_step;
  lookup_.valid = false;  // this edit's own, if any, is made below
  edit_place_ = {};
  std::vector<step>& path = edit_path_;
  path.clear();
  std::string buf;
  json_ref cur = root_;
  std::uint64_t limit = root_limit();
  std::string_view last;  // the final token (a view of `ptr` or of `buf`)
  const std::string_view whole = ptr;
  while (!ptr.empty()) {
    // The pointer up to (and without) this token, and up to its end.
    const std::string_view above = whole.substr(0, whole.size() - ptr.size());
    const std::string_view tok = next_token(ptr, buf);
    const bool final = ptr.empty();
    const std::string_view here = whole.substr(0, whole.size() - ptr.size());
    std::size_t pos = std::string_view::npos;
    if (cur.k == static_cast<std::uint8_t>(kind::object)) {
      if (final && place)
        pos = place->pos;  // a new member, placed by position: no lookup
      else
        pos = final && cur.tree()
                  ? find_tree_member_to_edit(cur, limit, tok, !v || !inline_kind(v->k))
                  : find_member(cur, limit, tok);
    } else if (cur.k == static_cast<std::uint8_t>(kind::array)) {
      const std::uint64_t i = token_index(tok);
      if (i < cur.n)
        pos = static_cast<std::size_t>(i);
      else if (!final || !v || (tok != "-" && i != cur.n))
        pos = std::string_view::npos;
      else
        pos = cur.n;  // append
    } else {
      if (!v) return false;
      throw std::out_of_range("fl::json_store::set: " + edit_fault(above, whole) + " is " +
                              a_type(view(cur, limit)) + ", not an object or array");
    }
    if (final) {
      if (v && pos == std::string_view::npos && cur.k == static_cast<std::uint8_t>(kind::array))
        throw std::out_of_range("fl::json_store::set: " + index_fault(tok, above, cur.n) +
                                "; use " + std::to_string(cur.n) + " or \"-\" to append");
      // A member added takes the token as its key, which must be JSON
      // text (a lookup by any other finds nothing: every key is UTF-8).
      if (v && !place && pos == std::string_view::npos &&
          cur.k == static_cast<std::uint8_t>(kind::object)) {
        const std::size_t bad =
            utf8_valid_prefix(reinterpret_cast<const unsigned char*>(tok.data()), tok.size());
        if (bad != tok.size())
          throw std::invalid_argument("fl::json_store: the key of a member added to " +
                                      pointer_for_error(above) + " is not UTF-8 (its byte " +
                                      std::to_string(bad) + ")");
      }
      add_step(path, cur, limit, pos);
      last = tok;
      break;
    }
    if (pos == std::string_view::npos) {
      if (!v) return false;
      std::string what = "fl::json_store::set: no value at " + edit_fault(here, whole);
      if (cur.k == static_cast<std::uint8_t>(kind::array))
        what += ": " + index_fault(tok, above, cur.n);
      throw std::out_of_range(what);
    }
    add_step(path, cur, limit, pos);
    cur = entry(cur, limit, pos);  // the child's bounds are its container's
  }
  // The value's depth is the containers above it (path), each within
  // max_depth in a sound document; its own may not take the document past.
  const std::uint32_t room =
      path.size() < max_depth ? max_depth - static_cast<std::uint32_t>(path.size()) : 0;
  if (v && height > room && !nests_within(*v, root_limit(), room))
    throw std::length_error("fl::json_store: the value for " + pointer_for_error(whole) +
                            " nests too deep: " + std::to_string(path.size()) +
                            " containers down, a value may nest at most " + std::to_string(room) +
                            " (a document nests at most " + std::to_string(max_depth) + ")");
  replaced_.clear();
  // The value the edit removes or replaces: retired with every block it
  // holds, or, when the caller takes it, left live and handed over.
  const auto let_go = [&](const json_ref& old) {
    if (taken)
      *taken = old;
    else
      find_replaced(old);
  };
  if (path.empty()) {  // the pointer "" names the document
    if (!v) return false;
    let_go(root_);
    root_ = *v;
    edit_op_ = "replace";
    return true;
  }
  step& s = path.back();
  const bool placed = place != nullptr;
  if (placed && (!v || s.c.k != static_cast<std::uint8_t>(kind::object) || place->pos > s.c.n))
    throw std::out_of_range("fl::json_store: no place " + std::to_string(place->pos) +
                            " in an object for \"" + std::string(whole) + "\"");
  const bool in_array = s.c.k == static_cast<std::uint8_t>(kind::array);
  const bool replaces = !placed && s.pos != std::string_view::npos &&
                        !(in_array && s.pos == s.c.n) && !(in_array && insert);
  edit_op_ = !v ? "remove" : replaces ? "replace" : "add";
  if ((!v || replaces) && s.c.k == static_cast<std::uint8_t>(kind::object))
    edit_place_ = {s.pos, s.c.tree() && lookup_.at(s.c, s.pos) ? lookup_.m.seq : no_index};
  if (v && replaces && inline_kind(v->k)) {
    let_go(entry(s.c, s.limit, s.pos));
    overwrite_entry(s.c, s.limit, s.pos, *v);
    return true;
  }
  if (!v && s.pos == std::string_view::npos) return false;
  // The block-lifetime rule (docs/design.md "Block lifetimes"), decided
  // here and nowhere else: the edit retires the tables on its path (their
  // copies take the children) and the value it removes or replaces (or
  // hands it to the caller who takes it: let_go). An insert before an
  // element moves that element, which stays reachable.
  if (!v || replaces) let_go(entry(s.c, s.limit, s.pos));
  for (const step& p : path) find_replaced_table(p.c);
  json_ref r;
  if (placed) {
    r = copy_container(s.c, s.limit, place->pos, op::insert, *v, last, place->seq);
  } else if (!v) {
    r = copy_container(s.c, s.limit, s.pos, op::remove, {}, {});
  } else if (s.pos == std::string_view::npos) {
    r = copy_container(s.c, s.limit, 0, op::add, *v, last);
  } else if (in_array && s.pos == s.c.n) {
    r = copy_container(s.c, s.limit, 0, op::add, *v, {});
  } else if (in_array && insert) {
    r = copy_container(s.c, s.limit, s.pos, op::insert, *v, {});
  } else {
    r = copy_container(s.c, s.limit, s.pos, op::set, *v, {});
  }
  for (std::size_t i = path.size() - 1; i-- > 0;) {
    const step& p = path[i];
    if (entry_in_place(p.c, p.limit, p.pos, r)) {
      // p.c keeps its place, so every container above it is unchanged.
      for (std::size_t k = 0; k <= i; ++k) keep_table(path[k].c);
      return true;
    }
    r = copy_container(p.c, p.limit, p.pos, op::set, r, {});
  }
  root_ = r;
  return true;
}

void store_file::put_value(std::string_view ptr, const json_ref& v, bool insert,
                           const member_place* place, json_ref* taken, std::uint32_t height) {
  refuse_read_only("set");
  atomic_edit([&] { return edit(ptr, &v, insert, place, taken, height); });
}

bool store_file::take_value(std::string_view ptr, json_ref& taken) {
  refuse_read_only("erase");
  return atomic_edit([&] { return edit(ptr, nullptr, false, nullptr, &taken); });
}

json_ref store_file::exchange_value(std::string_view ptr, std::string_view text) {
  refuse_read_only("set");
  json_ref taken{};
  atomic_edit([&] {
    std::uint32_t height = 0;
    const json_ref v = build_in_tail(text, height);
    return edit(ptr, &v, false, nullptr, &taken, height);
  });
  return taken;
}

void store_file::retire_values(std::span<const json_ref> values) {
  replaced_.clear();
  try {
    for (const json_ref& r : values) find_replaced(r);
  } catch (...) {
    replaced_.clear();
    throw;
  }
  if (replaced_.empty()) return;
  ++edition_;  // blocks born since the last commit are freed
  retire_replaced();
}

json_ref store_file::build_in_tail(std::string_view text, std::uint32_t& height) {
  height = 0;
  if (const std::optional<json_ref> r = small_integer_ref(text)) return *r;
  builder b(tail_, tail_blocks_, tail_offset(), rules_);
  parse_fast(text, b);
  height = b.height();
  return b.result();
}

// Entry `pos` of container `c` made `r` without a copy of `c`: true when it
// holds `r` already (the child was edited in place where it is), or when `c`
// is a writable table (store_file::writable), whose entry publish_edit then
// writes. A tree's entry changes in its own edit (copy_container).
bool store_file::entry_in_place(const json_ref& c, std::uint64_t limit, std::size_t pos,
                                const json_ref& r) {
  if (!rules_.reuse) return false;
  const json_ref old = entry(c, limit, pos);
  if (std::memcmp(&old, &r, sizeof r) == 0) return true;
  if (c.tree() || !writable(c.x)) return false;
  // A leaf's entry is one json_ref: its form translates the ref.
  stage_write(entry_offset(c, limit, pos), &r, sizeof r, node_form::leaf);
  return true;
}

void store_file::keep_table(const json_ref& c) {
  if (!rules_.reuse || !has_block(c)) return;
  if (c.tree() && c.k != static_cast<std::uint8_t>(kind::object)) return;
  const auto it = std::find(replaced_.begin(), replaced_.end(), c.x);
  if (it != replaced_.end()) replaced_.erase(it);
}

namespace {
// Where a block of the tail names other blocks, by its form: `entries`
// entries of `entry` bytes after `header` bytes, each holding block offsets
// at `offsets` and, when has_ref, a json_ref at `ref`. The one description
// of every block kind's links that publish_edit translates.
struct block_links {
  std::uint32_t entries = 0;
  std::size_t header = 0;
  std::size_t entry = 0;
  std::size_t offsets[2] = {};
  unsigned n_offsets = 0;
  bool has_ref = false;
  std::size_t ref = 0;
};

block_links links_of(node_form form, kind k, std::uint32_t n) {
  const std::size_t node = sizeof(tree_node);
  switch (form) {
    case node_form::object_head:
      return {1, 0, sizeof(object_tree),
              {offsetof(object_tree, members), offsetof(object_tree, keys)}, 2, false, 0};
    case node_form::member_leaf:
      return {n, node, sizeof(member_entry), {offsetof(member_entry, key)}, 1, true,
              offsetof(member_entry, value)};
    case node_form::member_inner:
      return {n, node, sizeof(member_child), {offsetof(member_child, node)}, 1, false, 0};
    case node_form::key_leaf:
      return {n, node, sizeof(key_entry), {offsetof(key_entry, key)}, 1, false, 0};
    case node_form::key_inner:
      return {n, node, sizeof(key_child),
              {offsetof(key_child, node), offsetof(key_child, first) + offsetof(key_entry, key)},
              2, false, 0};
    case node_form::leaf:
      return {n, node, sizeof(json_ref), {}, 0, true, 0};
    case node_form::inner:
      return {n, node, sizeof(tree_child), {offsetof(tree_child, node)}, 1, false, 0};
    case node_form::none:
      break;
  }
  if (k == kind::array) return {n, 0, sizeof(json_ref), {}, 0, true, 0};
  if (k == kind::object)
    return {n, 0, sizeof(json_member), {offsetof(json_member, key)}, 1, true,
            offsetof(json_member, value)};
  return {};  // bytes: a string's, a key's, a number's text
}
block_links links_of(const tail_block& b) { return links_of(b.node, b.k, b.n); }

// The offsets in entry `e` that `l` names, translated.
template <class Translate>
void translate_entry(unsigned char* e, const block_links& l, const Translate& translate) {
  for (unsigned o = 0; o < l.n_offsets; ++o) {
    std::uint64_t off;
    std::memcpy(&off, e + l.offsets[o], sizeof off);
    off = translate(off);
    std::memcpy(e + l.offsets[o], &off, sizeof off);
  }
  if (l.has_ref) {
    json_ref r;
    std::memcpy(&r, e + l.ref, sizeof r);
    if (store_file::has_block(r)) r.x = translate(r.x);
    std::memcpy(e + l.ref, &r, sizeof r);
  }
}
}  // namespace

// Moves the tail's blocks into blocks of the space (allocate: reused or
// carved) and points the head at root_, translating the tail's offsets
// (labels from tail_base_) into the blocks' offsets; then retires what the
// edit replaced. Called when an edit is complete; throws before the space
// is changed (the blocks taken are returned).
void store_file::publish_edit() {
  ++edition_;  // the edit may have written over an entry or retired blocks
  ++edits_since_sync_;
  lookup_.valid = false;
  std::vector<std::uint64_t>& to = placed_;
  to.assign(tail_blocks_.size(), 0);
  // Offsets below the tail name blocks of the space; so may the bytes of a
  // damaged file past it (an entry a write in place keeps), which nothing
  // here may read through: with no tail they are left as they are.
  auto translate = [&](std::uint64_t off) {
    if (off < tail_base_ || tail_blocks_.empty()) return off;
    const auto it =
        std::upper_bound(tail_blocks_.begin(), tail_blocks_.end(), off,
                         [](std::uint64_t o, const tail_block& b) { return o < b.off; });
    const std::size_t i = static_cast<std::size_t>(it - tail_blocks_.begin()) - 1;
    return to[i] + (off - tail_blocks_[i].off);
  };
  if (!tail_blocks_.empty()) {
    born_.reserve(to.size());  // before the space changes: inserts below cannot throw
    std::size_t got = 0;
    try {
      for (; got < to.size(); ++got)
        to[got] = space_->allocate(static_cast<std::size_t>(tail_blocks_[got].bytes), 16).offset();
    } catch (...) {
      while (got-- > 0) space_->deallocate(fptr<void>(to[got]));
      throw;
    }
    for (std::size_t i = 0; i < to.size(); ++i) {
      const tail_block& b = tail_blocks_[i];
      unsigned char* d = space_->get(fptr<unsigned char>(to[i]));
      std::memcpy(d, tail_.data() + (b.off - tail_base_), static_cast<std::size_t>(b.bytes));
      space_->wrote(fptr<const void>(to[i]), b.bytes);
      const block_links l = links_of(b);
      const std::uint32_t fix_end = std::min(l.entries, b.fix_end);
      for (std::uint32_t j = b.fix_first; j < fix_end; ++j)
        translate_entry(d + l.header + std::size_t{j} * l.entry, l, translate);
    }
  }
  // The writes in place, in the order staged (a shift before the entry
  // written into the room it made); the space is not changed before this
  // point, and nothing below throws.
  for (staged_write& w : in_place_) {
    unsigned char* d = space_->get(fptr<unsigned char>(w.at));
    space_->wrote(fptr<const void>(w.at), w.len);
    if (w.shift) {
      std::memmove(d, space_->get(fptr<unsigned char>(w.from)), w.len);
      continue;
    }
    if (w.form != node_form::none) translate_entry(w.b, links_of(w.form, kind::null_v, 1), translate);
    std::memcpy(d, w.b, w.len);
  }
  in_place_.clear();
  if (!tail_blocks_.empty()) {
    root_ = [&] {
      json_ref r = root_;
      if (has_block(r)) r.x = translate(r.x);
      return r;
    }();
    tail_.clear();
    tail_blocks_.clear();
    for (std::uint64_t b : to) born_.insert(b);
  }
  // Unchanged after an in-place edit: left alone, so its page stays clean.
  json_ref& head_root = space_->get(head_)->root;
  if (std::memcmp(&head_root, &root_, sizeof root_) != 0) {
    head_root = root_;
    space_->wrote(head_, sizeof(json_head));
  }
  start_tail();
  retire_replaced();
}

// Retires the blocks the edit just published replaced, and frees those an
// edit since the last commit made (born_).
void store_file::retire_replaced() {
  // A block the space no longer holds live was freed through another
  // parent: only a damaged file reaches one value from two places.
  for (std::uint64_t x : replaced_) {
    try {
      if (born_.erase(x))
        space_->deallocate(fptr<void>(x));
      else
        space_->retire(fptr<void>(x));
    } catch (const std::invalid_argument&) {
      replaced_.clear();
      damaged("a value's block was freed through another parent");
    }
  }
  replaced_.clear();
}

// Adds the block of `r` to replaced_ (format 3 only), after checking that
// it is a live block of the space holding the value's bytes: a damaged
// document fails here, before the edit changes anything.
void store_file::add_replaced(const json_ref& r) { add_replaced_block(r.x, payload_bytes(r)); }

void store_file::add_replaced_block(std::uint64_t off, std::uint64_t payload) {
  if (block_room(off) < payload) damaged("a value's bytes are larger than its block");
  replaced_.push_back(off);
}

std::size_t store_file::block_room(std::uint64_t off) const {
  try {
    return space_->block_size(fptr<void>(off));
  } catch (const std::invalid_argument&) {
    damaged("the document names a block at " + hex(off) + " that is not one of the space");
  }
}

// A container on an edit's path: its table is replaced by the copy; its
// children move to the copy. An array tree's copy replaces the nodes on
// the descent path only, which edit_tree adds as it copies them.
void store_file::find_replaced_table(const json_ref& c) {
  if (!rules_.reuse || !has_block(c)) return;
  if (!c.tree())
    add_replaced(c);
  else if (c.k == static_cast<std::uint8_t>(kind::object))
    add_replaced_block(c.x, sizeof(object_tree));  // its head; edit_object_tree adds the nodes
}

bool store_file::nests_within(const json_ref& r, std::uint64_t limit, std::uint32_t room) const {
  std::uint64_t budget = space_->live_blocks() + tail_blocks_.size();
  const auto spend = [&] {
    if (budget == 0) damaged("the structure refers to one value twice");
    --budget;
  };
  bool fits = true;
  // Value `c`, with room for `left` more containers where it is.
  const auto walk = [&](const auto& self, const json_ref& c, std::uint32_t left) -> void {
    if (!fits || !container_kind(c.k)) return;
    if (left == 0) {  // an empty container is a level too
      fits = false;
      return;
    }
    if (c.n == 0) return;
    spend();
    each_child(
        c, limit, false, [&](std::uint64_t, std::uint64_t) { spend(); },
        [&](const json_ref& e) { self(self, e, left - 1); });
  };
  walk(walk, r, room);
  return fits;
}

// Every block of value `r`, which the edit replaces or removes. A damaged
// document (a value reachable twice, a cycle) cannot make this loop: it
// visits at most max_depth levels and as many blocks as the space has live.
void store_file::find_replaced(const json_ref& r) {
  if (!rules_.reuse) return;
  std::uint64_t budget = space_->live_blocks();
  find_replaced(r, 0, budget);
}

void store_file::find_replaced(const json_ref& r, std::uint32_t depth, std::uint64_t& budget) {
  if (!has_block(r)) return;
  // Containers are the levels (as the parsers and verify() count them): a
  // string in the innermost of max_depth arrays is no deeper than allowed.
  if (depth >= max_depth && container_kind(r.k)) damaged("nesting deeper than the format allows");
  // One unit of the budget per block: a tree's blocks are its nodes, which
  // the walk below counts and adds.
  if (!r.tree()) {
    if (budget == 0) damaged("the structure refers to one value twice");
    --budget;
    add_replaced(r);
  }
  each_child(
      r, root_limit(), true,
      [&](std::uint64_t off, std::uint64_t payload) {
        if (budget == 0) damaged("the structure refers to one value twice");
        --budget;
        add_replaced_block(off, payload);
      },
      [&](const json_ref& e) { find_replaced(e, depth + 1, budget); });
}

}  // namespace json
}  // namespace detail


using detail::json::json_ref;

void json_store::set(std::string_view json_pointer, std::string_view json_text) {
  write(json_pointer, json_text, false);
}

void json_store::insert(std::string_view json_pointer, std::string_view json_text) {
  write(json_pointer, json_text, true);
}

void json_store::write(std::string_view json_pointer, std::string_view json_text, bool insert) {
  detail::json::store_file& f = *file_;
  f.refuse_read_only("set");
  f.atomic_edit([&] {
    json_ref v;
    std::uint32_t height = 0;
    try {
      v = f.build_in_tail(json_text, height);
    } catch (const json_error& e) {
      detail::json::not_json_text(e, insert ? "insert" : "set", json_pointer);
    }
    return f.edit(json_pointer, &v, insert, nullptr, nullptr, height);
  });
  f.record_op(f.edit_op_, json_pointer, &json_text);
}

bool json_store::erase(std::string_view json_pointer) {
  detail::json::store_file& f = *file_;
  f.refuse_read_only("erase");
  if (!f.atomic_edit([&] { return f.edit(json_pointer, nullptr); })) return false;
  f.record_op("remove", json_pointer, nullptr);
  return true;
}

void json_store::put(std::string_view json_pointer, const json_text& value, parents p) {
  if (p == parents::must_exist) return set(json_pointer, value.str());
  // Every proper prefix that is missing becomes {} (prefixes end where a
  // later '/' begins a token); if the put fails, the first one made (which
  // holds the others) is removed again, by the index it landed at when its
  // parent is an array (a prefix ending in "-" names no element afterwards).
  std::string made;
  const std::size_t recorded = file_->pending_.size();
  try {
    for (std::size_t slash = json_pointer.find('/', 1); slash != std::string_view::npos;
         slash = json_pointer.find('/', slash + 1)) {
      const std::string_view prefix = json_pointer.substr(0, slash);
      if (find(prefix)) continue;
      const std::string_view parent = prefix.substr(0, prefix.rfind('/'));
      std::string landed(prefix);
      if (const std::optional<json_value> pv = find(parent); pv && pv->is_array())
        landed = std::string(parent) + "/" + std::to_string(pv->size());
      set(prefix, "{}");
      if (made.empty()) made = std::move(landed);
    }
    set(json_pointer, value.str());
  } catch (...) {
    if (!made.empty()) erase(made);
    file_->pending_.resize(recorded);  // the change feed: nothing was put
    throw;
  }
}

}  // namespace FL_ABI_NS
}  // namespace fl
