// fl/mapped_space.hpp: a file-backed, memory-mapped address space that
// survives restarts and crashes, with an allocator inside it, offset pointers
// into it (fl::fptr<T>) and a string that lives in it (fl::pstring).
//
//   fl::mapped_space space("/var/lib/app/state.fl");   // open or create
//   auto root = space.root<counters>();
//   if (!root) { root = space.make<counters>(); space.set_root(root); }
//   space.get(root)->hits += 1;                          // a plain pointer
//   space.sync();                                        // commit
//
// Use it for state that is read and changed in place between runs (indexes,
// counters, documents) without parsing at start-up. For one small value,
// fl::persist<T> (fl/persist.hpp) is simpler.
//
// Commits. The file is mapped privately: changes made through pointers stay
// in this process until sync(), which appends every page changed since the
// previous commit, with the new meta, as one checksummed record to a redo log
// beside the file ("<path>-log") and makes the log durable (one fdatasync):
// that is the commit. The pages are then written to their place in the file
// without waiting for the disk (a space whose writes are reported may leave
// them for a few commits, up to 32, and then write each page once: the log
// holds them meanwhile); a checkpoint (a flush of the file, a meta
// page that no longer needs the log) runs when the log passes 4 MiB and when
// the space is closed. After sync() returns, a crash (of the process or of
// the machine) loses nothing it committed; a crash before it returns leaves
// the previous commit, or this one. The next open replays the log's records
// in order when the file alone is not the state. Closing the space (the
// destructor) without sync() discards the changes since the last commit, as
// rollback() does. docs/design.md ("Persistence") gives the file layout and
// the cost of a commit.
//
// Files: "<path>" and "<path>-log" together are the space; copy or move them
// together (the log matters only after a crash, and open() checks that it
// belongs to the file). The header records the format version, the byte order
// and the word size; a file from an incompatible build, a damaged file and a
// file of another kind are refused with fl::persist_error naming the path and
// the reason, and are never changed by a failed open.
//
// Pointers. fptr<T> is an offset from the start of the file: it stays valid
// across processes, restarts and growth. A raw T* from get() is valid until
// the space is closed or moved-from, or until remap_count() changes: growth
// extends the mapping in place inside an address range reserved at open
// (mapped_space_options::reserve, by default 64 GiB or four times the file,
// whichever is larger), and only growth past that range moves the mapping,
// which increments remap_count(). sync() and allocation within the range never
// move anything. rollback() keeps addresses but restores the committed bytes.
//
// What may live in the space: trivially copyable types whose pointers to other
// objects in the space are fptr<T> (never raw pointers, which differ between
// processes), pstring, and arrays of them. The format is native: a file
// written on a machine of other byte order or word size is refused.
//
// Threads and processes: one writer per file, and beside it any number of
// readers (open_mode::read_only) in any processes, this one included: a
// reader sees exactly the state of one commit (the newest when it opened),
// whatever the writer does meanwhile, until refresh() moves it to the newest
// commit; it takes no lock on the file, never waits for the writer and the
// writer never waits for it. Their shared table is the file "<path>-readers"
// (rebuilt by every writer's open; docs/design.md, "Readers"). While a reader
// holds an older commit the log restarts past 4 MiB with the pages the file
// lacks, so it stays within about twice them; a reader that dies (even by
// SIGKILL) holds nothing. The writer: open() takes an exclusive lock
// on the file (flock) and throws fl::persist_error "locked" if another process
// holds it; every call that creates a file or renames onto a path respects
// that lock too, and sync() refuses to commit into a file or log that was
// replaced behind it. Within one process, opening a file that another handle
// already has open takes the file over from that handle if it has nothing
// uncommitted (it is checkpointed and retired: its later sync(), rollback(),
// allocations and checked() reads throw "superseded"; destroying it is
// fine), and throws "locked" otherwise. Within the writing process, calls that
// allocate, free, sync, roll back or set the root need exclusive access to
// the space; get(), root(), stats() and reads of objects may run concurrently
// with each other.
//
// Caveats: a child made by fork() must not use the parent's spaces (it shares
// their lock and file offsets; its own open of the same file gets "locked").
// Do not open a file while another thread uses an earlier handle of it. A
// network file system's flock may not lock across machines.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/persist_error.hpp>
#include <fl/string.hpp>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {

class mapped_space;

namespace detail {
struct space_state;
}  // namespace detail

// An offset pointer into a mapped_space: 8 bytes, the byte offset of the
// object from the start of the file. The null fptr holds 0; offset 0 is the
// file's first meta page, where no object is ever placed, so null is distinct
// from every object's offset. It compares and hashes as its offset.
// Conversion to a raw pointer goes through the space (mapped_space::get).
template <class T>
class fptr {
 public:
  using element_type = T;

  constexpr fptr() noexcept = default;
  constexpr fptr(std::nullptr_t) noexcept {}
  // An fptr to the object at `offset` (no check here; get() checks bounds).
  constexpr explicit fptr(std::uint64_t offset) noexcept : off_(offset) {}
  // Like T* from U*: derived to base, T* to void*, adding const.
  template <class U>
  requires(!std::is_same_v<U, T> &&
           std::is_convertible_v<U*, T*>) constexpr fptr(fptr<U> other) noexcept
      : off_(other.offset()) {}

  constexpr std::uint64_t offset() const noexcept { return off_; }
  constexpr explicit operator bool() const noexcept { return off_ != 0; }

  // The same offset seen as another type (as static_cast from void*).
  template <class U>
  constexpr fptr<U> cast() const noexcept {
    return fptr<U>(off_);
  }

  // Element arithmetic for arrays allocated in the space (T not void).
  template <class U = T>
  requires(!std::is_void_v<U>) constexpr fptr operator+(std::ptrdiff_t n) const noexcept {
    return fptr(off_ + static_cast<std::uint64_t>(n) * sizeof(U));
  }

  friend constexpr bool operator==(fptr a, fptr b) noexcept = default;
  friend constexpr auto operator<=>(fptr a, fptr b) noexcept = default;

 private:
  std::uint64_t off_ = 0;
};
static_assert(sizeof(fptr<int>) == 8 && std::is_trivially_copyable_v<fptr<int>>);

enum class open_mode {
  open_or_create,  // open the file, or create an empty space if it is missing
  open_existing,   // a missing file throws persist_error
  create_new,      // an existing file throws persist_error
  // A reader of an existing space beside its one writer (in this process or
  // another): it sees one committed state until refresh(); every call that
  // would change the space throws persist_error ("opened read-only").
  read_only,
  read_write = open_existing,  // the writer of an existing space
};

struct mapped_space_options {
  open_mode mode = open_mode::open_or_create;
  // Bytes of address space reserved at open for growth in place (rounded up
  // to pages); 0 picks max(64 GiB, 4 x file size). Growth past it moves the
  // mapping once (remap_count() + 1) into a range twice the new size.
  std::uint64_t reserve = 0;
  // true: sync() waits for the disk (fdatasync), so a commit survives power
  // loss. false: sync() still writes the log and the pages in order, so a
  // commit survives the death of the process, but not of the machine.
  // set_durable() changes it later.
  bool durable = true;
  // false, for a file this open creates: no reader table ("<path>-readers")
  // until rename() gives the file its name. For a space built under a
  // temporary name that no other handle opens (an import, a compaction):
  // it spares creating and removing the table. A reader that opens such a
  // file anyway sees its last checkpoint, unpinned: the writer does not
  // keep that commit for it. An existing file always gets its table.
  bool readers = true;
  // true: the owner reports every write it makes through the mapping with
  // wrote() (the space's own writes, allocate()'s headers and the free
  // lists, report themselves), and a commit takes the pages that may have
  // changed from those reports. false: from the kernel's page tables, whose
  // walk visits every page the mapping has in memory, read or written: some
  // 20 ns a page on a paravirtualized VM, 40 us a commit for a process whose
  // reads mapped a thousand pages of a 10 MB file. A write no report names
  // is missing from the commits (it is lost at the next reopen); with the
  // environment variable FL_CHECK_WRITES=1, every sync() walks the page
  // tables as well and throws persist_error naming the first such change
  // (for tests). For structures whose writes all pass through a few places
  // (json_store); a user of get() who writes anywhere leaves it false.
  bool writes_reported = false;
};

// What mapped_space::census() returns: the blocks of a space's committed
// state, for a structure built in the space that checks its own references
// (json_store::verify asks, for each value, whether its block is live, free
// or waiting in a deferred batch, and how big it is), and the committed
// bytes, whose page checksums it checks on request. A writer's census reads
// the data file (its commits, not its uncommitted changes), a reader's the
// commit it holds. Valid while its space is open (a reader's: until its
// refresh()); 16 bytes per block. One thread at a time (check_pages marks
// the pages it checked).
class space_census {
 public:
  enum class block_state : std::uint8_t {
    none,     // no block's payload starts at that offset
    live,     // a live block
    free,     // a freed block, on its class's free list
    retired,  // live, but listed in a deferred batch: freed once no reader needs it
    space,    // the space's own bookkeeping (the page checksum table, a deferred batch)
  };
  struct block {
    block_state state = block_state::none;
    std::uint64_t bytes = 0;  // from the payload offset asked to the block's end
    std::size_t index = 0;    // the block's position in address order, < block_count()
  };
  // The block whose payload starts at `offset` (none for any other offset,
  // the inside of a block included). O(log blocks).
  block at(std::uint64_t offset) const noexcept;
  std::size_t block_count() const noexcept;
  // The committed bytes [offset, offset + bytes), or nullptr when they are
  // not inside the committed file. Not checked: see check_pages().
  const std::byte* bytes(std::uint64_t offset, std::uint64_t bytes) const noexcept;
  // Checks the committed pages under [offset, offset + bytes) against their
  // CRC-32C, once each per census (later calls cost a bit test): empty, or
  // the reason ("page 5 (offset 0x5000) does not match its checksum").
  std::string check_pages(std::uint64_t offset, std::uint64_t bytes) const;
  // The same for every committed page, and the checksum table's own.
  std::string check_all_pages() const;
  // The committed root object's offset (0: none).
  std::uint64_t root() const noexcept;
  // The first damage found in the space's own structure (a block header,
  // the counts, a free list, a deferred batch: "verify: bad block header at
  // offset 0x9068"), or empty. The blocks end where it was found, so a
  // structure that checks its references should read on with the page
  // checksums alone, which may place the damage better, and report this if
  // they find nothing.
  const std::string& damage() const noexcept;

  space_census(space_census&&) noexcept;
  space_census& operator=(space_census&&) noexcept;
  ~space_census();

  struct impl;  // defined where mapped_space::census() builds it

 private:
  friend class mapped_space;
  explicit space_census(std::unique_ptr<impl> p) noexcept;
  std::unique_ptr<impl> p_;
};

struct space_stats {
  std::uint64_t file_bytes = 0;       // size of the data file now
  std::uint64_t top = 0;              // end of the part the allocator has carved
  std::uint64_t used_bytes = 0;       // bytes in live blocks (size class, with headers)
  std::uint64_t free_bytes = 0;       // bytes in freed blocks kept for reuse
  std::uint64_t live_blocks = 0;      // allocate() calls not yet deallocated
  std::uint64_t generation = 0;       // commits so far (1 after creation)
  std::uint64_t remap_count = 0;      // times growth moved the mapping
  std::uint64_t last_sync_pages = 0;  // pages the last sync() wrote
  // Bytes of the last sync()'s log record, the one write it flushes: its
  // head and the bytes it changed (whole pages only where the file had none
  // before), in whole pages.
  std::uint64_t last_sync_log_bytes = 0;
  // The oldest commit a live reader (open_mode::read_only, any process)
  // holds, or `generation` when none holds an older one: the data file holds
  // that commit in place (or an older one, where the writer chose to leave
  // it: see the file comment), the log the ones after it.
  std::uint64_t pinned_generation = 0;
  // Bytes of live blocks retired (retire()) and not yet reusable, with the
  // blocks listing them (also right after an open: the committed lists are
  // read, O(retired blocks), until the first allocation loads them).
  std::uint64_t deferred_bytes = 0;
};

class mapped_space {
 public:
  // Opens the space at `path` (and its log "<path>-log"), creating it per
  // options.mode. An existing file is checked before anything is mapped:
  // magic, format version, byte order, word size, page size, both meta
  // pages' checksums, every allocator field against the file size. When the
  // newest meta page says commits are in the log only (the space was not
  // closed), the log's records are checked and replayed into the file, which
  // is then flushed; a damaged record that later commits follow throws. Cost:
  // O(1) in the file's size (two pages read, nothing scanned, the log not
  // opened after a clean close) plus the replay, if any.
  // Throws persist_error (damaged, foreign or incompatible file, locked by
  // another process, I/O error), std::bad_alloc.
  explicit mapped_space(const std::filesystem::path& path,
                        const mapped_space_options& options = {});
  // The same as mapped_space(path, {.mode = mode}): open_mode::read_only for
  // a reader, open_mode::read_write for the writer of an existing space.
  static mapped_space open(const std::filesystem::path& path, open_mode mode);
  mapped_space(mapped_space&& other) noexcept;
  mapped_space& operator=(mapped_space&& other) noexcept;
  mapped_space(const mapped_space&) = delete;
  mapped_space& operator=(const mapped_space&) = delete;
  // Unlocks and unmaps (or leaves a mapping that holds only the file's pages
  // for the next open of the file: see remove()); changes since the last
  // sync() are discarded. If
  // commits since the open are in the log only, checkpoints first (flushes
  // the file and writes a meta page) and then truncates the log to 0 bytes,
  // so that the next open reads no log; an I/O error there is not reported
  // (the log keeps the commits).
  ~mapped_space();

  // True if this open created the file (open_or_create on a missing file,
  // or create_new): the place to build the initial objects and set_root().
  bool created() const noexcept;
  const std::filesystem::path& path() const noexcept;

  // A block of at least `bytes` bytes aligned to `align` (a power of two up
  // to 4096), zero-filled if it was never used before, else holding what its
  // last owner left. O(1) amortized: the request is rounded to one of ~170
  // size classes (16-byte steps to 128, then 4 per doubling), taken from that
  // class's free list (or, when it is empty, one of the next two classes':
  // the block is then larger than asked) or carved from the end, growing the
  // file when needed.
  // Throws std::invalid_argument (bad align), persist_error (the file cannot
  // grow, or a free list in the file is damaged), std::bad_alloc.
  fptr<void> allocate(std::size_t bytes, std::size_t align = alignof(std::max_align_t));
  // Returns the block to its class's free list. O(1). Null does nothing.
  // Throws std::invalid_argument if `p` is not a live block of this space
  // (a double free included); the space is unchanged then.
  void deallocate(fptr<void> p);
  // Usable bytes of the live block `p` (at least what was asked).
  std::size_t block_size(fptr<void> p) const;
  // Frees `p` once no state that may still be read refers to it: the
  // committed state (until the next sync() makes a state without `p`
  // durable) and, later, readers of older states. Until then the block
  // stays live with its bytes unchanged. The space remembers retired blocks
  // across commits and crashes (they are part of each commit), so a crash
  // between a commit and the reuse neither leaks nor frees twice. For data
  // structures that copy on write (json_store's path copies): the old
  // version stays readable while the new one is built. O(1); each commit
  // that retired blocks writes one list of them. Throws
  // std::invalid_argument if `p` is not a live block of this space.
  void retire(fptr<void> p);
  // Shrinks the file to the end of its last live or retired block: free
  // blocks at the end of the space are dropped from the free lists and the
  // file is cut to them by the next sync() (after its commit is durable).
  // Live blocks never move (fptrs name them), so free blocks between live
  // ones stay for reuse; a structure that can move its own blocks (such as
  // json_store::compact) rewrites itself instead. O(free blocks).
  void compact();

  // Bulk carving at the end, for a builder that must know where its bytes
  // will land before it writes them (offsets inside them point to each other):
  // end_block() is the payload offset the next allocate_end() returns, as long
  // as nothing else is allocated in between. allocate_end(bytes) carves a
  // 16-aligned block there (never from a free list), growing the file when
  // needed. Blocks carved this way lie in increasing offset order. Throws as
  // allocate().
  fptr<void> end_block() const noexcept;
  fptr<void> allocate_end(std::size_t bytes);
  // Carves `bytes` at the end (from end_block() - 8, a block's start) as a
  // run of `blocks` consecutive live blocks whose headers the caller lays
  // out in the run's bytes (persist_format.hpp: block_header, each block its
  // class's size) and writes with write_fresh(). For a builder that lays out
  // many blocks at once, each of which can be freed alone later. Returns the
  // run's start; throws as allocate().
  fptr<void> allocate_end_run(std::size_t bytes, std::size_t blocks);
  // Fills [p, p + bytes) of a block just carved by allocate_end (before
  // anything was written to it through get()) with `src`, as a copy through
  // the mapping would, but writes the whole system pages past the committed
  // file to the file directly (pwrite): they are not copied into private
  // pages, and the next sync() neither logs nor rewrites them (it computes
  // their checksums and makes them durable before its log). For bulk
  // builders such as json_store::import. Throws std::invalid_argument for a
  // range outside the carved blocks, persist_error on an I/O error.
  void write_fresh(fptr<void> p, const void* src, std::size_t bytes);

  // Damage detection for readers. The bytes [p, p + bytes) as a pointer,
  // after checking that they lie inside the file and that every committed
  // page under them matches its CRC-32C in the page checksum table (the
  // table's own checksum is read only to name the damage when a page does
  // not match: an open costs nothing per size). A page is checked once per open:
  // later calls cost a bit test. Pages this process allocated into or grew
  // since the last commit hold what it wrote and are not checked; allocate()
  // and deallocate() check the committed pages they write into first, so a
  // write never hides damage beside it. Throws persist_error naming the page
  // and the reason. May run concurrently with other const calls.
  const std::byte* checked(fptr<const void> p, std::uint64_t bytes) const;

  // Gives the data file the name `to`, replacing a file there only while no
  // other space (in any process, or another handle here) has it open: first
  // a checkpoint makes the file alone the whole committed state (flushed when
  // durable), then the rename, made durable (fsync of the directory); the
  // logs beside the old name and beside `to` are removed, and the next commit
  // starts "<to>-log". For a space built under a temporary name and published
  // once committed. Throws persist_error "locked" (naming `to`) if a space
  // there is open, or on an I/O error; the names are then unchanged.
  void rename(const std::filesystem::path& to);
  // rename(to) in place of the store `replaced` holds open at `to` (its
  // writer): for a space rebuilt from a store and published in its place (a
  // compaction). `replaced` is closed first, as its destructor would close
  // it, but its lock is held until the rename is made, so that no other
  // process or handle opens or replaces the store at `to` in between. When
  // `replaced` does not hold the file `to` names (a reader, another file, a
  // writer another handle of this process took the file over from), it
  // only closes, and this is rename(to). `replaced` stays open when this
  // throws before anything changed (this space read-only, a reader holding
  // an older commit than its file can drop, a failed checkpoint); otherwise
  // it is closed afterwards, as if moved from, also when this throws.
  // Throws std::invalid_argument if `replaced` is this space.
  void rename(const std::filesystem::path& to, mapped_space&& replaced);
  // Whether a writer (in another process, or another handle of this one)
  // has the space at `path` open: its lock, probed without waiting. False
  // when there is no file. A snapshot: the answer may change at once.
  static bool locked(const std::filesystem::path& path);
  // Removes the space at `path` and the files beside it ("<path>-log",
  // "<path>-readers") unless a writer has it open; then removes nothing and
  // returns false. For a space built under a temporary name and abandoned.
  // (A closed space whose mapping holds only the file's pages, a reader
  // that read only the file or a writer that wrote nothing through the
  // mapping, leaves it mapped, and its file descriptor open (unlocked),
  // for the next open of that file in the process, which then opens, maps
  // and faults nothing read before: the pages read stay in the resident
  // set, as file pages the kernel may reclaim. remove(), and a rename() over
  // the file, drop that mapping and descriptor, which would keep the
  // removed file's blocks until the process's next open or its exit.)
  static bool remove(const std::filesystem::path& path);
  // Closes this space and removes its file and the files beside it, as
  // remove(path()) after the close would, without opening the file again:
  // for a writer that built a space under a temporary name and abandons it
  // (nothing is committed, and its mapping is not kept for a next open). A
  // reader, or a writer another handle of this process took the file over
  // from, only closes. The space is closed afterwards, as if moved from.
  void discard() noexcept;
  // See mapped_space_options::durable.
  void set_durable(bool durable) noexcept;

  // allocate + construct. T must be trivially copyable (its bytes are the
  // file's bytes) and trivially destructible.
  template <class T, class... Args>
  fptr<T> make(Args&&... args);
  template <class T>
  void destroy(fptr<T> p) {
    static_assert(std::is_trivially_destructible_v<T>);
    deallocate(p);
  }

  // The object at `p`: nullptr for null. Throws persist_error if
  // [offset, offset + sizeof(T)) is not inside the file (a damaged fptr).
  // O(1), inline: one comparison and an addition.
  template <class T>
  T* get(fptr<T> p) const;
  // Reports that [p, p + bytes) was written through the mapping, for a space
  // opened with mapped_space_options::writes_reported (elsewhere it does
  // nothing). Reporting more than was written costs the commit a comparison
  // of those pages, never a wrong commit. O(1).
  void wrote(fptr<const void> p, std::uint64_t bytes) noexcept;
  // The fptr of an object inside the mapping; throws std::invalid_argument
  // for a pointer outside it.
  template <class T>
  fptr<T> to_fptr(const T* p) const;
  // Is `p` inside the mapped file?
  bool contains(const void* p) const noexcept {
    const auto* b = static_cast<const std::byte*>(p);
    return b >= base_ && b < base_ + size_;
  }

  // The root object: the one fptr the space remembers by name. Null in a new
  // space. Part of the committed state (set_root then sync()).
  void set_root(fptr<void> root);
  template <class T = void>
  fptr<T> root() const {
    return root_offset().template cast<T>();
  }

  // Commits every change since the previous commit (see the file comment).
  // Cost: the changed pages, found from the kernel's page tables
  // (/proc/self/pagemap) without scanning memory, are compared with the file
  // and the bytes that changed written twice (log and place) with one
  // fdatasync (of the log); the first commit after an open or
  // a checkpoint also flushes a meta page (two), and every ~4 MiB of log a
  // checkpoint adds two more. Nothing changed costs no I/O. Throws
  // persist_error on an I/O error before the log is durable: the previous
  // commit is then still the committed state and the changes stay in memory
  // (sync() may be retried). An error writing the pages in place after that
  // says so: the commit stands in the log, and sync() and rollback() throw
  // until the space is reopened (the open replays the log).
  void sync();
  // Discards every change since the previous commit: objects, allocations
  // and root return to the committed state; addresses stay valid. Throws
  // persist_error only after a failed in-place write (see sync()).
  void rollback();
  // Checks the whole committed file: meta pages, every page's checksum (the
  // meta keeps a CRC-32C per page, updated by sync()), every block header
  // from the start to the allocator's end, and every free list (bounds,
  // classes, no cycles) and every deferred batch (live blocks naming live
  // blocks). O(file size). Throws persist_error naming the first damage
  // found. A writer checks the data file (call it without uncommitted
  // changes; while a reader holds an older commit the file holds that one,
  // and verify() throws saying so); a reader checks the commit it holds,
  // while the writer goes on committing.
  void verify() const;
  // The checks of verify() but the page checksums (the census checks those
  // when asked: space_census::check_pages, check_all_pages), then the
  // committed blocks as a census, for a structure that checks its own
  // references (json_store::verify). O(file size). Damage to the blocks is
  // kept in the census (space_census::damage); damage to the meta or an
  // I/O error throws as verify().
  space_census census() const;

  // A reader: moves to the newest commit (the pages that commits since the
  // reader's changed are read from the log, a few microseconds for a small
  // commit); raw pointers and views taken before may then show the new state
  // or, if the file grew past the reservation, dangle (remap_count()).
  // O(the pages changed since). The writer: nothing (it is always at its
  // newest commit). Throws persist_error if the log no longer holds a commit
  // it needs (damaged, or replaced by another file of that name).
  void refresh();
  bool read_only() const noexcept;
  // A reader: whether a refresh() found the path naming another file than
  // this reader's (the writer's compact() or a re-import put it there); the
  // reader keeps its last commit, and mapped_space::open of the path reads
  // the new file. Once true it stays true. A writer: false.
  bool replaced() const noexcept;

  space_stats stats() const;
  std::uint64_t remap_count() const noexcept { return remaps_; }
  // Bytes of the data file mapped (stats().file_bytes without the rest of
  // stats(), which asks the reader table for pinned_generation).
  std::uint64_t file_bytes() const noexcept { return size_; }
  // stats().live_blocks alone: O(1), where stats() reads the reader table
  // and, before the first allocation after an open or a commit, walks the
  // lists of retired blocks (an edit bounds its walks by this count).
  std::uint64_t live_blocks() const noexcept;

 private:
  fptr<void> root_offset() const noexcept;
  void rename_over(const std::filesystem::path& to, mapped_space* replaced);
  [[noreturn]] void bad_fptr(std::uint64_t offset, std::size_t bytes) const;

  std::byte* base_ = nullptr;  // the mapping's start (file offset 0)
  std::uint64_t size_ = 0;     // bytes of the file that are mapped
  std::uint64_t remaps_ = 0;
  std::unique_ptr<detail::space_state> st_;
};

template <class T, class... Args>
fptr<T> mapped_space::make(Args&&... args) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "objects in a mapped_space are their bytes: trivially copyable and destructible");
  const fptr<T> p = allocate(sizeof(T), alignof(T)).template cast<T>();
  ::new (static_cast<void*>(base_ + p.offset())) T(std::forward<Args>(args)...);
  wrote(p, sizeof(T));
  return p;
}

template <class T>
T* mapped_space::get(fptr<T> p) const {
  constexpr std::size_t bytes = sizeof(std::conditional_t<std::is_void_v<T>, char, T>);
  const std::uint64_t off = p.offset();
  if (off == 0) return nullptr;
  if (off > size_ || size_ - off < bytes) [[unlikely]]
    bad_fptr(off, bytes);
  return reinterpret_cast<T*>(base_ + off);
}

template <class T>
fptr<T> mapped_space::to_fptr(const T* p) const {
  if (p == nullptr) return {};
  if (!contains(p))
    throw std::invalid_argument("fl::mapped_space::to_fptr: pointer outside the space");
  return fptr<T>(static_cast<std::uint64_t>(reinterpret_cast<const std::byte*>(p) - base_));
}

}  // namespace FL_ABI_NS
}  // namespace fl

template <class T>
struct std::hash<fl::fptr<T>> {
  std::size_t operator()(fl::fptr<T> p) const noexcept {
    return std::hash<std::uint64_t>{}(p.offset());
  }
};

// fl::pstring, the string that lives in a space, is declared beside it.
#include <fl/pstring.hpp>
