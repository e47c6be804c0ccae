// src/persist/commit.cpp: fl::mapped_space's commit protocol (sync: the
// dirty-page scan, the record through the redo log, the pages in place),
// checkpoint, rollback and verify. The formats it writes are owned by
// log_record.cpp, meta.cpp and page_crc.cpp; the costs in docs/design.md
// ("Persistence").
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"

#include "persist/space.hpp"
#include "persist/posix.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/mman.h>
#include <sys/stat.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

// A descriptor of which the process needs one, opened on first use and
// again in a child after fork() (the one it inherited speaks for its
// parent); -1 once `refused` is set. Never closed: the kernel does at exit.
struct process_fd {
  std::mutex m;
  int fd = -1;
  pid_t owner = 0;
  std::atomic<bool> refused{false};

  template <class Open>
  int get(Open open) noexcept {
    if (refused.load(std::memory_order_relaxed)) return -1;
    const pid_t me = process_id();
    const std::lock_guard<std::mutex> lock(m);
    if (owner != me) {
      if (fd >= 0) ::close(fd);
      fd = open(me);
      owner = me;
    }
    return fd;
  }
  void refuse() noexcept { refused.store(true, std::memory_order_relaxed); }
};

// /proc/self/pagemap (an open that only reads never needs it; a descriptor
// per space cost each space an open and a close). -1 when it cannot be
// opened or a read of it failed (pagemap_unreadable): changes are then
// found by comparing with the file.
process_fd the_pagemap;
int pagemap_fd() noexcept {
  return the_pagemap.get([](pid_t) { return ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC); });
}
void pagemap_unreadable() noexcept { the_pagemap.refuse(); }

// A pidfd of this process, for process_madvise (advise_ranges); refused
// once the kernel refused to open it, so that later advice goes straight to
// madvise (an advice process_madvise refuses is remembered apart).
process_fd the_self_pidfd;
int self_pidfd() noexcept {
  const int fd =
      the_self_pidfd.get([](pid_t me) { return static_cast<int>(::syscall(SYS_pidfd_open, me, 0)); });
  if (fd < 0) the_self_pidfd.refuse();
  return fd;
}

// How find_dirty asks, best first. FL_DIRTY_SCAN=pagemap or compare (read
// once) starts lower, so tests run every way on a kernel that has the best.
enum class dirty_scan { ioctl, pagemap, compare };
dirty_scan first_dirty_scan() {
  static const dirty_scan first = [] {
    const char* e = std::getenv("FL_DIRTY_SCAN");
    const std::string v = e ? e : "";
    return v == "compare" ? dirty_scan::compare
           : v == "pagemap" ? dirty_scan::pagemap
                            : dirty_scan::ioctl;
  }();
  return first;
}
// The way that last worked in this process: a kernel without PAGEMAP_SCAN
// (before Linux 6.7) refuses it once, not at every commit.
std::atomic<dirty_scan> dirty_scan_now{first_dirty_scan()};

// PAGEMAP_SCAN (Linux 6.7, <linux/fs.h>; declared here for older headers):
// the kernel walks only the populated page tables of a range and returns
// runs of pages with the same categories, so a commit's scan costs what the
// process touched, not the size of the file (a pagemap read returns 8 bytes
// for every page: 9 MiB for a 4.8 GB file, at every commit).
struct pm_page_region {
  std::uint64_t start, end, categories;
};
struct pm_scan_arg {
  std::uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
  std::uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
constexpr unsigned long pagemap_scan_request = _IOWR('f', 16, pm_scan_arg);
constexpr std::uint64_t page_is_file = 1u << 2, page_is_present = 1u << 3,
                        page_is_swapped = 1u << 4, page_is_huge = 1u << 6;
// What one page-table entry of a huge mapping spans (x86-64's PMD).
constexpr std::uint64_t huge_entry_bytes = std::uint64_t{2} << 20;

// A PAGEMAP_SCAN of s's mapping at [from, to), its regions into `out`.
template <std::size_t N>
pm_scan_arg scan_of(const space_state& s, std::uint64_t from, std::uint64_t to,
                    pm_page_region (&out)[N]) noexcept {
  pm_scan_arg a{};
  a.size = sizeof a;
  a.start = reinterpret_cast<std::uintptr_t>(s.base) + from;
  a.end = reinterpret_cast<std::uintptr_t>(s.base) + to;
  a.vec = reinterpret_cast<std::uintptr_t>(out);
  a.vec_len = N;
  return a;
}

// find_dirty through PAGEMAP_SCAN of `pm` (pagemap_fd()); false when the
// kernel refuses it.
bool scan_dirty(int pm, space_state& s, std::uint64_t from, std::uint64_t to,
                std::vector<log_extent>& out, std::uint64_t& clean_mapped) {
  const auto base = reinterpret_cast<std::uintptr_t>(s.base);
  pm_page_region regions[256];
  pm_scan_arg a = scan_of(s, from, to, regions);
  // Pages present or swapped, with whether each is the file's page and
  // whether a huge entry maps it.
  a.category_anyof_mask = page_is_present | page_is_swapped;
  a.return_mask = page_is_file | page_is_present | page_is_swapped | page_is_huge;
  while (a.start < a.end) {
    const int n = ::ioctl(pm, pagemap_scan_request, &a);
    if (n < 0) return false;
    for (int i = 0; i < n; ++i) {
      const pm_page_region& r = regions[i];
      const std::uint64_t off = r.start - base, len = r.end - r.start;
      if ((r.categories & page_is_file) == 0) {  // copied on write, or swapped out
        append_run(out, off, len);
      } else if (r.categories & page_is_huge) {
        // A large folio of the page cache mapped whole by one entry (a
        // read fault maps 2 MiB at once where the file system keeps such
        // folios): walked and dropped as one entry, counted as one page.
        clean_mapped += (len + huge_entry_bytes - 1) / huge_entry_bytes;
      } else if (r.categories & page_is_present) {
        clean_mapped += sys_pages(s, len);
      }
    }
    if (a.walk_end <= a.start) return false;  // no progress: not a kernel we understand
    a.start = a.walk_end;
  }
  return true;
}

// Page runs in [from, to) (multiples of sys_page) whose mapped bytes may
// differ from the file, appended in order. From the page tables when
// /proc/self/pagemap is readable: a page of a private file mapping that was
// written to has been copied (anonymous: not the file's page) or swapped
// out; asked with PAGEMAP_SCAN where the kernel has it, else read entry by
// entry. Otherwise by comparing every page with the file. Returns how many
// clean pages are mapped (read since they were last dropped; 0 without
// pagemap).
std::uint64_t find_dirty(space_state& s, std::uint64_t from, std::uint64_t to,
                         std::vector<log_extent>& out) {
  const std::uint64_t ps = s.sys_page;
  auto add = [&](std::uint64_t off) { append_run(out, off, ps); };
  const std::size_t out_before = out.size();
  const int pm = pagemap_fd();
  if (dirty_scan_now.load(std::memory_order_relaxed) == dirty_scan::ioctl && pm >= 0) {
    std::uint64_t clean_mapped = 0;
    if (scan_dirty(pm, s, from, to, out, clean_mapped)) return clean_mapped;
    dirty_scan_now.store(dirty_scan::pagemap, std::memory_order_relaxed);
    out.resize(out_before);
  }
  if (dirty_scan_now.load(std::memory_order_relaxed) != dirty_scan::compare && pm >= 0) {
    constexpr std::size_t batch = 4096;
    std::uint64_t entries[batch];
    const std::uint64_t first = reinterpret_cast<std::uintptr_t>(s.base + from) / ps;
    const std::uint64_t count = (to - from) / ps;
    bool ok = true;
    std::uint64_t clean_mapped = 0;
    for (std::uint64_t i = 0; i < count && ok;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(batch, count - i));
      const long long got = pread_full(pm, entries, n * 8, (first + i) * 8);
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
    pagemap_unreadable();  // compare from now on
    out.resize(out_before);
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

}  // namespace

bool checks_reports() noexcept {
  static const bool on = [] {
    const char* e = std::getenv("FL_CHECK_WRITES");
    return e != nullptr && std::string_view(e) == "1";
  }();
  return on;
}

namespace {

// The pages the writes reported since the last commit touched (a space
// whose writes are reported: space_state::writes_reported), as sorted runs
// clipped to [from, to).
std::vector<log_extent> reported_pages(const space_state& s, std::uint64_t from,
                                       std::uint64_t to) {
  std::vector<std::uint64_t> pages(s.written);
  std::sort(pages.begin(), pages.end());
  std::vector<log_extent> runs;
  for (const std::uint64_t p : pages) {
    const std::uint64_t lo = std::max(from, p * s.sys_page);
    const std::uint64_t hi = std::min(to, (p + 1) * s.sys_page);
    if (lo < hi) append_run(runs, lo, hi - lo);
  }
  return runs;
}

// FL_CHECK_WRITES=1: the page tables' changed pages against the reports
// (`reported`, sorted page runs). A page the page tables show written that
// no report names must hold what the last commit left there (its kept or
// lagging image, else the file's bytes): a change no report named would
// otherwise be left out of the commit. Throws persist_error naming it.
void refuse_unreported_changes(space_state& s, std::uint64_t to,
                               const std::vector<log_extent>& reported) {
  std::vector<log_extent> dirty;
  find_dirty(s, space_data_start, to, dirty);
  std::vector<log_extent> unreported;
  auto r = reported.begin();
  for (const log_extent& d : dirty) {
    for (std::uint64_t off = d.offset; off < d.offset + d.length; off += s.sys_page) {
      while (r != reported.end() && r->offset + r->length <= off) ++r;
      if (r == reported.end() || off < r->offset) append_run(unreported, off, s.sys_page);
    }
  }
  drop_unchanged_lagging(s, unreported);
  drop_pages_matching_images(s, s.kept, unreported);
  // The rest against the file (zeros past its end: a page carved or
  // populated for a write that has not come yet).
  std::vector<std::byte> file(s.sys_page);
  for (const log_extent& u : unreported) {
    for (std::uint64_t off = u.offset; off < u.offset + u.length; off += s.sys_page) {
      const long long got = pread_full(s.fd.get(), file.data(), s.sys_page, off);
      if (got < 0) throw_errno(s.path, "read (FL_CHECK_WRITES)", static_cast<int>(-got));
      std::fill(file.begin() + got, file.end(), std::byte{0});
      if (std::memcmp(file.data(), s.base + off, s.sys_page) != 0)
        fail(s, "a write through the mapping at offset " + hex(off) +
                    " was not reported (mapped_space::wrote); nothing was committed");
    }
  }
}

}  // namespace

void note_written_page(space_state& s, std::uint64_t page) {
  if (page / 64 >= s.written_pages.words())  // the file grew: bits for all of it
    s.written_pages.resize(std::max(page + 1, sys_pages(s, s.size)));
  s.written_pages.set(page);
  s.written.push_back(page);
}

void forget_reports(space_state& s) noexcept {
  for (const std::uint64_t p : s.written) s.written_pages.reset(p);
  s.written.clear();
}

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

namespace {

// Whether the kernel takes an advice through process_madvise (Linux 6.13
// takes any advice for the calling process; earlier kernels a few): once
// refused, that advice goes to madvise, a call per run.
std::atomic<bool> drop_batched{true};
std::atomic<bool> populate_batched{true};
// MADV_POPULATE_WRITE (Linux 5.14; declared here for older headers). Once
// madvise refuses it (EINVAL), populate_ranges does nothing: the writes
// then fault, as they did before it.
constexpr int advice_populate_write = 23;
std::atomic<bool> populate_known{true};

// Gives `advice` to the page runs `ranges`: one process_madvise call per
// IOV_MAX runs while `batched`, the rest (all of them once it refused, or
// after a partial call) a madvise call each. False if a madvise call failed
// (its errno in `err`).
bool advise_ranges(const space_state& s, const std::vector<log_extent>& ranges, int advice,
                   std::atomic<bool>& batched, int& err) noexcept {
  std::size_t done = 0;
  if (ranges.size() > 1 && batched.load(std::memory_order_relaxed)) {
    if (const int pidfd = self_pidfd(); pidfd >= 0) {
      constexpr std::size_t batch = 1024;  // IOV_MAX
      iovec iov[batch];
      while (done < ranges.size()) {
        const std::size_t n = std::min(batch, ranges.size() - done);
        std::uint64_t bytes = 0;
        for (std::size_t i = 0; i < n; ++i) {
          iov[i].iov_base = s.base + ranges[done + i].offset;
          iov[i].iov_len = ranges[done + i].length;
          bytes += ranges[done + i].length;
        }
        const long got = ::syscall(SYS_process_madvise, pidfd, iov, n, advice, 0u);
        if (got != static_cast<long>(bytes)) {
          // A kernel that takes the advice only from madvise (EINVAL), or a
          // partial call: the rest go one by one (advising a run twice is
          // harmless).
          if (got < 0) batched.store(false, std::memory_order_relaxed);
          break;
        }
        done += n;
      }
    }
  }
  bool ok = true;
  for (; done < ranges.size(); ++done) {
    if (::madvise(s.base + ranges[done].offset, ranges[done].length, advice) != 0) {
      ok = false;
      err = errno;
    }
  }
  return ok;
}

}  // namespace

void drop_ranges(const space_state& s, const std::vector<log_extent>& ranges) noexcept {
  int err = 0;
  (void)advise_ranges(s, ranges, MADV_DONTNEED, drop_batched, err);
}

void populate_to_write(const space_state& s, std::uint64_t off, std::uint64_t len) noexcept {
  const std::uint64_t from = sys_page_floor(s, off);
  const std::uint64_t to = round_up(off + len, s.sys_page);
  if (len != 0 && populate_known.load(std::memory_order_relaxed)) {
    if (::madvise(s.base + from, to - from, advice_populate_write) == 0) return;
    if (errno == EINVAL) populate_known.store(false, std::memory_order_relaxed);
  }
  touch_to_write(s, off, len);
}

void populate_ranges(const space_state& s, const std::vector<log_extent>& ranges) noexcept {
  if (ranges.empty() || !populate_known.load(std::memory_order_relaxed)) return;
  int err = 0;
  if (!advise_ranges(s, ranges, advice_populate_write, populate_batched, err) && err == EINVAL)
    populate_known.store(false, std::memory_order_relaxed);
}

bool maps_only_file(const space_state& s) noexcept {
  const int pm = pagemap_fd();
  if (pm < 0 || dirty_scan_now.load(std::memory_order_relaxed) != dirty_scan::ioctl) return false;
  pm_page_region found[1];
  pm_scan_arg a = scan_of(s, 0, s.size, found);
  a.max_pages = 1;
  // Pages present or swapped that are not the file's (the file bit
  // inverted, then required).
  a.category_inverted = page_is_file;
  a.category_mask = page_is_file;
  a.category_anyof_mask = page_is_present | page_is_swapped;
  a.return_mask = page_is_present | page_is_swapped;
  while (a.start < a.end) {
    const int n = ::ioctl(pm, pagemap_scan_request, &a);
    if (n != 0) return false;  // a copy, or the kernel refused
    if (a.walk_end <= a.start) return false;
    a.start = a.walk_end;
  }
  return true;
}

bool changed_here(const space_state& s, std::uint64_t p) {
  const std::uint64_t off = p * space_page;
  if (const int pm = pagemap_fd(); pm >= 0) {
    bool any = false;
    for (std::uint64_t k = 0; k < space_page; k += s.sys_page) {
      std::uint64_t e = 0;
      const std::uint64_t vpage = sys_pages(s, reinterpret_cast<std::uintptr_t>(s.base + off + k));
      if (pread_full(pm, &e, 8, vpage * 8) != 8) {
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





bool has_uncommitted(space_state& s) {
  if (s.size != s.committed.file_size || !s.fresh.empty() ||
      std::memcmp(&s.alloc, &s.committed.alloc, sizeof s.alloc) != 0)
    return true;
  const std::uint64_t end = std::min(s.size, round_up(s.alloc.top, s.sys_page));
  std::vector<log_extent> runs;
  if (s.writes_reported)
    runs = reported_pages(s, space_data_start, end);
  else
    find_dirty(s, space_data_start, end, runs);
  drop_unchanged_lagging(s, runs);  // pages the file lacks, as their commit left them
  drop_unchanged_kept(s, runs);
  // A reported page may hold what the file holds (a write of the same bytes).
  if (s.writes_reported && !runs.empty())
    return !log_changes(s, runs, s.committed.file_size).empty();
  return !runs.empty();
}

int checkpoint(space_state& s) noexcept {
  // The log is reused from 0 only when the file holds the newest commit: a
  // reader may still read the records of the commits the file lacks.
  // After a failed write or flush of the file the log may hold what the file
  // lacks, even when no run is open (a slot naming it may be on disk).
  if (s.in_place_failed) return EIO;
  if (!s.log_open || !file_is_current(s)) return 0;
  if (s.durable && s.data_unflushed) {
    if (const int e = sync_data(s.fd.get())) {
      s.in_place_failed = true;  // the pages in place may be lost: see space_state
      return e;
    }
  }
  s.data_unflushed = false;
  if (const int e = put_slot(s, s.committed, false)) return e;
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


namespace detail {
namespace {

void refuse_after_failed_write(const space_state& s) {
  if (s.in_place_failed)
    fail(s,
         "an earlier write or flush of the file failed, so it may lack committed pages; "
         "reopen the space (the open writes them again from its log)");
}

}  // namespace
}  // namespace detail

void mapped_space::sync() {
  detail::space_state& s = *st_;
  detail::refuse_read_only(s, "sync");
  detail::check_not_retired(s);
  detail::refuse_after_failed_write(s);
  detail::check_bound(s);
  // A file the writer chose to leave behind stays there (place_commit ends
  // the lag), unless the log is full: the checkpoint below needs it current.
  if (!s.lag_chosen || s.log_head >= detail::log_bound) detail::catch_up(s);
  // While a reader holds a commit the file lacks, no checkpoint: a slot
  // written without a flush is flushed instead.
  if (s.durable && s.slot_unflushed && s.log_open && !detail::file_is_current(s)) {
    if (const int e = detail::sync_data(s.fd.get())) detail::fail_flush(s, s.path, e);
    s.slot_unflushed = false;
  }
  // A full log, or a run whose meta slot was written without a flush (the
  // space was not durable then): a checkpoint first, so that a durable commit
  // never relies on a slot the disk may not have.
  if (s.log_head >= detail::log_bound || (s.durable && s.slot_unflushed && s.log_open)) {
    if (const int e = detail::checkpoint(s)) detail::throw_errno(s.path, "checkpoint", e);
  }
  // A reader holds a commit the file cannot move past: the log restarts
  // with the pages the file lacks instead (bounded by them, not by the
  // commits since).
  detail::restart_log_beside_readers(s);
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
  const std::uint64_t scan_end =
      std::min(s.size, std::max(detail::round_up(s.alloc.top, s.sys_page), s.zeroed_end));
  // The pages that may have changed: those the writes reported (no walk of
  // the page tables, which visits every page reads mapped), or those the
  // page tables show written (and how many clean pages reads mapped).
  std::vector<log_extent> runs;
  std::uint64_t clean_mapped = 0, scan_ns = 0;
  if (s.writes_reported) {
    runs = detail::reported_pages(s, detail::space_data_start, scan_end);
    if (s.check_reports) detail::refuse_unreported_changes(s, scan_end, runs);
  } else {
    const auto scan_start = std::chrono::steady_clock::now();
    clean_mapped = detail::find_dirty(s, detail::space_data_start, scan_end, runs);
    scan_ns = detail::ns_since(scan_start);
  }
  detail::drop_unchanged_lagging(s, runs);
  detail::drop_unchanged_kept(s, runs);
  if (!extra.empty()) runs = detail::merge_runs(runs, extra);
  if (runs.empty() && s.size == s.committed.file_size && s.deferred_head == s.committed.deferred &&
      std::memcmp(&s.alloc, &s.committed.alloc, sizeof s.alloc) == 0) {
    detail::forget_reports(s);  // writes of the bytes already there
    return;                     // nothing to commit
  }

  // Page checksums of the new pages, the written pages and the pages
  // write_fresh() put in the file; the table's written pages join the runs.
  const std::vector<log_extent> table_runs =
      detail::update_page_crcs(s, old_pages, runs, s.table_rebuild);
  if (!table_runs.empty()) runs = detail::merge_runs(runs, table_runs);

  space_meta m = detail::make_meta(s.committed.uuid, s.committed.generation + 1, s.size, s.alloc);
  m.deferred = s.deferred_head;
  m.table_crc = detail::mapped_table_crc(s);
  m.crc = detail::meta_crc(m);

  // 0. Pages written to the file directly (write_fresh) are not in the log:
  // they must be durable before the log that refers to them is.
  if (!s.fresh.empty() && s.durable) {
    if (const int e = detail::sync_data(s.fd.get())) detail::fail_flush(s, s.path, e);
  }
  // 1. The record of the bytes the commit changed, flushed: the commit point
  // when the newest meta slot already sends recovery to the log.
  const std::vector<log_extent> changes = detail::log_changes(s, runs, s.committed.file_size);
  const std::uint64_t record_bytes = detail::write_record(s, m, changes);
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
  detail::forget_reports(s);  // all in this commit
  s.fresh.clear();
  s.zeroed_end = 0;  // logged by this commit
  std::uint64_t page_bytes = 0;
  for (const log_extent& r : runs) page_bytes += r.length;
  s.last_sync_pages = page_bytes / space_page;
  s.last_sync_log_bytes = record_bytes;
  detail::mark_committed(s, before_pages, runs);
  // 2. The pages in place, not flushed (as far as readers allow: see
  // reader_table.cpp): the log holds them until a checkpoint. After a
  // failed write the file lacks part of a commit that the log holds: no
  // checkpoint runs, and sync() and rollback() refuse until the space is
  // reopened (the open replays the log). 3. The private copies the file now
  // holds are dropped.
  s.data_unflushed = true;
  s.in_place_failed = true;
  detail::place_commit(s, record_at, runs, changes, {clean_mapped, scan_end, scan_ns});
  s.in_place_failed = false;
  // After compact(): the commit that no longer covers the file's end is
  // durable, so the end can go (a crash before this leaves a longer file,
  // which opens as the committed state). While a reader holds an older
  // commit the file still serves it (place_commit left it behind), so its
  // end stays until a later commit finds the file current; growth into that
  // dead end zeroes what it maps (grow() in allocator.cpp).
  const std::uint64_t file_end = std::max(s.shrink_from, s.stale_end);
  if (file_end > s.size) {
    if (detail::file_is_current(s)) {
      if (::ftruncate(s.fd.get(), static_cast<off_t>(s.size)) != 0)
        detail::throw_errno(s.path, "ftruncate (compact; the commit is durable)", errno);
      s.stale_end = 0;
      // The cut ends the log's run: a replay of the run's earlier records
      // would write their pages past the cut again, and a later growth takes
      // the pages there for zeros (their checksum is a zero page's). After a
      // power loss the records after this one would then replay over stale
      // bytes; a checkpoint makes the cut and the file durable, and recovery
      // never replays a record from before it.
      if (const int e = detail::checkpoint(s))
        detail::throw_errno(s.path, "checkpoint after compact (the commit is durable)", e);
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
  detail::drop_ranges(s, runs);
  detail::forget_reports(s);   // the pages written are the file's again
  detail::forget_kept(s);      // their private copies went with the others
  detail::restore_lagging(s);  // committed pages the file does not hold yet
  s.alloc = s.committed.alloc;
  // Pages past the committed size may hold what write_fresh() put in the
  // file: cut to the committed size and grow back, so they read as zeros
  // again (as every page a commit has not covered must). The file's bytes a
  // reader's older commit may read (a shrink it held back) are never cut:
  // there the mapping reads as zeros again privately, as growth left it, and
  // the next commit logs them (zeroed_end).
  const std::uint64_t keep =
      std::max(s.committed.file_size, std::min(detail::readers_end(s), s.size));
  if (s.size > keep) {
    if (::ftruncate(s.fd.get(), static_cast<off_t>(keep)) != 0)
      detail::throw_errno(s.path, "ftruncate (rollback)", errno);
    // The cut range gets its blocks again (reserve_file). If the disk has
    // none left, the mapping ends at `keep` instead (nothing committed lies
    // past it; growth maps the rest again when it can).
    if (detail::reserve_file(s.fd.get(), keep, s.size) != 0) {
      ::mmap(s.base + keep, s.size - keep, detail::reserve_prot,
             detail::reserve_flags | MAP_FIXED, -1, 0);
      s.size = keep;
      size_ = keep;
    }
  }
  if (keep > s.committed.file_size) {
    std::memset(s.base + s.committed.file_size, 0, keep - s.committed.file_size);
    detail::note_write(s, s.committed.file_size, keep - s.committed.file_size);
    s.zeroed_end = keep;
  }
  s.deferred_loaded = false;  // the committed chain, read again on first use
  s.retired_blocks.clear();
  s.deferred.clear();
  s.fresh.clear();
  // The dropped pages read from the file again: check them again.
  s.verified.clear(s.committed.file_size / space_page);
  detail::table_crc_is_committed(s);
}

// ---- verify ------------------------------------------------------------------

// A census's state: the committed bytes it reads (a writer's: the data
// file, mapped shared and unmapped with it; a reader's: its mapping), the
// committed meta, the blocks in address order, and the pages checked.
struct space_census::impl {
  const detail::space_state* s = nullptr;
  const std::byte* f = nullptr;
  std::uint64_t size = 0;  // committed bytes readable at f
  std::uint64_t file_end = 0;  // the data file's size (a reader maps zeros past it)
  void* own_map = nullptr;
  std::uint64_t own_bytes = 0;
  space_meta m{};
  struct entry {
    std::uint64_t start;  // the block header's offset
    std::uint32_t cls;
    block_state state;
  };
  std::vector<entry> blocks;
  mutable std::vector<std::uint64_t> checked;  // one bit per page
  mutable bool table_checked = false;
  std::string damage;  // census_blocks' first fault, if any

  ~impl() {
    if (own_map) ::munmap(own_map, own_bytes);
  }
  // The block whose payload is at `p` (find_live_block's rules: the block's
  // start + 8, or past a second, live header whose `back` leads to the
  // start), or blocks.size().
  std::size_t payload_block(std::uint64_t p) const noexcept {
    if (p < space_first_block + 8 || p % 16 != 0) return blocks.size();
    const auto it = std::upper_bound(
        blocks.begin(), blocks.end(), p - 8,
        [](std::uint64_t off, const entry& e) { return off < e.start; });
    if (it == blocks.begin()) return blocks.size();
    const entry& e = *std::prev(it);
    if (p >= e.start + class_size(e.cls)) return blocks.size();
    if (p - 8 != e.start) {
      const block_header h = detail::load_header(f, p - 8);
      if (e.state == block_state::free || h.tag() != detail::block_live || h.cls() != e.cls ||
          h.back != p - 8 - e.start)
        return blocks.size();
    }
    return static_cast<std::size_t>(std::prev(it) - blocks.begin());
  }
  std::size_t find(std::uint64_t block_start) const noexcept {
    const auto it =
        std::lower_bound(blocks.begin(), blocks.end(), block_start,
                         [](const entry& e, std::uint64_t off) { return e.start < off; });
    return it != blocks.end() && it->start == block_start ? static_cast<std::size_t>(
                                                                 it - blocks.begin())
                                                          : blocks.size();
  }
};

namespace {

// Maps the committed state (a writer: the data file, shared, read-only) and
// checks the meta that names it; the page checksums first when `crcs`.
std::unique_ptr<space_census::impl> census_image(const detail::space_state& s, bool crcs) {
  auto c = std::make_unique<space_census::impl>();
  c->s = &s;
  c->m = s.committed;
  if (s.read_only) {
    // A reader's mapping holds its commit: the file where it holds it, the
    // pages of later commits read from the log, zeros past a short file.
    if (s.size < s.committed.file_size)
      detail::fail(s, "verify: the mapping ends before the committed size");
    c->f = s.base;
    c->size = s.committed.file_size;
    struct stat sb;
    if (::fstat(s.fd.get(), &sb) != 0) detail::throw_errno(s.path, "fstat", errno);
    c->file_end = static_cast<std::uint64_t>(sb.st_size);
  } else {
    // While a reader holds an older commit the file holds that commit and
    // the log the newer ones: checking the file against the newest meta
    // would report damage that is not there.
    if (!detail::file_is_current(s))
      throw persist_error(s.path,
                          "verify: a reader holds an older commit, so the file does not hold the "
                          "newest one yet (verify again once the readers have refreshed or "
                          "closed, or verify a read-only open)");
    struct stat sb;
    if (::fstat(s.fd.get(), &sb) != 0) detail::throw_errno(s.path, "fstat", errno);
    const auto file_bytes = static_cast<std::uint64_t>(sb.st_size);
    void* map = ::mmap(nullptr, file_bytes, PROT_READ, MAP_SHARED, s.fd.get(), 0);
    if (map == MAP_FAILED) detail::throw_errno(s.path, "mmap (verify)", errno);
    c->own_map = map;
    c->own_bytes = file_bytes;
    c->f = static_cast<const std::byte*>(map);
    c->size = std::min(file_bytes, s.committed.file_size);
    c->file_end = file_bytes;
    // The slots on disk name the committed state, or (meta_log_bit) an
    // earlier commit of the log's run that leads to it.
    const detail::meta_slots slots = detail::read_slots(c->f);
    if (slots.newest < 0) detail::fail(s, "verify: " + slots.why[0]);
    const space_meta& disk = slots.meta[slots.newest];
    const bool logged = (disk.state & detail::meta_log_bit) != 0;
    if (disk.uuid != s.committed.uuid || (logged ? disk.generation > s.committed.generation
                                                 : disk.generation != s.committed.generation))
      detail::fail(s, "verify: meta page changed under the space");
    if (const std::string why = detail::check_meta(c->m, file_bytes); !why.empty())
      detail::fail(s, "verify: " + why);
  }
  c->checked.assign((c->size / space_page + 63) / 64, 0);
  if (crcs) {
    if (const std::string why = detail::check_page_crcs(c->f, c->m); !why.empty())
      detail::fail(s, "verify: " + why);
    std::fill(c->checked.begin(), c->checked.end(), ~std::uint64_t{0});
    c->table_checked = true;
  }
  return c;
}

// Every block from the first to top, every free list against them, and the
// deferred batches: the census's blocks and their states.
void census_blocks(const detail::space_state& s, space_census::impl& c) {
  using state = space_census::block_state;
  const std::byte* f = c.f;
  const detail::space_alloc_state& a = c.m.alloc;
  if (a.top > c.size) detail::fail(s, "verify: the allocator's end lies past the file");
  std::uint64_t used = 0, freeb = 0, live = 0, free_count = 0;
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
      ++free_count;
    }
    c.blocks.push_back({off, h.cls(), is_live ? state::live : state::free});
    off += cs;
  }
  if (off != a.top || used != a.used_bytes || freeb != a.free_bytes || live != a.live_blocks ||
      free_count != a.free_blocks)
    detail::fail(s, "verify: blocks do not match the meta page's counts");
  std::uint64_t listed = 0;
  for (unsigned cl = 0; cl < space_class_count; ++cl) {
    for (std::uint64_t b = a.free_heads[cl]; b != 0;) {
      const std::size_t i = c.find(b);
      if (i == c.blocks.size() || c.blocks[i].state != state::free || c.blocks[i].cls != cl ||
          ++listed > a.free_blocks)
        detail::fail(s, "verify: free list of size class " + std::to_string(cl) +
                            " damaged at " + detail::hex(b));
      b = detail::load_u64(f, b + 8);
    }
  }
  if (listed != a.free_blocks) detail::fail(s, "verify: free blocks missing from the free lists");
  // The live block whose payload is at `p`, or blocks.size().
  auto live_at = [&](std::uint64_t p) {
    const std::size_t i = c.payload_block(p);
    return i < c.blocks.size() && c.blocks[i].state != state::free ? i : c.blocks.size();
  };
  if (a.root != 0 && live_at(a.root) == c.blocks.size())
    detail::fail(s, "verify: the root is not a live block");
  if (a.crc_table != 0) {
    const std::size_t i = live_at(a.crc_table);
    if (i == c.blocks.size() ||
        c.blocks[i].start + class_size(c.blocks[i].cls) < a.crc_table + a.crc_table_bytes)
      detail::fail(s, "verify: the page checksum table is not a live block");
    c.blocks[i].state = state::space;
  }
  // The deferred batches, newest first (persist_format.hpp): live blocks,
  // generations decreasing, counts within the block, every offset a live
  // block listed once.
  std::uint64_t prev_gen = c.m.generation + 1, batches = 0;
  for (std::uint64_t p = c.m.deferred; p != 0;) {
    const std::size_t i = live_at(p);
    if (++batches > a.live_blocks || i == c.blocks.size() || c.blocks[i].state != state::live)
      detail::fail(s, "verify: deferred batch at " + detail::hex(p) + " is not a live block");
    detail::deferred_batch_head h;
    std::memcpy(&h, f + p, sizeof h);
    const std::uint64_t room = c.blocks[i].start + class_size(c.blocks[i].cls) - p - sizeof h;
    if (h.generation >= prev_gen || h.count == 0 || h.count > room / 8)
      detail::fail(s, "verify: deferred batch at " + detail::hex(p) + " is damaged");
    c.blocks[i].state = state::space;
    for (std::uint64_t k = 0; k < h.count; ++k) {
      const std::uint64_t o = detail::load_u64(f, p + sizeof h + 8 * k);
      const std::size_t j = live_at(o);
      if (j == c.blocks.size() || c.blocks[j].state != state::live)
        detail::fail(s, "verify: deferred batch at " + detail::hex(p) + " names " +
                            detail::hex(o) + ", which is not a live block (or is named twice)");
      c.blocks[j].state = state::retired;
    }
    prev_gen = h.generation;
    p = h.next;
  }
}

}  // namespace

namespace {

// Before a writer checks its data file: the file lags the newest commit only
// while a reader holds an older one, and the readers may have refreshed or
// closed since the last commit. Moved forward as far as they now allow (as a
// commit or a close would), so that the check refuses only while a reader
// still holds an older commit.
void catch_up_to_check(detail::space_state& s) {
  detail::check_not_retired(s);
  if (!s.read_only && !s.in_place_failed) detail::catch_up(s);  // as close_space does
}

}  // namespace

void mapped_space::verify() const {
  detail::space_state& s = *st_;
  catch_up_to_check(s);
  const std::unique_ptr<space_census::impl> c = census_image(s, true);
  census_blocks(s, *c);
}

space_census mapped_space::census() const {
  detail::space_state& s = *st_;
  catch_up_to_check(s);
  std::unique_ptr<space_census::impl> c = census_image(s, false);
  try {
    census_blocks(s, *c);
  } catch (const persist_error& e) {
    c->damage = e.reason();  // the blocks end there; the caller reports it
  }
  return space_census(std::move(c));
}

const std::string& space_census::damage() const noexcept { return p_->damage; }

space_census::space_census(std::unique_ptr<impl> p) noexcept : p_(std::move(p)) {}
space_census::space_census(space_census&&) noexcept = default;
space_census& space_census::operator=(space_census&&) noexcept = default;
space_census::~space_census() = default;

space_census::block space_census::at(std::uint64_t offset) const noexcept {
  const impl& c = *p_;
  const std::size_t i = c.payload_block(offset);
  if (i == c.blocks.size()) return {};
  const impl::entry& e = c.blocks[i];
  return {e.state, e.start + class_size(e.cls) - offset, i};
}

std::size_t space_census::block_count() const noexcept { return p_->blocks.size(); }

const std::byte* space_census::bytes(std::uint64_t offset, std::uint64_t n) const noexcept {
  if (offset > p_->size || n > p_->size - offset) return nullptr;
  return p_->f + offset;
}

std::string space_census::check_pages(std::uint64_t offset, std::uint64_t n) const {
  const impl& c = *p_;
  if (offset > c.size || n > c.size - offset)
    return "bytes [" + detail::hex(offset) + ", +" + std::to_string(n) +
           ") lie past the committed file (" + std::to_string(c.size) + " bytes)";
  const detail::space_alloc_state& a = c.m.alloc;
  if (n == 0 || a.crc_table == 0) return {};
  if (!c.table_checked) {
    if (a.crc_table > c.size || a.crc_table_bytes > c.size - a.crc_table ||
        detail::table_crc(c.f, a) != c.m.table_crc)
      return "the page checksum table is damaged (its checksum does not match the meta page)";
    c.table_checked = true;
  }
  const auto* table = reinterpret_cast<const std::uint32_t*>(c.f + a.crc_table);
  const std::uint64_t own_first = a.crc_table / space_page,
                      own_end = (a.crc_table + a.crc_table_bytes) / space_page;
  for (std::uint64_t p = std::max<std::uint64_t>(offset / space_page, 2);
       p <= (offset + n - 1) / space_page && p < c.size / space_page; ++p) {
    std::uint64_t& word = c.checked[p / 64];
    const std::uint64_t bit = std::uint64_t{1} << (p % 64);
    if ((word & bit) != 0) continue;
    if ((p < own_first || p >= own_end) && detail::page_crc(c.f, p) != table[p]) {
      std::string why = "page " + std::to_string(p) + " (offset " + detail::hex(p * space_page) +
                        ") does not match its checksum";
      if ((p + 1) * space_page > c.file_end)
        why += ": the file is truncated (" + std::to_string(c.file_end) +
               " bytes, the commit has " + std::to_string(c.m.file_size) + ")";
      return why;
    }
    word |= bit;
  }
  return {};
}

std::string space_census::check_all_pages() const { return check_pages(0, p_->size); }

std::uint64_t space_census::root() const noexcept { return p_->m.alloc.root; }

}  // namespace FL_ABI_NS
}  // namespace fl
