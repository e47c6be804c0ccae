// src/persist/lagging_file.cpp: the writer beside readers that hold older
// commits. The data file lags at the oldest pin; the writer keeps the pages
// the file lacks in its own mapping, moves the file forward from the log as
// far as the pins allow, and bounds the log by restarting it with one record
// of every page the file lacks. The protocol and its invariant are
// reader_table.cpp's file comment; the design is docs/design.md ("Readers").
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"
#include "persist/reader_table.hpp"

#include "persist/space.hpp"
#include "persist/posix.hpp"

#include <algorithm>
#include <iterator>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

// The commit the writer may move the file to now (at most `newest`), with
// its intent published first (see the file comment).
std::uint64_t advance_target(reader_table& t, std::uint64_t newest) {
  const std::uint64_t m = min_pin(t, newest);
  if (m <= t.file_gen) return t.file_gen;
  word(t.map, intent_at).store(m, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const std::uint64_t m2 = std::max(min_pin(t, m), t.file_gen);
  if (m2 != m) word(t.map, intent_at).store(m2, std::memory_order_seq_cst);
  return m2;
}

void set_file_gen(reader_table& t, std::uint64_t g) {
  t.file_gen = g;
  word(t.map, file_gen_at).store(g, std::memory_order_seq_cst);
  word(t.map, intent_at).store(g, std::memory_order_seq_cst);
}

}  // namespace

namespace {

// Writes into the data file, from the log, the records of the commits after
// the one it holds up to `target` (in order), and publishes that it holds
// `target`. The private pages are the caller's to drop. The writes are not
// flushed, and are marked so: a log restart counts on the file holding
// `target` durably before it drops those records (restart_log_beside_readers,
// step 1), and the catch_up() that opens a sync() follows a slot write that
// had cleared the mark.
void advance_from_log(space_state& s, reader_table& t, std::uint64_t target) {
  s.data_unflushed = true;
  std::vector<std::byte> buf;
  std::size_t done_records = 0;
  for (const reader_table::logged& rec : t.records) {
    if (rec.gen > target) break;
    ++done_records;
    if (rec.gen <= t.file_gen) continue;
    record_head r;
    if (!read_record_head(s.log_fd.get(), s.log_written, rec.at, s.committed.uuid, rec.gen, r))
      fail(s, "the log's record of commit " + std::to_string(rec.gen) +
                  " changed under the writer (damaged)");
    if (const int err = write_record_in_place(s.log_fd.get(), r, s.fd.get(), buf)) {
      if (err < 0) throw_errno(s.log_path, "read of the log", errno ? errno : EIO);
      throw_errno(s.path, "write (the commit is durable in the log)", err);
    }
  }
  t.records.erase(t.records.begin(), t.records.begin() + static_cast<std::ptrdiff_t>(done_records));
  set_file_gen(t, target);
}

// After advance_from_log(.., target): the lagging pages whose last change
// is commit `target` or older are the file's now, no longer the writer's.
// Their private copies are dropped where they equal the file (else the next
// sync() would find them dirty and commit a change that is not there); with
// `maybe_changed`, each is compared first and one changed since its commit
// stays private for the next commit to log. Past the size (cut by a
// compaction) the mapping is the reservation: nothing to drop.
void forget_caught_up(space_state& s, reader_table& t, std::uint64_t target, bool maybe_changed) {
  std::unique_ptr<std::byte[]> buf;
  if (maybe_changed) buf.reset(new std::byte[s.sys_page]);
  t.lagging.erase_if([&](std::uint64_t off, const page_image& l) {
    if (l.gen > target) return false;
    if (off < s.size &&
        (!maybe_changed ||
         (pread_full(s.fd.get(), buf.get(), s.sys_page, off) ==
              static_cast<long long>(s.sys_page) &&
          std::memcmp(buf.get(), s.base + off, s.sys_page) == 0)))
      ::madvise(s.base + off, s.sys_page, MADV_DONTNEED);
    return true;
  });
}

}  // namespace

void restart_log_beside_readers(space_state& s) {
  reader_table* t = s.readers.get();
  if (t == nullptr || !s.log_open || file_is_current(s)) return;
  // The pages the file lacks, in order, each with its newest committed
  // image; pages past the committed size (cut by a compaction) go.
  t->lagging.erase_from(s.committed.file_size);
  const std::uint64_t lag_bytes = t->lagging.size() * s.sys_page;
  if (s.log_head < std::max(log_bound, 2 * (lag_bytes + record_head_bytes(t->lagging.size()))))
    return;
  // 1. The file's state in place (commit t->file_gen) durable: the records
  // up to it are then never read again.
  if (s.durable && s.data_unflushed) {
    if (const int e = sync_data(s.fd.get())) fail_flush(s, s.path, e);
  }
  s.data_unflushed = false;
  // 2. One record of the newest commit holding every page the file lacks.
  std::vector<log_extent> runs;
  std::vector<std::byte> images(static_cast<std::size_t>(lag_bytes));
  std::size_t k = 0;
  for (const std::uint64_t off : t->lagging.sorted_offsets()) {
    append_run(runs, off, s.sys_page);
    std::memcpy(images.data() + k * s.sys_page, t->lagging.find(off)->image.get(), s.sys_page);
    ++k;
  }
  const std::vector<std::byte> head =
      encode_record_head(s.committed, runs, record_data_crc(images.data(), images.size()));
  // The zeros that end the record on a page boundary.
  images.resize(static_cast<std::size_t>(record_span(runs.size(), lag_bytes) - head.size()));
  // 3. The new log, durable under a name of its own, then renamed over the
  // old one: readers that hold the old one open read on in it.
  const std::filesystem::path tmp = unique_sibling(s.log_path, "next");
  unique_fd fd(open_store_file(tmp, O_RDWR | O_CREAT | O_EXCL, 0666));
  if (!fd) throw_errno(tmp, "create", errno);
  iovec iov[2] = {{const_cast<std::byte*>(head.data()), head.size()},
                  {images.data(), images.size()}};
  int err = pwritev_all(fd.get(), iov, 2, 0);
  if (err == 0 && s.durable) err = sync_data(fd.get());
  if (err == 0 && ::rename(tmp.c_str(), s.log_path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw_errno(s.log_path, "write of the restarted log", err);
  }
  if (s.durable) fsync_parent(s.log_path);
  const std::uint64_t bytes = head.size() + images.size();
  s.log_fd = std::move(fd);
  s.log_head = bytes;
  s.log_written = bytes;
  // 4. The meta slot names the new run's first commit.
  write_slot(s, s.committed, true);
  // 5. What the writer and readers look records up by.
  const std::uint64_t c = s.committed.generation;
  for (auto& [off, l] : t->lagging) l.gen = c;
  t->records.assign(1, {c, 0});
  clear_ring(t->map);
  ring_put(t->map, c, 0);
}

void take_lagging_records(space_state& s, reader_table& t, const lagging_open& lag) {
  unique_fd log(open_store_file(s.log_path, O_RDWR));
  if (!log) throw_errno(s.log_path, "open of the log", errno);
  struct stat sb;
  if (::fstat(log.get(), &sb) != 0) throw_errno(s.log_path, "fstat", errno);
  t.records.clear();
  t.lagging.clear();
  for (const record_head& r : lag.records) {
    std::uint64_t src = r.data_at();
    for (const log_extent& e : r.extents) {
      // Pages a later commit cut (compaction) are not the writer's: the
      // file keeps them for the readers, advance_from_log writes them there.
      const std::uint64_t end = std::min(e.offset + e.length, s.size);
      if (e.offset < end) {
        if (pread_full(log.get(), s.base + e.offset, end - e.offset, src) !=
            static_cast<long long>(end - e.offset))
          throw_errno(s.log_path, "read of the log", errno ? errno : EIO);
        for (std::uint64_t off = sys_page_floor(s, e.offset); off < end; off += s.sys_page)
          t.lagging[off].gen = r.meta.generation;
      }
      src += e.length;
    }
    t.records.push_back({r.meta.generation, r.at});
  }
  // Each page as the newest record left it (the records' bytes over the
  // file's page of commit lag.file_gen).
  for (auto& [off, l] : t.lagging) {
    l.image.reset(new std::byte[s.sys_page]);
    std::memcpy(l.image.get(), s.base + off, s.sys_page);
  }
  // The run goes on after its last record: the meta slot names its first.
  // The file holds lag.file_gen as the last writer left it, which may not
  // have flushed it (its catch-ups write without a flush while a reader
  // lags): unflushed until this writer's next flush says otherwise, or a
  // log restart would drop records the file does not durably hold.
  s.data_unflushed = true;
  s.log_fd = std::move(log);
  s.log_written = static_cast<std::uint64_t>(sb.st_size);
  s.log_head = lag.log_end;
  s.log_open = true;
  s.log_name_durable = false;
}

void drop_unchanged_lagging(space_state& s, std::vector<log_extent>& runs) {
  if (!s.readers || s.readers->lagging.empty()) return;
  drop_pages_matching_images(s, s.readers->lagging, runs);
}

void restore_lagging(space_state& s) {
  if (!s.readers) return;
  for (const auto& [off, l] : s.readers->lagging)
    std::memcpy(s.base + off, l.image.get(), s.sys_page);
}

namespace {

// Whether commit s.committed leaves the file where it is, by the writer's
// choice, its pages kept private with their images as beside a reader that
// holds an older commit. A commit's writes in place are a handful of write
// calls, most into the same pages each commit (the page checksum table, the
// space's head, a tree's upper nodes): deferred over up to
// lag_chosen_commits commits, the commit that ends the lag writes every page
// once (as SQLite's WAL leaves its database file to a checkpoint). Only
// where writes are reported: a commit that walks the page tables would walk
// the lagging pages too, and pay more than the calls it saves. Never across
// a compaction's cut, nor past the log's bound (sync() then catches the file
// up and checkpoints, and no log restart is needed for this lag).
bool lag_by_choice(const space_state& s, const reader_table& t,
                   const std::vector<log_extent>& pages) {
  if (!s.writes_reported || s.shrink_from != 0 || s.stale_end != 0 || s.log_head >= log_bound ||
      s.committed.generation - t.file_gen > lag_chosen_commits)
    return false;
  std::uint64_t n = t.lagging.size();
  for (const log_extent& r : pages) n += sys_pages(s, r.length);
  return n <= lag_chosen_pages;
}

// The file holds commit `g` now, the newest: no page lags, no record is
// needed. Where writes are reported a kept page costs a commit nothing until
// it is written again, so the pages that lagged stay mapped as kept pages,
// their images moved (the file's now), and the next edit of one neither
// faults nor reads the file to find its changes; without reports the caller
// drops them (a kept page pays rent there). Pages a compaction cut are no
// longer mapped.
void file_caught_up(space_state& s, reader_table& t, std::uint64_t g) {
  if (s.writes_reported)
    for (auto& [off, l] : t.lagging)
      if (off < s.size) keep_image(s, off, l.gen, std::move(l.image));
  t.lagging.clear();
  t.records.clear();
  set_file_gen(t, g);
}

// Every lagging page's image into the data file, neighbours in one call;
// not flushed (the log holds them until a checkpoint). Pages past the size
// (cut by a compaction) are the caller's to leave out.
void write_lagging_images(space_state& s, const reader_table& t) {
  s.data_unflushed = true;
  std::vector<iovec> run;
  std::uint64_t run_at = 0;
  const auto write_run = [&] {
    if (const int e = pwritev_all(s.fd.get(), run.data(), run.size(), run_at))
      throw_errno(s.path, "write (the commits are durable in the log)", e);
    run.clear();
  };
  for (const std::uint64_t off : t.lagging.sorted_offsets()) {
    if (!run.empty() && off != run_at + run.size() * s.sys_page) write_run();
    if (run.empty()) run_at = off;
    run.push_back({t.lagging.find(off)->image.get(), static_cast<std::size_t>(s.sys_page)});
  }
  if (!run.empty()) write_run();
}

}  // namespace

void place_commit(space_state& s, std::uint64_t record_at, const std::vector<log_extent>& pages,
                  const std::vector<log_extent>& changes, const change_scan& scan) {
  const std::uint64_t g = s.committed.generation;
  reader_table* t = s.readers.get();
  if (t != nullptr) {
    ring_put(t->map, g, record_at);
    write_newest(t->map, g, s.committed);
  }
  const int fd = s.fd.get();
  std::uint64_t target = g;
  if (t != nullptr) {
    s.lag_chosen = lag_by_choice(s, *t, pages);
    target = s.lag_chosen ? t->file_gen : advance_target(*t, g);
  }
  if (target == g) {
    // Every byte the file lacks is in this process's mapping: the commit's
    // changes, and whole the pages earlier commits left lagging. Written in
    // place, not flushed (the log holds them until a checkpoint). Changes in
    // one page, or in two neighbouring pages, are written as one run: the
    // bytes between them are the file's already (and mapped: both pages are
    // this commit's copies), and a write call costs more than a few KiB of
    // copying (a commit's changes at random members lie in about 11 pages,
    // written by 11 calls instead of 15; a small store's commit by 4.8
    // instead of 7.5, two of its pages being neighbours).
    std::vector<log_extent> writes, lagging;
    for (const log_extent& e : changes) {
      if (!writes.empty() &&
          sys_pages(s, e.offset) - sys_pages(s, writes.back().offset + writes.back().length - 1) <=
              1)
        writes.back().length = e.offset + e.length - writes.back().offset;
      else
        writes.push_back(e);
    }
    if (t != nullptr && !t->lagging.empty()) {
      // Pages a compaction cut are no part of this commit (the file's end
      // goes below), nor mapped any more.
      for (const std::uint64_t off : t->lagging.sorted_offsets())
        if (off < s.size) lagging.push_back({off, s.sys_page});
      writes = merge_runs(writes, lagging);
    }
    for (const log_extent& r : writes) {
      if (const int e = pwrite_all(fd, s.base + r.offset, r.length, r.offset))
        throw_errno(s.path, "write (the commit is durable in the log)", e);
    }
    if (t != nullptr) file_caught_up(s, *t, g);
    // The private copies now equal the file. This commit's stay mapped, with
    // their images (kept_pages.cpp): the next edit of those pages needs no
    // fault and no copy. The pages earlier commits left lagging are dropped,
    // so that the page tables show only them and changes made after this
    // commit. Clean pages that reads mapped stay for free while there are
    // few of them (the next commit's walk reads each mapped page's entry), or
    // while a batch's commit wrote a fair share of their number
    // (clean_per_written). Past that they stay on rent: each commit's walk
    // adds its time, and once the rent reaches twice what dropping them
    // costs, or they are too many for this commit to walk
    // (clean_pages_should_go), the whole scanned range is dropped but for
    // the kept pages (the stretches between them in one call), so that the
    // walk stays cheap for a big space that reads touched widely (a later
    // read faults its page back from the page cache, same bytes). The drop
    // is timed: its price per page sets the next rent's limit.
    std::uint64_t written = 0;
    for (const log_extent& r : pages) written += sys_pages(s, r.length);
    space_state::clean_drop& last = s.last_drop;
    if (last.judging) {
      ++last.commits;
      last.saved_ns += last.walk_ns > scan.ns ? last.walk_ns - scan.ns : 0;
      const std::uint64_t fault_ns =
          s.fault_ns ? s.fault_ns : clean_fault_per_drop * drop_price(s);
      const drop_verdict v =
          judge_clean_drop(process_faults() - last.faults, fault_ns, last.saved_ns, last.commits);
      s.clean_bound = next_clean_bound(s.clean_bound, v, last.pages);
      last.judging = v == drop_verdict::pending;
    }
    const bool rented =
        scan.clean_mapped > std::max(clean_mapped_max, written * clean_per_written);
    if (rented) s.clean_rent_ns += scan.ns;
    if (rented && clean_pages_should_go(s.clean_rent_ns, scan.clean_mapped, drop_price(s), scan.ns,
                                        written, s.clean_bound)) {
      std::uint64_t end = scan.end;
      if (!pages.empty()) end = std::max(end, pages.back().offset + pages.back().length);
      if (!lagging.empty()) end = std::max(end, lagging.back().offset + lagging.back().length);
      keep_committed(s, pages, changes);
      const auto drop_start = std::chrono::steady_clock::now();
      std::vector<log_extent> stretches;
      std::uint64_t from = space_data_start;
      for (const std::uint64_t off : s.kept.sorted_offsets()) {
        if (off >= end) break;
        if (off > from) stretches.push_back({from, off - from});
        from = std::max(from, off + s.sys_page);
      }
      if (end > from) stretches.push_back({from, end - from});
      drop_ranges(s, stretches);
      price_drops(s, ns_since(drop_start), scan.clean_mapped);
      s.clean_rent_ns = 0;
      // What reading a dropped page back costs, timed on the first (the
      // space's head, which the next edit reads anyway): the price of the
      // faults that judge this drop.
      if (!stretches.empty() && stretches.front().offset < s.size) {
        const auto fault_start = std::chrono::steady_clock::now();
        const std::byte first = *static_cast<const volatile std::byte*>(s.base +
                                                                         stretches.front().offset);
        static_cast<void>(first);
        s.fault_ns = std::max<std::uint64_t>(1, ns_since(fault_start));
      }
      last = {process_faults(), scan.ns, 0, scan.clean_mapped, 0, true};
    } else {
      std::vector<log_extent> going;
      // Reported writes: the pages that lagged were kept (file_caught_up).
      if (!s.writes_reported) {
        for (const log_extent& r : lagging) {
          // A lagging page this commit changed again is kept with the others.
          const auto after = std::upper_bound(
              pages.begin(), pages.end(), r.offset,
              [](std::uint64_t off, const log_extent& p) { return off < p.offset; });
          if (after != pages.begin() &&
              r.offset < std::prev(after)->offset + std::prev(after)->length)
            continue;
          going.push_back(r);
          s.kept.erase(r.offset);
        }
      }
      drop_ranges(s, going);
      keep_committed(s, pages, changes);
    }
    return;
  }
  // A reader holds an older commit: this commit's pages stay private here,
  // each with its image as the commit left it (lagging, no longer kept).
  std::size_t next = 0;
  for (const log_extent& r : pages) {
    for (std::uint64_t off = r.offset; off < r.offset + r.length; off += s.sys_page) {
      page_image& l = t->lagging[off];
      if (page_image* k = s.kept.find(off)) {
        if (!l.image) l.image = std::move(k->image);  // its order entry goes stale
        s.kept.erase(off);
      }
      l.gen = g;
      if (l.image) {
        follow_changes(s, l.image.get(), off, changes, next);
      } else {
        l.image.reset(new std::byte[s.sys_page]);
        std::memcpy(l.image.get(), s.base + off, s.sys_page);
      }
    }
  }
  t->records.push_back({g, record_at});
  if (target <= t->file_gen) return;
  advance_from_log(s, *t, target);
  // No change since the commit: the private copies equal the file.
  forget_caught_up(s, *t, target, false);
}

void catch_up(space_state& s) {
  reader_table* t = s.readers.get();
  if (t == nullptr || t->file_gen == s.committed.generation) return;
  const std::uint64_t target = advance_target(*t, s.committed.generation);
  if (target <= t->file_gen) return;
  s.lag_chosen = false;  // what is left of the lag, if any, a reader's
  if (target == s.committed.generation && s.writes_reported && t->lagging.below(s.size)) {
    // Every page the file lacks is lagging, with its image as the newest
    // commit left it: written from the images (no read of the log, and
    // uncommitted changes in the mapping stay out), then kept.
    write_lagging_images(s, *t);
    file_caught_up(s, *t, target);
    return;
  }
  advance_from_log(s, *t, target);
  // The pages may have changed since their commit (not committed yet).
  forget_caught_up(s, *t, target, true);
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
