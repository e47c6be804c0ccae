// fl::json_store: the store in its fl::mapped_space (the layout of
// fl/detail/json_format.hpp), reads through json_value, edits by path
// copying, and dump.
//
// Edits build their bytes in `tail` (offsets from the space's next end block)
// and move them into the space as one block when the edit is complete, so a
// failed edit leaves the space untouched.
#include "json_internal.hpp"

#include <fl/mapped_space.hpp>

#include <charconv>
#include <cstddef>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include <sys/file.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

namespace fl::detail::json {

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
  byte_buffer tail_;                // an edit's bytes, for offsets [tail_base_, ...)
  std::uint64_t tail_base_ = 0;     // the space's end_block() while tail_ is being built
  bool tail_page_checked_ = false;  // the page holding tail_base_ - 8 passed checked()

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
    }
  }

  [[noreturn]] void damaged(const std::string& reason) const { throw persist_error(path_, reason); }

  std::uint64_t root_limit() const noexcept { return tail_base_ + tail_.size(); }
  json_value root_value() const { return json_value(this, root_, root_limit()); }

  // The bytes [off, off + len) of a record that must lie below `limit`,
  // verified (mapped_space::checked). Throws persist_error for a reference
  // outside its bounds or a page that fails its checksum.
  const unsigned char* bytes(std::uint64_t off, std::uint64_t len, std::uint64_t limit) const {
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
      return std::string_view(reinterpret_cast<const char*>(bytes(m.key, m.key_len, obj.x)),
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
            value(f.read_ref(item), r.x, depth + 1);
          });
          return;
        case kind::object:
          items<json_member>(r, limit, depth, '{', '}', [&](const unsigned char* item) {
            json_member m;
            std::memcpy(&m, item, sizeof m);
            dump_string(
                std::string_view(reinterpret_cast<const char*>(f.bytes(m.key, m.key_len, r.x)),
                                 m.key_len),
                out);
            out.append(":", 1);
            if (!valid_kind(m.value.k)) f.damaged("a value of unknown kind");
            value(m.value, r.x, depth + 1);
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

  // A copy of container `c` (below `limit`) in the tail with entry `pos`
  // replaced by `v` (op set), `v` added with key `key` (op add; arrays append),
  // or entry `pos` removed (op remove). Returns the new container.
  enum class op { set, add, remove };
  json_ref copy_container(const json_ref& c, std::uint64_t limit, std::size_t pos, op what,
                          const json_ref& v, std::string_view key) {
    const std::uint32_t n = c.n;
    const std::uint32_t n2 = what == op::add ? n + 1 : what == op::remove ? n - 1 : n;
    if (what == op::add && n == std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("fl::json_store: container too large");
    if (c.k == static_cast<std::uint8_t>(kind::array)) {
      tail_.pad_to(alignof(json_ref));
      const std::uint64_t x = tail_offset();
      unsigned char* dst = tail_.extend(std::size_t{n2} * sizeof(json_ref));
      const unsigned char* src = bytes(c.x, std::uint64_t{n} * sizeof(json_ref),
                                       limit);  // after extend: the tail may move
      const std::size_t e = sizeof(json_ref);
      if (what == op::remove) {
        std::memcpy(dst, src, pos * e);
        std::memcpy(dst + pos * e, src + (pos + 1) * e, (n - pos - 1) * e);
      } else {
        std::memcpy(dst, src, std::size_t{n} * e);
        std::memcpy(dst + (what == op::add ? std::size_t{n} : pos) * e, &v, e);
      }
      return {static_cast<std::uint8_t>(kind::array), {}, n2, x};
    }
    json_member added{};
    if (what == op::add) {
      const std::uint64_t k = tail_offset();
      tail_.append(key.data(), key.size());
      added = {k, static_cast<std::uint32_t>(key.size()), 0, v};
    }
    tail_.pad_to(alignof(json_member));
    const std::uint64_t x = tail_offset();
    const bool indexed = n2 >= index_min_members;
    const std::size_t e = sizeof(json_member);
    unsigned char* dst = tail_.extend(std::size_t{n2} * e + (indexed ? std::size_t{n2} * 4 : 0));
    const bool old_indexed = n >= index_min_members;
    const unsigned char* src =
        bytes(c.x, std::uint64_t{n} * e + (old_indexed ? std::uint64_t{n} * 4 : 0), limit);
    if (what == op::remove) {
      std::memcpy(dst, src, pos * e);
      std::memcpy(dst + pos * e, src + (pos + 1) * e, (n - pos - 1) * e);
    } else {
      std::memcpy(dst, src, std::size_t{n} * e);
      if (what == op::add) {
        std::memcpy(dst + std::size_t{n} * e, &added, e);
      } else {
        json_member m;
        std::memcpy(&m, dst + pos * e, e);
        m.value = v;
        std::memcpy(dst + pos * e, &m, e);
      }
    }
    if (indexed) {
      auto* index = reinterpret_cast<std::uint32_t*>(dst + std::size_t{n2} * e);
      if (what == op::set) {
        std::memcpy(index, src + std::size_t{n} * e, std::size_t{n} * 4);
      } else {
        // Keys of the copied members lie below the new table at x.
        write_member_index(index, n2, [&](std::uint32_t i) {
          json_member m;
          std::memcpy(&m, dst + std::size_t{i} * e, e);
          return std::string_view(reinterpret_cast<const char*>(bytes(m.key, m.key_len, x)),
                                  m.key_len);
        });
      }
    }
    return {static_cast<std::uint8_t>(kind::object), {}, n2, x};
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
  void overwrite_entry(const json_ref& c, std::uint64_t limit, std::size_t pos,
                       const json_ref& v) {
    const bool array = c.k == static_cast<std::uint8_t>(kind::array);
    const std::uint64_t off = array ? c.x + pos * sizeof(json_ref)
                                    : c.x + pos * sizeof(json_member) + offsetof(json_member, value);
    const unsigned char* at = bytes(off, sizeof v, limit);
    (void)read_ref(at);
    std::memcpy(const_cast<unsigned char*>(at), &v, sizeof v);
  }

  // set (v given) or erase (v null): the path to the parent of the last token,
  // then copies of the containers on it, bottom-up; an inline value replacing
  // an entry is written over it (overwrite_entry).
  bool edit(std::string_view ptr, const json_ref* v) {
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
    while (!ptr.empty()) {
      const std::string_view tok = next_token(ptr, buf);
      const bool final = ptr.empty();
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
        throw std::out_of_range(
            "fl::json_store::set: the parent of the pointer is not an object or array");
      }
      if (final) {
        path.push_back({cur, limit, pos});
        last.assign(tok);
        break;
      }
      if (pos == std::string_view::npos) {
        if (!v) return false;
        throw std::out_of_range("fl::json_store::set: no value at a prefix of the pointer");
      }
      path.push_back({cur, limit, pos});
      const json_value child = cur.k == static_cast<std::uint8_t>(kind::object)
                                   ? json_value(this, cur, limit).member(pos).value
                                   : json_value(this, cur, limit).element(pos);
      cur = child.ref_;
      limit = child.limit_;
    }
    if (path.empty()) {  // the pointer "" names the document
      if (!v) return false;
      root_ = *v;
      return true;
    }
    step& s = path.back();
    const bool replaces = s.pos != std::string_view::npos &&
                          !(s.c.k == static_cast<std::uint8_t>(kind::array) && s.pos == s.c.n);
    if (v && replaces && inline_kind(v->k)) {
      overwrite_entry(s.c, s.limit, s.pos, *v);
      return true;
    }
    json_ref r;
    if (!v) {
      if (s.pos == std::string_view::npos) return false;
      r = copy_container(s.c, s.limit, s.pos, op::remove, {}, {});
    } else if (s.pos == std::string_view::npos) {
      if (s.c.k == static_cast<std::uint8_t>(kind::array)) {
        throw std::out_of_range(
            "fl::json_store::set: array index past the end (use size() or \"-\" to append)");
      }
      r = copy_container(s.c, s.limit, 0, op::add, *v, last);
    } else if (s.c.k == static_cast<std::uint8_t>(kind::array) && s.pos == s.c.n) {
      r = copy_container(s.c, s.limit, 0, op::add, *v, {});
    } else {
      r = copy_container(s.c, s.limit, s.pos, op::set, *v, {});
    }
    for (std::size_t i = path.size() - 1; i-- > 0;)
      r = copy_container(path[i].c, path[i].limit, path[i].pos, op::set, r, {});
    root_ = r;
    return true;
  }

  // ---- the space ----

  // Moves the tail into the space (one block at tail_base_) and points the
  // head at root_. Called when an edit is complete.
  void publish_edit() {
    check_tail_page();
    if (tail_.size() != 0) {
      const fptr<void> block = space_->allocate_end(tail_.size());
      if (block.offset() != tail_base_)
        throw std::logic_error("fl::json_store: the space was allocated from behind its back");
      // An import's document goes to the file directly (no private copies,
      // not logged); an edit's few bytes through the map (no extra flush).
      if (!published_)
        space_->write_fresh(block, tail_.data(), tail_.size());
      else
        std::memcpy(space_->get(block.cast<unsigned char>()), tail_.data(), tail_.size());
      tail_.clear();
    }
    // Unchanged after an in-place edit: left alone, so its page stays clean.
    json_ref& head_root = space_->get(head_)->root;
    if (std::memcmp(&head_root, &root_, sizeof root_) != 0) head_root = root_;
    start_tail();
  }

  // Starts a new tail at the space's end. The page the next block header
  // goes to is checked before the first write (check_tail_page), not here:
  // an open that only reads never touches it.
  void start_tail() {
    tail_base_ = space_->end_block().offset();
    tail_page_checked_ = false;
  }

  // Checks the page the next block header goes to, so that writing it never
  // hides damage to the committed bytes beside it. Before every write to the
  // space (publish_edit, sync).
  void check_tail_page() {
    if (tail_page_checked_) return;
    if (tail_base_ - 8 < space_->stats().file_bytes)
      space_->checked(fptr<const void>(tail_base_ - 8), 8);
    tail_page_checked_ = true;
  }

  // A new, empty space for an import under path_ + ".tmp" (an unlocked old
  // file there is a leftover of an import never synced; a locked one is an
  // import in progress, which makes this one throw "locked"), with its head.
  void create() {
    const std::filesystem::path tmp = with_suffix(path_, ".tmp");
    remove_leftover(tmp, path_);
    // Not durable until the first sync(), which publishes it: nothing waits
    // for the disk before then.
    space_.emplace(tmp, mapped_space_options{.mode = open_mode::create_new, .durable = false});
    head_ = space_->make<json_head>();
    json_head* h = space_->get(head_);
    h->magic = file_magic;
    h->version = format_version;
    space_->set_root(head_);
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

  void open() {
    space_.emplace(path_, mapped_space_options{.mode = open_mode::open_existing});
    published_ = true;
    head_ = space_->root<json_head>();
    if (!head_) damaged("not a json_store file (the space has no root object)");
    json_head h;
    std::memcpy(&h, space_->checked(head_, sizeof h), sizeof h);
    if (h.magic != file_magic) damaged("not a json_store file (bad magic in the root object)");
    if (h.version != format_version)
      damaged("json_store format version " + std::to_string(h.version) + ", this build reads " +
              std::to_string(format_version));
    if (!valid_kind(h.root.k)) damaged("a value of unknown kind at the root");
    root_ = h.root;
    start_tail();
    if (head_.offset() >= tail_base_) damaged("the root object lies past the carved blocks");
  }
};

}  // namespace fl::detail::json

namespace fl {

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
[[noreturn]] void wrong_type(const char* want) {
  throw std::invalid_argument(std::string("fl::json_value: not ") + want);
}
}  // namespace

bool json_value::as_bool() const {
  if (ref_.k == static_cast<std::uint8_t>(kind::true_v)) return true;
  if (ref_.k == static_cast<std::uint8_t>(kind::false_v)) return false;
  wrong_type("a boolean");
}

std::int64_t json_value::as_int64() const {
  if (ref_.k == static_cast<std::uint8_t>(kind::int64)) return static_cast<std::int64_t>(ref_.x);
  wrong_type("an integer in the range of int64");
}

std::uint64_t json_value::as_uint64() const {
  if (ref_.k == static_cast<std::uint8_t>(kind::uint64)) return ref_.x;
  if (ref_.k == static_cast<std::uint8_t>(kind::int64) && static_cast<std::int64_t>(ref_.x) >= 0)
    return ref_.x;
  wrong_type("an integer in the range of uint64");
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
    default: wrong_type("a number");
  }
}

std::string_view json_value::as_string_view() const {
  if (ref_.k != static_cast<std::uint8_t>(kind::string)) wrong_type("a string");
  return {reinterpret_cast<const char*>(file_->bytes(ref_.x, ref_.n, limit_)), ref_.n};
}

json_value json_value::element(std::size_t i) const {
  const unsigned char* p = file_->bytes(ref_.x + i * sizeof(json_ref), sizeof(json_ref), limit_);
  return json_value(file_, file_->read_ref(p), ref_.x);
}

json_member json_value::member(std::size_t i) const {
  detail::json::json_member m;
  std::memcpy(&m, file_->bytes(ref_.x + i * sizeof(m), sizeof(m), limit_), sizeof m);
  const auto* k = reinterpret_cast<const char*>(file_->bytes(m.key, m.key_len, ref_.x));
  if (!detail::json::valid_kind(m.value.k)) file_->damaged("a value of unknown kind");
  return {std::string_view(k, m.key_len), json_value(file_, m.value, ref_.x)};
}

json_value json_value::operator[](std::size_t i) const {
  if (!is_array() || i >= ref_.n)
    throw std::out_of_range("fl::json_value: array index out of range");
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
  detail::json::builder b(f->tail_, 0);
  // Invalid text throws json_error before the file is created; the builder
  // then writes at the offsets the document's block will have.
  detail::json::parse_fast(json_text, b, [&] {
    f->create();
    b.rebase(f->tail_base_);
  });
  f->root_ = b.result();
  f->publish_edit();
  return json_store(std::move(f));
}

json_store json_store::open(const std::filesystem::path& file) {
  auto f = std::make_unique<detail::json::store_file>();
  f->path_ = file;
  f->open();
  return json_store(std::move(f));
}

fl::string json_store::dump() const { return file_->dump(file_->root_value()); }

std::optional<json_value> json_store::find(std::string_view json_pointer) const {
  return file_->lookup(file_->root_value(), json_pointer);
}

std::optional<fl::string> json_store::at(std::string_view json_pointer) const {
  const auto v = find(json_pointer);
  if (!v) return std::nullopt;
  return v->dump();
}

json_value json_store::root() const { return file_->root_value(); }

void json_store::set(std::string_view json_pointer, std::string_view json_text) {
  detail::json::store_file& f = *file_;
  const std::size_t mark = f.tail_.size();
  const json_ref old_root = f.root_;
  try {
    detail::json::builder b(f.tail_, f.tail_offset());
    detail::json::parse_fast(json_text, b);
    const json_ref v = b.result();
    f.edit(json_pointer, &v);
    f.publish_edit();
  } catch (...) {
    f.tail_.truncate(mark);
    f.root_ = old_root;
    throw;
  }
}

bool json_store::erase(std::string_view json_pointer) {
  detail::json::store_file& f = *file_;
  const std::size_t mark = f.tail_.size();
  const json_ref old_root = f.root_;
  try {
    const bool done = f.edit(json_pointer, nullptr);
    if (!done) {
      f.tail_.truncate(mark);
      return false;
    }
    f.publish_edit();
    return true;
  } catch (...) {
    f.tail_.truncate(mark);
    f.root_ = old_root;
    throw;
  }
}

void json_store::sync() { file_->sync(); }

const std::filesystem::path& json_store::path() const noexcept { return file_->path_; }

std::uint64_t json_store::file_bytes() const noexcept { return file_->space_->stats().file_bytes; }

}  // namespace fl
