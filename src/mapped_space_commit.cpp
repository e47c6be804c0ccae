// src/mapped_space_commit.cpp: fl::mapped_space's commit (sync through the
// redo log), rollback, verify, and the page checks behind checked(). Formats
// in fl/detail/persist_format.hpp; the costs in docs/design.md ("Persistence").
#include <fl/mapped_space.hpp>

#include <fl/detail/persist_format.hpp>

#include "mapped_space_internal.hpp"
#include "persist_posix.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>
#include <atomic>

#include <sys/mman.h>
#include <sys/stat.h>

namespace fl::inline FL_ABI_NS {
namespace detail {

namespace {

// s.pagemap, opened on the first call; false if it cannot be read.
bool have_pagemap(const space_state& s) {
  std::call_once(s.pagemap_opened, [&s] {
    s.pagemap = unique_fd(::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC));
  });
  return static_cast<bool>(s.pagemap);
}

// Page runs in [from, to) (multiples of sys_page) whose mapped bytes may
// differ from the file, appended in order. From the page tables when
// /proc/self/pagemap is readable: a page of a private file mapping that was
// written to has been copied (anonymous: "file" bit clear) or swapped out.
// Otherwise by comparing every page with the file. Returns how many clean
// pages are mapped (read since they were last dropped; 0 without pagemap).
std::uint64_t find_dirty(space_state& s, std::uint64_t from, std::uint64_t to,
                         std::vector<log_extent>& out) {
  const std::uint64_t ps = s.sys_page;
  auto add = [&](std::uint64_t off) {
    if (!out.empty() && out.back().offset + out.back().length == off)
      out.back().length += ps;
    else
      out.push_back({off, ps});
  };
  if (have_pagemap(s)) {
    constexpr std::size_t batch = 4096;
    std::uint64_t entries[batch];
    const std::uint64_t first = reinterpret_cast<std::uintptr_t>(s.base + from) / ps;
    const std::uint64_t count = (to - from) / ps;
    bool ok = true;
    std::uint64_t clean_mapped = 0;
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
        if ((present && !file) || swapped)
          add(from + (i + k) * ps);
        else
          clean_mapped += present;
      }
      i += n;
    }
    if (ok) return clean_mapped;
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
  return 0;
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
  if (have_pagemap(s)) {
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

}  // namespace

// Checks the committed pages under [off, off + len) against the page CRC
// table, once each (see mapped_space::checked). Pages at or past the
// committed file size are this process's own and need no check.
void check_pages(const space_state& s, std::uint64_t off, std::uint64_t len) {
  check_not_retired(s);
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

namespace {

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

// Writes the record of commit `m` (changed page runs `runs`) at s.log_head,
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
    s.log_fd = unique_fd(::open(s.log_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
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
  h.record_bytes = head_bytes + data_bytes;
  std::uint32_t data_crc = 0;
  for (const log_extent& r : runs) data_crc = crc32c(s.base + r.offset, r.length, data_crc);
  h.data_crc = data_crc;
  std::memcpy(head.data(), &h, sizeof h);
  std::memcpy(head.data() + sizeof h, &m, sizeof m);
  if (ext_bytes) std::memcpy(head.data() + sizeof h + sizeof m, runs.data(), ext_bytes);
  h.head_crc = crc32c(head.data() + sizeof h, sizeof m + ext_bytes, crc32c(&h, record_crc_span));
  std::memcpy(head.data(), &h, sizeof h);

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
  iov.reserve(1 + runs.size() + (fill_to - end) / sizeof zeros + 1);
  iov.push_back({head.data(), head.size()});
  for (const log_extent& r : runs) iov.push_back({s.base + r.offset, r.length});
  for (std::uint64_t at = end; at < fill_to;) {
    const std::uint64_t n = std::min<std::uint64_t>(sizeof zeros, fill_to - at);
    iov.push_back({const_cast<std::byte*>(zeros), n});
    at += n;
  }
  if (const int e = pwritev_all(s.log_fd.get(), iov.data(), iov.size(), s.log_head))
    throw_errno(s.log_path, "write of the log", e);
  s.log_written = std::max(s.log_written, fill_to);
  return h.record_bytes;
}

void write_slot(space_state& s, space_meta m, bool log_bit) {
  const int slot = 1 - s.newest_slot;
  const std::uint32_t seq = (s.meta_seq + 1) & meta_seq_mask;
  m.format_version = space_format_version;
  m.state = seq << 1 | (log_bit ? meta_log_bit : 0u);
  m.crc = meta_crc(m);
  if (const int e =
          pwrite_all(s.fd.get(), &m, sizeof m, static_cast<std::uint64_t>(slot) * space_page))
    throw_errno(s.path, "write of the meta page", e);
  if (s.durable) {
    if (const int e = sync_data(s.fd.get())) throw_errno(s.path, "fdatasync", e);
  }
  s.data_unflushed = !s.durable;
  s.slot_unflushed = !s.durable;
  s.newest_slot = slot;
  s.meta_seq = seq;
}

bool has_uncommitted(space_state& s) {
  if (s.size != s.committed.file_size || !s.fresh.empty() ||
      std::memcmp(&s.alloc, &s.committed.alloc, sizeof s.alloc) != 0)
    return true;
  std::vector<log_extent> runs;
  find_dirty(s, space_data_start, std::min(s.size, round_up(s.alloc.top, s.sys_page)), runs);
  return !runs.empty();
}

int checkpoint(space_state& s) noexcept {
  // The log is reused from 0 only when the file holds the newest commit: a
  // reader may still read the records of the commits the file lacks.
  if (!s.log_open || !file_is_current(s)) return 0;
  if (s.in_place_failed) return EIO;
  if (s.durable && s.data_unflushed) {
    if (const int e = sync_data(s.fd.get())) return e;
  }
  s.data_unflushed = false;
  try {
    write_slot(s, s.committed, false);
  } catch (...) { return EIO; }
  s.log_open = false;
  s.log_head = 0;
  return 0;
}

}  // namespace detail

const std::byte* mapped_space::checked(fptr<const void> p, std::uint64_t bytes) const {
  const std::uint64_t off = p.offset();
  if (off < detail::space_data_start || off > size_ || size_ - off < bytes) [[unlikely]]
    bad_fptr(off, static_cast<std::size_t>(bytes));
  detail::check_pages(*st_, off, bytes);
  return base_ + off;
}

// ---- commit ------------------------------------------------------------------

namespace detail {

// Makes the page-CRC table cover every page of the file; returns the old
// table's page run if it was replaced (its pages now need checksums).
std::vector<log_extent> ensure_table(mapped_space& space, space_state& s) {
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

}  // namespace detail

namespace {

std::uint32_t zero_page_crc() {
  static const std::uint32_t crc = [] {
    static const std::byte zeros[space_page] = {};
    return detail::crc32c(zeros, space_page);
  }();
  return crc;
}

}  // namespace

namespace detail {
namespace {

void refuse_after_failed_write(const space_state& s) {
  if (s.in_place_failed)
    fail(s,
         "an earlier commit could not be written in place; reopen the space (its log holds "
         "the commit)");
}

}  // namespace
}  // namespace detail

void mapped_space::sync() {
  detail::space_state& s = *st_;
  detail::refuse_read_only(s, "sync");
  detail::check_not_retired(s);
  detail::refuse_after_failed_write(s);
  detail::check_bound(s);
  detail::catch_up(s);
  // While a reader holds a commit the file lacks, no checkpoint: a slot
  // written without a flush is flushed instead.
  if (s.durable && s.slot_unflushed && s.log_open && !detail::file_is_current(s)) {
    if (const int e = detail::sync_data(s.fd.get())) detail::throw_errno(s.path, "fdatasync", e);
    s.slot_unflushed = false;
  }
  // A full log, or a run whose meta slot was written without a flush (the
  // space was not durable then): a checkpoint first, so that a durable commit
  // never relies on a slot the disk may not have.
  if (s.log_head >= detail::log_bound || (s.durable && s.slot_unflushed && s.log_open)) {
    if (const int e = detail::checkpoint(s)) detail::throw_errno(s.path, "checkpoint", e);
  }
  // Deferred frees: batches the oldest needed state no longer reaches return
  // to the free lists, and the blocks retired since the last commit become
  // this commit's batch (both part of this commit).
  detail::release_deferred(s);
  detail::write_retired_batch(*this, s, s.committed.generation + 1);
  // Pages the committed table covers; without a table (the commit that
  // created the file) every page but the meta pages is recomputed.
  const std::uint64_t old_pages =
      s.committed.alloc.crc_table != 0 ? s.committed.file_size / space_page : 2;
  std::vector<log_extent> extra = detail::ensure_table(*this, s);
  const std::uint64_t pages = s.size / space_page;
  const std::uint64_t scan_end = std::min(s.size, detail::round_up(s.alloc.top, s.sys_page));
  std::vector<log_extent> runs;
  const std::uint64_t clean_mapped = detail::find_dirty(s, detail::space_data_start, scan_end, runs);
  detail::drop_unchanged_lagging(s, runs);
  if (!extra.empty()) runs = detail::merge_runs(runs, extra);
  if (runs.empty() && s.size == s.committed.file_size && s.deferred_head == s.committed.deferred &&
      std::memcmp(&s.alloc, &s.committed.alloc, sizeof s.alloc) == 0)
    return;  // nothing to commit

  // Page checksums: new pages are zeros unless written; written pages are
  // recomputed; the table's own pages stay 0 (the meta's table_crc covers them).
  auto* table = reinterpret_cast<std::uint32_t*>(s.base + s.alloc.crc_table);
  const std::uint64_t t_first = s.alloc.crc_table / space_page;
  const std::uint64_t t_end = (s.alloc.crc_table + s.alloc.crc_table_bytes) / space_page;
  // The table's pages this commit writes: those the scan above found dirty
  // (already in runs) and those of the entries set here, so that no second
  // pagemap read is needed.
  std::vector<log_extent> table_runs;
  auto set_entry = [&](std::uint64_t i, std::uint32_t v) {
    if (i >= t_first && i < t_end) v = 0;
    if (table[i] == v) return;  // untouched entries leave their page clean
    table[i] = v;
    const std::uint64_t at = (s.alloc.crc_table + i * 4) / s.sys_page * s.sys_page;
    if (table_runs.empty() || table_runs.back().offset != at) table_runs.push_back({at, s.sys_page});
  };
  if (s.table_rebuild) {
    for (std::uint64_t i = 2; i < pages; ++i)
      set_entry(i, detail::crc32c(s.base + i * space_page, space_page));
  } else {
    for (std::uint64_t i = std::max<std::uint64_t>(old_pages, 2); i < pages; ++i)
      set_entry(i, zero_page_crc());
  }
  for (const std::vector<log_extent>* list : {&runs, &s.fresh}) {
    for (const log_extent& r : *list) {
      for (std::uint64_t i = r.offset / space_page;
           i < (r.offset + r.length) / space_page && i < pages; ++i)
        set_entry(i, detail::crc32c(s.base + i * space_page, space_page));
    }
  }
  if (!table_runs.empty()) runs = detail::merge_runs(runs, table_runs);

  space_meta m = detail::make_meta(s.committed.uuid, s.committed.generation + 1, s.size, s.alloc);
  m.deferred = s.deferred_head;
  m.table_crc = detail::crc32c(table, s.alloc.crc_table_bytes);
  m.crc = detail::meta_crc(m);

  // 0. Pages written to the file directly (write_fresh) are not in the log:
  // they must be durable before the log that refers to them is.
  if (!s.fresh.empty() && s.durable) {
    if (const int e = detail::sync_data(s.fd.get())) detail::throw_errno(s.path, "fdatasync", e);
  }
  // 1. The record, flushed: the commit point when the newest meta slot
  // already sends recovery to the log.
  const std::uint64_t record_bytes = detail::write_record(s, m, runs);
  const std::uint64_t record_at = s.log_head;
  if (s.durable) {
    if (const int e = detail::sync_data(s.log_fd.get()))
      detail::throw_errno(s.log_path, "fdatasync of the log", e);
  }
  // The first record of a run: a meta slot naming it is the commit point.
  if (!s.log_open) detail::write_slot(s, m, true);
  s.log_open = true;
  s.log_head += record_bytes;
  const std::uint64_t before_pages = s.committed.file_size / space_page;
  s.committed = m;
  s.fresh.clear();
  std::uint64_t data_bytes = 0;
  for (const log_extent& r : runs) data_bytes += r.length;
  s.last_sync_pages = data_bytes / space_page;
  detail::mark_committed(s, before_pages, runs);
  // 2. The pages in place, not flushed (as far as readers allow: see
  // mapped_space_readers.cpp): the log holds them until a checkpoint. After a
  // failed write the file lacks part of a commit that the log holds: no
  // checkpoint runs, and sync() and rollback() refuse until the space is
  // reopened (the open replays the log). 3. The private copies the file now
  // holds are dropped.
  s.data_unflushed = true;
  s.in_place_failed = true;
  detail::place_commit(s, record_at, runs, clean_mapped, scan_end);
  s.in_place_failed = false;
  // After compact(): the commit that no longer covers the file's end is
  // durable, so the end can go (a crash before this leaves a longer file,
  // which opens as the committed state). While a reader holds an older
  // commit the file still serves it (place_commit left it behind), so its
  // end stays until a later commit finds the file current; growth into that
  // dead end zeroes what it maps (grow() in mapped_space.cpp).
  const std::uint64_t file_end = std::max(s.shrink_from, s.stale_end);
  if (file_end > s.size) {
    if (detail::file_is_current(s)) {
      if (::ftruncate(s.fd.get(), static_cast<off_t>(s.size)) != 0)
        detail::throw_errno(s.path, "ftruncate (compact; the commit is durable)", errno);
      s.stale_end = 0;
    } else {
      s.stale_end = file_end;
    }
    if (s.shrink_from > s.size)
      ::mmap(s.base + s.size, s.shrink_from - s.size, detail::reserve_prot,
             detail::reserve_flags | MAP_FIXED, -1, 0);
  }
  s.shrink_from = 0;
  s.table_rebuild = false;
}

void mapped_space::rollback() {
  detail::space_state& s = *st_;
  detail::refuse_read_only(s, "rollback");
  detail::check_not_retired(s);
  detail::refuse_after_failed_write(s);
  if (s.shrink_from != 0) {  // compact() undone: the file still has its end
    s.size = s.shrink_from;
    size_ = s.size;
    s.shrink_from = 0;
  }
  s.table_rebuild = false;
  const std::uint64_t top = std::max(s.alloc.top, s.committed.alloc.top);
  std::vector<log_extent> runs;
  detail::find_dirty(s, detail::space_data_start,
                     std::min(s.size, detail::round_up(top, s.sys_page)), runs);
  for (const log_extent& r : runs) ::madvise(s.base + r.offset, r.length, MADV_DONTNEED);
  detail::restore_lagging(s);  // committed pages the file does not hold yet
  s.alloc = s.committed.alloc;
  // Pages past the committed size may hold what write_fresh() put in the
  // file: cut to the committed size and grow back, so they read as zeros
  // again (as every page a commit has not covered must).
  if (s.size > s.committed.file_size &&
      (::ftruncate(s.fd.get(), static_cast<off_t>(s.committed.file_size)) != 0 ||
       ::ftruncate(s.fd.get(), static_cast<off_t>(s.size)) != 0))
    detail::throw_errno(s.path, "ftruncate (rollback)", errno);
  s.deferred_loaded = false;  // the committed chain, read again on first use
  s.retired_blocks.clear();
  s.deferred.clear();
  s.fresh.clear();
  // The dropped pages read from the file again: check them again.
  std::fill(s.verified.begin(), s.verified.end(), 0);
  s.table_checked.store(false, std::memory_order_release);
}

// ---- verify ------------------------------------------------------------------

void mapped_space::verify() const {
  const detail::space_state& s = *st_;
  // A reader's file may lag its commit (see mapped_space_readers.cpp): the
  // writer verifies the file.
  detail::refuse_read_only(s, "verify");
  // While a reader holds an older commit the file holds that commit and the
  // log the newer ones: checking the file against the newest meta would
  // report damage that is not there.
  if (!detail::file_is_current(s))
    throw persist_error(s.path,
                        "verify: a reader holds an older commit, so the file does not hold the "
                        "newest one yet (verify again once the readers have refreshed or closed)");
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

  // The slots on disk name the committed state, or (meta_log_bit) an earlier
  // commit of the log's run that leads to it.
  const detail::meta_slots slots = detail::read_slots(f);
  if (slots.newest < 0) detail::fail(s, "verify: " + slots.why[0]);
  const space_meta& disk = slots.meta[slots.newest];
  const bool logged = (disk.state & detail::meta_log_bit) != 0;
  if (disk.uuid != s.committed.uuid || (logged ? disk.generation > s.committed.generation
                                               : disk.generation != s.committed.generation))
    detail::fail(s, "verify: meta page changed under the space");
  const space_meta& m = s.committed;
  if (const std::string why = detail::check_meta(m, file_bytes); !why.empty())
    detail::fail(s, "verify: " + why);
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

}  // namespace fl::inline FL_ABI_NS
