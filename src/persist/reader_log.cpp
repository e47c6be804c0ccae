// src/persist/reader_log.cpp: a reader's copy of the commits its space's
// data file does not hold yet (reader_table.cpp has the invariant): its
// private mapping fitted to a commit's size, and overlaid with the pages of
// that commit's record in the redo log, found where the previous record
// ended, where the table's ring says, or by walking the log's run. The
// records are read and checked through log_record.cpp.
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"
#include "persist/reader_table.hpp"

#include "persist/posix.hpp"
#include "persist/space.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <sys/stat.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

// Finds commit `gen`'s record: at `next` (where the previous commit's record
// ends: a run's records follow each other), where the ring says, else by
// walking the log's run from offset 0. A refresh usually finds its record
// at `next` or the ring's place within the log's size seen last (the log
// grows in steps and is cut only at a checkpoint, after which a read past
// its end fails anyway): no fstat then; otherwise the size is looked up again.
bool find_record(reader_table& t, int log_fd, std::uint64_t uuid, std::uint64_t gen,
                 std::uint64_t next, record_head& r) {
  const std::uint64_t hint = ring_get(t.map, gen);
  if (t.log_bytes != 0) {
    if (next != ~std::uint64_t{0} && read_record_head(log_fd, t.log_bytes, next, uuid, gen, r))
      return true;
    if (hint != ~std::uint64_t{0} && hint != next &&
        read_record_head(log_fd, t.log_bytes, hint, uuid, gen, r))
      return true;
  }
  std::uint64_t log_bytes = 0;
  if (!stat_field(log_fd, STATX_SIZE, log_bytes)) return false;
  t.log_bytes = log_bytes;
  if (next != ~std::uint64_t{0} && read_record_head(log_fd, log_bytes, next, uuid, gen, r))
    return true;
  if (hint != ~std::uint64_t{0} && hint != next &&
      read_record_head(log_fd, log_bytes, hint, uuid, gen, r))
    return true;
  for (std::uint64_t at = 0; at + space_page <= log_bytes;) {
    log_record h;
    if (pread_full(log_fd, &h, sizeof h, at) != static_cast<long long>(sizeof h)) return false;
    if (std::memcmp(h.magic, record_magic, sizeof h.magic) != 0 || h.uuid != uuid ||
        h.generation > gen)
      return false;
    record_head here;
    if (!read_record_head(log_fd, log_bytes, at, uuid, h.generation, here)) return false;
    if (h.generation == gen) {
      r = std::move(here);
      return true;
    }
    at += here.head.record_bytes;
  }
  return false;
}

// Reads commit `gen`'s record whole (head and page images) into
// t.record_buf with one pread, at `next` or where the ring says: the size
// read is the last record's (a refresh's commits are alike), a small
// commit's at first. True if the bytes read hold the whole record and its head
// checks; false sends the caller to find_record (then one more read), having
// learnt the record's size for the next time.
bool read_whole_record(reader_table& t, std::uint64_t uuid, std::uint64_t gen, std::uint64_t next,
                       record_head& r) {
  constexpr std::uint64_t first_guess = 16384;  // a head and three pages
  const std::uint64_t want = round_up(
      std::min<std::uint64_t>(t.record_guess != 0 ? t.record_guess : first_guess, copy_chunk),
      space_page);
  if (t.record_buf.size() < want) t.record_buf.resize(static_cast<std::size_t>(want));
  const std::uint64_t hint = ring_get(t.map, gen);
  for (const std::uint64_t at : {next, hint != next ? hint : ~std::uint64_t{0}}) {
    if (at == ~std::uint64_t{0}) continue;
    const long long got = pread_full(t.log_fd.get(), t.record_buf.data(), want, at);
    if (got < static_cast<long long>(space_page)) continue;
    if (parse_record_head(t.record_buf.data(), static_cast<std::uint64_t>(got), at, uuid, gen, r)) {
      t.record_guess = r.head.record_bytes;
      return true;
    }
    log_record h;
    std::memcpy(&h, t.record_buf.data(), sizeof h);
    if (std::memcmp(h.magic, record_magic, sizeof h.magic) == 0 && h.uuid == uuid &&
        h.generation == gen) {
      t.record_guess = h.record_bytes;  // bigger than read (or damaged): find_record decides
      return false;
    }
  }
  return false;
}

}  // namespace

// Fits a reader's mapping to a commit of `bytes` bytes, both ways.
// Growth maps the file; past the file's end (a power loss took a growth
// that only the log's records made durable, and no writer has reopened the
// space to replay them) the commit's pages are zeros or in those records:
// private zero pages there, which the records' pages then overwrite.
// A shrink (a compaction's commit) drops the pages past the end, whatever
// earlier records put there: the writer takes those pages for no commit's,
// and a block it carves there later goes straight into the file, not into
// the log (write_fresh past the committed size), so a copy kept here would
// hide it once the space grows over it again. The pages cut lose their
// verified bits too: growth over them later checks what it maps afresh.
// True when it shrank the mapping.
bool fit_reader_map(space_state& s, std::uint64_t bytes) {
  if (bytes < s.size) {
    const std::uint64_t keep = round_up(bytes, s.sys_page);
    if (keep < s.size && ::mmap(s.base + keep, s.size - keep, reserve_prot,
                                reserve_flags | MAP_FIXED, -1, 0) == MAP_FAILED)
      throw_errno(s.path, "mmap (reader shrink)", errno);
    s.size = std::min(keep, s.size);
    s.verified.resize(std::min(s.verified.words() * 64, s.size / space_page));
    return true;
  }
  if (bytes == s.size) return false;
  if (bytes > s.reserve)
    fail(s, "the space grew past this reader's address reservation (" + std::to_string(s.reserve) +
                " bytes): open it again");
  struct stat sb;
  if (::fstat(s.fd.get(), &sb) != 0) throw_errno(s.path, "fstat", errno);
  const std::uint64_t file_end =
      std::clamp(sys_page_floor(s, static_cast<std::uint64_t>(sb.st_size)), s.size, bytes);
  if (file_end > s.size &&
      ::mmap(s.base + s.size, file_end - s.size, file_prot, file_flags | MAP_FIXED, s.fd.get(),
             static_cast<off_t>(s.size)) == MAP_FAILED)
    throw_errno(s.path, "mmap (reader growth)", errno);
  if (bytes > file_end) {
    s.private_pages = true;
    if (::mmap(s.base + file_end, bytes - file_end, file_prot,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
      throw_errno(s.path, "mmap (reader growth past the file's end)", errno);
  }
  s.size = bytes;
  return false;
}

// Reads commit `gen`'s changes from the log into the reader's mapping and
// checks them against the record's CRC; `next` is where the record may be
// (see find_record), and becomes where the next one may be. Returns false if
// the log no longer holds the record.
bool overlay(space_state& s, std::uint64_t& gen, std::uint64_t newest,
             std::vector<std::uint64_t>* pages, std::uint64_t& next, space_meta* meta,
             bool* wrote) {
  reader_table& t = *s.readers;
  if (!t.log_fd) {
    t.log_fd = unique_fd(open_store_file(s.log_path, O_RDONLY));
    if (!t.log_fd) return false;
    t.log_bytes = 0;
  }
  const std::uint64_t uuid = s.committed.uuid;
  record_head r;
  // The usual case: the record read whole into t.record_buf, checked there,
  // then copied into the mapping (no page of it is written before its CRC
  // matched). Else found in the log and its images read into their places.
  const bool whole = read_whole_record(t, uuid, gen, next, r);
  if (!whole && !find_record(t, t.log_fd.get(), uuid, gen, next, r)) {
    // The writer may have restarted the log beside an older reader
    // (restart_log_beside_readers): the log now at the path starts with a
    // record of a later commit holding every page the file lacks, which
    // takes this reader from any commit it can hold (none is older than the
    // file's) to that one.
    unique_fd now(open_store_file(s.log_path, O_RDONLY));
    if (!now) return false;
    t.log_fd = std::move(now);
    t.log_bytes = 0;
    if (!find_record(t, t.log_fd.get(), uuid, gen, ~std::uint64_t{0}, r)) {
      const std::uint64_t first = run_first_generation(t.log_fd.get(), uuid, gen);
      if (first == gen || first > newest || !find_record(t, t.log_fd.get(), uuid, first, 0, r))
        return false;
      gen = first;
    }
  }
  next = r.at + r.head.record_bytes;
  if (meta) *meta = r.meta;
  // Pages earlier records of this refresh wrote past a shrink are gone.
  if (fit_reader_map(s, r.meta.file_size) && pages)
    std::erase_if(*pages, [&](std::uint64_t p) { return p >= s.size / space_page; });
  s.private_pages = true;  // the record's bytes go into the mapping
  s.view_log_bytes += r.head.data_bytes;
  if (whole) {
    const std::byte* images = t.record_buf.data() + (r.data_at() - r.at);
    if (record_data_crc(images, static_cast<std::size_t>(r.head.data_bytes)) != r.head.data_crc)
      return false;
    for (const log_extent& e : r.extents) {
      std::memcpy(s.base + e.offset, images, e.length);
      images += e.length;
    }
  } else {
    // The extents' images follow the head: one preadv into their places.
    std::vector<iovec> iov;
    iov.reserve(r.extents.size());
    for (const log_extent& e : r.extents)
      iov.push_back({s.base + e.offset, static_cast<std::size_t>(e.length)});
    if (wrote) *wrote = true;  // a failure from here on leaves pages of no commit
    if (!preadv_all(t.log_fd.get(), iov.data(), iov.size(), r.data_at())) return false;
    if (record_data_crc(s.base, r.extents) != r.head.data_crc) return false;
  }
  // The pages the record holds whole (the rest of a page it changed in
  // part comes from the file, whose bytes its first read checks).
  if (pages)
    for (const log_extent& e : r.extents)
      for (std::uint64_t p = (e.offset + space_page - 1) / space_page;
           (p + 1) * space_page <= e.offset + e.length; ++p)
        pages->push_back(p);
  return true;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
