// fl::json_store: the store in its fl::mapped_space (the layout of
// fl/detail/json_format.hpp), reads through json_value, edits by path
// copying, and dump.
//
// Edits build their blocks in `tail` (at offsets from the space's end, as
// labels) and move each into a block of the space (allocate: a free block
// of its class, or the end) when the edit is complete, translating the
// labels; a failed edit leaves the space untouched. What an edit replaces
// (the old copies of the containers on its path, the old value) is retired
// to the space, which reuses it once no state that may be read refers to it.
#include "json_internal.hpp"

#include <fl/mapped_space.hpp>

#include <charconv>
#include <cstddef>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <limits>
#include <optional>

#include <sys/file.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

namespace fl::inline FL_ABI_NS::detail::json {

namespace {

bool valid_kind(std::uint8_t k) noexcept {
  return k >= static_cast<std::uint8_t>(kind::null_v) &&
         k <= static_cast<std::uint8_t>(kind::object);
}

// A value held entirely in its json_ref (null, booleans, int64, uint64,
// real): it refers to no bytes, so writing it anywhere keeps every
// reference below its container.
bool inline_kind(std::uint8_t k) noexcept {
  return k >= static_cast<std::uint8_t>(kind::null_v) && k <= static_cast<std::uint8_t>(kind::real);
}

std::filesystem::path with_suffix(const std::filesystem::path& p, const char* suffix) {
  std::filesystem::path r = p;
  r += suffix;
  return r;
}

// Throws persist_error "locked" if a store is open at `p` (its writer's
// lock is held, by another process or another handle of this one). Takes
// and drops the lock: sync() checks again when it renames onto `p`, this
// check only makes import() fail before any work.
void refuse_if_locked(const std::filesystem::path& p, const char* what) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // missing (or unreadable: the rename reports it)
  const bool locked = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  if (locked) throw persist_error(p, what);
}

// Removes what an import never synced left at `tmp` (its space and log),
// unless an import in progress holds it: then throws "locked".
void remove_leftover(const std::filesystem::path& tmp, const std::filesystem::path& store) {
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      throw persist_error(store, "locked: another import to this path is in progress");
    }
    // Locked by this call: nobody's. Removed only while the name is that file.
    struct stat a, b;
    if (::stat(tmp.c_str(), &a) == 0 && ::fstat(fd, &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev)
      ::unlink(tmp.c_str());
    ::close(fd);
  }
  ::unlink(with_suffix(tmp, "-log").c_str());
}

}  // namespace

class store_file {
 public:
  std::filesystem::path path_;  // where the store lives once published
  std::optional<mapped_space> space_;
  bool published_ = false;  // false: a new import under path_ + ".tmp", not yet synced
  fptr<json_head> head_;
  json_ref root_;                   // head_->root, or the uncommitted new root
  byte_buffer tail_;                // an edit's blocks, for offsets [tail_base_, ...)
  std::vector<tail_block> tail_blocks_;
  std::uint64_t tail_base_ = 0;     // the space's end (a block's start) while tail_ is built
  bool tail_page_checked_ = false;  // the page holding tail_base_ passed checked()
  // Format 3: every value with bytes owns its block, so edits retire what
  // they replace. A format-2 store is edited without reclaiming (compact()
  // rewrites it as format 3).
  bool reuse_ = true;
  // compact(): the store being replaced, kept open (and locked) until the
  // sync() that publishes the compact copy.
  std::optional<mapped_space> old_space_;
  // The blocks the edit in progress replaces (old container tables on its
  // path, whose children move to the copies, and every block of the value
  // it replaces or removes), found and checked before the edit changes
  // anything, retired once it is published.
  std::vector<std::uint64_t> replaced_;

  store_file() = default;
  store_file(const store_file&) = delete;
  store_file& operator=(const store_file&) = delete;
  ~store_file() {
    if (space_ && !published_) {
      // An import never synced: its temporary file is nobody's.
      const std::filesystem::path tmp = space_->path();
      space_.reset();
      ::unlink(tmp.c_str());
      ::unlink(with_suffix(tmp, "-log").c_str());
      ::unlink(with_suffix(tmp, "-readers").c_str());
    }
  }

  [[noreturn]] void damaged(const std::string& reason) const { throw persist_error(path_, reason); }

  std::uint64_t root_limit() const noexcept { return tail_base_ + tail_.size(); }
  json_value root_value() const { return json_value(this, root_, root_limit()); }

  // The bytes [off, off + len) of a record that must lie below `limit`,
  // verified (mapped_space::checked). Throws persist_error for a reference
  // outside its bounds or a page that fails its checksum.
  const unsigned char* bytes(std::uint64_t off, std::uint64_t len, std::uint64_t limit) const {
    static constexpr unsigned char none[1] = {0};
    if (len == 0) return none;  // an empty string or container has no block
    if (off == 0 || off > limit || len > limit - off)
      damaged("a reference points outside its container");
    if (off >= tail_base_) {
      if (off - tail_base_ > tail_.size() || len > tail_.size() - (off - tail_base_))
        damaged("a reference points past the data");
      return tail_.data() + (off - tail_base_);
    }
    if (len > tail_base_ - off) damaged("a reference points past the carved blocks");
    return reinterpret_cast<const unsigned char*>(space_->checked(fptr<const void>(off), len));
  }

  json_ref read_ref(const unsigned char* p) const {
    json_ref r;
    std::memcpy(&r, p, sizeof r);
    if (!valid_kind(r.k)) damaged("a value of unknown kind " + std::to_string(r.k));
    return r;
  }

  // Member lookup in object `obj` (below `limit`): the position of the last
  // member named `key`, or npos.
  std::size_t find_member(const json_ref& obj, std::uint64_t limit, std::string_view key) const {
    const std::uint32_t n = obj.n;
    const bool indexed = n >= index_min_members;
    const unsigned char* t =
        bytes(obj.x, std::uint64_t{n} * sizeof(json_member) + (indexed ? std::uint64_t{n} * 4 : 0),
              limit);
    auto key_at = [&](std::uint32_t i, json_member& m) {
      std::memcpy(&m, t + std::size_t{i} * sizeof(json_member), sizeof m);
      return std::string_view(reinterpret_cast<const char*>(bytes(m.key, m.key_len, limit)),
                              m.key_len);
    };
    json_member m;
    if (!indexed) {
      for (std::uint32_t i = n; i-- > 0;) {
        std::memcpy(&m, t + std::size_t{i} * sizeof(json_member), sizeof m);
        if (m.key_len == key.size() && key_at(i, m) == key) return i;
      }
      return std::string_view::npos;
    }
    const unsigned char* index = t + std::size_t{n} * sizeof(json_member);
    auto pos = [&](std::uint32_t j) {
      std::uint32_t v;
      std::memcpy(&v, index + std::size_t{j} * 4, 4);
      if (v >= n) damaged("a member index entry out of range");
      return v;
    };
    // Upper bound of key, then step back: the last member with that key.
    std::uint32_t lo = 0, hi = n;
    const auto klen = static_cast<std::uint32_t>(key.size());
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      std::memcpy(&m, t + std::size_t{pos(mid)} * sizeof(json_member), sizeof m);
      // Lengths first: most probes end without reading the key's bytes.
      const int c = m.key_len != klen
                        ? (m.key_len < klen ? -1 : 1)
                        : key_order(key_at(pos(mid), m).data(), m.key_len, key.data(), klen);
      if (c <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == 0) return std::string_view::npos;
    const std::uint32_t i = pos(lo - 1);
    return key_at(i, m) == key ? i : std::string_view::npos;
  }

  // The value at pointer `ptr` below `v`, or nullopt.
  std::optional<json_value> lookup(json_value v, std::string_view ptr) const {
    std::string buf;
    while (!ptr.empty()) {
      const std::string_view tok = next_token(ptr, buf);
      if (v.ref_.k == static_cast<std::uint8_t>(kind::object)) {
        const std::size_t i = find_member(v.ref_, v.limit_, tok);
        if (i == std::string_view::npos) return std::nullopt;
        v = v.member(i).value;
      } else if (v.ref_.k == static_cast<std::uint8_t>(kind::array)) {
        const std::uint64_t i = token_index(tok);
        if (i >= v.ref_.n) return std::nullopt;
        v = v.element(static_cast<std::size_t>(i));
      } else {
        return std::nullopt;
      }
    }
    return v;
  }

  // ---- dump ----

  struct dumper {
    const store_file& f;
    byte_buffer& out;
    std::uint64_t budget;  // output bound of a tree (8 bytes of text per stored byte)

    void value(const json_ref& r, std::uint64_t limit, std::uint32_t depth) {
      switch (static_cast<kind>(r.k)) {
        case kind::null_v: out.append("null", 4); return;
        case kind::false_v: out.append("false", 5); return;
        case kind::true_v: out.append("true", 4); return;
        case kind::int64:
        case kind::uint64: {
          char buf[24];
          const auto res =
              r.k == static_cast<std::uint8_t>(kind::int64)
                  ? std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(r.x))
                  : std::to_chars(buf, buf + sizeof buf, r.x);
          out.append(buf, static_cast<std::size_t>(res.ptr - buf));
          return;
        }
        case kind::real: {
          double d;
          std::memcpy(&d, &r.x, sizeof d);
          if (!std::isfinite(d)) f.damaged("a number that is not finite");
          dump_double(d, out);
          return;
        }
        case kind::number_text: out.append(f.bytes(r.x, r.n, limit), r.n); return;
        case kind::string:
          dump_string(
              std::string_view(reinterpret_cast<const char*>(f.bytes(r.x, r.n, limit)), r.n), out);
          return;
        case kind::array:
          items<json_ref>(r, limit, depth, '[', ']', [&](const unsigned char* item) {
            value(f.read_ref(item), limit, depth + 1);
          });
          return;
        case kind::object:
          items<json_member>(r, limit, depth, '{', '}', [&](const unsigned char* item) {
            json_member m;
            std::memcpy(&m, item, sizeof m);
            dump_string(
                std::string_view(reinterpret_cast<const char*>(f.bytes(m.key, m.key_len, limit)),
                                 m.key_len),
                out);
            out.append(":", 1);
            if (!valid_kind(m.value.k)) f.damaged("a value of unknown kind");
            value(m.value, limit, depth + 1);
          });
          return;
      }
      f.damaged("a value of unknown kind");
    }
    // The r.n items of an array (Item = json_ref) or an object (json_member)
    // stored at r.x: `open`, the items separated by commas, each written by
    // write_item(its stored bytes), then `close`. Checks the depth before and
    // the output budget after.
    template <class Item, class WriteItem>
    void items(const json_ref& r, std::uint64_t limit, std::uint32_t depth, char open, char close,
               const WriteItem& write_item) {
      if (depth >= max_depth) f.damaged("nesting deeper than the format allows");
      const unsigned char* t = f.bytes(r.x, std::uint64_t{r.n} * sizeof(Item), limit);
      out.append(&open, 1);
      for (std::uint32_t i = 0; i < r.n; ++i) {
        if (i) out.append(",", 1);
        write_item(t + std::size_t{i} * sizeof(Item));
      }
      out.append(&close, 1);
      check_budget();
    }
    void check_budget() const {
      if (out.size() > budget) f.damaged("the structure refers to one value twice");
    }
  };

  fl::string dump(const json_value& v) const {
    byte_buffer out;
    dumper d{*this, out, 8 * root_limit() + 64};
    d.value(v.ref_, v.limit_, 0);
    return fl::string(std::string_view(reinterpret_cast<const char*>(out.data()), out.size()));
  }

  // ---- edits ----

  std::uint64_t tail_offset() const noexcept { return tail_base_ + tail_.size(); }

  // A new block in the tail of `bytes` payload bytes; `at` its offset.
  unsigned char* new_block(std::uint64_t bytes, kind k, std::uint32_t n, std::uint64_t& at) {
    return add_block(tail_, tail_base_, tail_blocks_, bytes, k, n, at);
  }

  // A copy of container `c` in the tail with entry `pos` replaced by `v` (op
  // set), `v` added with key `key` (op add; arrays append), or entry `pos`
  // removed (op remove). Returns the new container. An object's keys are
  // copied into the new block with its table (they live in the table's
  // block, which the edit retires).
  enum class op { set, add, remove, insert };  // insert: arrays only, before pos
  json_ref copy_container(const json_ref& c, std::uint64_t limit, std::size_t pos, op what,
                          const json_ref& v, std::string_view key) {
    const std::uint32_t n = c.n;
    const bool grows = what == op::add || what == op::insert;
    const std::uint32_t n2 = grows ? n + 1 : what == op::remove ? n - 1 : n;
    if (grows && n == std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("fl::json_store: container too large");
    if (c.k == static_cast<std::uint8_t>(kind::array)) {
      json_ref r{static_cast<std::uint8_t>(kind::array), {}, n2, 0};
      if (n2 == 0) return r;
      unsigned char* dst = new_block(std::uint64_t{n2} * sizeof(json_ref), kind::array, n2, r.x);
      const unsigned char* src = bytes(c.x, std::uint64_t{n} * sizeof(json_ref),
                                       limit);  // after new_block: the tail may move
      const std::size_t e = sizeof(json_ref);
      if (what == op::remove) {
        std::memcpy(dst, src, pos * e);
        std::memcpy(dst + pos * e, src + (pos + 1) * e, (n - pos - 1) * e);
      } else if (what == op::insert) {
        std::memcpy(dst, src, pos * e);
        std::memcpy(dst + pos * e, &v, e);
        std::memcpy(dst + (pos + 1) * e, src + pos * e, (n - pos) * e);
      } else {
        if (n) std::memcpy(dst, src, std::size_t{n} * e);
        std::memcpy(dst + (what == op::add ? std::size_t{n} : pos) * e, &v, e);
      }
      return r;
    }
    // The kept members and their keys, read before the tail grows.
    const std::size_t e = sizeof(json_member);
    const bool old_indexed = n >= index_min_members;
    const unsigned char* src =
        bytes(c.x, std::uint64_t{n} * e + (old_indexed ? std::uint64_t{n} * 4 : 0), limit);
    std::vector<json_member> ms;
    ms.reserve(n2);
    std::string keys;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (what == op::remove && i == pos) continue;
      json_member m;
      std::memcpy(&m, src + std::size_t{i} * e, e);
      const auto* k = reinterpret_cast<const char*>(bytes(m.key, m.key_len, limit));
      m.key = keys.size();
      keys.append(k, m.key_len);
      if (what == op::set && i == pos) m.value = v;
      ms.push_back(m);
    }
    if (what == op::add) {
      ms.push_back({keys.size(), static_cast<std::uint32_t>(key.size()), 0, v});
      keys.append(key);
    }
    json_ref r{static_cast<std::uint8_t>(kind::object), {}, n2, 0};
    if (n2 == 0) return r;
    const bool indexed = n2 >= index_min_members;
    const std::size_t table = std::size_t{n2} * e, index_bytes = indexed ? std::size_t{n2} * 4 : 0;
    unsigned char* dst = new_block(table + index_bytes + keys.size(), kind::object, n2, r.x);
    if (indexed) {
      auto* index = reinterpret_cast<std::uint32_t*>(dst + table);
      if (what == op::set) {
        // Same keys in the same places: the old order stands.
        std::memcpy(index, bytes(c.x + std::uint64_t{n} * e, std::uint64_t{n} * 4, limit),
                    std::size_t{n} * 4);
      } else {
        write_member_index(index, n2, [&](std::uint32_t i) {
          return std::string_view(keys.data() + ms[i].key, ms[i].key_len);
        });
      }
    }
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
  json_ref overwrite_entry(const json_ref& c, std::uint64_t limit, std::size_t pos,
                           const json_ref& v) {
    const bool array = c.k == static_cast<std::uint8_t>(kind::array);
    const std::uint64_t off = array ? c.x + pos * sizeof(json_ref)
                                    : c.x + pos * sizeof(json_member) + offsetof(json_member, value);
    const unsigned char* at = bytes(off, sizeof v, limit);
    const json_ref old = read_ref(at);
    std::memcpy(const_cast<unsigned char*>(at), &v, sizeof v);
    return old;
  }

  // Entry `pos` of container `c`, as stored.
  json_ref entry(const json_ref& c, std::uint64_t limit, std::size_t pos) const {
    return c.k == static_cast<std::uint8_t>(kind::object)
               ? json_value(this, c, limit).member(pos).value.ref_
               : json_value(this, c, limit).element(pos).ref_;
  }

  // `"/a/b" (the parent of "/a/b/c")`, or "(a prefix of ...)" when more than
  // one token of `whole` follows `prefix`.
  static std::string edit_fault(std::string_view prefix, std::string_view whole) {
    const bool parent = whole.find('/', prefix.size() + 1) == std::string_view::npos;
    return "\"" + std::string(prefix) + "\" (" + (parent ? "the parent of \"" : "a prefix of \"") +
           std::string(whole) + "\")";
  }
  // "a string", "an array", "null": the type of `v` after "is".
  static std::string a_type(const json_value& v) {
    const std::string_view n = v.type_name();
    if (v.is_null()) return std::string(n);
    return (n.front() == 'a' || n.front() == 'o' ? "an " : "a ") + std::string(n);
  }
  // Why the token `tok` names no element of the array at `array`.
  static std::string index_fault(std::string_view tok, std::string_view array, std::uint64_t size) {
    const std::string where =
        " of the array \"" + std::string(array) + "\" (size " + std::to_string(size) + ")";
    if (token_index(tok) == no_index && tok != "-")
      return "\"" + std::string(tok) + "\" is not an index" + where;
    return "index " + std::string(tok) + " is past the end" + where;
  }

  // set (v given) or erase (v null): the path to the parent of the last token,
  // then copies of the containers on it, bottom-up; an inline value replacing
  // an entry is written over it (overwrite_entry).
  // insert (v given): RFC 6902 "add", which puts an array element before
  // the index instead of replacing it.
  bool edit(std::string_view ptr, const json_ref* v, bool insert = false) {
    struct step {
      json_ref c;
      std::uint64_t limit;
      std::size_t pos;
    };
    std::vector<step> path;
    std::string buf;
    json_ref cur = root_;
    std::uint64_t limit = root_limit();
    std::string last;
    const std::string_view whole = ptr;
    while (!ptr.empty()) {
      // The pointer up to (and without) this token, and up to its end.
      const std::string_view above = whole.substr(0, whole.size() - ptr.size());
      const std::string_view tok = next_token(ptr, buf);
      const bool final = ptr.empty();
      const std::string_view here = whole.substr(0, whole.size() - ptr.size());
      std::size_t pos = std::string_view::npos;
      if (cur.k == static_cast<std::uint8_t>(kind::object)) {
        pos = find_member(cur, limit, tok);
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
                                a_type(json_value(this, cur, limit)) +
                                ", not an object or array");
      }
      if (final) {
        if (v && pos == std::string_view::npos && cur.k == static_cast<std::uint8_t>(kind::array))
          throw std::out_of_range("fl::json_store::set: " + index_fault(tok, above, cur.n) +
                                  "; use " + std::to_string(cur.n) + " or \"-\" to append");
        path.push_back({cur, limit, pos});
        last.assign(tok);
        break;
      }
      if (pos == std::string_view::npos) {
        if (!v) return false;
        std::string what = "fl::json_store::set: no value at " + edit_fault(here, whole);
        if (cur.k == static_cast<std::uint8_t>(kind::array))
          what += ": " + index_fault(tok, above, cur.n);
        throw std::out_of_range(what);
      }
      path.push_back({cur, limit, pos});
      const json_value child = cur.k == static_cast<std::uint8_t>(kind::object)
                                   ? json_value(this, cur, limit).member(pos).value
                                   : json_value(this, cur, limit).element(pos);
      cur = child.ref_;
      limit = child.limit_;
    }
    replaced_.clear();
    if (path.empty()) {  // the pointer "" names the document
      if (!v) return false;
      find_replaced(root_);
      root_ = *v;
      return true;
    }
    step& s = path.back();
    const bool in_array = s.c.k == static_cast<std::uint8_t>(kind::array);
    const bool replaces = s.pos != std::string_view::npos && !(in_array && s.pos == s.c.n) &&
                          !(in_array && insert);
    if (v && replaces && inline_kind(v->k)) {
      find_replaced(entry(s.c, s.limit, s.pos));
      overwrite_entry(s.c, s.limit, s.pos, *v);
      return true;
    }
    if (!v && s.pos == std::string_view::npos) return false;
    if (s.pos != std::string_view::npos && !(s.c.k == static_cast<std::uint8_t>(kind::array) &&
                                              s.pos == s.c.n))
      find_replaced(entry(s.c, s.limit, s.pos));
    for (const step& p : path) find_replaced_table(p.c);
    json_ref r;
    if (!v) {
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
    for (std::size_t i = path.size() - 1; i-- > 0;)
      r = copy_container(path[i].c, path[i].limit, path[i].pos, op::set, r, {});
    root_ = r;
    return true;
  }

  // ---- the space ----

  // Does `r` refer to bytes (its own block, in format 3)?
  static bool has_block(const json_ref& r) noexcept {
    return r.n != 0 && !inline_kind(r.k);
  }

  // Moves the tail's blocks into blocks of the space (allocate: reused or
  // carved) and points the head at root_, translating the tail's offsets
  // (labels from tail_base_) into the blocks' offsets; then retires what the
  // edit replaced. Called when an edit is complete; throws before the space
  // is changed (the blocks taken are returned).
  void publish_edit() {
    if (!tail_blocks_.empty()) {
      std::vector<std::uint64_t> to(tail_blocks_.size());
      std::size_t got = 0;
      try {
        for (; got < to.size(); ++got)
          to[got] = space_->allocate(static_cast<std::size_t>(tail_blocks_[got].bytes), 16).offset();
      } catch (...) {
        while (got-- > 0) space_->deallocate(fptr<void>(to[got]));
        throw;
      }
      auto translate = [&](std::uint64_t off) {
        if (off < tail_base_) return off;
        const auto it = std::upper_bound(
            tail_blocks_.begin(), tail_blocks_.end(), off,
            [](std::uint64_t o, const tail_block& b) { return o < b.off; });
        const std::size_t i = static_cast<std::size_t>(it - tail_blocks_.begin()) - 1;
        return to[i] + (off - tail_blocks_[i].off);
      };
      auto fix = [&](json_ref& r) {
        if (has_block(r)) r.x = translate(r.x);
      };
      for (std::size_t i = 0; i < to.size(); ++i) {
        const tail_block& b = tail_blocks_[i];
        unsigned char* d = space_->get(fptr<unsigned char>(to[i]));
        std::memcpy(d, tail_.data() + (b.off - tail_base_), static_cast<std::size_t>(b.bytes));
        if (b.k == kind::array) {
          for (std::uint32_t j = 0; j < b.n; ++j) {
            json_ref r;
            std::memcpy(&r, d + std::size_t{j} * sizeof r, sizeof r);
            fix(r);
            std::memcpy(d + std::size_t{j} * sizeof r, &r, sizeof r);
          }
        } else if (b.k == kind::object) {
          for (std::uint32_t j = 0; j < b.n; ++j) {
            json_member m;
            std::memcpy(&m, d + std::size_t{j} * sizeof m, sizeof m);
            m.key = translate(m.key);
            fix(m.value);
            std::memcpy(d + std::size_t{j} * sizeof m, &m, sizeof m);
          }
        }
      }
      fix(root_);
      tail_.clear();
      tail_blocks_.clear();
    }
    // Unchanged after an in-place edit: left alone, so its page stays clean.
    json_ref& head_root = space_->get(head_)->root;
    if (std::memcmp(&head_root, &root_, sizeof root_) != 0) head_root = root_;
    start_tail();
    retire_replaced();
  }

  // The import's blocks, laid out from the space's end: one run, written to
  // the file directly (no private copies, not logged).
  void publish_import() {
    check_tail_page();
    if (!tail_blocks_.empty()) {
      const fptr<void> run = space_->allocate_end_run(tail_.size(), tail_blocks_.size());
      if (run.offset() != tail_base_)
        throw std::logic_error("fl::json_store: the space was allocated from behind its back");
      space_->write_fresh(run, tail_.data(), tail_.size());
      tail_.clear();
      tail_blocks_.clear();
    }
    space_->get(head_)->root = root_;
    start_tail();
  }

  // Retires the blocks the edit just published replaced.
  void retire_replaced() {
    // A block the space no longer holds live was freed through another
    // parent: only a damaged file reaches one value from two places.
    for (std::uint64_t x : replaced_) {
      try {
        space_->retire(fptr<void>(x));
      } catch (const std::invalid_argument&) {
        replaced_.clear();
        damaged("a value's block was freed through another parent");
      }
    }
    replaced_.clear();
  }

  // The bytes a value with a block keeps in it.
  static std::uint64_t payload_bytes(const json_ref& r) noexcept {
    switch (static_cast<kind>(r.k)) {
      case kind::array: return std::uint64_t{r.n} * sizeof(json_ref);
      case kind::object: return std::uint64_t{r.n} * sizeof(json_member);
      default: return r.n;
    }
  }

  // Adds the block of `r` to replaced_ (format 3 only), after checking that
  // it is a live block of the space holding the value's bytes: a damaged
  // document fails here, before the edit changes anything.
  void add_replaced(const json_ref& r) {
    std::size_t room = 0;
    try {
      room = space_->block_size(fptr<void>(r.x));
    } catch (const std::invalid_argument&) {
      damaged("a value's bytes are not a block of the space");
    }
    if (room < payload_bytes(r)) damaged("a value's bytes are larger than its block");
    replaced_.push_back(r.x);
  }

  // A container on an edit's path: its table is replaced by the copy; its
  // children move to the copy.
  void find_replaced_table(const json_ref& c) {
    if (reuse_ && has_block(c)) add_replaced(c);
  }

  // Every block of value `r`, which the edit replaces or removes. A damaged
  // document (a value reachable twice, a cycle) cannot make this loop: it
  // visits at most max_depth levels and as many blocks as the space has live.
  void find_replaced(const json_ref& r) {
    if (!reuse_) return;
    std::uint64_t budget = space_->stats().live_blocks;
    find_replaced(r, 0, budget);
  }
  void find_replaced(const json_ref& r, std::uint32_t depth, std::uint64_t& budget) {
    if (!has_block(r)) return;
    if (depth >= max_depth) damaged("nesting deeper than the format allows");
    if (budget == 0) damaged("the structure refers to one value twice");
    --budget;
    add_replaced(r);
    const std::uint64_t limit = root_limit();
    if (r.k == static_cast<std::uint8_t>(kind::array)) {
      const unsigned char* t = bytes(r.x, std::uint64_t{r.n} * sizeof(json_ref), limit);
      for (std::uint32_t i = 0; i < r.n; ++i)
        find_replaced(read_ref(t + std::size_t{i} * sizeof(json_ref)), depth + 1, budget);
    } else if (r.k == static_cast<std::uint8_t>(kind::object)) {
      const unsigned char* t = bytes(r.x, std::uint64_t{r.n} * sizeof(json_member), limit);
      for (std::uint32_t i = 0; i < r.n; ++i) {
        json_member m;
        std::memcpy(&m, t + std::size_t{i} * sizeof m, sizeof m);
        if (!valid_kind(m.value.k)) damaged("a value of unknown kind");
        find_replaced(m.value, depth + 1, budget);
      }
    }
  }

  // Starts a new tail at the space's end (a block's start). The page there
  // is checked before the import writes it (check_tail_page), not here: an
  // open that only reads never touches it.
  void start_tail() {
    tail_base_ = space_->end_block().offset() - 8;
    tail_page_checked_ = false;
  }

  // Checks the page the import's first block header goes to, so that
  // writing it never hides damage to the committed bytes beside it.
  void check_tail_page() {
    if (tail_page_checked_) return;
    if (tail_base_ < space_->file_bytes())
      space_->checked(fptr<const void>(tail_base_), 8);
    tail_page_checked_ = true;
  }

  // A new, empty space under path_ + `suffix` with its head, for an import
  // (".tmp") or a compaction (".compact"); published by the first sync(). An
  // unlocked old file there is a leftover of one never synced; a locked one
  // is one in progress, which makes this one throw "locked".
  mapped_space new_space(const char* suffix) {
    const std::filesystem::path tmp = with_suffix(path_, suffix);
    remove_leftover(tmp, path_);
    // Not durable until the first sync(), which publishes it: nothing waits
    // for the disk before then.
    mapped_space space(tmp, mapped_space_options{.mode = open_mode::create_new, .durable = false});
    const fptr<json_head> head = space.make<json_head>();
    json_head* h = space.get(head);
    h->magic = file_magic;
    h->version = format_version;
    space.set_root(head);
    return space;
  }

  void create() {
    space_.emplace(new_space(".tmp"));
    head_ = space_->root<json_head>();
    reuse_ = true;
    start_tail();
  }

  // Feeds value `r` of this store to `b`, as a parse of its text would.
  // Bounded like dump(): max_depth levels, and `b` may write at most
  // `budget` bytes.
  void emit(const json_ref& r, builder& b, const byte_buffer& out, std::uint64_t budget,
            std::uint32_t depth) const {
    const std::uint64_t limit = root_limit();
    switch (static_cast<kind>(r.k)) {
      case kind::null_v: b.null_value(); return;
      case kind::false_v: b.boolean(false); return;
      case kind::true_v: b.boolean(true); return;
      case kind::int64: b.int64(static_cast<std::int64_t>(r.x)); return;
      case kind::uint64: b.uint64(r.x); return;
      case kind::real: {
        double d;
        std::memcpy(&d, &r.x, sizeof d);
        b.real(d);
        return;
      }
      case kind::number_text:
        b.number_text({reinterpret_cast<const char*>(bytes(r.x, r.n, limit)), r.n});
        return;
      case kind::string:
        b.string({reinterpret_cast<const char*>(bytes(r.x, r.n, limit)), r.n});
        return;
      case kind::array: {
        if (depth >= max_depth) damaged("nesting deeper than the format allows");
        const unsigned char* t = bytes(r.x, std::uint64_t{r.n} * sizeof(json_ref), limit);
        b.begin_array();
        for (std::uint32_t i = 0; i < r.n; ++i)
          emit(read_ref(t + std::size_t{i} * sizeof(json_ref)), b, out, budget, depth + 1);
        b.end_array();
        break;
      }
      case kind::object: {
        if (depth >= max_depth) damaged("nesting deeper than the format allows");
        const unsigned char* t = bytes(r.x, std::uint64_t{r.n} * sizeof(json_member), limit);
        b.begin_object();
        for (std::uint32_t i = 0; i < r.n; ++i) {
          json_member m;
          std::memcpy(&m, t + std::size_t{i} * sizeof m, sizeof m);
          b.key({reinterpret_cast<const char*>(bytes(m.key, m.key_len, limit)), m.key_len});
          if (!valid_kind(m.value.k)) damaged("a value of unknown kind");
          emit(m.value, b, out, budget, depth + 1);
        }
        b.end_object();
        break;
      }
      default: damaged("a value of unknown kind");
    }
    if (out.size() > budget) damaged("the structure refers to one value twice");
  }

  // Rewrites the document into a new space laid out as an import would
  // (format 3, no free blocks), which replaces the store at the next sync().
  void compact() {
    // Not the name of the space in use (a compaction not yet synced).
    const char* suffix =
        !published_ && space_->path() == with_suffix(path_, ".compact") ? ".tmp" : ".compact";
    mapped_space fresh = new_space(suffix);
    const fptr<json_head> fresh_head = fresh.root<json_head>();
    json_ref root;
    try {
      const std::uint64_t base = fresh.end_block().offset() - 8;
      byte_buffer out;
      std::vector<tail_block> blocks;
      builder b(out, blocks, base);
      emit(root_, b, out, 8 * root_limit() + 64, 0);
      root = b.result();
      if (!blocks.empty()) {
        const fptr<void> run = fresh.allocate_end_run(out.size(), blocks.size());
        if (run.offset() != base)
          throw std::logic_error("fl::json_store: the space was allocated from behind its back");
        fresh.write_fresh(run, out.data(), out.size());
      }
    } catch (...) {
      const std::filesystem::path tmp = fresh.path();
      { const mapped_space closing = std::move(fresh); }
      ::unlink(tmp.c_str());
      ::unlink(with_suffix(tmp, "-log").c_str());
      throw;
    }
    fresh.get(fresh_head)->root = root;
    // A published store stays open (and locked) until the sync() that
    // replaces it; an unpublished one (an import or a compaction not yet
    // synced) is replaced now.
    if (published_) old_space_ = std::move(space_);
    space_ = std::move(fresh);
    published_ = false;
    head_ = fresh_head;
    root_ = root;
    reuse_ = true;
    tail_.clear();
    tail_blocks_.clear();
    start_tail();
  }

  // The first sync publishes an import: the commit is written without
  // waiting for the disk, then rename() checkpoints it durably (the file
  // alone is the whole document, with no log it needs) and renames it onto
  // path_ under the lock of the store there, if any: "locked" if that store
  // is open, which leaves both as they were (the sync may be retried).
  void sync() {
    check_tail_page();
    if (!published_) {
      space_->sync();
      // A compaction's old store is closed first: the rename replaces only
      // a file nobody holds (a store opened elsewhere meanwhile makes it
      // throw "locked", and a later sync() tries again).
      old_space_.reset();
      space_->set_durable(true);
      try {
        space_->rename(path_);
      } catch (...) {
        space_->set_durable(false);
        throw;
      }
      published_ = true;
    } else {
      space_->sync();
    }
    start_tail();  // a commit may carve a bigger page checksum table
  }

  void open(open_mode mode) {
    space_.emplace(path_, mapped_space_options{.mode = mode});
    published_ = true;
    read_head();
  }

  // A reader: the space moves to the newest commit, and the document with it.
  void refresh() {
    space_->refresh();
    read_head();
  }

  void refuse_read_only(const char* what) const {
    if (space_->read_only())
      throw persist_error(path_, std::string("json_store::") + what +
                                     ": the store is opened read-only");
  }

  // The head object (the space's root) and the document's root in it.
  void read_head() {
    head_ = space_->root<json_head>();
    if (!head_) damaged("not a json_store file (the space has no root object)");
    json_head h;
    std::memcpy(&h, space_->checked(head_, sizeof h), sizeof h);
    if (h.magic != file_magic) damaged("not a json_store file (bad magic in the root object)");
    if (h.version < oldest_format_version || h.version > format_version)
      damaged("json_store format version " + std::to_string(h.version) + ", this build reads " +
              std::to_string(oldest_format_version) + " to " + std::to_string(format_version));
    reuse_ = h.version == format_version;
    if (!valid_kind(h.root.k)) damaged("a value of unknown kind at the root");
    root_ = h.root;
    start_tail();
    if (head_.offset() >= tail_base_) damaged("the root object lies past the carved blocks");
  }
};

}  // namespace fl::inline FL_ABI_NS::detail::json

namespace fl::inline FL_ABI_NS {

using detail::json::json_ref;
using detail::json::kind;

// ---- json_value ---------------------------------------------------------------

json_type json_value::type() const noexcept {
  switch (static_cast<kind>(ref_.k)) {
    case kind::null_v: return json_type::null;
    case kind::false_v:
    case kind::true_v: return json_type::boolean;
    case kind::int64:
    case kind::uint64:
    case kind::real:
    case kind::number_text: return json_type::number;
    case kind::string: return json_type::string;
    case kind::array: return json_type::array;
    case kind::object: return json_type::object;
  }
  return json_type::null;  // unreachable: kinds are checked when a value is read
}

namespace {
[[noreturn]] void wrong_type(const char* want, json_type actual) {
  static constexpr const char* names[] = {"null",     "a boolean", "a number",
                                          "a string", "an array",  "an object"};
  throw std::invalid_argument(std::string("fl::json_value: not ") + want + " but " +
                              names[static_cast<int>(actual)]);
}
}  // namespace

bool json_value::as_bool() const {
  if (ref_.k == static_cast<std::uint8_t>(kind::true_v)) return true;
  if (ref_.k == static_cast<std::uint8_t>(kind::false_v)) return false;
  wrong_type("a boolean", type());
}

std::int64_t json_value::as_int64() const {
  if (ref_.k == static_cast<std::uint8_t>(kind::int64)) return static_cast<std::int64_t>(ref_.x);
  wrong_type("an integer in the range of int64", type());
}

std::uint64_t json_value::as_uint64() const {
  if (ref_.k == static_cast<std::uint8_t>(kind::uint64)) return ref_.x;
  if (ref_.k == static_cast<std::uint8_t>(kind::int64) && static_cast<std::int64_t>(ref_.x) >= 0)
    return ref_.x;
  wrong_type("an integer in the range of uint64", type());
}

double json_value::as_double() const {
  switch (static_cast<kind>(ref_.k)) {
    case kind::int64: return static_cast<double>(static_cast<std::int64_t>(ref_.x));
    case kind::uint64: return static_cast<double>(ref_.x);
    case kind::real: {
      double d;
      std::memcpy(&d, &ref_.x, sizeof d);
      return d;
    }
    case kind::number_text: {
      const std::string t(reinterpret_cast<const char*>(file_->bytes(ref_.x, ref_.n, limit_)),
                          ref_.n);
      return std::strtod(t.c_str(), nullptr);
    }
    default: wrong_type("a number", type());
  }
}

std::string_view json_value::as_string_view() const {
  if (ref_.k != static_cast<std::uint8_t>(kind::string)) wrong_type("a string", type());
  return {reinterpret_cast<const char*>(file_->bytes(ref_.x, ref_.n, limit_)), ref_.n};
}

json_value json_value::element(std::size_t i) const {
  const unsigned char* p = file_->bytes(ref_.x + i * sizeof(json_ref), sizeof(json_ref), limit_);
  return json_value(file_, file_->read_ref(p), limit_);
}

json_member json_value::member(std::size_t i) const {
  detail::json::json_member m;
  std::memcpy(&m, file_->bytes(ref_.x + i * sizeof(m), sizeof(m), limit_), sizeof m);
  const auto* k = reinterpret_cast<const char*>(file_->bytes(m.key, m.key_len, limit_));
  if (!detail::json::valid_kind(m.value.k)) file_->damaged("a value of unknown kind");
  return {std::string_view(k, m.key_len), json_value(file_, m.value, limit_)};
}

json_value json_value::operator[](std::size_t i) const {
  if (!is_array())
    throw std::out_of_range("fl::json_value: index " + std::to_string(i) + " of a " + type_name() +
                            ", not of an array");
  if (i >= ref_.n)
    throw std::out_of_range("fl::json_value: index " + std::to_string(i) +
                            " is past the end of an array of size " + std::to_string(ref_.n));
  return element(i);
}

std::optional<json_value> json_value::find(std::string_view key) const {
  if (!is_object()) return std::nullopt;
  const std::size_t i = file_->find_member(ref_, limit_, key);
  if (i == std::string_view::npos) return std::nullopt;
  return member(i).value;
}

std::optional<json_value> json_value::at_pointer(std::string_view json_pointer) const {
  return file_->lookup(*this, json_pointer);
}

fl::string json_value::dump() const { return file_->dump(*this); }

// ---- json_store -----------------------------------------------------------------

json_store::json_store(std::unique_ptr<detail::json::store_file> f) noexcept
    : file_(std::move(f)) {}
json_store::json_store(json_store&&) noexcept = default;
json_store& json_store::operator=(json_store&&) noexcept = default;
json_store::~json_store() = default;

json_store json_store::import(std::string_view json_text, const std::filesystem::path& file) {
  detail::json::refuse_if_locked(
      file, "locked: a store open in another process or handle; import changes nothing");
  auto f = std::make_unique<detail::json::store_file>();
  f->path_ = file;
  // The store is about 1.5x the text for typical documents (16 bytes per
  // value, 32 per member, strings unescaped); reserving 2x spares the
  // doublings' copies (pages never written are never touched).
  f->tail_.reserve(json_text.size() * 2 + 4096);
  detail::json::builder b(f->tail_, f->tail_blocks_, 0);
  // Invalid text throws json_error before the file is created; the builder
  // then writes at the offsets the document's block will have.
  detail::json::parse_fast(json_text, b, [&] {
    f->create();
    b.rebase(f->tail_base_);
  });
  f->root_ = b.result();
  f->publish_import();
  return json_store(std::move(f));
}

json_store json_store::open(const std::filesystem::path& file, open_mode mode) {
  if (mode != open_mode::read_write && mode != open_mode::read_only)
    throw std::invalid_argument(
        "fl::json_store::open: the mode is open_mode::read_write or open_mode::read_only");
  auto f = std::make_unique<detail::json::store_file>();
  f->path_ = file;
  f->open(mode);
  return json_store(std::move(f));
}

void json_store::refresh() { file_->refresh(); }

fl::string json_store::dump() const { return file_->dump(file_->root_value()); }

std::optional<json_value> json_store::find(std::string_view json_pointer) const& {
  return file_->lookup(file_->root_value(), json_pointer);
}

std::optional<fl::string> json_store::at(std::string_view json_pointer) const {
  const auto v = find(json_pointer);
  if (!v) return std::nullopt;
  return v->dump();
}

json_value json_store::root() const& { return file_->root_value(); }

void json_store::set(std::string_view json_pointer, std::string_view json_text) {
  write(json_pointer, json_text, false);
}

void json_store::insert(std::string_view json_pointer, std::string_view json_text) {
  write(json_pointer, json_text, true);
}

void json_store::write(std::string_view json_pointer, std::string_view json_text, bool insert) {
  detail::json::store_file& f = *file_;
  f.refuse_read_only("set");
  const std::size_t mark = f.tail_.size(), blocks_mark = f.tail_blocks_.size();
  const json_ref old_root = f.root_;
  try {
    detail::json::builder b(f.tail_, f.tail_blocks_, f.tail_offset());
    detail::json::parse_fast(json_text, b);
    const json_ref v = b.result();
    f.edit(json_pointer, &v, insert);
    f.publish_edit();
  } catch (...) {
    f.tail_.truncate(mark);
    f.tail_blocks_.resize(blocks_mark);
    f.root_ = old_root;
    f.replaced_.clear();
    throw;
  }
}

bool json_store::erase(std::string_view json_pointer) {
  detail::json::store_file& f = *file_;
  f.refuse_read_only("erase");
  const std::size_t mark = f.tail_.size(), blocks_mark = f.tail_blocks_.size();
  const json_ref old_root = f.root_;
  try {
    const bool done = f.edit(json_pointer, nullptr);
    if (!done) {
      f.tail_.truncate(mark);
      f.tail_blocks_.resize(blocks_mark);
      return false;
    }
    f.publish_edit();
    return true;
  } catch (...) {
    f.tail_.truncate(mark);
    f.tail_blocks_.resize(blocks_mark);
    f.root_ = old_root;
    f.replaced_.clear();
    throw;
  }
}

void json_store::sync() {
  file_->refuse_read_only("sync");
  file_->sync();
}

void json_store::compact() {
  file_->refuse_read_only("compact");
  file_->compact();
}

const std::filesystem::path& json_store::path() const noexcept { return file_->path_; }

std::uint64_t json_store::file_bytes() const noexcept { return file_->space_->file_bytes(); }

space_stats json_store::stats() const { return file_->space_->stats(); }

}  // namespace fl::inline FL_ABI_NS
