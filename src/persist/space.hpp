// src/persist/space.hpp: what the sources of fl::mapped_space share: the
// state behind the handle, the constants of growth and recovery, and the
// helpers each file offers the others. Private to src/persist/. The sources
// are split by file format: each format of persist_format.hpp is read and
// written in one file.
//   value_file.cpp    fl::persist<T>'s value file (save, load, update)
//   meta.cpp          the meta page: checks, the newest slot, the slot write
//   log_record.cpp    the redo log's record: written, read and checked,
//                     replayed; the format-1 log header
//   page_crc.cpp      the page checksums and their table
//   allocator.cpp     blocks, size classes, free lists, deferred batches,
//                     growth, compact()
//   pstring.cpp       fl::pstring
//   reader_table.cpp  "<path>-readers": the table's words (reader_table.hpp),
//                     readers' pins, open and refresh of a reader
//   lagging_file.cpp  the writer beside readers: the file lagging at the
//                     oldest pin, moved forward from the log; the log's restart
//   reservation.cpp   the address range and its reuse by the next open
//   open.cpp          open and recovery, creation, the writer lock, rename
//   commit.cpp        sync() (the dirty-page scan, the commit protocol),
//                     checkpoint, rollback, verify
// Functions of one file that the others do not call have internal linkage
// there.
#pragma once

#include "persist/persist_format.hpp"
#include <fl/mapped_space.hpp>

#include "persist/page_bits.hpp"
#include "persist/page_images.hpp"
#include "persist/posix.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <sys/stat.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// How a space maps: its whole address range is reserved (inaccessible,
// anonymous, no swap accounted), and the file is mapped over the range's
// start, private and read-write (writes reach the file only through a
// commit). Every mmap of the space's sources uses these.
inline constexpr int reserve_prot = PROT_NONE;
inline constexpr int reserve_flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
inline constexpr int file_prot = PROT_READ | PROT_WRITE;
inline constexpr int file_flags = MAP_PRIVATE;

// The pages write_fresh() put in the file since the last commit: their runs,
// and each page's CRC, in the runs' order, taken from the bytes as they were
// written: the commit's checksum table takes them without reading the pages
// back through the mapping (a fault and a first touch per page; an import's
// whole file).
struct fresh_pages {
  std::vector<log_extent> runs;
  std::vector<std::uint32_t> crcs;  // one per space_page of runs, in order
  bool empty() const noexcept { return runs.empty(); }
  void clear() noexcept {
    runs.clear();
    crcs.clear();
  }
};

// The file a mapping maps, by device and inode.
struct file_id {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const file_id&) const = default;
};
inline file_id id_of(const struct stat& sb) noexcept { return {sb.st_dev, sb.st_ino}; }

// The reader table ("<path>-readers", persist_format.hpp) as one
// handle sees it, and what the writer keeps to honour it. See
// reader_table.cpp for the protocol.
struct reader_table {
  unique_fd fd;             // the table file; its OFD lock on a slot's byte owns the slot
  std::byte* map = nullptr;  // MAP_SHARED, reader_file_bytes
  // A reader: its slot and the generation its mapping shows; its log, open
  // while it reads records.
  int slot = -1;
  unique_fd log_fd;
  std::uint64_t log_bytes = 0;  // log_fd's size when last looked up (0: unknown)
  // A refresh reads a record whole, head and page images, in one pread of
  // the size of the last record it read (reader_table.cpp, read_whole_record).
  std::vector<std::byte> record_buf;
  std::uint64_t record_guess = 0;
  // The table file's inode: a reader's table is kept at close for the next
  // reader of the same inode (reader_table.cpp); 0 when unknown.
  dev_t dev = 0;
  ino_t ino = 0;
  // The data file it was opened for (kept with it: the next reader of the
  // same data file takes it without a stat, and checks it under its lock).
  file_id data;
  // The writer: the commit the data file holds in place (older than the
  // newest while a reader holds an older one), the log records of the commits
  // after it, and the pages the mapping holds privately because the file
  // lacks them, each with the commit that last changed it and the page as
  // that commit left it. The image is kept here, not found in the log: a
  // record holds only the bytes its commit changed, and the writer compares
  // a lagging page with its last commit's image (drop_unchanged_lagging),
  // logs its changes against it (log_changes) and rolls back to it.
  std::uint64_t file_gen = 0;
  struct logged {
    std::uint64_t gen;
    std::uint64_t at;
  };
  std::vector<logged> records;
  page_images lagging;

  reader_table() = default;
  reader_table(const reader_table&) = delete;
  reader_table& operator=(const reader_table&) = delete;
  ~reader_table();
};

// Past this many clean pages mapped (64 MiB) a commit drops them whatever
// their rent, until drops prove that wasted (the clean-page rules below).
inline constexpr std::uint64_t clean_rented_max = 16384;

struct space_state {
  std::filesystem::path path;
  std::filesystem::path log_path;
  unique_fd fd;      // the data file, locked (flock LOCK_EX) while open
  unique_fd log_fd;  // opened (and created) by the first sync
  bool log_name_durable = false;
  // The log: where the next record goes, and the bytes of the file known
  // written (records overwrite them; past it a record is followed by zeros,
  // so that later records overwrite written blocks: see write_record).
  std::uint64_t log_head = 0;
  std::uint64_t log_written = 0;
  // The meta slots on disk: the newest one's index and write count, and
  // whether it has meta_log_bit (commits since it are in the log only).
  int newest_slot = 0;
  std::uint32_t meta_seq = 0;
  bool log_open = false;
  bool data_unflushed = false;   // pages or a slot written since the last fdatasync of the file
  bool slot_unflushed = false;   // the newest slot was written while not durable
  // A write or a flush of the data file failed after the log took a commit
  // (the commit's pages in place, or an fdatasync, after which the kernel may
  // have dropped the pages it could not write and a later flush succeeds
  // without them): the file may lack committed pages that only the log
  // holds, so no checkpoint runs, and sync() and rollback() refuse until the
  // space is reopened (the open replays the log).
  bool in_place_failed = false;
  // The data file lags the newest commit by the writer's choice, not a
  // reader's pin (lag_by_choice in lagging_file.cpp): sync() leaves it
  // behind for the commit to catch up (or not) in place_commit.
  bool lag_chosen = false;
  // rename(): the file was renamed from here and a later step failed; a
  // rename() onto the same name again finishes the steps (empty: none).
  std::filesystem::path renamed_from;
  // Page runs past the committed file that write_fresh() wrote to the file
  // directly since the last commit (clean in the mapping, so not logged).
  fresh_pages fresh;
  bool created = false;
  bool durable = true;
  // mapped_space_options::writes_reported: the owner reports each write it
  // makes through the mapping (mapped_space::wrote), and the space reports
  // its own (note_write); a commit takes its candidate pages from `written`
  // instead of walking the page tables, whose walk visits every page reads
  // mapped. `written` holds the number of each system page reported since
  // the last commit once (`written_pages`, a bit per page, says which are
  // in): a batch's thousands of reports of the same few pages cost a bit
  // test each, and the commit sorts the pages, not the reports.
  // `check_reports` (the environment's FL_CHECK_WRITES=1, for tests): each
  // commit walks the page tables as well and refuses a changed page no
  // report named.
  bool writes_reported = false;
  bool check_reports = false;
  std::vector<std::uint64_t> written;
  page_bits written_pages;
  // Set when a later open of the same file in this process became its writer
  // (see open_writer in open.cpp): every call that reads through
  // checks or writes throws, and the close writes nothing.
  std::atomic<bool> retired{false};
  std::uint64_t sys_page = 4096;  // a power of two (the open refuses others)
  std::uint64_t granule = 65536;  // growth unit: a multiple of both page sizes
  std::byte* base = nullptr;      // start of the reserved range = file offset 0
  std::uint64_t reserve = 0;      // bytes reserved at base
  std::uint64_t size = 0;         // bytes of the file mapped (= the file's size)
  // compact() lowered `size` from this (the file's size on disk, still
  // mapped past `size`); the next commit cuts the file. 0: nothing pending.
  std::uint64_t shrink_from = 0;
  // A committed shrink found the file behind the newest commit (a reader
  // holds an older one), so the file keeps its end up to here: those bytes
  // belong to no committed state of this size, and growth zeroes what it maps
  // of them. 0: the file ends at `size`.
  std::uint64_t stale_end = 0;
  // Growth zeroed the mapping over that end up to here (private pages the
  // file does not hold): the next commit logs them even past the top, or a
  // reopen would read the end's old bytes where a zero page's checksum is.
  std::uint64_t zeroed_end = 0;
  // compact() dropped the page-CRC table: the next commit carves a new one
  // and computes every page's CRC.
  bool table_rebuild = false;
  // The CRC-32C of the page checksum table as the mapping holds it, kept
  // through every change of its entries (update_page_crcs), so that a commit
  // reads no more of the table than it changed (the whole table is 1 KiB per
  // MiB of file). Not known, or known of another table (grown, replaced,
  // rebuilt): computed whole by the next commit.
  struct followed_crc {
    bool known = false;
    std::uint64_t at = 0, bytes = 0;  // the table it is of
    std::uint32_t crc = 0;
  } mapped_table_crc;
  std::uint64_t remaps = 0;
  space_alloc_state alloc{};  // live
  // Deferred frees (persist_format.hpp, "deferred frees"): the blocks retired
  // since the last commit, then the batches of earlier commits not yet
  // released, oldest first (the chain on disk runs newest first from
  // deferred_head). Loaded from the committed chain on first use.
  struct deferred_batch {
    std::uint64_t generation;
    std::uint64_t block;  // the batch's own block (payload offset)
    std::vector<std::uint64_t> offsets;
  };
  std::vector<std::uint64_t> retired_blocks;
  std::deque<deferred_batch> deferred;
  std::uint64_t deferred_head = 0;   // the newest batch, as the next commit records it
  std::uint64_t deferred_bytes = 0;  // class bytes of retired and batched blocks
  bool deferred_loaded = false;
  space_meta committed{};     // the last commit, as on disk
  std::uint64_t last_sync_pages = 0;
  std::uint64_t last_sync_log_bytes = 0;
  // Pages a commit wrote and left mapped as private copies (kept_pages.cpp),
  // each with the commit that last changed it and its bytes then. They
  // equal the file, but the page tables show them as written, so each
  // commit compares them with their image and leaves out the unchanged.
  page_images kept;
  // A space whose writes are reported: (the commit that last changed it,
  // offset) of each kept page, in the order the pages were kept, which is
  // the order they leave in once kept_max are kept. An entry whose page left
  // `kept`, or was kept again since, is stale and skipped (the page's gen
  // tells).
  std::deque<std::pair<std::uint64_t, std::uint64_t>> kept_order;
  // The rent of the clean pages reads mapped (place_commit in
  // lagging_file.cpp): the time the change scans spent while more were
  // mapped than a commit keeps for free, since they were last dropped, and
  // what a drop cost a page when last measured.
  std::uint64_t clean_rent_ns = 0;
  std::uint64_t drop_ns_per_page = 0;  // 0: not measured yet
  // How many clean pages may stay mapped whatever their rent
  // (clean_pages_should_go), within [clean_rented_max, clean_bound_max]:
  // raised past a drop that the next commits' faults proved wasted, halved
  // after one they did not (judge_clean_drop, next_clean_bound).
  std::uint64_t clean_bound = clean_rented_max;
  std::uint64_t fault_ns = 0;      // a read fault, timed after the last drop (0: not yet)
  // The last drop of clean pages, while the commits after it judge it:
  // the process's page faults then, the walk it saved, commits since.
  struct clean_drop {
    std::uint64_t faults = 0;
    std::uint64_t walk_ns = 0;   // the walk of the commit that dropped them
    std::uint64_t saved_ns = 0;  // walk time the commits since have saved
    std::uint64_t pages = 0;     // the clean pages it dropped
    std::uint32_t commits = 0;
    bool judging = false;
  } last_drop;
  // What comparing a kept page with its image cost, as last timed (0: not
  // yet): the rent of a kept page (kept_commits_for).
  std::uint64_t compare_ns_per_page = 0;
  // One bit per committed page: set once the page is known to hold what the
  // last commit wrote (checked against its CRC, or written by this process).
  // Atomic bit operations (std::atomic_ref), so const readers may share it.
  mutable page_bits verified;
  bool read_only = false;
  // A reader's mapping holds pages that are not the file's (records read
  // from the log, zeros past the file's end): its close unmaps them.
  bool private_pages = false;
  // A reader's mapping shows exactly commit `committed` (set by an open or a
  // refresh that completed, cleared while a refresh writes into it): its
  // close may leave it, private pages and all, for the next reader of this
  // process that pins the same commit (give_reservation, take_reader_view).
  bool view_exact = false;
  // The bytes of records a reader copied into its mapping, over its life and
  // the lives of the views it took: its private pages are about as many, and
  // a view holding more than view_keep_bound is not left at close.
  std::uint64_t view_log_bytes = 0;
  file_id file;  // the file mapped (set by the open)
  // A reader's refresh found that the path names another file (another
  // store's commit in the reader table): mapped_space::replaced().
  bool replaced = false;
  std::unique_ptr<reader_table> readers;  // the reader table (writer and readers)
};

// The end of the file's bytes past the committed size that a reader's older
// commit may still read: a shrink a reader held back (stale_end), or the part
// of it that growth has since zeroed in the mapping (zeroed_end). Nothing but
// a commit's pages through the log, written in place once the file may move,
// changes the file below it (write_fresh and rollback go around it). 0 when
// the file ends at the committed size.
inline std::uint64_t readers_end(const space_state& s) noexcept {
  return std::max(s.stale_end, s.zeroed_end);
}

inline constexpr std::uint64_t initial_file_size =
    4 * space_page;  // 2 meta pages + 2 pages of blocks: the smallest valid file
// A new file's size: room for the blocks a new space carves at once (a
// json_store's head, the page checksum table and the change feed's ring,
// 28 KiB), so that its creation does not grow the file and its mapping
// twice more (two fallocate and two mmap calls).
inline constexpr std::uint64_t created_file_size = 8 * space_page;
static_assert(created_file_size >= initial_file_size);
inline constexpr std::uint64_t default_reserve = std::uint64_t{64} << 30;
// Below this size the file grows in system pages rather than granules.
inline constexpr std::uint64_t small_file_bytes = std::uint64_t{1} << 20;
inline constexpr std::uint64_t max_growth_step = std::uint64_t{1} << 30;
inline constexpr std::uint64_t growth_divisor = 8;  // growth step: file size / 8
// allocate() may take a free block up to this many classes above the one
// asked for (up to 32 bytes more below 128, up to ~56% above) before carving.
inline constexpr unsigned space_fit_classes = 2;
inline constexpr std::size_t copy_chunk = std::size_t{1}
                                          << 20;  // bounded buffers for log reading and replay
// Clean pages a commit leaves mapped (see mapped_space::sync, step 3): up to
// 1 MiB of them, whose page-table entries a commit's walk reads in a few
// microseconds, or
// clean_per_written for each page the commit wrote when that is more. A
// commit of a batch of edits paid a fault and a copy for each page it wrote;
// the walk of four clean pages a commit costs less than one such fault, and
// the next batch reads the same pages again.
inline constexpr std::uint64_t clean_mapped_max = 256;
inline constexpr std::uint64_t clean_per_written = 4;
// Past those bounds clean pages stay until the walks they cost add up to
// what dropping them costs (a ski rental: whatever the machine charges for
// either, never more than a small multiple of the cheaper of the two). The
// prices differ by machine: on a VM where every page-table change is a call
// to the host, a walk costs about 13 ns a mapped page and a drop 3.4 us a
// page, 260 walks (docs/performance.md, "Durable edits where faults are
// dear"); where the hardware walks the guest's page tables a drop costs a
// fraction of that. A drop is priced by timing it; before the first at
// drop_ns_per_page_first. The price is held within [drop_ns_per_page_min,
// drop_ns_per_page_max], so that one drop slowed by preemption does not
// keep pages for thousands of commits.
// Past clean_rented_max pages (64 MiB) they go whatever their rent, unless
// the commit wrote enough pages to pay for the walk (it cost at most twice
// what dropping the commit's own pages does): a walk of 64 MiB costs about
// 0.2 ms here, and a sweep that mapped a whole 1.4 GB store would otherwise
// cost every small commit 4.5 ms for hundreds of commits before its rent
// ran out, while a batch of edits that wrote hundreds of pages walks the
// 140 MB store it reads in half a millisecond, and its next batch reads the
// same pages.
// clean_rented_max: declared before space_state, whose clean_bound starts at it.
// The most the bound grows to (1 GiB of pages: a walk of about 3 ms here).
inline constexpr std::uint64_t clean_bound_max = std::uint64_t{1} << 18;
inline constexpr std::uint64_t drop_ns_per_page_first = 1000;
inline constexpr std::uint64_t drop_ns_per_page_min = 100;
inline constexpr std::uint64_t drop_ns_per_page_max = 10000;
// Whether clean pages whose walks cost `rent_ns` since they were last
// dropped should go now: `mapped` of them, at `drop_ns_per_page` each,
// after a commit that wrote `written` pages and walked them in `walk_ns`. A
// page dropped costs its drop and, when read again, its share of a fault
// (a fault maps a window of pages, and costs about what dropping them
// does): the price is twice the drop's.
// `bound`: the space's clean_bound (clean_rented_max until drops prove
// wasted).
constexpr bool clean_pages_should_go(std::uint64_t rent_ns, std::uint64_t mapped,
                                     std::uint64_t drop_ns_per_page, std::uint64_t walk_ns,
                                     std::uint64_t written,
                                     std::uint64_t bound = clean_rented_max) noexcept {
  if (mapped > bound && walk_ns > 2 * written * drop_ns_per_page) return true;
  return rent_ns >= 2 * mapped * drop_ns_per_page;
}
// A drop of clean pages is judged by the commits after it (up to
// clean_drop_commits): wasted once the page faults taken since cost more
// than twice the walk time the drop saved them, so the working set was
// read again, and the bound grows; fine when the commits pass without
// that, and the bound halves. Mapped pages are counted by page-table entry,
// and a read fault maps a window of up to 16 (or a whole large folio): a
// ring of a thousand random members of a 1.3 GB store, read and set in
// batches, maps some 300 MB, which the fixed 64 MiB bound dropped every few
// commits, and each set then faulted its lookup's pages back, 2.6 faults
// and 78 us a set. A fault is priced by timing one read of a dropped page
// after each drop (here 20-30 us), at clean_fault_per_drop drops of a page
// before the first.
inline constexpr std::uint32_t clean_drop_commits = 4;
inline constexpr std::uint64_t clean_fault_per_drop = 8;
enum class drop_verdict { pending, wasted, fine };
constexpr drop_verdict judge_clean_drop(std::uint64_t faults, std::uint64_t fault_ns,
                                        std::uint64_t saved_ns, std::uint32_t commits) noexcept {
  if (faults * fault_ns > 2 * saved_ns) return drop_verdict::wasted;
  return commits >= clean_drop_commits ? drop_verdict::fine : drop_verdict::pending;
}
// `dropped`: the pages the judged drop took; a wasted drop sets the bound
// past them (twice), so that one such drop, not one per doubling, teaches it.
constexpr std::uint64_t next_clean_bound(std::uint64_t bound, drop_verdict v,
                                         std::uint64_t dropped = 0) noexcept {
  if (v == drop_verdict::wasted) {
    const std::uint64_t grown = std::max(bound * 2, dropped * 2);
    return grown > clean_bound_max ? clean_bound_max : grown;
  }
  if (v == drop_verdict::fine) return bound / 2 < clean_rented_max ? clean_rented_max : bound / 2;
  return bound;
}
// Pages a commit keeps mapped after writing them (kept_pages.cpp), and how
// many commits one stays while unchanged: at least kept_commits (a commit's
// blocks come back two commits later, retired, then reused; the head and
// checksum pages at once; a batch of edits writes the pages the batch
// before it wrote), and on rent up to kept_commits_max: each commit
// compares a kept page with its image, and a page stays until those
// compares cost twice what dropping it does (the drop, and the fault and
// copy when it is written again). Where page-table changes are calls to the
// host a drop costs 3.4 us and a compare a few hundred ns: pages stay about
// twenty commits, and an added member at 1m took 5.4 faults a commit with
// two, 0.6 with 32. Up to 64 MiB of images (kept_max pages); a bigger
// commit (an import) drops its pages. Why that many: erases of a ring of
// 1,024 random members at 10m (each put back) write some 3,700 pages a pass
// over the ring, the key blocks and key-tree leaves the next pass reads; with
// 4,096 kept at most they were dropped before it came back, and each erase
// took 3.7 read faults (69 us an erase, against 9 us with all kept).
inline constexpr std::size_t kept_max = 16384;
inline constexpr std::uint64_t kept_commits = 2;
inline constexpr std::uint64_t kept_commits_max = 64;
// The commits a kept page stays unchanged before it goes, at the measured
// prices of a drop and of a compare (ns a page; 0: not measured yet).
constexpr std::uint64_t kept_commits_for(std::uint64_t drop_ns_per_page,
                                         std::uint64_t compare_ns_per_page) noexcept {
  if (compare_ns_per_page == 0) return kept_commits;
  const std::uint64_t stay = 2 * drop_ns_per_page / compare_ns_per_page;
  return stay < kept_commits ? kept_commits : stay > kept_commits_max ? kept_commits_max : stay;
}
// How many pages may stay kept after a commit that wrote `written`: as many
// as the next commit compares for twice what dropping the commit's own
// pages costs, within [kept_pages_min, kept_max]. A batch of edits that
// wrote a thousand pages keeps up to kept_max of them for the next batch;
// single edits keep a few hundred, so the compares of what a batch left
// do not go on for the next dozens of single-edit commits.
inline constexpr std::uint64_t kept_pages_min = 64;
constexpr std::uint64_t kept_pages_for(std::uint64_t written, std::uint64_t drop_ns_per_page,
                                       std::uint64_t compare_ns_per_page) noexcept {
  if (compare_ns_per_page == 0) return kept_max;
  const std::uint64_t fit = 2 * written * drop_ns_per_page / compare_ns_per_page;
  return fit < kept_pages_min ? kept_pages_min : fit > kept_max ? kept_max : fit;
}
// What dropping a mapped page costs, as last timed, and the timing of `pages`
// dropped in `ns` (held within the bounds above).
inline std::uint64_t drop_price(const space_state& s) noexcept {
  return s.drop_ns_per_page ? s.drop_ns_per_page : drop_ns_per_page_first;
}
inline void price_drops(space_state& s, std::uint64_t ns, std::uint64_t pages) noexcept {
  if (pages == 0) return;
  s.drop_ns_per_page = std::clamp(ns / pages, drop_ns_per_page_min, drop_ns_per_page_max);
}
// Nanoseconds since `t0`, a steady clock's reading.
inline std::uint64_t ns_since(std::chrono::steady_clock::time_point t0) noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
}

[[noreturn]] inline void fail(const space_state& s, const std::string& reason) {
  throw persist_error(s.path, reason);
}

inline block_header load_header(const std::byte* base, std::uint64_t off) noexcept {
  block_header h;
  std::memcpy(&h, base + off, sizeof h);
  return h;
}
inline void store_header(std::byte* base, std::uint64_t off, block_header h) noexcept {
  std::memcpy(base + off, &h, sizeof h);
}
inline std::uint64_t load_u64(const std::byte* base, std::uint64_t off) noexcept {
  std::uint64_t v;
  std::memcpy(&v, base + off, sizeof v);
  return v;
}
inline void store_u64(std::byte* base, std::uint64_t off, std::uint64_t v) noexcept {
  std::memcpy(base + off, &v, sizeof v);
}

// ---- allocator.cpp ----

// The oldest generation whose state may still be read: blocks that commit g
// no longer reaches are reused once this is g or later. The one place that
// decides it: the last commit (it is durable once sync() returns; the state
// before it is then never read again).
inline std::uint64_t oldest_needed_generation(const space_state& s) noexcept {
  return s.committed.generation;
}
// Reads the committed chain of deferred batches into s.deferred, once per
// open or rollback (checked: bounds, live blocks, generations, length).
void load_deferred(space_state& s);
// The bytes of retired blocks not yet reusable (and of their batches): the
// loaded lists', else the committed chain's, walked without loading it
// (stats() after an open).
std::uint64_t deferred_bytes(const space_state& s);
// Returns to the free lists every batch that oldest_needed_generation()
// allows, and drops the batches from the chain. Part of the next commit.
void release_deferred(space_state& s);
// sync(): writes the blocks retired since the last commit as a new batch of
// generation `generation` (one block) at the head of the chain.
void write_retired_batch(mapped_space& space, space_state& s, std::uint64_t generation);

// A failed fdatasync of the data file (errno `err`): after it the file may
// lack pages it was given, so the handle refuses commits until reopened
// (space_state::in_place_failed); throws persist_error "fdatasync: <err>".
[[noreturn]] inline void fail_flush(space_state& s, const std::filesystem::path& p, int err) {
  s.in_place_failed = true;
  throw_errno(p, "fdatasync", err);
}

// ---- open.cpp ----

// Throws persist_error if a later open of this file in this process has
// taken it over (space_state::retired).
inline void check_not_retired(const space_state& s) {
  if (s.retired.load(std::memory_order_relaxed)) [[unlikely]]
    fail(s,
         "superseded: a later open of this file in this process is its writer now; this "
         "handle can only be destroyed");
}
// Throws persist_error unless the names s.path and (when open) s.log_path
// still refer to the files this space holds: a commit never writes into a
// data file or a log that another writer replaced. Two statx calls that ask
// for the link count alone (stat_field in posix.hpp).
void check_bound(const space_state& s);
// Opens s.path as its writer (see open.cpp): s.fd then holds
// the file's lock and `sb` its fstat. Returns the earlier handle of this
// process it takes the file over from, or nullptr.
space_state* open_writer(space_state& s, open_mode mode, struct stat& sb);
// fsyncs the directory holding `p` (its new or renamed entry is durable).
void fsync_parent(const std::filesystem::path& p);

// ---- meta.cpp ----

// Checks a meta slot read from a file of `file_bytes` bytes: empty if valid,
// else the reason.
std::string check_meta(const space_meta& m, std::uint64_t file_bytes);
// The part of check_meta that depends on the file's size (the rest passes
// with file_bytes = ~0): empty if the file holds the committed size.
std::string check_size(const space_meta& m, std::uint64_t file_bytes);
space_meta make_meta(std::uint64_t uuid, std::uint64_t generation, std::uint64_t file_size,
                     const space_alloc_state& a);
// The two meta slots as read from a file: each one's meta and, if it is not
// valid, why (check_meta without the size check, and the page's padding);
// `newest` is the slot of the newest state (by write count, then generation),
// or -1 with `why[0]` the reason when neither slot can be used.
struct meta_slots {
  space_meta meta[2];
  std::string why[2];
  int newest = -1;
};
meta_slots read_slots(const std::byte* two_pages);
// Both slots of s.fd (the file s.file, at least initial_file_size bytes: an
// open's) read in one pread, or from a mapping a closed space left of it
// (read_kept_file), and checked; throws persist_error (the reason) when
// neither slot can be used, so `newest` is a slot.
meta_slots read_meta_slots(const space_state& s);
// Writes `m` with `log_bit` into the older meta slot and flushes the file
// (when durable): the one way a meta reaches its slot after creation.
void write_slot(space_state& s, space_meta m, bool log_bit);
// write_slot without the throw: 0 or the errno (`flush_failed`, if given,
// tells a failed fdatasync, which marks the handle as fail_flush does).
int put_slot(space_state& s, space_meta m, bool log_bit, bool* flush_failed = nullptr) noexcept;

// ---- reservation.cpp ----

// A reserved range of exactly `bytes` left by a closed space, with the file
// `fd` of `file_bytes` bytes mapped (private, read-write) at its start, or
// nullptr (no such range, or its start was taken meanwhile: then released).
// When a closed space left `file` (the file of `fd`) mapped there
// (give_reservation), that mapping is fitted to `file_bytes` and taken with
// its page tables: no mmap, and no fault on the pages it had read.
void* take_reservation(std::uint64_t bytes, int fd, std::uint64_t file_bytes,
                       const file_id& file) noexcept;
// Releases closing space `s`'s range: the s.size bytes that map its file are
// unmapped; the rest is kept for the next open if none is kept yet, else
// unmapped too. When `clean` (the mapping holds no private page: every
// mapped page is the page cache's, so it shows what the file holds whenever
// it is read; a writer's lock released), the file stays mapped, and s.fd
// open (moved out of s), for the next open of that file (take_reservation)
// and of s.path (take_kept_fd), until another open takes the range, or
// remove() or a rename() over the file drops them (drop_kept_file).
// A reader's mapping whose view is exact (space_state::view_exact) is left
// too, private pages and all, as a view of its commit: the next reader of
// the same file and commit takes it (take_reader_view); any other open
// unmaps it first.
void give_reservation(space_state& s, bool clean) noexcept;
// The range a closed reader of this process left with its view of
// `commit` (its meta, generation included) in `file` (reserved `bytes`), or
// nullptr. Sets `size` to the bytes its mapping covers and `log_bytes` to
// its view_log_bytes. The view is still that commit's whatever the file did
// since: generations only grow, so the newest commit still being this one
// means no commit came since, and the file moves only towards the newest
// commit, over pages the view holds privately (every page a commit after the
// file's state at that reader's open changed, read whole into the view).
void* take_reader_view(std::uint64_t bytes, const file_id& file, const space_meta& commit,
                       std::uint64_t& size, std::uint64_t& log_bytes) noexcept;
// The most record bytes a view left at close may hold (its private pages
// stay allocated until the next open): the log's own bound.
inline constexpr std::uint64_t view_keep_bound = log_bound;
// The descriptor a closed space left open with its kept mapping, if it was
// opened by `path` in this process (read-write when `writable`); `file`, if
// given, receives which file it is. Else none, and the caller opens the
// path. The path may name another file by now: the caller checks, after its
// lock for a writer, as for a descriptor it opened.
unique_fd take_kept_fd(const std::filesystem::path& path, bool writable,
                       file_id* file = nullptr) noexcept;
// Copies the first `bytes` of `file` from the mapping a closed space left of
// it, as a read of the file would (its pages are the page cache's): no
// system call. False when no such mapping holds them. The caller has seen
// the file hold them (a page past its end would fault).
bool read_kept_file(const file_id& file, void* out, std::uint64_t bytes) noexcept;
// Unmaps the file a closed space left mapped if it is `file` (about to be
// removed or replaced: the mapping would keep its blocks).
void drop_kept_file(const file_id& file) noexcept;

// ---- log_record.cpp ----

// The head of a record of commit `m` (byte ranges `runs`, whose bytes have
// CRC `data_crc`, from record_data_crc): what precedes the bytes in the log;
// the record's zeros after them are the writer's to add (record_span).
std::vector<std::byte> encode_record_head(const space_meta& m, const std::vector<log_extent>& runs,
                                          std::uint32_t data_crc);
// The generation a log's run starts with, given the one the meta slot names:
// the record at offset 0 may be of a later commit (a log restarted beside a
// reader: restart_log_beside_readers), whose page images cover every page
// the data file lacks. Returns `named` unless a record of file `uuid` with a
// later generation is at offset 0.
std::uint64_t run_first_generation(int log_fd, std::uint64_t uuid, std::uint64_t named);

// Writes the log record of commit `m` (changed byte ranges `runs`, as the
// mapping holds them) at the log's head, opening or creating the log first,
// unflushed; returns its size.
std::uint64_t write_record(space_state& s, const space_meta& m,
                           const std::vector<log_extent>& runs);
// Truncates the log to `keep` bytes after a checkpoint left it unneeded (a
// clean close keeps no multi-megabyte log). Errors are ignored: the log's
// content is not needed.
void shrink_log(space_state& s, std::uint64_t keep) noexcept;
// The bytes a commit logs: the byte ranges of the pages in `pages` (sorted
// page runs) that differ from what the last commit left there. Below
// `committed_bytes` (the last commit's file size) a page is compared with the
// image kept of it (a lagging or a kept page's), else with the data file,
// which holds that commit's page;
// pages past it are logged whole (the file's bytes there are no commit's).
// A range ends where 64 bytes in a row are unchanged.
std::vector<log_extent> log_changes(const space_state& s, const std::vector<log_extent>& pages,
                                    std::uint64_t committed_bytes);
// Sorted union of two sorted run lists, overlapping and adjacent runs joined.
std::vector<log_extent> merge_runs(const std::vector<log_extent>& a,
                                   const std::vector<log_extent>& b);
// The system pages in `bytes` (or the page number of offset `bytes`), and
// the start of the page holding `off`: a shift and a mask, sys_page being a
// power of two, where a division by it, a runtime value, is a 64-bit `div`,
// and an edit's dozen or more write reports each took two.
inline std::uint64_t sys_pages(const space_state& s, std::uint64_t bytes) noexcept {
  return bytes >> __builtin_ctzll(s.sys_page);  // never 0: no zero case
}
inline std::uint64_t sys_page_floor(const space_state& s, std::uint64_t off) noexcept {
  return off & ~(s.sys_page - 1);
}
// Appends the run [off, off + len) to `runs`, whose runs all end at or before
// `off`, joined to the last run when it ends there.
inline void append_run(std::vector<log_extent>& runs, std::uint64_t off, std::uint64_t len) {
  if (!runs.empty() && runs.back().offset + runs.back().length == off)
    runs.back().length += len;
  else
    runs.push_back({off, len});
}
// Records that [off, off + len) of the mapping was written (a space whose
// writes are reported: space_state::writes_reported). Every write the space
// itself makes through the mapping goes through here.
// FL_CHECK_WRITES=1 in the environment (read once).
bool checks_reports() noexcept;
// Enters system page `page`, not yet reported, in s.written.
void note_written_page(space_state& s, std::uint64_t page);
inline void note_write(space_state& s, std::uint64_t off, std::uint64_t len) {
  if (!s.writes_reported || len == 0) return;
  const std::uint64_t last = sys_pages(s, off + len - 1);
  for (std::uint64_t p = sys_pages(s, off); p <= last; ++p)
    if (!s.written_pages.test(p)) note_written_page(s, p);
}
// Empties s.written: its pages are committed, or the file's again.
void forget_reports(space_state& s) noexcept;
// Drops from `runs` (sorted page runs) every page that `images` (the
// lagging or the kept pages) holds an image of equal to the mapping's bytes:
// the page is as its commit left it, so a commit leaves it out.
inline void drop_pages_matching_images(const space_state& s, const page_images& images,
                                       std::vector<log_extent>& runs) {
  std::vector<log_extent> out;
  for (const log_extent& r : runs) {
    for (std::uint64_t off = r.offset; off < r.offset + r.length; off += s.sys_page) {
      const page_image* p = images.find(off);
      if (p == nullptr || std::memcmp(p->image.get(), s.base + off, s.sys_page) != 0)
        append_run(out, off, s.sys_page);
    }
  }
  runs = std::move(out);
}
// A record of the log whose head was read and checked: its place, head,
// meta and extents.
struct record_head {
  std::uint64_t at = 0;
  log_record head{};
  space_meta meta{};
  std::vector<log_extent> extents;
  // Where its page images start in the log.
  std::uint64_t data_at() const noexcept {
    return at + record_head_bytes(extents.size(), head.format_version);
  }
};
// Reads the head of the record at `at` of a log of `log_bytes` bytes; true if
// it holds commit `gen` of file `uuid`: marks, format 2 or later, the head's
// CRC, the meta, every extent inside the meta's file size and in order, their
// sum. The page images are not read.
bool read_record_head(int log_fd, std::uint64_t log_bytes, std::uint64_t at, std::uint64_t uuid,
                      std::uint64_t gen, record_head& r);
// read_record_head over bytes already read: the `have` bytes of the log at
// `at` (at least a page) hold the whole record of commit `gen`, its page
// images included; false otherwise, or if a check fails.
bool parse_record_head(const std::byte* bytes, std::uint64_t have, std::uint64_t at,
                       std::uint64_t uuid, std::uint64_t gen, record_head& r);
// True if the record's page images match its data CRC (read in bounded chunks).
bool record_data_matches(int log_fd, const record_head& r);
// Both: every byte of the record checked.
bool read_record(int log_fd, std::uint64_t log_bytes, std::uint64_t at, std::uint64_t uuid,
                 std::uint64_t gen, record_head& r);
// After the last valid record of a run (ending at `from`, generation
// `next_gen` expected): throws persist_error if a valid record of a later
// commit lies past it (a record in between was damaged).
void check_no_later_record(const space_state& s, int log_fd, std::uint64_t log_bytes,
                           std::uint64_t from, std::uint64_t uuid, std::uint64_t next_gen);
// Writes record `r`'s bytes from the log into the data file `fd` at their
// places (`buf`: scratch, kept between calls). Returns 0, -1 if the log
// could not be read (errno set, or 0 for a short read), or a write's errno.
int write_record_in_place(int log_fd, const record_head& r, int fd, std::vector<std::byte>& buf);
// Writes the records' bytes into the data file, in order, and flushes it.
void replay(const space_state& s, int log_fd, const std::vector<record_head>& run);
// Throws persist_error if a format-1 file's log holds a commit it never finished.
void refuse_unfinished_v1(const space_state& s, const space_meta& m);

// ---- page_crc.cpp ----

// The checksum of page `page` (4 KiB at base + page * 4096), and of the
// page-CRC table `a` names: every page checksum is computed by these.
std::uint32_t page_crc(const std::byte* base, std::uint64_t page) noexcept;
std::uint32_t table_crc(const std::byte* base, const space_alloc_state& a) noexcept;
// The CRC of s's table as mapped now: followed, or computed whole (and
// followed from then on).
std::uint32_t mapped_table_crc(space_state& s) noexcept;
// The mapping holds the committed image again (an open, a rollback): its
// table's CRC is the committed one.
void table_crc_is_committed(space_state& s) noexcept;
// Makes the page-CRC table (a block of the space) cover every page of the
// file, carving a bigger one when needed; returns the replaced table's page
// run, if any (its pages now need checksums). Not a commit. `zeroed`: the
// table is the first block of a file just created, whose bytes past its
// meta pages read as zeros (fallocate), so it is not cleared: clearing would
// copy its pages into the mapping for nothing (a fault each).
std::vector<log_extent> ensure_table(mapped_space& space, space_state& s, bool zeroed = false);
// sync(): sets the table's entries for the pages past `old_pages` (zero
// pages, or every page when `rebuild`), for `runs` and for s.fresh; returns
// the table's pages it changed (system-page runs, to be logged).
std::vector<log_extent> update_page_crcs(space_state& s, std::uint64_t old_pages,
                                         const std::vector<log_extent>& runs, bool rebuild);
// Checks the committed pages under [off, off + len) against the page CRC
// table, once each (see mapped_space::checked).
void check_pages_slow(const space_state& s, std::uint64_t off, std::uint64_t len);
// Is [off, off + len) within one page an earlier check passed? Most reads
// (a key, a string, a node) are, and one bit answers for them inline (a call
// that works out the range and the table cost 15% of a dump()).
inline bool checked_page(const space_state& s, std::uint64_t off, std::uint64_t len) noexcept {
  const std::uint64_t p = off / space_page;
  return len != 0 && p == (off + len - 1) / space_page && s.verified.test(p) &&
         !s.retired.load(std::memory_order_relaxed);
}
// The same, inline where checked_page answers.
inline void check_pages(const space_state& s, std::uint64_t off, std::uint64_t len) {
  if (checked_page(s, off, len)) [[likely]]
    return;
  check_pages_slow(s, off, len);
}
// As check_pages, without touching the mapping: each page not yet checked
// is checked from the file's bytes (pread). For bytes about to be written
// (a block carved, popped or freed): a read through the mapping maps the
// page read-only (with its neighbours: the kernel's fault-around), and the
// write after it faults again, to copy the page and flush the TLB entry of
// the read-only one; on a paravirtualized VM, where that flush reaches the
// other vCPU, 45% of an add_member's time at 10m. A page whose file bytes
// do not match its entry is checked through the mapping, as check_pages
// does (this process may have changed it, or the table: changed_here).
void check_pages_from_file_slow(const space_state& s, std::uint64_t off, std::uint64_t len);
inline void check_pages_from_file(const space_state& s, std::uint64_t off, std::uint64_t len) {
  if (checked_page(s, off, len)) [[likely]]
    return;
  check_pages_from_file_slow(s, off, len);
}
// Touches each system page of [off, off + len) with a write (an atomic
// no-op), once its check is done, for bytes the caller reads and writes
// through the mapping next: the write is the page's one fault, which copies
// it. Never for pages write_fresh() may still write to the file (a private
// copy would hide them).
inline void touch_to_write(const space_state& s, std::uint64_t off, std::uint64_t len) noexcept {
  if (len == 0) return;
  for (std::uint64_t at = sys_page_floor(s, off); at < off + len; at += s.sys_page)
    __atomic_fetch_or(reinterpret_cast<unsigned char*>(s.base + at), 0, __ATOMIC_RELAXED);
}
// Both, for committed bytes the caller reads and writes next (a free
// block taken back or freed, a deferred batch's link).
inline void check_pages_to_write(const space_state& s, std::uint64_t off, std::uint64_t len) {
  check_pages_from_file(s, off, len);
  touch_to_write(s, off, len);
}
// After a commit: marks the pages it wrote and the pages past `old_pages` as
// checked.
void mark_committed(space_state& s, std::uint64_t old_pages, const std::vector<log_extent>& runs);
// verify(): the table against m.table_crc, then every page of the committed
// file `file` (mapped) against it; empty, or the reason.
std::string check_page_crcs(const std::byte* file, const space_meta& m);

// ---- commit.cpp ----

// If commits since the newest meta slot are in the log only: flushes the data
// file, writes the committed meta into a slot without meta_log_bit and starts
// the log again from 0. Returns 0 or the errno of the failed step (the state
// on disk is then still complete; the log stays in use).
int checkpoint(space_state& s) noexcept;
// True if the space holds changes not yet committed (allocator state, size,
// pages written since the last commit: a page-table scan of the carved range).
bool has_uncommitted(space_state& s);

// Has this process written to page `p` since the last commit (so that its
// committed checksum no longer applies)? From the page tables (pagemap);
// without them, by comparing the page with the file.
bool changed_here(const space_state& s, std::uint64_t p);

// Unmaps (MADV_DONTNEED) the page runs `ranges` (offsets in s's mapping, in
// any order): a later read maps the file's page again, a later write copies
// it. In one process_madvise call per IOV_MAX runs where the kernel takes
// MADV_DONTNEED that way (Linux 6.13), else a madvise call per run: a drop
// over the stretches between kept pages once cost a commit a call for each
// of thousands of them.
void drop_ranges(const space_state& s, const std::vector<log_extent>& ranges) noexcept;
// Makes the page runs `ranges` this process's writable copies
// (MADV_POPULATE_WRITE), as a write to each page would, in as few calls as
// drop_ranges makes: for many scattered pages about to be written at once
// (the blocks a commit's deferred frees return), where a write fault each
// costs 37-61 us on a paravirtualized VM and the batch 2.4-4.7 us a page. A
// hint only: where the kernel refuses, the writes fault as before. Never for
// pages write_fresh() may still write to the file (see touch_to_write).
void populate_ranges(const space_state& s, const std::vector<log_extent>& ranges) noexcept;
// touch_to_write for whole pages that are surely not this process's copies
// yet (the pages a block carved at the top is the first to reach): one
// madvise call (2.9 us on that VM, even for pages already copied) instead
// of a fault a page; the touch where the kernel refuses.
void populate_to_write(const space_state& s, std::uint64_t off, std::uint64_t len) noexcept;

// Does every page the mapping holds show the file, none of them a copy this
// process wrote (swapped out or not)? Then the mapping reads as a new one
// would. From the page tables (PAGEMAP_SCAN, stopping at the first copy:
// the cost of the pages mapped before it); false when they cannot tell.
bool maps_only_file(const space_state& s) noexcept;

// ---- reader_table.cpp ----

// persist_error "opened read-only", `what` naming the call (out of line: cold).
[[noreturn, gnu::cold]] void throw_read_only(const space_state& s, const char* what);
// "opened read-only" as persist_error when `s` is a reader; `what` names the call.
// The flag is tested inline: allocate and deallocate, the hot pair, call it
// per block, and a call there costs them ~7%.
inline void refuse_read_only(const space_state& s, const char* what) {
  if (s.read_only) [[unlikely]]
    throw_read_only(s, what);
}
// A writer opening a space whose log holds commits after the one the data
// file holds, while live readers pin older commits than the log's newest
// (the last writer closed or died beside them): the file may not move past
// their pins, so the open leaves it where the reader table says it is
// (file_gen) and takes the later commits into its own mapping, as the
// writer beside lagging readers keeps them (lagging_file.cpp).
struct lagging_open {
  std::uint64_t file_gen = 0;         // the commit the file holds in place
  std::vector<record_head> records;   // the log's records after it, in order
  std::uint64_t log_end = 0;          // where the run's last record ends
};
// At a writer's open, for the file of `uuid` whose log's run holds commits
// first..newest: the commit the file holds in place if a live reader pins
// one older than `newest` (else `newest`), and the one up to which the open
// may write the file (a dead writer's published intent). Both within
// [first - 1, newest].
struct readers_hold {
  std::uint64_t file_gen, may_write;
};
readers_hold file_held_by_readers(const space_state& s, std::uint64_t uuid, std::uint64_t first,
                                  std::uint64_t newest);
// The writer, at open (after any replay): opens or creates the reader table
// and publishes s.committed as the newest commit, held in place, or, when
// `lag` has records, held at lag->file_gen with the records' pages read into
// the writer's mapping (private) and the log's run continued after them.
void open_readers_as_writer(space_state& s, const lagging_open* lag = nullptr);
// A rename onto `data` replaces the data file and then its reader table:
// two names, two renames. The table at `data` (created empty if missing) is
// held locked (flock) from before the data file's rename until the renamed
// space's table replaces it, so that a reader opening `data` in between
// waits for both and opens them again (open_as_reader checks, under the
// table's lock, that both names still name what it opened) instead of
// pinning its commit in the replaced table, which no writer reads.
class table_handover {
 public:
  // Locks the table at `data` (creating an empty one if it is missing).
  explicit table_handover(const std::filesystem::path& data);
  table_handover(const table_handover&) = delete;
  table_handover& operator=(const table_handover&) = delete;
  ~table_handover();  // unlocks
  // After the data file's rename: marks the replaced table so that its
  // readers' refresh() says so (the newest commit is another file's, `by`)
  // instead of following a file no longer named.
  void mark_replaced(const space_meta& by) noexcept;
  // Renames the table of the space renamed from `from` onto the held one's
  // name and unlocks. A missing table (no writer made one) leaves the held
  // one in place.
  void hand_over(const std::filesystem::path& from);

 private:
  std::filesystem::path path_;
  unique_fd fd_;
};
// A reader's open: takes a slot, pins the newest commit and maps the file
// (reserving like the writer) with the pages of commits the data file does not
// hold yet read from the log. Sets s.committed, s.alloc, s.base, s.size.
void open_as_reader(space_state& s, std::uint64_t reserve);
// A reader's move to the newest commit; the writer's is a no-op.
void refresh_reader(space_state& s);
// The oldest commit a live reader pins, or the last commit when none does:
// blocks freed by commits after it may be reused; the data file may hold in
// place the state of at most this commit.
std::uint64_t oldest_pinned_generation(const space_state& s);
// The lag a writer may choose (lagging_file.cpp, lag_by_choice): commits
// after the file's, and pages kept private for them.
inline constexpr std::uint64_t lag_chosen_commits = 32;
inline constexpr std::uint64_t lag_chosen_pages = 96;

// The writer's sync(), after the record of commit s.committed (at log offset
// `record_at`; the page runs it changed `pages`, the bytes it logged
// `changes`) is durable: publishes it to readers, then writes in place as far
// as the readers allow (`changes` and every lagging page when none holds an
// older commit), dropping the private pages the file then holds; or, while
// the lag is short, writes nothing in place (space_state::lag_chosen). Throws
// persist_error on an I/O error (the commit stands in the log).
// `scan` is the commit's change scan, whose clean pages it keeps or drops.
struct change_scan {
  std::uint64_t clean_mapped;  // clean pages the scan found mapped
  std::uint64_t end;           // where it ended (it started at space_data_start)
  std::uint64_t ns;            // how long it took: the clean pages' rent
};
void place_commit(space_state& s, std::uint64_t record_at, const std::vector<log_extent>& pages,
                  const std::vector<log_extent>& changes, const change_scan& scan);
// The writer's sync(), before the record: when a reader holds a commit
// older than the file can move past, no checkpoint can run, so past the
// log's bound (and twice the pages the file lacks) the log restarts instead:
// the data file is flushed, one record of the newest commit holding every
// page the file lacks starts a new log renamed over the old one (readers
// holding the old one read on in it), and the meta slot names that commit.
// The log then stays within max(log_bound, 2 x the pages the file lags by)
// plus the records since. docs/design.md ("Readers").
void restart_log_beside_readers(space_state& s);
// A writer's open beside readers that pin older commits (lagging_open): the
// pages of `lag`'s records (those inside the committed size) read from the
// log into the writer's mapping, and the table's records and lagging pages
// set from them; the log's run continues after the last record.
void take_lagging_records(space_state& s, reader_table& t, const lagging_open& lag);
// The writer's sync(), before the record: drops from `runs` the lagging pages
// that hold what the log already has for them (unchanged since their commit).
void drop_unchanged_lagging(space_state& s, std::vector<log_extent>& runs);

// ---- kept_pages.cpp ----
// A commit's pages stay mapped as private copies after they are written in
// place, so the next edit of the same page (the head, the checksum table,
// the blocks that come back from the free lists) costs no page fault and no
// copy; each keeps its image, up to kept_max pages.
//
// drop_unchanged_kept, before a commit (or to tell whether one has anything
// to commit): drops from `runs` the kept pages that still equal their image.
// Pages past the mapped size (a compaction cut them) are forgotten.
void drop_unchanged_kept(space_state& s, std::vector<log_extent>& runs);
// After commit s.committed wrote the page runs `pages` in place: keeps them
// mapped with their images (an image kept already follows the commit's
// `changes`: follow_changes), or unmaps them when there are more than
// kept_max; kept pages that no commit changed for kept_commits_for(...)
// commits are unmapped (the file holds them) and forgotten, and then the
// oldest while more than kept_pages_for(...) are kept.
void keep_committed(space_state& s, const std::vector<log_extent>& pages,
                    const std::vector<log_extent>& changes);
// Brings `image`, the page at `off` as the commit before this one left it,
// to the page as this one leaves it: the bytes of the commit's `changes`
// (log_changes' extents, ascending, found against this same image) copied
// over it, not the whole page. `next`, an index into `changes`, is where
// the search starts, and is left for the next page (pages in ascending
// order). With check_reports, refuses (persist_error) an image that then
// differs from the page.
void follow_changes(const space_state& s, std::byte* image, std::uint64_t off,
                    const std::vector<log_extent>& changes, std::size_t& next);
// Keeps the page at `off` with `image`, the page as commit `gen` left it,
// which the data file holds (a lagging page once the file caught up).
void keep_image(space_state& s, std::uint64_t off, std::uint64_t gen,
                std::unique_ptr<std::byte[]> image);
// Forgets every kept page (their private copies already dropped, or to be
// dropped by the caller).
inline void forget_kept(space_state& s) noexcept {
  s.kept.clear();
  s.kept_order.clear();
}
// The writer's rollback(), after dropping every private page: puts back the
// committed pages the data file does not hold yet (from the log).
void restore_lagging(space_state& s);
// The writer, before a commit or a close: moves the data file forward from
// the log as far as the readers now allow, so that a checkpoint may run.
// Throws persist_error on an I/O error.
void catch_up(space_state& s);
// Whether a checkpoint may run: the data file holds the newest commit.
bool file_is_current(const space_state& s) noexcept;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl

// The names the space's sources use unqualified, in one place.
namespace fl {
inline namespace FL_ABI_NS {
using detail::block_header;
using detail::class_size;
using detail::log_extent;
using detail::space_class_count;
using detail::space_first_block;
using detail::space_meta;
using detail::space_page;
}  // namespace FL_ABI_NS
}  // namespace fl
