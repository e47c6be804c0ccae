// fl::json_store: the store file (commit records, page checksums, the
// append-only data of fl/detail/json_format.hpp), reads through json_value,
// edits by path copying, and dump.
//
// I/O: committed pages are read through one read-only shared mapping of the
// file; new data collects in `tail` (file offsets from `end`) and reaches the
// file with pwrite at sync(), so an unsynced edit never touches the file.
#include "json_internal.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fl::detail::json {

namespace {

// A commit of at most this many bytes is made durable with one fdatasync (its
// pages are checked at open instead, see slot_single_sync): checking 256 KiB
// costs about 30 us at open, a second fdatasync about 200 us at every sync.
constexpr std::uint64_t single_sync_max = 256 * 1024;

[[noreturn]] void throw_errno(const char* step, const std::filesystem::path& p) {
  const int err = errno;
  throw std::system_error(err, std::system_category(),
                          std::string("fl::json_store: ") + step + " \"" + p.string() + '"');
}

void pwrite_all(int fd, const unsigned char* p, std::size_t n, std::uint64_t off,
                const std::filesystem::path& path) {
  while (n) {
    const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(off));
    if (w < 0) {
      if (errno == EINTR) continue;
      throw_errno("write", path);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
    off += static_cast<std::uint64_t>(w);
  }
}

std::uint32_t slot_crc(const json_slot& s) noexcept { return crc32c(&s, offsetof(json_slot, crc)); }

bool valid_kind(std::uint8_t k) noexcept {
  return k >= static_cast<std::uint8_t>(kind::null_v) &&
         k <= static_cast<std::uint8_t>(kind::object);
}

}  // namespace

class store_file {
 public:
  std::filesystem::path path_;  // where the store lives
  std::filesystem::path
      write_path_;  // the file written: path_, or path_ + ".tmp" before the first sync
  int fd_ = -1;
  const unsigned char* map_ = nullptr;
  std::size_t map_len_ = 0;
  std::uint64_t end_ = data_start;  // end of the committed data (page-aligned)
  std::uint64_t table_ = 0;         // the committed checksum table; 0 before the first commit
  std::uint64_t generation_ = 0;
  json_ref root_;
  byte_buffer tail_;              // uncommitted bytes at file offsets [end_, end_ + tail_.size())
  std::size_t tail_written_ = 0;  // bytes of tail_ already written to the file (by import)
  bool dirty_ = false;            // root_ or tail_ changed since the last commit
  mutable std::vector<std::uint64_t> verified_;  // one bit per committed page below table_

  store_file() = default;
  store_file(const store_file&) = delete;
  store_file& operator=(const store_file&) = delete;
  ~store_file() {
    if (map_) ::munmap(const_cast<unsigned char*>(map_), map_len_);
    if (fd_ >= 0) ::close(fd_);
  }

  [[noreturn]] void damaged(const std::string& reason) const { throw persist_error(path_, reason); }

  // Bounds only: committed reads are also checked against table_.
  std::uint64_t root_limit() const noexcept { return end_ + tail_.size(); }
  json_value root_value() const { return json_value(this, root_, root_limit()); }

  void verify_page(std::uint64_t page) const {
    std::uint64_t& word = verified_[page / 64];
    const std::uint64_t bit = std::uint64_t{1} << (page % 64);
    if (word & bit) return;
    std::uint32_t want;
    std::memcpy(&want, map_ + table_ + page * sizeof(std::uint32_t), sizeof want);
    if (crc32c(map_ + page * page_size, page_size) != want) {
      damaged("page " + std::to_string(page) + " (bytes " + std::to_string(page * page_size) +
              "..) fails its checksum");
    }
    word |= bit;
  }

  // The bytes [off, off + len) of a record that must lie below `limit`,
  // verified. Throws persist_error for a reference outside its bounds.
  const unsigned char* bytes(std::uint64_t off, std::uint64_t len, std::uint64_t limit) const {
    if (off < data_start || off > limit || len > limit - off)
      damaged("a reference points outside its container");
    if (off >= end_) {
      if (off - end_ > tail_.size() || len > tail_.size() - (off - end_))
        damaged("a reference points past the data");
      return tail_.data() + (off - end_);
    }
    if (len > table_ - std::min(off, table_)) damaged("a reference points past the committed data");
    if (len) {
      for (std::uint64_t p = off / page_size, last = (off + len - 1) / page_size; p <= last; ++p)
        verify_page(p);
    }
    return map_ + off;
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
        case kind::array: {
          if (depth >= max_depth) f.damaged("nesting deeper than the format allows");
          const unsigned char* t = f.bytes(r.x, std::uint64_t{r.n} * sizeof(json_ref), limit);
          out.append("[", 1);
          for (std::uint32_t i = 0; i < r.n; ++i) {
            if (i) out.append(",", 1);
            value(f.read_ref(t + std::size_t{i} * sizeof(json_ref)), r.x, depth + 1);
          }
          out.append("]", 1);
          check_budget();
          return;
        }
        case kind::object: {
          if (depth >= max_depth) f.damaged("nesting deeper than the format allows");
          const unsigned char* t = f.bytes(r.x, std::uint64_t{r.n} * sizeof(json_member), limit);
          out.append("{", 1);
          for (std::uint32_t i = 0; i < r.n; ++i) {
            if (i) out.append(",", 1);
            json_member m;
            std::memcpy(&m, t + std::size_t{i} * sizeof(json_member), sizeof m);
            dump_string(
                std::string_view(reinterpret_cast<const char*>(f.bytes(m.key, m.key_len, r.x)),
                                 m.key_len),
                out);
            out.append(":", 1);
            if (!valid_kind(m.value.k)) f.damaged("a value of unknown kind");
            value(m.value, r.x, depth + 1);
          }
          out.append("}", 1);
          check_budget();
          return;
        }
      }
      f.damaged("a value of unknown kind");
    }
    void check_budget() const {
      if (out.size() > budget) f.damaged("the structure refers to one value twice");
    }
  };

  fl::string dump(const json_value& v) const {
    byte_buffer out;
    dumper d{*this, out, 8 * (end_ + tail_.size()) + 64};
    d.value(v.ref_, v.limit_, 0);
    return fl::string(std::string_view(reinterpret_cast<const char*>(out.data()), out.size()));
  }

  // ---- edits ----

  std::uint64_t tail_offset() const noexcept { return end_ + tail_.size(); }

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

  // set (v given) or erase (v null): the path to the parent of the last token,
  // then copies of the containers on it, bottom-up.
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
      dirty_ = true;
      return true;
    }
    step& s = path.back();
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
    dirty_ = true;
    return true;
  }

  // ---- commit ----

  void sync() {
    if (!dirty_ && generation_ > 0) return;
    const bool first = generation_ == 0;
    tail_.pad_to(page_size);
    const std::uint64_t table = end_ + tail_.size();
    const std::uint64_t pages = table / page_size;
    const std::uint64_t old_pages = table_ / page_size;
    const std::uint64_t end_page = end_ / page_size;
    const std::size_t table_at = tail_.size();
    auto* t = reinterpret_cast<std::uint32_t*>(tail_.extend(pages * sizeof(std::uint32_t)));
    if (old_pages) std::memcpy(t, map_ + table_, old_pages * sizeof(std::uint32_t));
    for (std::uint64_t p = old_pages; p < end_page; ++p) {
      t[p] = p * page_size < data_start ? 0 : crc32c(map_ + p * page_size, page_size);
    }
    for (std::uint64_t p = end_page; p < pages; ++p)
      t[p] = crc32c(tail_.data() + (p - end_page) * page_size, page_size);
    json_slot s;
    s.magic = file_magic;
    s.version = format_version;
    s.table_crc = crc32c(tail_.data() + table_at, pages * sizeof(std::uint32_t));
    tail_.pad_to(page_size);
    const std::uint64_t new_end = end_ + tail_.size();
    const bool single = !first && tail_.size() <= single_sync_max;
    s.flags = single ? slot_single_sync : 0;
    s.generation = generation_ + 1;
    s.root = root_;
    s.end = new_end;
    s.table = table;
    s.commit_start = end_;
    s.crc = slot_crc(s);

    pwrite_all(fd_, tail_.data() + tail_written_, tail_.size() - tail_written_,
               end_ + tail_written_, write_path_);
    tail_written_ = tail_.size();
    if (!single && ::fdatasync(fd_) != 0) throw_errno("fdatasync", write_path_);
    pwrite_all(fd_, reinterpret_cast<const unsigned char*>(&s), sizeof s,
               (s.generation % 2) * page_size, write_path_);
    if (::fdatasync(fd_) != 0) throw_errno("fdatasync", write_path_);
    if (write_path_ != path_) {
      if (::rename(write_path_.c_str(), path_.c_str()) != 0) throw_errno("rename", write_path_);
      write_path_ = path_;
      sync_directory();
    }
    // The commit is durable: map it and trust the pages written here.
    remap(new_end);
    verified_.resize((pages + 63) / 64, 0);
    for (std::uint64_t p = end_page; p < pages; ++p)
      verified_[p / 64] |= std::uint64_t{1} << (p % 64);
    end_ = new_end;
    table_ = table;
    generation_ = s.generation;
    tail_.clear();
    tail_written_ = 0;
    dirty_ = false;
  }

  void sync_directory() const {
    const std::filesystem::path dir =
        path_.has_parent_path() ? path_.parent_path() : std::filesystem::path(".");
    const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) throw_errno("open directory of", path_);
    const int rc = ::fsync(d);
    ::close(d);
    if (rc != 0) throw_errno("fsync directory of", path_);
  }

  void remap(std::uint64_t len) {
    if (len <= map_len_) return;
    void* m = map_ ? ::mremap(const_cast<unsigned char*>(map_), map_len_, len, MREMAP_MAYMOVE)
                   : ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd_, 0);
    if (m == MAP_FAILED) throw_errno("mmap", path_);
    map_ = static_cast<const unsigned char*>(m);
    map_len_ = len;
  }

  // ---- open ----

  bool slot_sane(const json_slot& s, std::uint64_t size) const noexcept {
    return s.magic == file_magic && s.version == format_version && s.crc == slot_crc(s) &&
           s.end % page_size == 0 && s.table % page_size == 0 && s.commit_start % page_size == 0 &&
           s.table >= data_start && s.end <= size && s.table < s.end &&
           (s.end - s.table) / sizeof(std::uint32_t) >= s.table / page_size &&
           s.commit_start >= data_start && s.commit_start <= s.table && valid_kind(s.root.k);
  }

  // Checks the checksum table (and, for a single-sync commit, its pages) of
  // slot s; false if they do not match.
  bool commit_intact(const json_slot& s) const {
    if (crc32c(map_ + s.table, s.table / page_size * sizeof(std::uint32_t)) != s.table_crc)
      return false;
    if (s.flags & slot_single_sync) {
      for (std::uint64_t p = s.commit_start / page_size; p < s.table / page_size; ++p) {
        std::uint32_t want;
        std::memcpy(&want, map_ + s.table + p * sizeof(std::uint32_t), sizeof want);
        if (crc32c(map_ + p * page_size, page_size) != want) return false;
      }
    }
    return true;
  }

  void open_file() {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
    if (fd_ < 0) throw_errno("open", path_);
    struct stat st;
    if (::fstat(fd_, &st) != 0) throw_errno("fstat", path_);
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size < data_start + page_size)
      damaged("not a json_store file (" + std::to_string(size) + " bytes, too short)");
    remap(size);
    json_slot s[2];
    std::memcpy(&s[0], map_, sizeof s[0]);
    std::memcpy(&s[1], map_ + page_size, sizeof s[1]);
    if (s[0].magic != file_magic && s[1].magic != file_magic)
      damaged("not a json_store file (no commit record)");
    const bool ok0 = slot_sane(s[0], size), ok1 = slot_sane(s[1], size);
    int order[2] = {0, 1};
    if (ok1 && (!ok0 || s[1].generation > s[0].generation)) std::swap(order[0], order[1]);
    const json_slot* chosen = nullptr;
    for (int k = 0; k < 2 && !chosen; ++k) {
      const json_slot& c = s[order[k]];
      if (!(order[k] == 0 ? ok0 : ok1)) continue;
      if (commit_intact(c)) {
        chosen = &c;
      } else if (!(c.flags & slot_single_sync) || k == 1) {
        // Written with an fdatasync between its pages and its record (or the
        // older record): its pages cannot be torn, so this is damage.
        damaged("the checksum table or the pages of commit " + std::to_string(c.generation) +
                " are damaged");
      }
    }
    if (!chosen) damaged("no intact commit record (damaged header, or truncated)");
    end_ = chosen->end;
    table_ = chosen->table;
    generation_ = chosen->generation;
    root_ = chosen->root;
    verified_.assign((table_ / page_size + 63) / 64, 0);
    if (chosen->flags & slot_single_sync) {
      for (std::uint64_t p = chosen->commit_start / page_size; p < table_ / page_size; ++p) {
        verified_[p / 64] |= std::uint64_t{1} << (p % 64);
      }
    }
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
  auto f = std::make_unique<detail::json::store_file>();
  f->path_ = file;
  f->end_ = detail::json::data_start;
  // The store is about 1.5x the text for typical documents (16 bytes per
  // value, 32 per member, strings unescaped); reserving 2x spares the
  // doublings' copies (pages never written are never touched).
  f->tail_.reserve(json_text.size() * 2 + detail::json::page_size);
  detail::json::builder b(f->tail_, detail::json::data_start);
  detail::json::parse_fast(json_text, b);  // throws json_error before any file is touched
  f->root_ = b.result();
  f->write_path_ = file;
  f->write_path_ += ".tmp";
  f->fd_ = ::open(f->write_path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (f->fd_ < 0) detail::json::throw_errno("create", f->write_path_);
  detail::json::pwrite_all(f->fd_, f->tail_.data(), f->tail_.size(), detail::json::data_start,
                           f->write_path_);
  f->tail_written_ = f->tail_.size();
  return json_store(std::move(f));
}

json_store json_store::open(const std::filesystem::path& file) {
  auto f = std::make_unique<detail::json::store_file>();
  f->path_ = file;
  f->write_path_ = file;
  f->open_file();
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
  try {
    detail::json::builder b(f.tail_, f.end_);  // offsets of the whole tail
    detail::json::parse_fast(json_text, b);
    const json_ref v = b.result();
    f.edit(json_pointer, &v);
  } catch (...) {
    f.tail_.truncate(mark);
    throw;
  }
}

bool json_store::erase(std::string_view json_pointer) {
  detail::json::store_file& f = *file_;
  const std::size_t mark = f.tail_.size();
  try {
    const bool done = f.edit(json_pointer, nullptr);
    if (!done) f.tail_.truncate(mark);
    return done;
  } catch (...) {
    f.tail_.truncate(mark);
    throw;
  }
}

void json_store::sync() { file_->sync(); }

const std::filesystem::path& json_store::path() const noexcept { return file_->path_; }

std::uint64_t json_store::file_bytes() const noexcept { return file_->end_; }

}  // namespace fl
