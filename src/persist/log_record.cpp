// src/persist/log_record.cpp: the redo log "<path>-log" of a mapped_space
// (persist_format.hpp, "redo log"): a commit's record written (write_record)
// and read back and checked (read_record_head, record_data_matches), the
// replay of a run into the data file, the format-1 log's header, and the
// log's size after a checkpoint. Recovery (open.cpp) and readers
// (reader_table.cpp) read records only through these.
#include "persist/persist_format.hpp"

#include "persist/posix.hpp"
#include "persist/space.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <sys/uio.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// ---- writing ----

std::vector<std::byte> encode_record_head(const space_meta& m, const std::vector<log_extent>& runs,
                                          std::uint32_t data_crc) {
  std::uint64_t data_bytes = 0;
  for (const log_extent& r : runs) data_bytes += r.length;
  const std::size_t ext_bytes = runs.size() * sizeof(log_extent);
  const std::uint64_t head_bytes = record_head_bytes(runs.size());
  std::vector<std::byte> head(static_cast<std::size_t>(head_bytes));
  log_record h{};
  stamp_marks(h, record_magic, space_format_version);
  h.uuid = m.uuid;
  h.generation = m.generation;
  h.extent_count = runs.size();
  h.data_bytes = data_bytes;
  h.record_bytes = record_span(runs.size(), data_bytes);
  h.data_crc = data_crc;
  std::memcpy(head.data(), &h, sizeof h);
  std::memcpy(head.data() + sizeof h, &m, sizeof m);
  if (ext_bytes) std::memcpy(head.data() + sizeof h + sizeof m, runs.data(), ext_bytes);
  h.head_crc = crc32c(head.data() + sizeof h, sizeof m + ext_bytes, crc32c(&h, record_crc_span));
  std::memcpy(head.data(), &h, sizeof h);
  return head;
}

// Writes the record of commit `m` (changed byte ranges `runs`) at s.log_head,
// opening or creating the log first; not flushed. Returns its size. Where the
// record ends past the bytes the log file has, zeros follow it up to the next
// size step (doubling, up to log_bound), so later records overwrite written
// blocks and their flush has no block allocation or file size to record.
std::uint64_t write_record(space_state& s, const space_meta& m,
                           const std::vector<log_extent>& runs) {
  if (!s.log_fd) {
    // The log is the one beside the data file this space holds locked: the
    // file must still be at s.path (every cooperating writer renames onto a
    // name only while holding its file's lock), and the log a regular file.
    // check_bound() keeps it so on every later commit.
    if (!names_file(s.path, s.fd.get()))
      fail(s, "the file was renamed or replaced while open; nothing was committed");
    s.log_fd = unique_fd(open_store_file(s.log_path, O_RDWR | O_CREAT, 0666));
    if (!s.log_fd) throw_errno(s.log_path, "open of the log", errno);
    struct stat sb;
    if (::fstat(s.log_fd.get(), &sb) != 0) throw_errno(s.log_path, "fstat", errno);
    if (!S_ISREG(sb.st_mode)) {
      s.log_fd.reset();
      fail(s, "the log " + s.log_path.string() + " is not a regular file");
    }
    s.log_written = static_cast<std::uint64_t>(sb.st_size);
    s.log_name_durable = false;
  }
  if (s.durable && !s.log_name_durable) {
    // The log's directory entry, once, before the first durable commit uses it.
    fsync_parent(s.log_path);
    s.log_name_durable = true;
  }
  if (!s.log_open) s.log_head = 0;  // a new run starts at 0
  const std::vector<std::byte> head = encode_record_head(m, runs, record_data_crc(s.base, runs));
  log_record h;
  std::memcpy(&h, head.data(), sizeof h);

  // The first step is small (a small store's log stays tens of KiB), then
  // the written size doubles up to log_bound.
  static const std::byte zeros[65536] = {};
  constexpr std::uint64_t first_step = 16384;
  const std::uint64_t end = s.log_head + h.record_bytes;
  std::uint64_t fill_to = end;
  if (end > s.log_written) {
    fill_to = std::max(end, std::min(std::max(2 * s.log_written, first_step), log_bound));
    fill_to = round_up(fill_to, space_page);
  }
  std::vector<iovec> iov;
  iov.reserve(2 + runs.size());
  iov.push_back({const_cast<std::byte*>(head.data()), head.size()});
  for (const log_extent& r : runs) iov.push_back({s.base + r.offset, r.length});
  // The zeros that end the record on a page boundary (under a page).
  const std::uint64_t data_end = s.log_head + head.size() + h.data_bytes;
  if (data_end < end) iov.push_back({const_cast<std::byte*>(zeros), end - data_end});
  if (const int e = pwritev_all(s.log_fd.get(), iov.data(), iov.size(), s.log_head))
    throw_errno(s.log_path, "write of the log", e);
  // The size step's zeros go in calls of fill_piece: the page cache makes a
  // folio as large as the write that creates it, and each later record
  // written into a folio walks all of its blocks (a 2 MiB folio made a
  // record's write cost 10 us, a tenth of a small commit's CPU time; see
  // persist/small_write/ in bench/persist_bench.cpp). The steps are few, so
  // their extra calls cost a few hundred microseconds over the log's life.
  constexpr std::uint64_t fill_piece = 16384;
  static_assert(fill_piece <= sizeof zeros);
  for (std::uint64_t at = end; at < fill_to;) {
    const std::uint64_t n = std::min(fill_piece - at % fill_piece, fill_to - at);
    if (const int e = pwrite_all(s.log_fd.get(), zeros, static_cast<std::size_t>(n), at))
      throw_errno(s.log_path, "write of the log", e);
    at += n;
  }
  s.log_written = std::max(s.log_written, fill_to);
  return h.record_bytes;
}

namespace {

// The unit of a commit's changes: a changed byte logs the 64 bytes around
// it (16 of them are an extent's own cost in the record).
constexpr std::size_t change_unit = 64;

// Whether the change_unit bytes at `a` and `b` differ: the words' XORs
// OR-ed, in vector registers, with no call (a commit's pages are compared a
// unit at a time: 64 calls of memcmp a page took 14% of a commit's CPU).
typedef std::uint64_t two_words __attribute__((vector_size(16)));
inline bool unit_differs(const std::byte* a, const std::byte* b) noexcept {
  two_words x{};
  for (std::size_t k = 0; k < change_unit; k += sizeof x) {
    two_words u, v;
    std::memcpy(&u, a + k, sizeof u);
    std::memcpy(&v, b + k, sizeof v);
    x |= u ^ v;
  }
  return (x[0] | x[1]) != 0;
}

// Appends to `out` the units of `n` bytes at file offset `at` whose bytes
// `now` differ from `was`, adjacent units joined.
void append_changes(const std::byte* now, const std::byte* was, std::size_t n, std::uint64_t at,
                    std::vector<log_extent>& out) {
  std::size_t i = 0;
  for (; i + change_unit <= n; i += change_unit)
    if (unit_differs(now + i, was + i)) append_run(out, at + i, change_unit);
  if (i < n && std::memcmp(now + i, was + i, n - i) != 0) append_run(out, at + i, n - i);
}

}  // namespace

std::vector<log_extent> log_changes(const space_state& s, const std::vector<log_extent>& pages,
                                    std::uint64_t committed_bytes) {
  std::vector<log_extent> out;
  std::vector<std::byte> was;
  const reader_table* t = s.readers.get();
  // The image of the page at `at` kept in memory (a kept or a lagging
  // page's), or null.
  const auto image_at = [&](std::uint64_t at) -> const std::byte* {
    if (const page_image* k = s.kept.find(at)) return k->image.get();
    if (t != nullptr)
      if (const page_image* l = t->lagging.find(at)) return l->image.get();
    return nullptr;
  };
  for (const log_extent& r : pages) {
    const std::uint64_t end = r.offset + r.length;
    const std::uint64_t cut = std::clamp(committed_bytes, r.offset, end);
    for (std::uint64_t at = r.offset; at < cut;) {
      if (const std::byte* image = image_at(at)) {
        append_changes(s.base + at, image, s.sys_page, at, out);
        at += s.sys_page;
        continue;
      }
      // The pages up to the next one with an image, read at once.
      const std::uint64_t limit = std::min<std::uint64_t>(cut, at + copy_chunk);
      std::uint64_t stop = std::min(limit, at + s.sys_page);
      while (stop < limit && image_at(stop) == nullptr) stop = std::min(limit, stop + s.sys_page);
      // The file's pages: the page cache's, which the mapping copied from
      // when the commit's first write reached each of them. Unreadable, the
      // pages are logged whole (the record stays right, only longer).
      const std::size_t n = static_cast<std::size_t>(stop - at);
      if (was.size() < n) was.resize(n);
      if (pread_full(s.fd.get(), was.data(), n, at) == static_cast<long long>(n))
        append_changes(s.base + at, was.data(), n, at, out);
      else
        append_run(out, at, n);
      at = stop;
    }
    if (cut < end) append_run(out, cut, end - cut);
  }
  return out;
}

void shrink_log(space_state& s, std::uint64_t keep) noexcept {
  if (!s.log_fd || s.log_open || s.log_written <= keep) return;
  if (::ftruncate(s.log_fd.get(), static_cast<off_t>(keep)) == 0) s.log_written = keep;
}

// ---- reading ----

namespace {

// The checks of a record's first 64 bytes (`h`, at a place `room` bytes
// before the log's end) for commit `gen` of file `uuid`: the head's size, or
// 0 if they fail.
std::uint64_t head_span(const log_record& h, std::uint64_t room, std::uint64_t uuid,
                        std::uint64_t gen) {
  if (std::memcmp(h.magic, record_magic, sizeof h.magic) != 0 || h.byte_order != byte_order_mark ||
      h.format_version < 2 || h.format_version > space_format_version || h.uuid != uuid ||
      h.generation != gen)
    return 0;
  if (h.extent_count > room / sizeof(log_extent)) return 0;
  const std::uint64_t head_bytes = record_head_bytes(h.extent_count, h.format_version);
  if (head_bytes > room || h.data_bytes > room - head_bytes || h.record_bytes > room ||
      h.record_bytes != record_span(h.extent_count, h.data_bytes, h.format_version))
    return 0;
  return head_bytes;
}

// The rest of read_record_head's checks, over the whole head (`head`, of the
// size head_span gave): its CRC, the meta, the extents.
bool check_head(const std::byte* head, std::uint64_t at, std::uint64_t uuid, std::uint64_t gen,
                record_head& r) {
  std::memcpy(&r.head, head, sizeof r.head);
  const log_record& h = r.head;
  const std::size_t meta_bytes = meta_image_bytes(h.format_version);
  const std::size_t ext_bytes = static_cast<std::size_t>(h.extent_count) * sizeof(log_extent);
  std::uint32_t crc = crc32c(head, record_crc_span);
  crc = crc32c(head + sizeof h, meta_bytes + ext_bytes, crc);
  if (crc != h.head_crc) return false;
  r.meta = space_meta{};
  std::memcpy(&r.meta, head + sizeof h, meta_bytes);
  if (r.meta.generation != gen || r.meta.uuid != uuid ||
      !check_meta(r.meta, r.meta.file_size).empty())
    return false;
  r.extents.resize(static_cast<std::size_t>(h.extent_count));
  if (ext_bytes) std::memcpy(r.extents.data(), head + sizeof h + meta_bytes, ext_bytes);
  std::uint64_t sum = 0;
  std::uint64_t prev_end = space_data_start;
  // Version 4 logs byte ranges, earlier versions whole pages.
  const std::uint64_t unit = h.format_version >= 4 ? 1 : space_page;
  for (const log_extent& e : r.extents) {
    if (e.offset % unit != 0 || e.length % unit != 0 || e.length == 0 || e.offset < prev_end ||
        e.offset > r.meta.file_size || r.meta.file_size - e.offset < e.length)
      return false;
    prev_end = e.offset + e.length;
    sum += e.length;
  }
  r.at = at;
  return sum == h.data_bytes;
}

}  // namespace

bool read_record_head(int log_fd, std::uint64_t log_bytes, std::uint64_t at, std::uint64_t uuid,
                      std::uint64_t gen, record_head& r) {
  if (at >= log_bytes || log_bytes - at < space_page) return false;
  // The first page holds the head of a record of up to 161 extents (64 bytes
  // of record, the meta, 16 per extent): read into the stack, a bigger head
  // into the heap.
  alignas(8) std::byte page[space_page];
  if (pread_full(log_fd, page, space_page, at) != static_cast<long long>(space_page))
    return false;
  log_record h;
  std::memcpy(&h, page, sizeof h);
  const std::uint64_t head_bytes = head_span(h, log_bytes - at, uuid, gen);
  if (head_bytes == 0) return false;
  std::unique_ptr<std::byte[]> big;
  const std::byte* head = page;
  if (head_bytes > space_page) {
    big.reset(new std::byte[static_cast<std::size_t>(head_bytes)]);
    std::memcpy(big.get(), page, space_page);
    if (pread_full(log_fd, big.get() + space_page, head_bytes - space_page, at + space_page) !=
        static_cast<long long>(head_bytes - space_page))
      return false;
    head = big.get();
  }
  return check_head(head, at, uuid, gen, r);
}

bool parse_record_head(const std::byte* bytes, std::uint64_t have, std::uint64_t at,
                       std::uint64_t uuid, std::uint64_t gen, record_head& r) {
  if (have < space_page) return false;
  log_record h;
  std::memcpy(&h, bytes, sizeof h);
  const std::uint64_t head_bytes = head_span(h, have, uuid, gen);
  return head_bytes != 0 && check_head(bytes, at, uuid, gen, r);
}

bool record_data_matches(int log_fd, const record_head& r) {
  const std::uint64_t sum = r.head.data_bytes;
  std::vector<std::byte> buf(static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, sum)));
  std::uint32_t crc = 0;
  for (std::uint64_t done = 0; done < sum;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, sum - done));
    if (pread_full(log_fd, buf.data(), n, r.data_at() + done) != static_cast<long long>(n))
      return false;
    crc = record_data_crc(buf.data(), n, crc);
    done += n;
  }
  return crc == r.head.data_crc;
}

std::uint64_t run_first_generation(int log_fd, std::uint64_t uuid, std::uint64_t named) {
  log_record h;
  if (pread_full(log_fd, &h, sizeof h, 0) != static_cast<long long>(sizeof h)) return named;
  if (std::memcmp(h.magic, record_magic, sizeof h.magic) != 0 || h.uuid != uuid ||
      h.generation <= named || h.generation - named > (std::uint64_t{1} << 32))
    return named;
  return h.generation;
}

bool read_record(int log_fd, std::uint64_t log_bytes, std::uint64_t at, std::uint64_t uuid,
                 std::uint64_t gen, record_head& r) {
  return read_record_head(log_fd, log_bytes, at, uuid, gen, r) && record_data_matches(log_fd, r);
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
      record_head r;
      if (read_record(log_fd, log_bytes, at + k, uuid, h.generation, r))
        fail(s, "the log record of commit " + std::to_string(next_gen) + " is damaged (" +
                    s.log_path.string() + " holds commit " + std::to_string(h.generation) +
                    " after it at offset " + hex(at + k) + ")");
    }
    at += static_cast<std::uint64_t>(got);
  }
}

int write_record_in_place(int log_fd, const record_head& r, int fd, std::vector<std::byte>& buf) {
  errno = 0;
  const std::uint64_t total = r.head.data_bytes;
  if (total <= copy_chunk) {
    // One read of the record's bytes (a commit's changes are many short
    // ranges), then a write per range.
    const auto n = static_cast<std::size_t>(total);
    if (buf.size() < n) buf.resize(n);
    if (pread_full(log_fd, buf.data(), n, r.data_at()) != static_cast<long long>(n)) return -1;
    const std::byte* p = buf.data();
    for (const log_extent& e : r.extents) {
      if (const int err = pwrite_all(fd, p, static_cast<std::size_t>(e.length), e.offset))
        return err;
      p += e.length;
    }
    return 0;
  }
  if (buf.size() < copy_chunk) buf.resize(copy_chunk);
  std::uint64_t src = r.data_at();
  for (const log_extent& e : r.extents) {
    for (std::uint64_t done = 0; done < e.length;) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(copy_chunk, e.length - done));
      if (pread_full(log_fd, buf.data(), n, src) != static_cast<long long>(n)) return -1;
      if (const int err = pwrite_all(fd, buf.data(), n, e.offset + done)) return err;
      src += n;
      done += n;
    }
  }
  return 0;
}

// Writes the records into the data file, in order, and flushes it.
void replay(const space_state& s, int log_fd, const std::vector<record_head>& run) {
  const std::uint64_t size = run.back().meta.file_size;
  struct stat sb;
  if (::fstat(s.fd.get(), &sb) != 0) throw_errno(s.path, "fstat", errno);
  if (const int e = reserve_file(s.fd.get(), static_cast<std::uint64_t>(sb.st_size), size))
    throw_errno(s.path, "fallocate (log replay)", e);
  std::vector<std::byte> buf;
  for (const record_head& r : run) {
    if (const int err = write_record_in_place(log_fd, r, s.fd.get(), buf)) {
      if (err < 0) fail(s, "log shrank during replay");
      throw_errno(s.path, "write (log replay)", err);
    }
  }
  if (const int err = sync_data(s.fd.get())) throw_errno(s.path, "fdatasync (log replay)", err);
}

// A format-1 file whose log holds the commit after its meta: format 1 wrote
// that commit in place only after its log was durable, so the file may hold
// part of it. Refused: a build of format 1 finishes it.
void refuse_unfinished_v1(const space_state& s, const space_meta& m) {
  unique_fd log(open_store_file(s.log_path, O_RDONLY));
  if (!log) return;
  log_header_v1 h;
  if (pread_full(log.get(), &h, sizeof h, 0) != static_cast<long long>(sizeof h)) return;
  if (std::memcmp(h.magic, log_magic_v1, sizeof h.magic) == 0 && h.format_version == 1 &&
      h.uuid == m.uuid && h.generation == m.generation + 1)
    fail(s, "format 1 file with an unfinished commit in " + s.log_path.string() +
                ": open it once with a build that writes format 1 to finish the commit");
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
