// src/mapped_space.cpp: fl::mapped_space (open, recovery, allocator, growth,
// commit through the redo log, rollback, verify) and fl::pstring. Formats in
// fl/detail/persist_format.hpp; the design and its costs in docs/design.md
// ("Persistence").
#include <fl/mapped_space.hpp>

#include <fl/detail/persist_format.hpp>

#include "persist_posix.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

namespace fl {
namespace detail {

struct space_state {
  std::filesystem::path path;
  std::filesystem::path log_path;
  unique_fd fd;                   // the data file, locked (flock LOCK_EX) while open
  unique_fd log_fd;               // opened (and created) by the first sync
  bool log_name_durable = false;  // the directory holding log_fd's name was fsynced
  unique_fd
      pagemap;  // /proc/self/pagemap, or closed: then dirty pages are found by comparing with the file
  bool created = false;
  bool durable = true;
  std::uint64_t sys_page = 4096;
  std::uint64_t granule = 65536;  // growth unit: a multiple of both page sizes
  std::byte* base = nullptr;      // start of the reserved range = file offset 0
  std::uint64_t reserve = 0;      // bytes reserved at base
  std::uint64_t size = 0;         // bytes of the file mapped (= the file's size)
  std::uint64_t remaps = 0;
  space_alloc_state alloc{};  // live
  space_meta committed{};     // the last commit, as on disk
  std::uint64_t last_sync_pages = 0;
  // One bit per committed page: set once the page is known to hold what the
  // last commit wrote (checked against its CRC, or written by this process).
  // Atomic bit operations (std::atomic_ref), so const readers may share it.
  mutable std::vector<std::uint64_t> verified;
  mutable std::atomic<bool> table_checked{false};  // the CRC table matched the meta's table_crc
};

namespace {

constexpr std::uint64_t initial_file_size = 4 * space_page;  // 2 meta pages + 2 pages of blocks
constexpr std::uint64_t default_reserve = std::uint64_t{64} << 30;
constexpr std::uint64_t max_growth_step = std::uint64_t{1} << 30;
constexpr std::size_t copy_chunk = std::size_t{1}
                                   << 20;  // bounded buffers for log reading and replay

[[noreturn]] void fail(const space_state& s, const std::string& reason) {
  throw persist_error(s.path, reason);
}

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

block_header load_header(const std::byte* base, std::uint64_t off) noexcept {
  block_header h;
  std::memcpy(&h, base + off, sizeof h);
  return h;
}
void store_header(std::byte* base, std::uint64_t off, block_header h) noexcept {
  std::memcpy(base + off, &h, sizeof h);
}
std::uint64_t load_u64(const std::byte* base, std::uint64_t off) noexcept {
  std::uint64_t v;
  std::memcpy(&v, base + off, sizeof v);
  return v;
}
void store_u64(std::byte* base, std::uint64_t off, std::uint64_t v) noexcept {
  std::memcpy(base + off, &v, sizeof v);
}

std::uint32_t meta_crc(const space_meta& m) noexcept { return crc32c(&m, meta_crc_span); }

// Checks a meta slot read from a file of `file_bytes` bytes. Empty if valid,
// else the reason. Format marks first, so that a foreign or newer file gets
// its own reason rather than "checksum mismatch".
std::string check_meta(const space_meta& m, std::uint64_t file_bytes) {
  if (std::memcmp(m.magic, space_magic, sizeof m.magic) != 0)
    return "not an fl::mapped_space file (bad magic)";
  if (m.byte_order != byte_order_mark) return "written on a machine of the other byte order";
  if (m.format_version != space_format_version)
    return "format version " + std::to_string(m.format_version) +
           (m.format_version > space_format_version ? " is newer than" : " is not") +
           " the supported version " + std::to_string(space_format_version);
  if (m.word_bits != word_bits)
    return "written with " + std::to_string(m.word_bits) + "-bit words, this build uses " +
           std::to_string(word_bits);
  if (m.page_size != space_page || m.class_count != space_class_count)
    return "page size or class count differs";
  if (meta_crc(m) != m.crc || m.reserved != 0) return "meta page checksum mismatch (damaged)";
  const space_alloc_state& a = m.alloc;
  if (m.file_size % space_page != 0 || m.file_size < initial_file_size)
    return "meta page: bad file size";
  if (m.file_size > file_bytes)
    return "truncated: " + std::to_string(file_bytes) + " bytes, the last commit has " +
           std::to_string(m.file_size);
  if (a.top % 16 != 8 || a.top < space_first_block || a.top > m.file_size)
    return "meta page: bad allocator end";
  if (a.root != 0 && (a.root % 16 != 0 || a.root < space_first_block + 8 || a.root >= a.top))
    return "meta page: root outside the blocks";
  if (a.used_bytes + a.free_bytes != a.top - space_first_block || a.used_bytes > a.top ||
      a.free_bytes > a.top)
    return "meta page: block byte counts do not add up";
  if (a.live_blocks > a.used_bytes / 16 || a.free_blocks > a.free_bytes / 16)
    return "meta page: bad block counts";
  for (unsigned c = 0; c < space_class_count; ++c) {
    const std::uint64_t h = a.free_heads[c];
    if (h != 0 && (h % 16 != 8 || h < space_first_block || h > a.top || a.top - h < class_size(c)))
      return "meta page: free list head of class " + std::to_string(c) + " outside the blocks";
    if (h != 0 && a.free_blocks == 0) return "meta page: free list without free blocks";
  }
  if (a.crc_table == 0) {
    if (a.crc_table_bytes != 0 || m.generation > 1) return "meta page: no page checksum table";
  } else {
    if (a.crc_table % space_page != 0 || a.crc_table_bytes % space_page != 0 ||
        a.crc_table < space_first_block || a.crc_table > a.top ||
        a.top - a.crc_table < a.crc_table_bytes || a.crc_table_bytes / 4 < m.file_size / space_page)
      return "meta page: bad page checksum table";
  }
  return {};
}

// The valid meta slot the file's state is, and the log to replay if any.
struct open_choice {
  space_meta meta;
  bool replay = false;
};

// Reads the log; true if it holds commit `want_gen` of file `uuid`, with
// every byte checked. Fills `meta` and `extents`. Any invalid log is "no log":
// it is a commit that did not finish, or belongs to another file.
bool read_log(const space_state& s, int log_fd, std::uint64_t uuid, std::uint64_t want_gen,
              space_meta& meta, std::vector<log_extent>& extents) {
  struct stat sb;
  if (::fstat(log_fd, &sb) != 0) return false;
  const auto len = static_cast<std::uint64_t>(sb.st_size);
  if (len < space_page) return false;
  std::vector<std::byte> page(space_page);
  if (pread_full(log_fd, page.data(), space_page, 0) != static_cast<long long>(space_page))
    return false;
  log_header h;
  std::memcpy(&h, page.data(), sizeof h);
  std::memcpy(&meta, page.data() + log_meta_offset, sizeof meta);
  if (std::memcmp(h.magic, log_magic, sizeof h.magic) != 0 || h.byte_order != byte_order_mark ||
      h.format_version != space_format_version || h.uuid != uuid || h.generation != want_gen)
    return false;
  if (crc32c(&meta, sizeof meta, crc32c(&h, log_header_crc_span)) != h.header_crc) return false;
  if (meta.generation != want_gen || meta.uuid != uuid) return false;
  if (!check_meta(meta, meta.file_size).empty()) return false;
  if (h.extent_count > (len - log_extents_offset) / sizeof(log_extent)) return false;
  const std::uint64_t data_off =
      round_up(log_extents_offset + h.extent_count * sizeof(log_extent), space_page);
  if (data_off > len || h.data_bytes > len - data_off) return false;
  extents.resize(h.extent_count);
  const std::size_t ext_bytes = extents.size() * sizeof(log_extent);
  if (pread_full(log_fd, extents.data(), ext_bytes, log_extents_offset) !=
      static_cast<long long>(ext_bytes))
    return false;
  std::uint64_t sum = 0;
  std::uint64_t prev_end = space_data_start;
  for (const log_extent& e : extents) {
    if (e.offset % space_page != 0 || e.length % space_page != 0 || e.length == 0 ||
        e.offset < prev_end || e.offset > meta.file_size || meta.file_size - e.offset < e.length)
      return false;
    prev_end = e.offset + e.length;
    sum += e.length;
  }
  if (sum != h.data_bytes) return false;
  std::uint32_t crc = crc32c(extents.data(), ext_bytes);
  std::vector<std::byte> buf(
      static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, h.data_bytes)));
  for (std::uint64_t done = 0; done < h.data_bytes;) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, h.data_bytes - done));
    if (pread_full(log_fd, buf.data(), n, data_off + done) != static_cast<long long>(n))
      return false;
    crc = crc32c(buf.data(), n, crc);
    done += n;
  }
  (void)s;
  return crc == h.body_crc;
}

// Writes the logged commit into the data file and makes it durable.
void replay_log(const space_state& s, int log_fd, const space_meta& meta,
                const std::vector<log_extent>& extents) {
  const std::uint64_t data_off =
      round_up(log_extents_offset + extents.size() * sizeof(log_extent), space_page);
  struct stat sb;
  if (::fstat(s.fd.get(), &sb) != 0) throw_errno(s.path, "fstat", errno);
  if (static_cast<std::uint64_t>(sb.st_size) < meta.file_size &&
      ::ftruncate(s.fd.get(), static_cast<off_t>(meta.file_size)) != 0)
    throw_errno(s.path, "ftruncate (log replay)", errno);
  std::vector<std::byte> buf(copy_chunk);
  std::uint64_t src = data_off;
  for (const log_extent& e : extents) {
    for (std::uint64_t done = 0; done < e.length;) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, e.length - done));
      if (pread_full(log_fd, buf.data(), n, src) != static_cast<long long>(n))
        fail(s, "log shrank during replay");
      if (const int err = pwrite_all(s.fd.get(), buf.data(), n, e.offset + done))
        throw_errno(s.path, "write (log replay)", err);
      src += n;
      done += n;
    }
  }
  if (const int err =
          pwrite_all(s.fd.get(), &meta, sizeof meta, (meta.generation % 2) * space_page))
    throw_errno(s.path, "write of the meta page (log replay)", err);
  if (const int err = sync_data(s.fd.get())) throw_errno(s.path, "fdatasync (log replay)", err);
}

// Picks the committed state of an open, locked data file; replays the log
// when it holds the next commit. Never writes unless a valid log is replayed.
space_meta choose_meta(space_state& s, std::uint64_t file_bytes) {
  space_meta slot[2];
  std::string why[2];
  std::vector<std::byte> page(space_page);
  for (int i = 0; i < 2; ++i) {
    if (pread_full(s.fd.get(), page.data(), space_page,
                   static_cast<std::uint64_t>(i) * space_page) !=
        static_cast<long long>(space_page))
      throw_errno(s.path, "read of the meta pages", errno ? errno : EIO);
    std::memcpy(&slot[i], page.data(), sizeof slot[i]);
    why[i] = check_meta(slot[i], file_bytes);
    if (why[i].empty() && slot[i].generation % 2 != static_cast<std::uint64_t>(i))
      why[i] = "meta page in the wrong slot (damaged)";
    // The rest of the page is zeros; nothing else covers it.
    if (why[i].empty() && std::any_of(page.begin() + sizeof(space_meta), page.end(),
                                      [](std::byte b) { return b != std::byte{0}; }))
      why[i] = "meta page padding is not zero (damaged)";
  }
  if (!why[0].empty() && !why[1].empty()) {
    if (why[0] == why[1]) fail(s, why[0]);
    fail(s, "both meta pages invalid (slot 0: " + why[0] + "; slot 1: " + why[1] + ")");
  }
  const int best = !why[0].empty()   ? 1
                   : !why[1].empty() ? 0
                                     : (slot[1].generation > slot[0].generation ? 1 : 0);
  const space_meta& m = slot[best];
  const bool other_ok = why[1 - best].empty();
  if (other_ok && (slot[1 - best].uuid != m.uuid || m.generation - slot[1 - best].generation != 1))
    fail(s, "meta pages disagree (damaged)");

  // A log holding generation m + 1 is a commit that was durable in the log
  // but maybe not in place: finish it.
  unique_fd log(::open(s.log_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (log) {
    space_meta next;
    std::vector<log_extent> extents;
    if (read_log(s, log.get(), m.uuid, m.generation + 1, next, extents)) {
      replay_log(s, log.get(), next, extents);
      return next;
    }
  }
  // Without such a log, one invalid slot is damage, not an interrupted commit
  // (a commit writes its slot only after the log holding it is durable).
  if (!other_ok) fail(s, "meta page " + std::to_string(1 - best) + ": " + why[1 - best]);
  return m;
}

std::uint64_t random_uuid() {
  std::random_device rd;
  std::uint64_t v = (std::uint64_t{rd()} << 32) ^ rd();
  v ^= static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) *
       0x9E3779B97F4A7C15ull;
  return v == 0 ? 1 : v;
}

space_meta make_meta(std::uint64_t uuid, std::uint64_t generation, std::uint64_t file_size,
                     const space_alloc_state& a) {
  space_meta m;
  std::memset(&m, 0, sizeof m);
  std::memcpy(m.magic, space_magic, sizeof m.magic);
  m.format_version = space_format_version;
  m.byte_order = byte_order_mark;
  m.word_bits = word_bits;
  m.page_size = space_page;
  m.class_count = space_class_count;
  m.uuid = uuid;
  m.generation = generation;
  m.file_size = file_size;
  m.alloc = a;
  return m;
}

// Creates an empty space at s.path: built under a temporary name, made
// durable, then linked into place (link fails if another process created the
// file meanwhile: returns false then).
bool create_file(const space_state& s) {
  std::filesystem::path tmp = s.path;
  tmp += ".new-" + std::to_string(::getpid());
  unique_fd fd(::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  if (!fd) throw_errno(tmp, "create", errno);
  space_alloc_state a{};
  a.top = space_first_block;
  const std::uint64_t uuid = random_uuid();
  // Generation 1 in slot 1 and generation 0 in slot 0: both valid, as after
  // any commit.
  for (std::uint64_t g = 0; g < 2; ++g) {
    space_meta m = make_meta(uuid, g, initial_file_size, a);
    m.crc = meta_crc(m);
    if (const int e = pwrite_all(fd.get(), &m, sizeof m, g * space_page)) {
      ::unlink(tmp.c_str());
      throw_errno(tmp, "write", e);
    }
  }
  if (::ftruncate(fd.get(), static_cast<off_t>(initial_file_size)) != 0 ||
      (s.durable && sync_data(fd.get()) != 0)) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw_errno(tmp, "ftruncate/fdatasync", e);
  }
  const int linked = ::link(tmp.c_str(), s.path.c_str());
  const int link_err = errno;
  ::unlink(tmp.c_str());
  if (linked != 0) {
    if (link_err == EEXIST) return false;
    throw_errno(s.path, "link", link_err);
  }
  if (!s.durable) return true;
  std::filesystem::path dir = s.path.parent_path();
  if (dir.empty()) dir = ".";
  unique_fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd) ::fsync(dfd.get());
  return true;
}

void fsync_parent(const std::filesystem::path& p) {
  std::filesystem::path dir = p.parent_path();
  if (dir.empty()) dir = ".";
  unique_fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dfd) throw_errno(p, "open of the directory", errno);
  if (::fsync(dfd.get()) != 0) throw_errno(p, "fsync of the directory", errno);
}

// Page runs in [from, to) (multiples of sys_page) whose mapped bytes may
// differ from the file, appended in order. From the page tables when
// /proc/self/pagemap is readable: a page of a private file mapping that was
// written to has been copied (anonymous: "file" bit clear) or swapped out.
// Otherwise by comparing every page with the file.
void find_dirty(space_state& s, std::uint64_t from, std::uint64_t to,
                std::vector<log_extent>& out) {
  const std::uint64_t ps = s.sys_page;
  auto add = [&](std::uint64_t off) {
    if (!out.empty() && out.back().offset + out.back().length == off)
      out.back().length += ps;
    else
      out.push_back({off, ps});
  };
  if (s.pagemap) {
    constexpr std::size_t batch = 4096;
    std::uint64_t entries[batch];
    const std::uint64_t first = reinterpret_cast<std::uintptr_t>(s.base + from) / ps;
    const std::uint64_t count = (to - from) / ps;
    bool ok = true;
    for (std::uint64_t i = 0; i < count && ok;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(batch, count - i));
      const long long got = pread_full(s.pagemap.get(), entries, n * 8, (first + i) * 8);
      if (got != static_cast<long long>(n * 8)) {
        ok = false;
        break;
      }
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint64_t e = entries[k];
        const bool present = (e >> 63) & 1, swapped = (e >> 62) & 1, file = (e >> 61) & 1;
        if ((present && !file) || swapped) add(from + (i + k) * ps);
      }
      i += n;
    }
    if (ok) return;
    s.pagemap.reset();  // unreadable after all: compare from now on
    out.clear();
  }
  std::vector<std::byte> buf(copy_chunk);
  for (std::uint64_t off = from; off < to;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, to - off));
    const long long got = pread_full(s.fd.get(), buf.data(), n, off);
    if (got < 0) throw_errno(s.path, "read (change scan)", static_cast<int>(-got));
    for (std::size_t k = 0; k < n; k += ps) {
      if (k + ps > static_cast<std::uint64_t>(got) ||
          std::memcmp(buf.data() + k, s.base + off + k, ps) != 0)
        add(off + k);
    }
    off += n;
  }
}

// Sorted union of two sorted run lists, adjacent runs joined.
std::vector<log_extent> merge_runs(const std::vector<log_extent>& a,
                                   const std::vector<log_extent>& b) {
  std::vector<log_extent> all(a);
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end(),
            [](const log_extent& x, const log_extent& y) { return x.offset < y.offset; });
  std::vector<log_extent> out;
  for (const log_extent& e : all) {
    if (!out.empty() && e.offset <= out.back().offset + out.back().length) {
      out.back().length = std::max(out.back().length, e.offset + e.length - out.back().offset);
    } else {
      out.push_back(e);
    }
  }
  return out;
}

// Has this process written to page p since the last commit (so that its
// committed checksum no longer applies)? From the page tables, as find_dirty;
// without them, by comparing the page with the file.
bool changed_here(const space_state& s, std::uint64_t p) {
  const std::uint64_t off = p * space_page;
  if (s.pagemap) {
    bool any = false;
    for (std::uint64_t k = 0; k < space_page; k += s.sys_page) {
      std::uint64_t e = 0;
      const std::uint64_t vpage = reinterpret_cast<std::uintptr_t>(s.base + off + k) / s.sys_page;
      if (pread_full(s.pagemap.get(), &e, 8, vpage * 8) != 8) {
        any = false;
        goto compare;
      }
      const bool present = (e >> 63) & 1, swapped = (e >> 62) & 1, file = (e >> 61) & 1;
      any = any || (present && !file) || swapped;
    }
    return any;
  }
compare:
  std::byte buf[space_page];
  if (pread_full(s.fd.get(), buf, space_page, off) != static_cast<long long>(space_page))
    return false;
  return std::memcmp(buf, s.base + off, space_page) != 0;
}

// Checks the committed pages under [off, off + len) against the page CRC
// table, once each (see mapped_space::checked). Pages at or past the
// committed file size are this process's own and need no check.
void check_pages(const space_state& s, std::uint64_t off, std::uint64_t len) {
  if (len == 0) return;
  const space_alloc_state& a = s.committed.alloc;
  const std::uint64_t committed_pages = s.committed.file_size / space_page;
  const std::uint64_t first = off / space_page;
  const std::uint64_t end = std::min((off + len - 1) / space_page + 1, committed_pages);
  if (first >= end || a.crc_table == 0) return;
  const auto* table = reinterpret_cast<const std::uint32_t*>(s.base + a.crc_table);
  if (!s.table_checked.load(std::memory_order_acquire)) {
    if (crc32c(table, a.crc_table_bytes) != s.committed.table_crc)
      fail(s, "the page checksum table is damaged (its checksum does not match the meta page)");
    s.table_checked.store(true, std::memory_order_release);
  }
  const std::uint64_t t_first = a.crc_table / space_page;
  const std::uint64_t t_end = (a.crc_table + a.crc_table_bytes) / space_page;
  for (std::uint64_t p = std::max<std::uint64_t>(first, 2); p < end; ++p) {
    std::atomic_ref<std::uint64_t> word(s.verified[p / 64]);
    const std::uint64_t bit = std::uint64_t{1} << (p % 64);
    if ((word.load(std::memory_order_relaxed) & bit) != 0 || (p >= t_first && p < t_end)) continue;
    if (crc32c(s.base + p * space_page, space_page) != table[p] && !changed_here(s, p))
      fail(s, "page " + std::to_string(p) + " (offset " + hex(p * space_page) +
                  ") does not match its checksum (damaged)");
    word.fetch_or(bit, std::memory_order_relaxed);
  }
}

// After a commit: every page of the file holds what that commit wrote or
// what was checked before; pages past the previous commit's size and the
// pages just written are marked checked.
void mark_committed(space_state& s, std::uint64_t old_pages, const std::vector<log_extent>& runs) {
  const std::uint64_t pages = s.committed.file_size / space_page;
  s.verified.resize((pages + 63) / 64, 0);
  auto set = [&](std::uint64_t p) { s.verified[p / 64] |= std::uint64_t{1} << (p % 64); };
  for (std::uint64_t p = old_pages; p < pages; ++p) set(p);
  for (const log_extent& r : runs) {
    for (std::uint64_t p = r.offset / space_page; p < (r.offset + r.length) / space_page; ++p)
      if (p < pages) set(p);
  }
  s.table_checked.store(true, std::memory_order_release);
}

}  // namespace
}  // namespace detail

using detail::block_header;
using detail::class_size;
using detail::log_extent;
using detail::space_class_count;
using detail::space_first_block;
using detail::space_meta;
using detail::space_page;

// ---- open / close ------------------------------------------------------------

mapped_space::mapped_space(const std::filesystem::path& path, const mapped_space_options& options)
    : st_(std::make_unique<detail::space_state>()) {
  detail::space_state& s = *st_;
  s.path = path;
  s.log_path = path;
  s.log_path += "-log";
  s.durable = options.durable;
  const long ps = ::sysconf(_SC_PAGESIZE);
  if (ps <= 0 || ps % 4096 != 0 || ps > 65536) detail::fail(s, "unsupported system page size");
  s.sys_page = static_cast<std::uint64_t>(ps);
  s.granule = std::max<std::uint64_t>(65536, s.sys_page);

  for (int attempt = 0;; ++attempt) {
    s.fd = detail::unique_fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (s.fd) {
      if (options.mode == open_mode::create_new && !s.created)
        detail::fail(s, "file exists (open_mode::create_new)");
      break;
    }
    if (errno != ENOENT) detail::throw_errno(path, "open", errno);
    if (options.mode == open_mode::open_existing)
      detail::fail(s, "no such file (open_mode::open_existing)");
    if (attempt > 2) detail::fail(s, "file appears and disappears while being created");
    // A stale log of an earlier file by this name must not meet the new file;
    // its uuid differs anyway, so it would be ignored, but it is dead weight.
    if (detail::create_file(s)) {
      ::unlink(s.log_path.c_str());
      s.created = true;
    } else if (options.mode == open_mode::create_new) {
      detail::fail(s, "file exists (open_mode::create_new)");
    }
  }
  if (::flock(s.fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      detail::fail(s, "locked: another process (or another mapped_space) has it open");
    detail::throw_errno(path, "flock", errno);
  }
  struct stat sb;
  if (::fstat(s.fd.get(), &sb) != 0) detail::throw_errno(path, "fstat", errno);
  if (!S_ISREG(sb.st_mode)) detail::fail(s, "not a regular file");
  auto file_bytes = static_cast<std::uint64_t>(sb.st_size);
  if (file_bytes == 0) detail::fail(s, "empty file (0 bytes)");
  if (file_bytes < detail::initial_file_size) {
    char magic[sizeof detail::space_magic] = {};
    const long long got = detail::pread_full(s.fd.get(), magic, sizeof magic, 0);
    if (got != static_cast<long long>(sizeof magic) ||
        std::memcmp(magic, detail::space_magic, sizeof magic) != 0)
      detail::fail(s, "not an fl::mapped_space file (bad magic)");
    detail::fail(s, "truncated: " + std::to_string(file_bytes) + " bytes, a space has at least " +
                        std::to_string(detail::initial_file_size));
  }
  if (file_bytes % space_page != 0)
    detail::fail(s, "size " + std::to_string(file_bytes) +
                        " is not a multiple of 4096 (truncated or damaged)");

  const space_meta m = detail::choose_meta(s, file_bytes);
  if (::fstat(s.fd.get(), &sb) != 0) detail::throw_errno(path, "fstat", errno);
  file_bytes = static_cast<std::uint64_t>(sb.st_size);  // a replay may have grown it
  s.committed = m;
  s.alloc = m.alloc;
  s.verified.assign((m.file_size / space_page + 63) / 64, 0);

  // Reserve the address range, then map the file over its start.
  std::uint64_t want =
      options.reserve != 0 ? options.reserve : std::max(detail::default_reserve, 4 * file_bytes);
  want = detail::round_up(std::max(want, file_bytes), s.granule);
  void* r = ::mmap(nullptr, want, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (r == MAP_FAILED) detail::throw_errno(path, "mmap (address reservation)", errno);
  s.base = static_cast<std::byte*>(r);
  s.reserve = want;
  if (::mmap(s.base, file_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, s.fd.get(), 0) ==
      MAP_FAILED) {
    const int e = errno;
    ::munmap(s.base, s.reserve);
    s.base = nullptr;
    detail::throw_errno(path, "mmap", e);
  }
  s.size = file_bytes;
  s.pagemap = detail::unique_fd(::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
  base_ = s.base;
  size_ = s.size;
  // A new space commits once, so that every later commit has its page
  // checksum table.
  if (s.created) sync();
}

mapped_space::mapped_space(mapped_space&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      remaps_(std::exchange(o.remaps_, 0)),
      st_(std::move(o.st_)) {}

mapped_space& mapped_space::operator=(mapped_space&& o) noexcept {
  if (this != &o) {
    if (st_ && st_->base) ::munmap(st_->base, st_->reserve);
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    remaps_ = std::exchange(o.remaps_, 0);
    st_ = std::move(o.st_);
  }
  return *this;
}

mapped_space::~mapped_space() {
  if (st_ && st_->base) ::munmap(st_->base, st_->reserve);
}

bool mapped_space::created() const noexcept { return st_->created; }
const std::filesystem::path& mapped_space::path() const noexcept { return st_->path; }

void mapped_space::bad_fptr(std::uint64_t offset, std::size_t bytes) const {
  throw persist_error(st_->path, "fptr " + detail::hex(offset) + " (+" + std::to_string(bytes) +
                                     " bytes) is outside the file (" + std::to_string(size_) +
                                     " bytes)");
}

fptr<void> mapped_space::root_offset() const noexcept { return fptr<void>(st_->alloc.root); }

void mapped_space::set_root(fptr<void> root) {
  const std::uint64_t off = root.offset();
  if (off != 0 && (off % 16 != 0 || off < space_first_block + 8 || off >= st_->alloc.top))
    throw std::invalid_argument("fl::mapped_space::set_root: not a block of this space");
  st_->alloc.root = off;
}

space_stats mapped_space::stats() const {
  const detail::space_state& s = *st_;
  space_stats r;
  r.file_bytes = s.size;
  r.top = s.alloc.top;
  r.used_bytes = s.alloc.used_bytes;
  r.free_bytes = s.alloc.free_bytes;
  r.live_blocks = s.alloc.live_blocks;
  r.generation = s.committed.generation;
  r.remap_count = s.remaps;
  r.last_sync_pages = s.last_sync_pages;
  return r;
}

// ---- allocator ---------------------------------------------------------------

namespace {

// Makes the file and the mapping at least `need` bytes long.
void grow(detail::space_state& s, std::uint64_t need) {
  std::uint64_t next = std::max(need, s.size + std::min(s.size, detail::max_growth_step));
  next = detail::round_up(next, s.granule);
  if (next > s.reserve) {
    // Move the mapping into a new, larger reserved range: raw pointers change.
    const std::uint64_t res = detail::round_up(2 * next, s.granule);
    void* r = ::mmap(nullptr, res, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) detail::throw_errno(s.path, "mmap (address reservation)", errno);
    if (::mremap(s.base, s.size, s.size, MREMAP_MAYMOVE | MREMAP_FIXED, r) == MAP_FAILED) {
      const int e = errno;
      ::munmap(r, res);
      detail::throw_errno(s.path, "mremap", e);
    }
    ::munmap(s.base + s.size, s.reserve - s.size);
    s.base = static_cast<std::byte*>(r);
    s.reserve = res;
    ++s.remaps;
  }
  if (::ftruncate(s.fd.get(), static_cast<off_t>(next)) != 0)
    detail::throw_errno(s.path, "ftruncate (growth)", errno);
  if (::mmap(s.base + s.size, next - s.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
             s.fd.get(), static_cast<off_t>(s.size)) == MAP_FAILED)
    detail::throw_errno(s.path, "mmap (growth)", errno);
  s.size = next;
}

// The live block whose payload is at `off`: its start and class, or false.
bool find_live_block(const detail::space_state& s, std::uint64_t off, std::uint64_t& block,
                     unsigned& cls) {
  if (off % 16 != 0 || off < space_first_block + 8 || off >= s.alloc.top) return false;
  const block_header h = detail::load_header(s.base, off - 8);
  if (h.tag() != detail::block_live || h.cls() >= space_class_count ||
      h.back > off - 8 - space_first_block)
    return false;
  const std::uint64_t b = off - 8 - h.back;
  if (b < space_first_block || b % 16 != 8 || s.alloc.top - b < class_size(h.cls())) return false;
  if (h.back != 0) {
    const block_header own = detail::load_header(s.base, b);
    if (own.tag() != detail::block_live || own.cls() != h.cls() || own.back != 0 ||
        h.back >= class_size(h.cls()))
      return false;
  }
  block = b;
  cls = h.cls();
  return true;
}

}  // namespace

fptr<void> mapped_space::allocate(std::size_t bytes, std::size_t align) {
  detail::space_state& s = *st_;
  if (align == 0 || (align & (align - 1)) != 0 || align > space_page)
    throw std::invalid_argument("fl::mapped_space::allocate: align must be a power of two <= 4096");
  if (align < 16) align = 16;
  if (bytes > detail::space_max_block - space_page) throw std::bad_alloc();
  const std::uint64_t need = std::max<std::uint64_t>(16, bytes + 8 + (align - 16));
  const unsigned c = detail::size_class(need);
  const std::uint64_t cs = class_size(c);
  detail::space_alloc_state& a = s.alloc;
  std::uint64_t b = a.free_heads[c];
  if (b != 0) {
    // Pop; the list lives in the file, so check what it says before use.
    if (b % 16 != 8 || b < space_first_block || b > a.top || a.top - b < cs) goto damaged;
    detail::check_pages(s, b, cs);
    {
      const block_header h = detail::load_header(s.base, b);
      if (h.tag() != detail::block_free || h.cls() != c) goto damaged;
      const std::uint64_t next = detail::load_u64(s.base, b + 8);
      if (next != 0 && (next % 16 != 8 || next < space_first_block || next >= a.top)) goto damaged;
      a.free_heads[c] = next;
      a.free_bytes -= cs;
      --a.free_blocks;
    }
  } else {
    b = a.top;
    if (b + cs > s.size) {
      grow(s, b + cs);
      base_ = s.base;
      size_ = s.size;
      remaps_ = s.remaps;
    }
    detail::check_pages(s, b, cs);
    a.top = b + cs;
  }
  {
    detail::store_header(s.base, b, block_header::make(detail::block_live, c));
    std::uint64_t p = b + 8;
    if (align > 16) {
      p = detail::round_up(b + 8, align);
      if (p != b + 8)
        detail::store_header(
            s.base, p - 8,
            block_header::make(detail::block_live, c, static_cast<std::uint32_t>(p - 8 - b)));
    }
    a.used_bytes += cs;
    ++a.live_blocks;
    return fptr<void>(p);
  }
damaged:
  detail::fail(
      s, "free list of size class " + std::to_string(c) + " damaged at offset " + detail::hex(b));
}

void mapped_space::deallocate(fptr<void> p) {
  if (!p) return;
  detail::space_state& s = *st_;
  std::uint64_t b;
  unsigned c;
  if (!find_live_block(s, p.offset(), b, c))
    throw std::invalid_argument("fl::mapped_space::deallocate: " + detail::hex(p.offset()) +
                                " is not a live block of this space (double free?)");
  const std::uint64_t cs = class_size(c);
  detail::space_alloc_state& a = s.alloc;
  detail::check_pages(s, b, 16);
  detail::store_header(s.base, b, block_header::make(detail::block_free, c));
  detail::store_u64(s.base, b + 8, a.free_heads[c]);
  a.free_heads[c] = b;
  a.used_bytes -= cs;
  a.free_bytes += cs;
  --a.live_blocks;
  ++a.free_blocks;
}

std::size_t mapped_space::block_size(fptr<void> p) const {
  std::uint64_t b;
  unsigned c;
  if (!find_live_block(*st_, p.offset(), b, c))
    throw std::invalid_argument("fl::mapped_space::block_size: " + detail::hex(p.offset()) +
                                " is not a live block of this space");
  return static_cast<std::size_t>(b + class_size(c) - p.offset());
}

fptr<void> mapped_space::end_block() const noexcept { return fptr<void>(st_->alloc.top + 8); }

fptr<void> mapped_space::allocate_end(std::size_t bytes) {
  detail::space_state& s = *st_;
  if (bytes > detail::space_max_block - space_page) throw std::bad_alloc();
  const unsigned c = detail::size_class(std::max<std::uint64_t>(16, bytes + 8));
  const std::uint64_t cs = class_size(c);
  detail::space_alloc_state& a = s.alloc;
  const std::uint64_t b = a.top;
  if (b + cs > s.size) {
    grow(s, b + cs);
    base_ = s.base;
    size_ = s.size;
    remaps_ = s.remaps;
  }
  detail::check_pages(s, b, cs);
  a.top = b + cs;
  detail::store_header(s.base, b, block_header::make(detail::block_live, c));
  a.used_bytes += cs;
  ++a.live_blocks;
  return fptr<void>(b + 8);
}

const std::byte* mapped_space::checked(fptr<const void> p, std::uint64_t bytes) const {
  const std::uint64_t off = p.offset();
  if (off < detail::space_data_start || off > size_ || size_ - off < bytes) [[unlikely]]
    bad_fptr(off, static_cast<std::size_t>(bytes));
  detail::check_pages(*st_, off, bytes);
  return base_ + off;
}

void mapped_space::rename(const std::filesystem::path& to) {
  detail::space_state& s = *st_;
  std::filesystem::path log_to = to;
  log_to += "-log";
  if (::rename(s.path.c_str(), to.c_str()) != 0) detail::throw_errno(s.path, "rename", errno);
  // A log left by an older file of that name belongs to another uuid; ours
  // (if any) holds only commits already in place. Either way the new name's
  // log must be ours or absent.
  if (::rename(s.log_path.c_str(), log_to.c_str()) != 0) {
    if (errno != ENOENT) detail::throw_errno(s.log_path, "rename", errno);
    ::unlink(log_to.c_str());
  }
  s.path = to;
  s.log_path = log_to;
  if (s.durable) detail::fsync_parent(s.path);
}

void mapped_space::set_durable(bool durable) noexcept { st_->durable = durable; }

// ---- commit ------------------------------------------------------------------

namespace {

// Makes the page-CRC table cover every page of the file; returns the old
// table's page run if it was replaced (its pages now need checksums).
std::vector<log_extent> ensure_table(mapped_space& space, detail::space_state& s) {
  std::vector<log_extent> old;
  for (;;) {
    const std::uint64_t pages = s.size / space_page;
    if (s.alloc.crc_table != 0 && s.alloc.crc_table_bytes / 4 >= pages) return old;
    // Room for 25% more pages, whole pages, page-aligned: the table's pages
    // hold nothing else.
    const std::uint64_t bytes = detail::round_up((pages + pages / 4 + 16) * 4, space_page);
    const fptr<void> t = space.allocate(static_cast<std::size_t>(bytes), space_page);
    auto* entries = reinterpret_cast<std::uint32_t*>(s.base + t.offset());
    std::memset(entries, 0, bytes);
    if (s.alloc.crc_table != 0) {
      std::memcpy(entries, s.base + s.alloc.crc_table, std::min(bytes, s.alloc.crc_table_bytes));
      old.push_back({s.alloc.crc_table, s.alloc.crc_table_bytes});
      space.deallocate(fptr<void>(s.alloc.crc_table));
    }
    s.alloc.crc_table = t.offset();
    s.alloc.crc_table_bytes = bytes;
  }
}

std::uint32_t zero_page_crc() {
  static const std::uint32_t crc = [] {
    static const std::byte zeros[space_page] = {};
    return detail::crc32c(zeros, space_page);
  }();
  return crc;
}

}  // namespace

void mapped_space::sync() {
  detail::space_state& s = *st_;
  // Pages the committed table covers; without a table (the commit that
  // created the file) every page but the meta pages is recomputed.
  const std::uint64_t old_pages =
      s.committed.alloc.crc_table != 0 ? s.committed.file_size / space_page : 2;
  std::vector<log_extent> extra = ensure_table(*this, s);
  const std::uint64_t pages = s.size / space_page;
  const std::uint64_t scan_end = std::min(s.size, detail::round_up(s.alloc.top, s.sys_page));
  std::vector<log_extent> runs;
  detail::find_dirty(s, detail::space_data_start, scan_end, runs);
  if (!extra.empty()) runs = detail::merge_runs(runs, extra);
  if (runs.empty() && s.size == s.committed.file_size &&
      std::memcmp(&s.alloc, &s.committed.alloc, sizeof s.alloc) == 0)
    return;  // nothing to commit

  // Page checksums: new pages are zeros unless written; written pages are
  // recomputed; the table's own pages stay 0 (the meta's table_crc covers them).
  auto* table = reinterpret_cast<std::uint32_t*>(s.base + s.alloc.crc_table);
  const std::uint64_t t_first = s.alloc.crc_table / space_page;
  const std::uint64_t t_end = (s.alloc.crc_table + s.alloc.crc_table_bytes) / space_page;
  auto set_entry = [&](std::uint64_t i, std::uint32_t v) {
    if (i >= t_first && i < t_end) v = 0;
    if (table[i] != v) table[i] = v;  // untouched entries leave their page clean
  };
  for (std::uint64_t i = std::max<std::uint64_t>(old_pages, 2); i < pages; ++i)
    set_entry(i, zero_page_crc());
  for (const log_extent& r : runs) {
    for (std::uint64_t i = r.offset / space_page;
         i < (r.offset + r.length) / space_page && i < pages; ++i)
      set_entry(i, detail::crc32c(s.base + i * space_page, space_page));
  }
  std::vector<log_extent> table_runs;
  detail::find_dirty(
      s, s.alloc.crc_table / s.sys_page * s.sys_page,
      std::min(s.size, detail::round_up(s.alloc.crc_table + s.alloc.crc_table_bytes, s.sys_page)),
      table_runs);
  runs = detail::merge_runs(runs, table_runs);

  space_meta m = detail::make_meta(s.committed.uuid, s.committed.generation + 1, s.size, s.alloc);
  m.table_crc = detail::crc32c(table, s.alloc.crc_table_bytes);
  m.crc = detail::meta_crc(m);

  // 1. The log: header page (with the new meta), extent table, page images.
  if (!s.log_fd) {
    s.log_fd = detail::unique_fd(::open(s.log_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
    if (!s.log_fd) detail::throw_errno(s.log_path, "open of the log", errno);
    s.log_name_durable = false;
  }
  if (s.durable && !s.log_name_durable) {
    // The log's directory entry, once, before the first durable commit uses it.
    detail::fsync_parent(s.log_path);
    s.log_name_durable = true;
  }
  std::uint64_t data_bytes = 0;
  for (const log_extent& r : runs) data_bytes += r.length;
  const std::size_t ext_bytes = runs.size() * sizeof(log_extent);
  std::uint32_t body = detail::crc32c(runs.data(), ext_bytes);
  for (const log_extent& r : runs) body = detail::crc32c(s.base + r.offset, r.length, body);
  detail::log_header h{};
  std::memcpy(h.magic, detail::log_magic, sizeof h.magic);
  h.format_version = detail::space_format_version;
  h.byte_order = detail::byte_order_mark;
  h.uuid = m.uuid;
  h.generation = m.generation;
  h.extent_count = runs.size();
  h.data_bytes = data_bytes;
  h.body_crc = body;
  h.header_crc = detail::crc32c(&m, sizeof m, detail::crc32c(&h, detail::log_header_crc_span));
  std::byte head[space_page] = {};
  std::memcpy(head, &h, sizeof h);
  std::memcpy(head + detail::log_meta_offset, &m, sizeof m);
  const int lfd = s.log_fd.get();
  if (const int e = detail::pwrite_all(lfd, head, sizeof head, 0))
    detail::throw_errno(s.log_path, "write of the log", e);
  if (const int e = detail::pwrite_all(lfd, runs.data(), ext_bytes, detail::log_extents_offset))
    detail::throw_errno(s.log_path, "write of the log", e);
  // The page images start at the next page boundary (the gap is not read).
  std::uint64_t at = detail::round_up(detail::log_extents_offset + ext_bytes, space_page);
  for (const log_extent& r : runs) {
    if (const int e = detail::pwrite_all(lfd, s.base + r.offset, r.length, at))
      detail::throw_errno(s.log_path, "write of the log", e);
    at += r.length;
  }
  if (s.durable) {
    if (const int e = detail::sync_data(lfd))
      detail::throw_errno(s.log_path, "fdatasync of the log", e);
  }
  // 2. The pages in place, then the meta slot of this generation.
  const int fd = s.fd.get();
  for (const log_extent& r : runs) {
    if (const int e = detail::pwrite_all(fd, s.base + r.offset, r.length, r.offset))
      detail::throw_errno(s.path, "write", e);
  }
  if (const int e = detail::pwrite_all(fd, &m, sizeof m, (m.generation % 2) * space_page))
    detail::throw_errno(s.path, "write of the meta page", e);
  if (s.durable) {
    if (const int e = detail::sync_data(fd)) detail::throw_errno(s.path, "fdatasync", e);
  }
  // 3. The private copies now equal the file: drop them, so that the page
  // tables show only changes made after this commit.
  for (const log_extent& r : runs) ::madvise(s.base + r.offset, r.length, MADV_DONTNEED);
  const std::uint64_t before_pages = s.committed.file_size / space_page;
  s.committed = m;
  s.last_sync_pages = data_bytes / space_page;
  detail::mark_committed(s, before_pages, runs);
}

void mapped_space::rollback() {
  detail::space_state& s = *st_;
  const std::uint64_t top = std::max(s.alloc.top, s.committed.alloc.top);
  std::vector<log_extent> runs;
  detail::find_dirty(s, detail::space_data_start,
                     std::min(s.size, detail::round_up(top, s.sys_page)), runs);
  for (const log_extent& r : runs) ::madvise(s.base + r.offset, r.length, MADV_DONTNEED);
  s.alloc = s.committed.alloc;
  // The dropped pages read from the file again: check them again.
  std::fill(s.verified.begin(), s.verified.end(), 0);
  s.table_checked.store(false, std::memory_order_release);
}

// ---- verify ------------------------------------------------------------------

void mapped_space::verify() const {
  const detail::space_state& s = *st_;
  struct stat sb;
  if (::fstat(s.fd.get(), &sb) != 0) detail::throw_errno(s.path, "fstat", errno);
  const auto file_bytes = static_cast<std::uint64_t>(sb.st_size);
  void* map = ::mmap(nullptr, file_bytes, PROT_READ, MAP_SHARED, s.fd.get(), 0);
  if (map == MAP_FAILED) detail::throw_errno(s.path, "mmap (verify)", errno);
  struct unmap {
    void* p;
    std::uint64_t n;
    ~unmap() { ::munmap(p, n); }
  } guard{map, file_bytes};
  const auto* f = static_cast<const std::byte*>(map);

  space_meta m;
  std::memcpy(&m, f + (s.committed.generation % 2) * space_page, sizeof m);
  if (const std::string why = detail::check_meta(m, file_bytes); !why.empty())
    detail::fail(s, "verify: " + why);
  if (m.generation != s.committed.generation)
    detail::fail(s, "verify: meta page changed under the space");
  const detail::space_alloc_state& a = m.alloc;
  const std::uint64_t pages = m.file_size / space_page;

  if (a.crc_table != 0) {
    const auto* table = reinterpret_cast<const std::uint32_t*>(f + a.crc_table);
    if (detail::crc32c(table, a.crc_table_bytes) != m.table_crc)
      detail::fail(s, "verify: page checksum table damaged");
    const std::uint64_t t_first = a.crc_table / space_page,
                        t_end = (a.crc_table + a.crc_table_bytes) / space_page;
    for (std::uint64_t i = 2; i < pages; ++i) {
      if (i >= t_first && i < t_end) continue;
      if (detail::crc32c(f + i * space_page, space_page) != table[i])
        detail::fail(s, "verify: checksum mismatch in page " + std::to_string(i) + " (offset " +
                            detail::hex(i * space_page) + ")");
    }
  }

  // Every block from the first to top, then every free list against them.
  // Free blocks found by the walk, in address order (8 bytes each: bounded by
  // the headers actually present in the file).
  std::vector<std::uint64_t> free_set;
  std::uint64_t used = 0, freeb = 0, live = 0;
  std::uint64_t off = space_first_block;
  while (off < a.top) {
    const block_header h = detail::load_header(f, off);
    const bool is_live = h.tag() == detail::block_live, is_free = h.tag() == detail::block_free;
    if ((!is_live && !is_free) || h.cls() >= space_class_count || h.back != 0 ||
        a.top - off < class_size(h.cls()))
      detail::fail(s, "verify: bad block header at offset " + detail::hex(off));
    const std::uint64_t cs = class_size(h.cls());
    if (is_live) {
      used += cs;
      ++live;
    } else {
      freeb += cs;
      free_set.push_back(off);
    }
    off += cs;
  }
  if (off != a.top || used != a.used_bytes || freeb != a.free_bytes || live != a.live_blocks ||
      free_set.size() != a.free_blocks)
    detail::fail(s, "verify: blocks do not match the meta page's counts");
  std::uint64_t listed = 0;
  for (unsigned c = 0; c < space_class_count; ++c) {
    for (std::uint64_t b = a.free_heads[c]; b != 0;) {
      if (!std::binary_search(free_set.begin(), free_set.end(), b) ||
          detail::load_header(f, b).cls() != c || ++listed > a.free_blocks)
        detail::fail(s, "verify: free list of size class " + std::to_string(c) + " damaged at " +
                            detail::hex(b));
      b = detail::load_u64(f, b + 8);
    }
  }
  if (listed != a.free_blocks) detail::fail(s, "verify: free blocks missing from the free lists");
  if (a.root != 0 && detail::load_header(f, a.root - 8).tag() != detail::block_live)
    detail::fail(s, "verify: the root is not a live block");
}

// ---- pstring -----------------------------------------------------------------

std::uint64_t pstring::heap_offset() const noexcept {
  std::uint64_t v;
  std::memcpy(&v, bytes_, 8);
  return v;
}

std::size_t pstring::size() const noexcept {
  if (!is_heap()) return inline_max - bytes_[tag_byte];
  std::uint64_t n;
  std::memcpy(&n, bytes_ + 8, 8);
  return static_cast<std::size_t>(n);
}

void pstring::set_heap(std::uint64_t offset, std::uint64_t size) noexcept {
  std::memcpy(bytes_, &offset, 8);
  std::memcpy(bytes_ + 8, &size, 8);
  bytes_[tag_byte] = heap_tag;
}

void pstring::set_inline(std::string_view text) noexcept {
  if (!text.empty()) std::memmove(bytes_, text.data(), text.size());
  bytes_[tag_byte] = static_cast<unsigned char>(inline_max - text.size());
}

std::string_view pstring::view(const mapped_space& space) const {
  if (!is_heap()) {
    if (bytes_[tag_byte] > inline_max)
      throw persist_error(space.path(), "pstring: bad tag (damaged)");
    return {reinterpret_cast<const char*>(bytes_), size()};
  }
  const std::size_t n = size();
  const char* p = space.get(fptr<const char>(heap_offset()));
  if (p == nullptr || (n != 0 && !space.contains(p + (n - 1))))
    throw persist_error(space.path(), "pstring: text outside the file (damaged)");
  return {p, n};
}

namespace {

// Where `self` and `text` are, as offsets when they lie in the space, so both
// can be found again after an allocation moved the mapping.
struct anchor {
  const mapped_space& space;
  std::uint64_t off = 0;
  const void* raw = nullptr;
  anchor(const mapped_space& s, const void* p) : space(s) {
    if (s.contains(p))
      off = s.to_fptr(static_cast<const char*>(p)).offset();
    else
      raw = p;
  }
  template <class T>
  T* get() const {
    return off != 0 ? reinterpret_cast<T*>(space.get(fptr<char>(off)))
                    : static_cast<T*>(const_cast<void*>(raw));
  }
};

}  // namespace

void pstring::assign(mapped_space& space, std::string_view text) {
  const std::size_t n = text.size();
  if (n <= inline_max) {
    char tmp[inline_max];
    if (n) std::memcpy(tmp, text.data(), n);
    if (is_heap()) space.deallocate(fptr<void>(heap_offset()));
    set_inline({tmp, n});
    return;
  }
  if (is_heap() && space.block_size(fptr<void>(heap_offset())) >= n) {
    char* d = space.get(fptr<char>(heap_offset()));
    std::memmove(d, text.data(), n);
    set_heap(heap_offset(), n);
    return;
  }
  const anchor self(space, this), src(space, text.data());
  const fptr<void> block = space.allocate(n, 1);
  auto* me = self.get<pstring>();
  std::memcpy(space.get(block.cast<char>()), src.get<const char>(), n);
  const bool had = me->is_heap();
  const std::uint64_t old = me->heap_offset();
  me->set_heap(block.offset(), n);
  if (had) space.deallocate(fptr<void>(old));
}

void pstring::append(mapped_space& space, std::string_view text) {
  const std::size_t old_n = size();
  const std::size_t n = old_n + text.size();
  if (text.empty()) return;
  if (!is_heap() && n <= inline_max) {
    std::memmove(bytes_ + old_n, text.data(), text.size());
    bytes_[tag_byte] = static_cast<unsigned char>(inline_max - n);
    return;
  }
  if (is_heap() && space.block_size(fptr<void>(heap_offset())) >= n) {
    char* d = space.get(fptr<char>(heap_offset()));
    std::memmove(d + old_n, text.data(), text.size());
    set_heap(heap_offset(), n);
    return;
  }
  // Geometric growth: amortized O(1) per appended byte.
  const std::size_t cap = std::max(n, 2 * old_n);
  const anchor self(space, this), src(space, text.data());
  const fptr<void> block = space.allocate(cap, 1);
  auto* me = self.get<pstring>();
  char* d = space.get(block.cast<char>());
  const std::string_view cur = me->view(space);
  std::memcpy(d, cur.data(), old_n);
  std::memcpy(d + old_n, src.get<const char>(), text.size());
  const bool had = me->is_heap();
  const std::uint64_t old = me->heap_offset();
  me->set_heap(block.offset(), n);
  if (had) space.deallocate(fptr<void>(old));
}

void pstring::clear(mapped_space& space) {
  if (is_heap()) space.deallocate(fptr<void>(heap_offset()));
  set_inline({});
}

fptr<pstring> pstring::make(mapped_space& space, std::string_view text) {
  const anchor src(space, text.data());
  const fptr<pstring> p = space.make<pstring>();
  try {
    space.get(p)->assign(space, std::string_view(src.get<const char>(), text.size()));
  } catch (...) {
    space.deallocate(p);
    throw;
  }
  return p;
}

void pstring::destroy(mapped_space& space, fptr<pstring> p) {
  if (!p) return;
  space.get(p)->clear(space);
  space.deallocate(p);
}

}  // namespace fl
