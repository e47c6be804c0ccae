// src/mapped_space_open.cpp: fl::mapped_space's open (checks of the meta
// slots, recovery from the redo log), the creation of a new file, the handle's
// moves and accessors, rename. Formats in fl/detail/persist_format.hpp; the
// design in docs/design.md ("Persistence").
#include <fl/mapped_space.hpp>

#include <fl/detail/persist_format.hpp>

#include "mapped_space_internal.hpp"
#include "persist_posix.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>
#include <chrono>
#include <mutex>
#include <random>
#include <utility>

#include <atomic>
#include <cstdio>

#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

namespace fl::inline FL_ABI_NS {
namespace detail {

// The one check of check_meta that depends on the file's size: empty if the
// file holds the committed size, else the reason.
std::string check_size(const space_meta& m, std::uint64_t file_bytes) {
  if (m.file_size <= file_bytes) return {};
  return "truncated: " + std::to_string(file_bytes) + " bytes, the last commit has " +
         std::to_string(m.file_size);
}

// Checks a meta slot read from a file of `file_bytes` bytes. Empty if valid,
// else the reason. Format marks first, so that a foreign or newer file gets
// its own reason rather than "checksum mismatch".
std::string check_meta(const space_meta& m, std::uint64_t file_bytes) {
  if (std::memcmp(m.magic, space_magic, sizeof m.magic) != 0)
    return "not an fl::mapped_space file (bad magic)";
  if (m.byte_order != byte_order_mark) return "written on a machine of the other byte order";
  if (m.format_version < space_oldest_version || m.format_version > space_format_version)
    return "format version " + std::to_string(m.format_version) +
           (m.format_version > space_format_version ? " is newer than" : " is not") +
           " the supported versions " + std::to_string(space_oldest_version) + " to " +
           std::to_string(space_format_version);
  if (m.word_bits != word_bits)
    return "written with " + std::to_string(m.word_bits) + "-bit words, this build uses " +
           std::to_string(word_bits);
  if (m.page_size != space_page || m.class_count != space_class_count)
    return "page size or class count differs";
  if (meta_crc(m) != m.crc || (m.format_version == 1 && m.state != 0))
    return "meta page checksum mismatch (damaged)";
  const space_alloc_state& a = m.alloc;
  if (m.file_size % space_page != 0 || m.file_size < initial_file_size)
    return "meta page: bad file size";
  if (std::string why = check_size(m, file_bytes); !why.empty()) return why;
  if (a.top % 16 != 8 || a.top < space_first_block || a.top > m.file_size)
    return "meta page: bad allocator end";
  if (a.root != 0 && (a.root % 16 != 0 || a.root < space_first_block + 8 || a.root >= a.top))
    return "meta page: root outside the blocks";
  if (m.deferred != 0 &&
      (m.deferred % 16 != 0 || m.deferred < space_first_block + 8 || m.deferred >= a.top))
    return "meta page: deferred batch outside the blocks";
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

namespace {
bool all_zero(const std::byte* p, std::size_t n) noexcept;
}  // namespace

meta_slots read_slots(const std::byte* two_pages) {
  meta_slots r;
  for (int i = 0; i < 2; ++i) {
    const std::byte* page = two_pages + static_cast<std::size_t>(i) * space_page;
    std::memcpy(&r.meta[i], page, sizeof r.meta[i]);
    r.why[i] = check_meta(r.meta[i], ~std::uint64_t{0});
    // The rest of the page is zeros; nothing else covers it.
    if (r.why[i].empty() && !all_zero(page + sizeof(space_meta), space_page - sizeof(space_meta)))
      r.why[i] = "meta page padding is not zero (damaged)";
  }
  if (!r.why[0].empty() && !r.why[1].empty()) {
    if (r.why[0] != r.why[1])
      r.why[0] = "both meta pages invalid (slot 0: " + r.why[0] + "; slot 1: " + r.why[1] + ")";
    return r;
  }
  if (!r.why[0].empty() || !r.why[1].empty()) {
    r.newest = r.why[0].empty() ? 0 : 1;
    return r;
  }
  // Both valid: the newest was written last, so its count is the other's
  // plus one; equal counts (format 1, or a new file) go by generation.
  const space_meta &a = r.meta[0], &b = r.meta[1];
  const std::uint32_t d = ((a.state >> 1) - (b.state >> 1)) & meta_seq_mask;
  r.newest = d == 1                                   ? 0
             : d == meta_seq_mask                     ? 1
             : d == 0 && a.generation != b.generation ? (a.generation > b.generation ? 0 : 1)
                                                      : -1;
  if (r.newest < 0 || a.uuid != b.uuid ||
      r.meta[r.newest].generation < r.meta[1 - r.newest].generation) {
    r.newest = -1;
    r.why[0] = "meta pages disagree (damaged)";
  }
  return r;
}

namespace {

// True if the `n` bytes at p are all zero (a word at a time).
bool all_zero(const std::byte* p, std::size_t n) noexcept {
  std::uint64_t any = 0;
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    any |= w;
  }
  for (; n > 0; --n, ++p) any |= static_cast<std::uint64_t>(*p);
  return any == 0;
}

// A record of the log, checked: its place, head and extents.
struct record {
  std::uint64_t at = 0;
  log_record head{};
  space_meta meta{};
  std::vector<log_extent> extents;
};

// Reads the record at `at` of the log; true if it holds commit `gen` of file
// `uuid` with every byte checked (both CRCs, the meta, every extent inside
// the meta's file size, in order).
bool read_record(int log_fd, std::uint64_t log_bytes, std::uint64_t at, std::uint64_t uuid,
                 std::uint64_t gen, record& r) {
  if (at >= log_bytes || log_bytes - at < space_page) return false;
  std::vector<std::byte> page(space_page);
  if (pread_full(log_fd, page.data(), space_page, at) != static_cast<long long>(space_page))
    return false;
  std::memcpy(&r.head, page.data(), sizeof r.head);
  const log_record& h = r.head;
  if (std::memcmp(h.magic, record_magic, sizeof h.magic) != 0 || h.byte_order != byte_order_mark ||
      h.format_version < 2 || h.format_version > space_format_version || h.uuid != uuid ||
      h.generation != gen)
    return false;
  const std::size_t meta_bytes = meta_image_bytes(h.format_version);
  const std::uint64_t room = log_bytes - at;
  if (h.extent_count > room / sizeof(log_extent)) return false;
  const std::uint64_t head_bytes = record_head_bytes(h.extent_count, h.format_version);
  if (head_bytes > room || h.data_bytes > room - head_bytes ||
      h.record_bytes != head_bytes + h.data_bytes)
    return false;
  std::vector<std::byte> head(static_cast<std::size_t>(head_bytes));
  std::memcpy(head.data(), page.data(), space_page);
  if (head_bytes > space_page &&
      pread_full(log_fd, head.data() + space_page, head_bytes - space_page, at + space_page) !=
          static_cast<long long>(head_bytes - space_page))
    return false;
  const std::size_t ext_bytes = static_cast<std::size_t>(h.extent_count) * sizeof(log_extent);
  std::uint32_t crc = crc32c(head.data(), record_crc_span);
  crc = crc32c(head.data() + sizeof h, meta_bytes + ext_bytes, crc);
  if (crc != h.head_crc) return false;
  r.meta = space_meta{};
  std::memcpy(&r.meta, head.data() + sizeof h, meta_bytes);
  if (r.meta.generation != gen || r.meta.uuid != uuid ||
      !check_meta(r.meta, r.meta.file_size).empty())
    return false;
  r.extents.resize(static_cast<std::size_t>(h.extent_count));
  std::memcpy(r.extents.data(), head.data() + sizeof h + meta_bytes, ext_bytes);
  std::uint64_t sum = 0;
  std::uint64_t prev_end = space_data_start;
  for (const log_extent& e : r.extents) {
    if (e.offset % space_page != 0 || e.length % space_page != 0 || e.length == 0 ||
        e.offset < prev_end || e.offset > r.meta.file_size ||
        r.meta.file_size - e.offset < e.length)
      return false;
    prev_end = e.offset + e.length;
    sum += e.length;
  }
  if (sum != h.data_bytes) return false;
  std::vector<std::byte> buf(static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, sum)));
  crc = 0;
  for (std::uint64_t done = 0; done < sum;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, sum - done));
    if (pread_full(log_fd, buf.data(), n, at + head_bytes + done) != static_cast<long long>(n))
      return false;
    crc = crc32c(buf.data(), n, crc);
    done += n;
  }
  r.at = at;
  return crc == h.data_crc;
}

// After the last valid record of a run (ending at `from`): a later record of
// the same file and run means a record in between was damaged, and the
// commits after it would be lost. Looks at every page boundary past `from`.
void check_no_later_record(const space_state& s, int log_fd, std::uint64_t log_bytes,
                           std::uint64_t from, std::uint64_t uuid, std::uint64_t next_gen) {
  std::vector<std::byte> buf(copy_chunk);
  for (std::uint64_t at = from; at < log_bytes;) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, log_bytes - at));
    const long long got = pread_full(log_fd, buf.data(), n, at);
    if (got <= 0) return;
    for (std::size_t k = 0; k + sizeof(log_record) <= static_cast<std::size_t>(got);
         k += space_page) {
      log_record h;
      std::memcpy(&h, buf.data() + k, sizeof h);
      if (std::memcmp(h.magic, record_magic, sizeof h.magic) != 0 || h.uuid != uuid ||
          h.generation <= next_gen || h.generation - next_gen > (std::uint64_t{1} << 32))
        continue;
      record r;
      if (read_record(log_fd, log_bytes, at + k, uuid, h.generation, r))
        fail(s, "the log record of commit " + std::to_string(next_gen) + " is damaged (" +
                    s.log_path.string() + " holds commit " + std::to_string(h.generation) +
                    " after it at offset " + hex(at + k) + ")");
    }
    at += static_cast<std::uint64_t>(got);
  }
}

// Writes the records into the data file, in order, and flushes it.
void replay(const space_state& s, int log_fd, const std::vector<record>& run) {
  const std::uint64_t size = run.back().meta.file_size;
  struct stat sb;
  if (::fstat(s.fd.get(), &sb) != 0) throw_errno(s.path, "fstat", errno);
  if (static_cast<std::uint64_t>(sb.st_size) < size &&
      ::ftruncate(s.fd.get(), static_cast<off_t>(size)) != 0)
    throw_errno(s.path, "ftruncate (log replay)", errno);
  std::vector<std::byte> buf(copy_chunk);
  for (const record& r : run) {
    std::uint64_t src = r.at + record_head_bytes(r.extents.size(), r.head.format_version);
    for (const log_extent& e : r.extents) {
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
  }
  if (const int err = sync_data(s.fd.get())) throw_errno(s.path, "fdatasync (log replay)", err);
}

// A format-1 file whose log holds the commit after its meta: format 1 wrote
// that commit in place only after its log was durable, so the file may hold
// part of it. Refused: a build of format 1 finishes it.
void refuse_unfinished_v1(const space_state& s, const space_meta& m) {
  unique_fd log(::open(s.log_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!log) return;
  log_header_v1 h;
  if (pread_full(log.get(), &h, sizeof h, 0) != static_cast<long long>(sizeof h)) return;
  if (std::memcmp(h.magic, log_magic_v1, sizeof h.magic) == 0 && h.format_version == 1 &&
      h.uuid == m.uuid && h.generation == m.generation + 1)
    fail(s, "format 1 file with an unfinished commit in " + s.log_path.string() +
                ": open it once with a build that writes format 1 to finish the commit");
}

// Picks the committed state of an open, locked data file. When the newest
// meta slot has meta_log_bit (or the other slot is torn), replays the run of
// records the log holds from offset 0, then writes the final state into a
// slot (sets `replayed`). Never writes unless a valid run is replayed.
space_meta choose_meta(space_state& s, std::uint64_t file_bytes, bool& replayed) {
  alignas(8) std::byte pages[2 * space_page];  // both meta pages in one read
  if (pread_full(s.fd.get(), pages, sizeof pages, 0) != static_cast<long long>(sizeof pages))
    throw_errno(s.path, "read of the meta pages", errno ? errno : EIO);
  const meta_slots slots = read_slots(pages);
  if (slots.newest < 0) fail(s, slots.why[0]);
  const int n = slots.newest, o = 1 - n;
  const space_meta& m = slots.meta[n];
  s.newest_slot = n;
  s.meta_seq = m.state >> 1;
  const bool log_bit = (m.state & meta_log_bit) != 0;
  if (!log_bit && slots.why[o].empty()) {
    // read_slots checked everything but the size.
    if (const std::string why = check_size(m, file_bytes); !why.empty()) fail(s, why);
    if (m.format_version == 1) refuse_unfinished_v1(s, m);
    return m;
  }
  // The log is needed: it holds the commits since the newest slot, or the
  // commit whose slot write was torn (the other slot; its record was durable
  // before the write began). Anything else is damage.
  const std::uint64_t first = log_bit ? m.generation : m.generation + 1;
  const std::string missing = log_bit ? "the log " + s.log_path.string() +
                                            " does not hold commit " + std::to_string(first) +
                                            ", which the meta page names (missing or damaged)"
                                      : "meta page " + std::to_string(o) + ": " + slots.why[o];
  unique_fd log(::open(s.log_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!log) fail(s, missing);
  struct stat sb;
  if (::fstat(log.get(), &sb) != 0) throw_errno(s.log_path, "fstat", errno);
  const auto log_bytes = static_cast<std::uint64_t>(sb.st_size);
  std::vector<record> run;
  for (std::uint64_t at = 0, gen = first;; ++gen) {
    record r;
    if (!read_record(log.get(), log_bytes, at, m.uuid, gen, r)) {
      if (run.empty()) fail(s, missing);
      check_no_later_record(s, log.get(), log_bytes, at, m.uuid, gen);
      break;
    }
    at += r.head.record_bytes;
    run.push_back(std::move(r));
  }
  replay(s, log.get(), run);
  space_meta last = run.back().meta;
  s.newest_slot = n;
  write_slot(s, last, false);
  replayed = true;
  return last;
}

std::uint64_t random_uuid() {
  std::random_device rd;
  std::uint64_t v = (std::uint64_t{rd()} << 32) ^ rd();
  v ^= static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) *
       0x9E3779B97F4A7C15ull;
  return v == 0 ? 1 : v;
}

}  // namespace

space_meta make_meta(std::uint64_t uuid, std::uint64_t generation, std::uint64_t file_size,
                     const space_alloc_state& a) {
  space_meta m;
  std::memset(&m, 0, sizeof m);
  stamp_marks(m, space_magic, space_format_version);
  m.word_bits = word_bits;
  m.page_size = space_page;
  m.class_count = space_class_count;
  m.uuid = uuid;
  m.generation = generation;
  m.file_size = file_size;
  m.alloc = a;
  return m;
}

namespace {

// Creates an empty space at s.path: built under a unique temporary name,
// made durable, locked, then linked into place, so that the file appears
// under its name already locked (no other opener can take it in between).
// Returns the locked descriptor, or an empty one if link found a file there
// (another process created it meanwhile).
unique_fd create_file(const space_state& s) {
  const std::filesystem::path tmp = unique_sibling(s.path, "new");
  unique_fd fd(::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
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
      (s.durable && sync_data(fd.get()) != 0) || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw_errno(tmp, "ftruncate/fdatasync/flock", e);
  }
  const int linked = ::link(tmp.c_str(), s.path.c_str());
  const int link_err = errno;
  ::unlink(tmp.c_str());
  if (linked != 0) {
    if (link_err == EEXIST) return {};
    throw_errno(s.path, "link", link_err);
  }
  if (s.durable) {
    std::filesystem::path dir = s.path.parent_path();
    if (dir.empty()) dir = ".";
    unique_fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd) ::fsync(dfd.get());
  }
  return fd;
}

// ---- the writer lock ---------------------------------------------------------
//
// A space's writer holds flock(LOCK_EX) on its data file. flock belongs to an
// open file description, so a second open() of the file in the same process
// conflicts with the first as another process would. The process therefore
// keeps a table of the files it has open as writer (by device and inode):
// an open that finds its file there takes it over from the earlier handle
// when that handle has nothing uncommitted (it checkpoints the earlier
// handle, shares its locked descriptor and retires it), and is refused with
// a reason naming the situation otherwise.
struct open_file {
  dev_t dev;
  ino_t ino;
  pid_t pid;  // a child made by fork() inherits the table, not the files' handles
  space_state* writer;
};
struct writer_table {
  std::mutex m;
  std::vector<open_file> files;
};
writer_table& writers() {
  static writer_table* t = new writer_table;  // never destroyed: spaces may close at exit
  return *t;
}

std::vector<open_file>::iterator find_file(writer_table& t, const struct stat& sb,
                                           pid_t self) {
  return std::find_if(t.files.begin(), t.files.end(), [&](const open_file& f) {
    return f.dev == sb.st_dev && f.ino == sb.st_ino && f.pid == self;
  });
}

// Why this process cannot take its file over from the handle `w`, or empty.
std::string takeover_refused(space_state& w) {
  if (w.retired.load(std::memory_order_relaxed) || !w.fd) return "locked: being closed";
  if (has_uncommitted(w))
    return "locked: this process has it open in another handle with uncommitted changes "
           "(sync() or destroy that handle first)";
  try {
    catch_up(w);  // readers may hold older commits than the file: moved as far as they allow
  } catch (const persist_error& e) {
    return std::string("locked: the other handle of this process could not write its commits "
                       "in place (") + e.what() + ")";
  }
  if (!file_is_current(w))
    return "locked: readers hold older commits than the other handle of this process can drop "
           "(its log is still needed)";
  if (const int e = checkpoint(w))
    return std::string("locked: the other handle of this process could not checkpoint (") +
           std::strerror(e) + ")";
  return {};
}

}  // namespace

// Opens s.path as its writer: s.fd holds the file's exclusive lock, and the
// path named that very file after the lock was taken (an opener that raced
// with a rename onto the path locked the replaced file: it retries).
// Creates the file per `mode`. Sets s.created; returns the handle this open
// takes the file over from (see writer_table), or nullptr.
space_state* open_writer(space_state& s, open_mode mode, struct stat& sb) {
  for (int attempt = 0;; ++attempt) {
    if (attempt > 16) fail(s, "the file keeps being replaced while it is opened");
    unique_fd fd(::open(s.path.c_str(), O_RDWR | O_CLOEXEC));
    if (!fd) {
      if (errno != ENOENT) throw_errno(s.path, "open", errno);
      if (mode == open_mode::open_existing)
        fail(s, "no such file (open_mode::open_existing)");
      fd = create_file(s);
      if (!fd) {
        if (mode == open_mode::create_new) fail(s, "file exists (open_mode::create_new)");
        continue;  // created by another process meanwhile: open that one
      }
      // A stale log of an earlier file by this name must not meet the new
      // file; its uuid differs anyway, so it would be ignored, but it is
      // dead weight.
      ::unlink(s.log_path.c_str());
      s.created = true;
      if (::fstat(fd.get(), &sb) != 0) throw_errno(s.path, "fstat", errno);
      s.fd = std::move(fd);
      return nullptr;
    }
    if (mode == open_mode::create_new) fail(s, "file exists (open_mode::create_new)");
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) {
      if (!names_file(s.path, fd.get(), &sb)) continue;  // replaced while we opened it
      s.fd = std::move(fd);
      return nullptr;
    }
    if (errno != EWOULDBLOCK) throw_errno(s.path, "flock", errno);
    if (::fstat(fd.get(), &sb) != 0) throw_errno(s.path, "fstat", errno);
    writer_table& t = writers();
    const std::lock_guard<std::mutex> lock(t.m);
    const auto it = find_file(t, sb, ::getpid());
    if (it == t.files.end()) {
      if (!names_file(s.path, fd.get())) continue;  // replaced: its lock was the replacer's
      fail(s, "locked: another process has it open");
    }
    space_state& w = *it->writer;
    if (const std::string why = takeover_refused(w); !why.empty()) fail(s, why);
    s.fd = unique_fd(::dup(w.fd.get()));  // the same open file description: its lock
    if (!s.fd) throw_errno(s.path, "dup", errno);
    return &w;
  }
}

namespace {

// Enters s (its file's fstat `sb`) in the writer table after a successful
// open, retiring the handle it took the file over from.
void register_writer(space_state& s, const struct stat& sb, space_state* from) {
  writer_table& t = writers();
  const pid_t self = ::getpid();
  const std::lock_guard<std::mutex> lock(t.m);
  const auto it = find_file(t, sb, self);
  if (it != t.files.end()) {
    if (it->writer == from && from != nullptr) from->retired.store(true);
    it->writer = &s;
  } else {
    t.files.push_back({sb.st_dev, sb.st_ino, self, &s});
  }
}

void unregister_writer(const space_state* s) noexcept {
  writer_table& t = writers();
  const std::lock_guard<std::mutex> lock(t.m);
  std::erase_if(t.files, [&](const open_file& f) { return f.writer == s; });
}

}  // namespace

void check_bound(const space_state& s) {
  struct stat sb;
  if (::fstat(s.fd.get(), &sb) != 0) throw_errno(s.path, "fstat", errno);
  if (sb.st_nlink == 0)
    fail(s,
         "the file was removed or replaced while open (by a writer that ignored its lock); "
         "nothing was committed");
  if (s.log_fd) {
    if (::fstat(s.log_fd.get(), &sb) != 0) throw_errno(s.log_path, "fstat", errno);
    if (sb.st_nlink == 0)
      fail(s, "the log " + s.log_path.string() +
                  " was removed or replaced while open (by a writer that ignored its lock); "
                  "nothing was committed");
  }
}

void shrink_log(space_state& s, std::uint64_t keep) noexcept {
  if (!s.log_fd || s.log_open || s.log_written <= keep) return;
  if (::ftruncate(s.log_fd.get(), static_cast<off_t>(keep)) == 0) s.log_written = keep;
}

namespace {

// One address reservation a closed space left, for the next open of the same
// size. Reusing it keeps the page tables under its start (the kernel frees
// them only with the range), which a reopen would otherwise build again. The
// closed file's pages were unmapped, not replaced: [base, base + hole) is a
// hole in the range, which another mapping of the process may have taken
// since, so the next open maps into it only with MAP_FIXED_NOREPLACE.
struct reservation_cache {
  std::mutex m;
  std::byte* base = nullptr;
  std::uint64_t bytes = 0;
  std::uint64_t hole = 0;
};
reservation_cache& cached_reservation() {
  static reservation_cache c;
  return c;
}

// mmap at exactly `at` where nothing is mapped; false if anything is (or if
// the kernel predates MAP_FIXED_NOREPLACE and put the mapping elsewhere).
bool map_at_free(std::byte* at, std::uint64_t len, int prot, int flags, int fd) noexcept {
  void* p = ::mmap(at, len, prot, flags | MAP_FIXED_NOREPLACE, fd, 0);
  if (p == MAP_FAILED) return false;
  if (p != at) {
    ::munmap(p, len);
    return false;
  }
  return true;
}

}  // namespace

void* take_reservation(std::uint64_t bytes, int fd, std::uint64_t file_bytes) noexcept {
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);
  if (c.base == nullptr || c.bytes != bytes) return nullptr;
  std::byte* const base = std::exchange(c.base, nullptr);
  const std::uint64_t hole = c.hole;
  bool ok;
  if (file_bytes <= hole) {
    // The file into the hole; the rest of the hole reserved again.
    ok = map_at_free(base, file_bytes, file_prot, file_flags, fd);
    if (ok && file_bytes < hole &&
        !map_at_free(base + file_bytes, hole - file_bytes, reserve_prot, reserve_flags, -1)) {
      ::munmap(base, file_bytes);
      ok = false;
    }
  } else {
    // The hole reserved again, then the file over it and the reserved part.
    ok = map_at_free(base, hole, reserve_prot, reserve_flags, -1);
    if (ok && ::mmap(base, file_bytes, file_prot, file_flags | MAP_FIXED, fd, 0) == MAP_FAILED) {
      ::munmap(base, hole);
      ok = false;
    }
  }
  if (!ok) {
    ::munmap(base + hole, bytes - hole);  // the part still reserved
    return nullptr;
  }
  return base;
}

void give_reservation(std::byte* base, std::uint64_t mapped, std::uint64_t bytes) noexcept {
  // The file's pages (private copies included) are unmapped, leaving a hole
  // at the range's start: one call, cheaper than mapping PROT_NONE over them
  // (no new mapping to merge back into the range). A full cache or a failure
  // unmaps the whole range.
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);
  if (c.base == nullptr && ::munmap(base, mapped) == 0) {
    c.base = base;
    c.bytes = bytes;
    c.hole = mapped;
    return;
  }
  ::munmap(base, bytes);
}

void fsync_parent(const std::filesystem::path& p) {
  std::filesystem::path dir = p.parent_path();
  if (dir.empty()) dir = ".";
  unique_fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dfd) throw_errno(p, "open of the directory", errno);
  if (::fsync(dfd.get()) != 0) throw_errno(p, "fsync of the directory", errno);
}

}  // namespace detail

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
  if (options.mode == open_mode::read_only) {
    detail::open_as_reader(s, options.reserve);
    base_ = s.base;
    size_ = s.size;
    return;
  }

  struct stat sb;
  detail::space_state* const from = detail::open_writer(s, options.mode, sb);
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

  bool replayed = false;
  const space_meta m = detail::choose_meta(s, file_bytes, replayed);
  if (replayed) {  // a replay may have grown the file
    if (::fstat(s.fd.get(), &sb) != 0) detail::throw_errno(path, "fstat", errno);
    file_bytes = static_cast<std::uint64_t>(sb.st_size);
  }
  if (file_bytes > m.file_size) {
    // Bytes past the committed size belong to no commit: pages a commit that
    // never became durable wrote ahead of its log (write_fresh), or growth
    // that was never committed. Cut them, so that the space grows over zeros
    // again (sync() gives new pages a zero page's checksum).
    if (::ftruncate(s.fd.get(), static_cast<off_t>(m.file_size)) != 0)
      detail::throw_errno(path, "ftruncate to the committed size", errno);
    if (s.durable) {
      if (const int e = detail::sync_data(s.fd.get()))
        detail::throw_errno(path, "fdatasync (truncation)", e);
    }
    file_bytes = m.file_size;
  }
  s.committed = m;
  s.alloc = m.alloc;
  s.verified.assign((m.file_size / space_page + 63) / 64, 0);

  // Reserve the address range (or reuse one a closed space left), then map
  // the file over its start.
  std::uint64_t want =
      options.reserve != 0 ? options.reserve : std::max(detail::default_reserve, 4 * file_bytes);
  want = detail::round_up(std::max(want, file_bytes), s.granule);
  void* r = detail::take_reservation(want, s.fd.get(), file_bytes);  // the file mapped in it
  const bool file_mapped = r != nullptr;
  if (r == nullptr) r = ::mmap(nullptr, want, detail::reserve_prot, detail::reserve_flags, -1, 0);
  if (r == MAP_FAILED) detail::throw_errno(path, "mmap (address reservation)", errno);
  s.base = static_cast<std::byte*>(r);
  s.reserve = want;
  if (!file_mapped && ::mmap(s.base, file_bytes, detail::file_prot, detail::file_flags | MAP_FIXED,
                             s.fd.get(), 0) == MAP_FAILED) {
    const int e = errno;
    ::munmap(s.base, s.reserve);
    s.base = nullptr;
    detail::throw_errno(path, "mmap", e);
  }
  s.size = file_bytes;
  base_ = s.base;
  size_ = s.size;
  // A new space carves its page checksum table now, where the first blocks
  // go, but commits nothing: the file stays at generation 1 (empty, no
  // table) until the first sync(), which fills the table and writes the log.
  if (s.created) detail::ensure_table(*this, s);
  detail::register_writer(s, sb, from);
  detail::open_readers_as_writer(s);
}

mapped_space mapped_space::open(const std::filesystem::path& path, open_mode mode) {
  return mapped_space(path, mapped_space_options{.mode = mode});
}

void mapped_space::refresh() {
  detail::refresh_reader(*st_);
  if (base_ != st_->base) ++remaps_;
  base_ = st_->base;
  size_ = st_->size;
}

bool mapped_space::read_only() const noexcept { return st_->read_only; }

mapped_space::mapped_space(mapped_space&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      remaps_(std::exchange(o.remaps_, 0)),
      st_(std::move(o.st_)) {}

namespace {

// A clean close: the commits the log alone holds go to the data file and a
// meta slot (detail::checkpoint), so the next open reads no log. A failure
// leaves them in the log, where the next open finds them.
void close_space(detail::space_state* s) noexcept {
  if (s == nullptr || s->base == nullptr) return;
  if (!s->read_only) {
    detail::unregister_writer(s);
    if (!s->retired.load(std::memory_order_relaxed) && !s->in_place_failed) {
      try {
        detail::catch_up(*s);  // as far as readers allow
      } catch (...) {          // the log keeps the commits
      }
    }
    // A reader holding an older commit keeps the log (checkpoint declines).
    if (!s->retired.load(std::memory_order_relaxed) && detail::file_is_current(*s) &&
        detail::checkpoint(*s) == 0)
      detail::shrink_log(*s, 0);  // the state is whole in the file: keep no log bytes
  }
  detail::give_reservation(s->base, s->size, s->reserve);
}

}  // namespace

mapped_space& mapped_space::operator=(mapped_space&& o) noexcept {
  if (this != &o) {
    close_space(st_.get());
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    remaps_ = std::exchange(o.remaps_, 0);
    st_ = std::move(o.st_);
  }
  return *this;
}

mapped_space::~mapped_space() { close_space(st_.get()); }

bool mapped_space::created() const noexcept { return st_->created; }
const std::filesystem::path& mapped_space::path() const noexcept { return st_->path; }

void mapped_space::bad_fptr(std::uint64_t offset, std::size_t bytes) const {
  throw persist_error(st_->path, "fptr " + detail::hex(offset) + " (+" + std::to_string(bytes) +
                                     " bytes) is outside the file (" + std::to_string(size_) +
                                     " bytes)");
}

fptr<void> mapped_space::root_offset() const noexcept { return fptr<void>(st_->alloc.root); }

void mapped_space::set_root(fptr<void> root) {
  detail::refuse_read_only(*st_, "set_root");
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
  r.pinned_generation = detail::oldest_pinned_generation(s);
  r.deferred_bytes = s.deferred_bytes;
  return r;
}

void mapped_space::rename(const std::filesystem::path& to) {
  detail::space_state& s = *st_;
  detail::refuse_read_only(s, "rename");
  detail::check_not_retired(s);
  // Readers of this file hold no commit the file lacks (the renamed file
  // must be whole without the log).
  detail::catch_up(s);
  if (!detail::file_is_current(s))
    detail::fail(s, "rename: a reader holds an older commit than the file can drop; retry when "
                    "readers have refreshed");
  // 1. The file alone becomes the state (durable, when the space is): the
  // renamed file never needs a log, so no crash between the steps below can
  // pair it with the log of the store it replaces.
  if (const int e = detail::checkpoint(s)) detail::throw_errno(s.path, "checkpoint", e);
  if (!detail::names_file(s.path, s.fd.get()))
    detail::fail(s, "renamed or replaced by another process while open");
  std::filesystem::path log_to = to;
  log_to += "-log";
  // 2. The name `to`: a file there is replaced only while this space holds
  // its lock (a store open elsewhere refuses), and only if `to` still names
  // the file locked; a missing one only if it stays missing (no replace).
  for (int attempt = 0;; ++attempt) {
    if (attempt > 16) throw persist_error(to, "the file keeps being replaced while it is renamed onto");
    detail::unique_fd old(::open(to.c_str(), O_RDWR | O_CLOEXEC));
    if (!old) {
      if (errno != ENOENT) detail::throw_errno(to, "open", errno);
      if (::renameat2(AT_FDCWD, s.path.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) break;
      if (errno == EEXIST) continue;
      if (errno != EINVAL && errno != ENOSYS) detail::throw_errno(s.path, "rename", errno);
      // A file system without RENAME_NOREPLACE: link fails on an existing name too.
      if (::link(s.path.c_str(), to.c_str()) != 0) {
        if (errno == EEXIST) continue;
        detail::throw_errno(s.path, "link", errno);
      }
      ::unlink(s.path.c_str());
      break;
    }
    if (detail::names_file(s.path, old.get())) return;  // already its name
    if (::flock(old.get(), LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK)
        throw persist_error(to, "locked: another process or handle has it open; nothing was changed");
      detail::throw_errno(to, "flock", errno);
    }
    if (!detail::names_file(to, old.get())) continue;  // replaced meanwhile
    if (::rename(s.path.c_str(), to.c_str()) != 0) detail::throw_errno(s.path, "rename", errno);
    break;  // `old` (the replaced file) is unlocked as it closes
  }
  // 3. The log under the old name holds nothing the file needs: removed (if
  // that name is still this space's log). The next commit starts "<to>-log".
  if (s.log_fd) {
    if (detail::names_file(s.log_path, s.log_fd.get())) ::unlink(s.log_path.c_str());
    s.log_fd.reset();
  }
  s.log_written = 0;
  s.log_head = 0;
  s.log_name_durable = false;
  // The reader table goes with them (readers of the file replaced there keep
  // theirs open; they belong to a file no longer named).
  std::filesystem::path table_from = s.path, table_to = to;
  table_from += "-readers";
  table_to += "-readers";
  if (::rename(table_from.c_str(), table_to.c_str()) != 0 && errno != ENOENT)
    detail::throw_errno(table_from, "rename", errno);
  s.path = to;
  s.log_path = log_to;
  if (s.durable) detail::fsync_parent(s.path);
  // 4. Once the rename is durable: the replaced store's log (or a stale one)
  // goes; it could only ever be read by the replaced file.
  ::unlink(log_to.c_str());
}

void mapped_space::set_durable(bool durable) noexcept { st_->durable = durable; }

}  // namespace fl::inline FL_ABI_NS
