// src/persist/reader_table.cpp: one writer and many readers of a space, in
// any processes. Formats in persist_format.hpp ("reader table");
// the design in docs/design.md ("Readers"). A reader's mapping and its
// overlay from the log are in reader_log.cpp.
//
// The invariant: the data file holds, in place, the state of a commit no
// newer than the oldest one a live reader pins (file_gen). A reader maps the
// file privately and reads the pages of the commits after file_gen from their
// records in the redo log into its mapping (private copies, which later
// writes to the file cannot change); the pages it did not copy are the same
// in file_gen's state and in its own, and stay so because the file never
// moves past the reader's commit. The writer never waits: while a reader
// holds an older commit, the writer keeps in its own mapping the pages the
// file lacks ("lagging"), and moves the file forward, from the log, as far as
// the oldest pin allows at each commit. The log is reused from 0 (checkpoint)
// only when the file holds the newest commit, so every record a reader may
// still need stays where it was written.
//
// Pinning without a race (as LMDB's reader table does it): a reader stores
// its pin, then reads the writer's intent; the writer stores its intent, then
// reads the pins; with sequentially consistent fences one of them sees the
// other, so either the writer does not move the file past the pin or the
// reader tries again.
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"
#include "persist/reader_table.hpp"

#include "persist/space.hpp"
#include "persist/posix.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

// The table a closed space of this process left (a reader's or the
// writer's), for the next open of the same table: its descriptor keeps the
// OFD lock on a reader's slot (pin 0, so no writer waits for it), its mapping
// keeps its page tables. An open then costs one stat of the table's path
// instead of an open, an fstat, an mmap (three pages populated), a slot claim
// (fcntl) for a reader, and at close an munmap and a close; the munmap's TLB
// flush and the page faults of a fresh mapping are the dearest parts of an
// open on machines where faults are expensive. One table is kept (the last
// closed); the slot it may hold is one of reader_slot_count, and stays with
// the table when a writer takes it (at pin 0: min_pin passes over it).
struct kept_table {
  int fd = -1;
  std::byte* map = nullptr;
  int slot = -1;
  dev_t dev = 0;
  ino_t ino = 0;
  pid_t pid = 0;  // a child made by fork() shares the lock: it opens its own
  file_id data;   // the data file it served last
};
std::mutex kept_mutex;
kept_table kept;  // trivially destructible: at exit the kernel drops it all

void release(int fd, std::byte* map) noexcept {
  if (map != nullptr) ::munmap(map, reader_file_bytes);
  if (fd >= 0) ::close(fd);  // drops the slot's lock
}

}  // namespace

reader_table::~reader_table() {
  if (map == nullptr) return;  // fd, if any, closes itself
  if (slot >= 0)
    std::atomic_ref<std::uint64_t>(
        *reinterpret_cast<std::uint64_t*>(map + reader_slots_at + slot * reader_slot_bytes))
        .store(0, std::memory_order_seq_cst);
  if (ino == 0) {  // a table whose inode is unknown
    ::munmap(map, reader_file_bytes);
    return;
  }
  kept_table k{fd.get(), map, slot, dev, ino, process_id(), data};
  {
    const std::lock_guard<std::mutex> g(kept_mutex);
    std::swap(k, kept);
  }
  release(k.fd, k.map);  // the one kept before, if any
  fd.release();
}

namespace {

std::filesystem::path table_path(const std::filesystem::path& data) {
  return side_file(data, readers_suffix);
}

// How often a reader that finds a commit being published (an odd sequence
// counter: a handful of stores) asks whether the writer is still alive.
constexpr auto publish_wait = std::chrono::milliseconds(100);

// Whether a writer holds the lock of the data file `data_fd` (probed with a
// shared lock, released at once).
bool writer_alive(int data_fd) noexcept {
  if (::flock(data_fd, LOCK_SH | LOCK_NB) == 0) {
    ::flock(data_fd, LOCK_UN);
    return false;
  }
  return errno == EWOULDBLOCK;
}

// The newest commit and its meta, read under the sequence counter; false
// (nothing read) when the counter is odd and no writer holds the data file
// (`data_fd`) locked: one died while publishing, and the words may be torn.
// A writer passes -1: holding the lock, it knows no live one is publishing.
[[nodiscard]] bool read_newest(std::byte* map, std::uint64_t& gen, space_meta& meta,
                               int data_fd) {
  std::uint64_t buf[meta_words];
  auto ask_at = std::chrono::steady_clock::now() + publish_wait;
  for (std::uint64_t round = 0;; ++round) {
    const std::uint64_t s1 = word(map, seq_at).load(std::memory_order_acquire);
    if (s1 & 1) {
      if (data_fd < 0) return false;
      if (round % 64 == 0 && std::chrono::steady_clock::now() >= ask_at) {
        if (!writer_alive(data_fd)) return false;
        ask_at = std::chrono::steady_clock::now() + publish_wait;
      }
      std::this_thread::yield();
      continue;
    }
    gen = word(map, newest_at).load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < meta_words; ++i)
      buf[i] = word(map, meta_at + i * 8).load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (word(map, seq_at).load(std::memory_order_relaxed) == s1) break;
  }
  std::memcpy(&meta, buf, sizeof meta);
  return true;
}

[[noreturn]] void fail_torn_table(const space_state& s) {
  fail(s, "the reader table " + side_file(s.path, readers_suffix).string() +
              " was left mid-update by a writer that stopped; the next open as writer "
              "repairs it");
}

// flock(LOCK_EX) on the table for its set-up, released on scope exit.
struct table_lock {
  int fd;
  explicit table_lock(const std::filesystem::path& p, int f) : fd(f) {
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno != EINTR) throw_errno(p, "flock", errno);
    }
  }
  ~table_lock() { ::flock(fd, LOCK_UN); }
};

// Opens (creating) and maps the table of the space at `data`.
void open_table(const std::filesystem::path& data, reader_table& t) {
  const std::filesystem::path p = table_path(data);
  t.fd = unique_fd(::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
  if (!t.fd) throw_errno(p, "open of the reader table", errno);
  struct stat sb;
  if (::fstat(t.fd.get(), &sb) != 0) throw_errno(p, "fstat", errno);
  t.dev = sb.st_dev;
  t.ino = sb.st_ino;
  if (static_cast<std::uint64_t>(sb.st_size) < reader_file_bytes) {
    const table_lock lock(p, t.fd.get());
    // Blocks for the whole table: it is written through a shared mapping,
    // where a page the file system cannot back is a SIGBUS (reserve_file).
    if (const int e = reserve_file(t.fd.get(), 0, reader_file_bytes))
      throw_errno(p, "fallocate of the reader table", e);
  }
  // Populated: every open reads the head and the ring and writes a slot, a
  // fault each otherwise (three pages, in the page cache).
  void* m = ::mmap(nullptr, reader_file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                   t.fd.get(), 0);
  if (m == MAP_FAILED) throw_errno(p, "mmap of the reader table", errno);
  t.map = static_cast<std::byte*>(m);
}

// The table a closed space of this process kept (see kept_table), if the
// path of space `s`'s table still names it: taken into `t` (t.slot is its
// slot or -1). False otherwise (the kept one, of another table or process,
// is released). When `unchecked` (a reader's open, which checks under the
// table's lock that the path names the table, and joins again if not), a
// table kept from s's data file is taken without looking at the path.
bool take_kept_table(const space_state& s, reader_table& t, bool unchecked) {
  kept_table k;
  {
    const std::lock_guard<std::mutex> g(kept_mutex);
    std::swap(k, kept);
  }
  bool ours = k.map != nullptr && k.pid == process_id();
  if (ours && !(unchecked && k.data == s.file)) {
    struct stat sb;
    ours = ::stat(table_path(s.path).c_str(), &sb) == 0 && k.dev == sb.st_dev &&
           k.ino == sb.st_ino;
  }
  if (ours) {
    t.fd = unique_fd(k.fd);
    t.map = k.map;
    t.slot = k.slot;
    t.dev = k.dev;
    t.ino = k.ino;
    return true;
  }
  release(k.fd, k.map);  // another table (the store was replaced) or another process's
  return false;
}

// Space `s`'s table: the kept one if it is s's (see take_kept_table), else
// opened and mapped (t.slot is then -1). Kept again at its close with s's
// data file.
void open_or_take_table(const space_state& s, reader_table& t, bool unchecked) {
  if (!take_kept_table(s, t, unchecked)) open_table(s.path, t);
  t.data = s.file;
}

bool table_valid(const std::byte* map, std::uint64_t uuid) {
  reader_file_head h;
  std::memcpy(&h, map, offsetof(reader_file_head, seq));
  return std::memcmp(h.magic, reader_magic, sizeof h.magic) == 0 &&
         h.format_version == reader_format_version && h.byte_order == byte_order_mark &&
         h.uuid == uuid;
}

// A fresh table for the file `uuid`: no slots, an empty ring.
void init_table(std::byte* map, std::uint64_t uuid) {
  for (std::uint64_t off = 0; off < reader_file_bytes; off += 8)
    word(map, off).store(0, std::memory_order_relaxed);
  reader_file_head h{};
  stamp_marks(h, reader_magic, reader_format_version);
  h.uuid = uuid;
  std::memcpy(map, &h, offsetof(reader_file_head, seq));
}

// ---- readers: joining the table (their mapping and its overlay from the
// log are reader_log.cpp) ----

// Publishes slot i as this reader's (pin 0 until it pins, its pid, within
// the range writers scan).
void take_slot(reader_table& t, std::uint64_t i) {
  t.slot = static_cast<int>(i);
  word(t.map, slot_at(i)).store(0, std::memory_order_seq_cst);
  word(t.map, slot_at(i) + 8).store(static_cast<std::uint64_t>(process_id()),
                                    std::memory_order_relaxed);
  auto high = word(t.map, slot_high_at);
  std::uint64_t h = high.load(std::memory_order_relaxed);
  while (h < i + 1 && !high.compare_exchange_weak(h, i + 1, std::memory_order_seq_cst)) {
  }
}

// Takes a free slot: the first whose byte no process has locked; a table
// kept from a closed reader already holds one.
void claim_slot(space_state& s, reader_table& t) {
  if (t.slot >= 0) {
    take_slot(t, static_cast<std::uint64_t>(t.slot));
    return;
  }
  for (std::uint64_t i = 0; i < reader_slot_count; ++i) {
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = static_cast<off_t>(slot_at(i));
    fl.l_len = 1;
    if (::fcntl(t.fd.get(), F_OFD_SETLK, &fl) != 0) {
      if (errno == EAGAIN || errno == EACCES) continue;
      throw_errno(table_path(s.path), "fcntl (reader slot lock)", errno);
    }
    take_slot(t, i);
    return;
  }
  fail(s, "too many readers (" + std::to_string(reader_slot_count) + " slots in use)");
}

// Is slot i's owner alive (does another open file hold its byte's lock)?
bool slot_alive(const reader_table& t, std::uint64_t i) {
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = static_cast<off_t>(slot_at(i));
  fl.l_len = 1;
  if (::fcntl(t.fd.get(), F_OFD_GETLK, &fl) != 0) return true;  // unknown: assume alive
  return fl.l_type != F_UNLCK;
}

// Publishes the state a table rebuilt without a writer describes, from the
// data file's meta slots and the log's run (a reader opening a space no
// writer has open, or whose table belongs to another file).
void init_from_file(space_state& s, reader_table& t) {
  const meta_slots slots = read_meta_slots(s);
  const space_meta& m = slots.meta[slots.newest];
  // The slots of this file's table are live readers' pins: kept (a writer
  // opening later must not move the file past them); another file's table
  // starts empty.
  if (table_valid(t.map, m.uuid))
    clear_ring(t.map);
  else
    init_table(t.map, m.uuid);
  const bool log_bit = (m.state & meta_log_bit) != 0;
  std::uint64_t file_gen = m.generation, newest = m.generation;
  space_meta last = m;
  if (log_bit || !slots.why[1 - slots.newest].empty()) {
    // Commits the file may lack are in the log's run from offset 0: the
    // file holds the state before the run's first commit, with any part of
    // the run's pages.
    const std::uint64_t first = log_bit ? m.generation : m.generation + 1;
    file_gen = first - 1;
    unique_fd log(open_store_file(s.log_path, O_RDONLY));
    struct stat sb;
    const std::uint64_t log_bytes =
        log && ::fstat(log.get(), &sb) == 0 ? static_cast<std::uint64_t>(sb.st_size) : 0;
    std::uint64_t at = 0;
    for (std::uint64_t gen = log ? run_first_generation(log.get(), m.uuid, first) : first; log;
         ++gen) {
      // The whole record, its pages against its CRC, as the writer's replay
      // reads it: a power loss may leave a commit's head without its pages
      // (a commit that never returned), which ends the run.
      record_head r;
      if (!read_record(log.get(), log_bytes, at, m.uuid, gen, r)) break;
      ring_put(t.map, gen, at);
      newest = gen;
      last = r.meta;
      at += r.head.record_bytes;
    }
    if (log_bit && newest < first)
      fail(s, "the log " + s.log_path.string() + " does not hold commit " +
                  std::to_string(first) + ", which the meta page names (missing or damaged)");
    if (!log_bit && newest == m.generation) file_gen = newest;
  }
  write_newest(t.map, newest, last);
  word(t.map, file_gen_at).store(file_gen, std::memory_order_seq_cst);
  word(t.map, intent_at).store(file_gen, std::memory_order_seq_cst);
}

// A reader's registration in the table `t` of the data file it opened
// (`file`, its fstat): under the table's lock, checks that both names still
// name what was opened (a rename onto the store replaces the data file, then
// the table, holding the table's lock throughout: table_handover), rebuilds
// the table from the file if it is another file's or stale, and claims a
// slot. False when a name changed: the caller opens both again. A reader
// that pinned its commit in a table no longer named would be seen by no
// writer, which would move the file in place under it.
bool join_table(space_state& s, reader_table& t, const struct stat& file) {
  // A valid table whose newest commit is older than the meta slot's is
  // usually a live writer between the two: the first commit of a log's run
  // writes its slot, then publishes the commit in the table. Rebuilding the
  // table then would wipe the pins of the readers beside it, and the writer
  // would move the file past their commits (a reader saw /n of commit 1 with
  // /m of commit 0). The reader waits for the publication; a writer that
  // died in between leaves the table stale, rebuilt after a while.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  for (;;) {
    const table_lock lock(table_path(s.path), t.fd.get());
    struct stat now;
    if (::stat(table_path(s.path).c_str(), &now) != 0 || now.st_dev != t.dev ||
        now.st_ino != t.ino || ::stat(s.path.c_str(), &now) != 0 || now.st_dev != file.st_dev ||
        now.st_ino != file.st_ino)
      return false;
    const meta_slots slots = read_meta_slots(s);
    const space_meta& m = slots.meta[slots.newest];
    std::uint64_t gen = 0;
    space_meta published{};
    const bool valid = table_valid(t.map, m.uuid);
    // A counter a dead writer left odd: torn words, rebuilt as damaged ones.
    const bool read = valid && read_newest(t.map, gen, published, s.fd.get());
    const bool damaged = valid && (!read || !check_meta(published, ~std::uint64_t{0}).empty());
    if (valid && !damaged && gen < m.generation && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::yield();
      continue;  // the lock goes with this round
    }
    if (!valid || damaged || gen < m.generation) init_from_file(s, t);
    claim_slot(s, t);
    return true;
  }
}

// Pins the commit the data file holds and returns it (see the file comment).
// A writer that died while moving the file leaves its intent ahead of the
// file for good: after a while the reader pins that intent instead (the file
// holds pages of commits up to it) and reads from the file's commit on.
std::uint64_t pin_file_state(reader_table& t, std::uint64_t& from) {
  auto pin = word(t.map, slot_at(static_cast<std::uint64_t>(t.slot)));
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  for (;;) {
    const std::uint64_t f = word(t.map, file_gen_at).load(std::memory_order_seq_cst);
    const std::uint64_t i = word(t.map, intent_at).load(std::memory_order_seq_cst);
    const bool stale = std::chrono::steady_clock::now() > give_up;
    const std::uint64_t p = stale ? std::max(i, f) : f;
    pin.store(p, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const std::uint64_t i2 = word(t.map, intent_at).load(std::memory_order_seq_cst);
    const std::uint64_t f2 = word(t.map, file_gen_at).load(std::memory_order_seq_cst);
    if (i2 <= p && f2 == f) {
      from = f;
      return p;
    }
    std::this_thread::yield();  // the writer is moving the file forward
  }
}

}  // namespace

void write_newest(std::byte* map, std::uint64_t gen, const space_meta& meta) {
  std::uint64_t buf[meta_words];
  std::memcpy(buf, &meta, sizeof meta);
  auto seq = word(map, seq_at);
  const std::uint64_t s = seq.load(std::memory_order_relaxed) & ~std::uint64_t{1};
  seq.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  word(map, newest_at).store(gen, std::memory_order_relaxed);
  for (std::size_t i = 0; i < meta_words; ++i)
    word(map, meta_at + i * 8).store(buf[i], std::memory_order_relaxed);
  seq.store(s + 2, std::memory_order_release);
}

std::uint64_t ring_get(std::byte* map, std::uint64_t gen) {
  const std::uint64_t g1 = word(map, ring_at(gen)).load(std::memory_order_acquire);
  const std::uint64_t at = word(map, ring_at(gen) + 8).load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  const std::uint64_t g2 = word(map, ring_at(gen)).load(std::memory_order_relaxed);
  return g1 == gen && g2 == gen ? at : ~std::uint64_t{0};
}

void ring_put(std::byte* map, std::uint64_t gen, std::uint64_t at) {
  word(map, ring_at(gen)).store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  word(map, ring_at(gen) + 8).store(at, std::memory_order_relaxed);
  word(map, ring_at(gen)).store(gen, std::memory_order_release);
}

void clear_ring(std::byte* map) {
  for (std::uint64_t off = reader_ring_at; off < reader_slots_at; off += 8)
    word(map, off).store(0, std::memory_order_relaxed);
}

// The smallest pin below `upto` that a live reader holds, else `upto`.
std::uint64_t min_pin(const reader_table& t, std::uint64_t upto) {
  const std::uint64_t high =
      std::min(word(t.map, slot_high_at).load(std::memory_order_seq_cst), reader_slot_count);
  std::uint64_t m = upto;
  for (std::uint64_t i = 0; i < high; ++i) {
    if (static_cast<int>(i) == t.slot) continue;
    const std::uint64_t pin = word(t.map, slot_at(i)).load(std::memory_order_seq_cst);
    if (pin == 0 || pin >= m) continue;
    if (slot_alive(t, i)) m = pin;
  }
  return m;
}


void throw_read_only(const space_state& s, const char* what) {
  throw persist_error(s.path, std::string(what) + ": the space is opened read-only");
}

table_handover::table_handover(const std::filesystem::path& data) : path_(table_path(data)) {
  fd_ = unique_fd(::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
  if (!fd_) throw_errno(path_, "open of the reader table", errno);
  while (::flock(fd_.get(), LOCK_EX) != 0) {
    if (errno != EINTR) throw_errno(path_, "flock", errno);
  }
}

table_handover::~table_handover() {
  if (fd_) ::flock(fd_.get(), LOCK_UN);
}

void table_handover::mark_replaced(const space_meta& by) noexcept {
  struct stat sb;
  if (::fstat(fd_.get(), &sb) != 0 || static_cast<std::uint64_t>(sb.st_size) < reader_file_bytes)
    return;  // empty: made by this handover, or by a reader's open that failed
  void* m = ::mmap(nullptr, reader_file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
  if (m == MAP_FAILED) return;
  auto* map = static_cast<std::byte*>(m);
  // Its readers' next refresh() finds another file's commit ("replaced by
  // another file of this name"); a reader opening the replaced file
  // meanwhile finds the table invalid and rebuilds it from that file.
  write_newest(map, ~std::uint64_t{0}, by);
  reader_file_head h;
  std::memcpy(&h, map, offsetof(reader_file_head, seq));
  h.uuid = 0;
  std::memcpy(map, &h, offsetof(reader_file_head, seq));
  ::munmap(m, reader_file_bytes);
}

void table_handover::hand_over(const std::filesystem::path& from) {
  const std::filesystem::path p = table_path(from);
  if (::rename(p.c_str(), path_.c_str()) != 0 && errno != ENOENT)
    throw_errno(p, "rename", errno);
  ::flock(fd_.get(), LOCK_UN);
  fd_.reset();
}

bool file_is_current(const space_state& s) noexcept {
  return !s.readers || s.readers->file_gen == s.committed.generation;
}

readers_hold file_held_by_readers(const space_state& s, std::uint64_t uuid, std::uint64_t first,
                                  std::uint64_t newest) {
  readers_hold h{newest, newest};
  struct stat sb;
  if (::stat(table_path(s.path).c_str(), &sb) != 0) return h;  // no reader has opened it
  reader_table t;
  open_table(s.path, t);
  if (!table_valid(t.map, uuid) || min_pin(t, newest) >= newest) return h;
  // A live reader holds an older commit: the file holds what the table says
  // (readers pin no older), and a writer that died while moving it forward
  // may have written pages up to its intent, which no live reader pins below.
  const std::uint64_t floor = first - 1;
  const std::uint64_t f = word(t.map, file_gen_at).load(std::memory_order_seq_cst);
  const std::uint64_t i = word(t.map, intent_at).load(std::memory_order_seq_cst);
  h.file_gen = std::clamp(f, floor, newest);
  h.may_write = std::clamp(std::max(f, i), h.file_gen, newest);
  return h;
}

namespace {

// Does the table say already what a writer of commit `m`, with the file
// current and no record in the log, would write at its open? (The state a
// writer's clean close leaves.) Only a writer writes these words, and the
// caller holds the data file's lock, so none changes them meanwhile.
bool table_says_current(std::byte* map, const space_meta& m) {
  if (!table_valid(map, m.uuid)) return false;
  std::uint64_t gen = 0;
  space_meta published{};
  if (!read_newest(map, gen, published, -1)) return false;  // a dead writer's half-done publish
  if (gen != m.generation || std::memcmp(&published, &m, sizeof m) != 0) return false;
  if (word(map, file_gen_at).load(std::memory_order_seq_cst) != gen ||
      word(map, intent_at).load(std::memory_order_seq_cst) != gen)
    return false;
  for (std::uint64_t off = reader_ring_at; off < reader_slots_at; off += 8)
    if (word(map, off).load(std::memory_order_relaxed) != 0) return false;
  return true;
}

}  // namespace

void open_readers_as_writer(space_state& s, const lagging_open* lag) {
  auto t = std::make_unique<reader_table>();
  open_or_take_table(s, *t, false);
  const bool lagging = lag != nullptr && !lag->records.empty();
  const std::uint64_t file_gen = lagging ? lag->file_gen : s.committed.generation;
  if (lagging) take_lagging_records(s, *t, *lag);
  // The set-up below writes nothing new into such a table: skipped, and
  // with it the lock that orders set-ups (two system calls an open saves).
  if (!lagging && table_says_current(t->map, s.committed)) {
    t->file_gen = file_gen;
    s.readers = std::move(t);
    return;
  }
  {
    const table_lock lock(table_path(s.path), t->fd.get());
    if (!table_valid(t->map, s.committed.uuid)) init_table(t->map, s.committed.uuid);
    clear_ring(t->map);
    for (const reader_table::logged& r : t->records) ring_put(t->map, r.gen, r.at);
    write_newest(t->map, s.committed.generation, s.committed);
    word(t->map, file_gen_at).store(file_gen, std::memory_order_seq_cst);
    word(t->map, intent_at).store(file_gen, std::memory_order_seq_cst);
  }
  t->file_gen = file_gen;
  s.readers = std::move(t);
}

void open_as_reader(space_state& s, std::uint64_t reserve) {
  s.read_only = true;
  std::uint64_t file_bytes = 0;
  for (int round = 0;; ++round) {
    if (round > 16) fail(s, "the file keeps being replaced while it is opened");
    // A descriptor of this path a closed space left open, if any (join_table
    // checks that the path names its file, as for one opened here).
    s.fd = round == 0 ? take_kept_fd(s.path, false) : unique_fd();
    if (!s.fd) s.fd = unique_fd(open_store_file(s.path, O_RDONLY));
    if (!s.fd) {
      if (errno == ENOENT) fail(s, "no such file");
      throw_errno(s.path, "open", errno);
    }
    struct stat sb;
    if (::fstat(s.fd.get(), &sb) != 0) throw_errno(s.path, "fstat", errno);
    if (!S_ISREG(sb.st_mode)) fail(s, "not a regular file");
    if (static_cast<std::uint64_t>(sb.st_size) < initial_file_size)
      fail(s, "truncated or not an fl::mapped_space file (" + std::to_string(sb.st_size) +
                  " bytes)");
    file_bytes = static_cast<std::uint64_t>(sb.st_size);
    s.file = id_of(sb);
    s.readers = std::make_unique<reader_table>();  // an earlier round's goes (kept)
    // The first round takes the table this data file's last reader or
    // writer kept, unchecked (join_table checks); a later one stats the path.
    open_or_take_table(s, *s.readers, round == 0);
    if (join_table(s, *s.readers, sb)) break;
  }
  reader_table& t = *s.readers;
  for (int attempt = 0;; ++attempt) {
    std::uint64_t from = 0;
    const std::uint64_t pinned = pin_file_state(t, from);
    std::uint64_t newest = 0;
    space_meta m{};
    if (!read_newest(t.map, newest, m, s.fd.get())) fail_torn_table(s);
    if (const std::string why = check_meta(m, ~std::uint64_t{0}); !why.empty() || newest < pinned)
      fail(s, "the reader table " + table_path(s.path).string() + " is damaged (" +
                  (why.empty() ? "generations out of order" : why) + ")");
    // The first commit the mapping lacks: from + 1 over the file's state,
    // none over a closed reader's view of this very commit.
    std::uint64_t first = from + 1;
    if (s.base == nullptr) {
      std::uint64_t want = reserve != 0 ? reserve : std::max(default_reserve, 4 * m.file_size);
      want = round_up(std::max(want, m.file_size), s.granule);
      s.reserve = want;
      // The file mapped up to the end seen at open at most: fit_reader_map
      // maps the rest, from the file if it grew since, else zeros.
      const std::uint64_t mapped = std::min(m.file_size, sys_page_floor(s, file_bytes));
      std::uint64_t view_size = 0;
      void* r = nullptr;
      if ((r = take_reader_view(want, s.file, m, view_size, s.view_log_bytes)) != nullptr) {
        // A closed reader's view of this commit, taken whole with its
        // private pages: no log read, no copy.
        s.base = static_cast<std::byte*>(r);
        s.size = view_size;
        s.private_pages = true;
        first = newest + 1;
      } else if ((r = take_reservation(want, s.fd.get(), mapped, s.file)) != nullptr) {
        // As the writer: a range a closed space left (its page tables
        // kept), with the file mapped at its start (a closed space's mapping
        // of this file taken as it is).
        s.base = static_cast<std::byte*>(r);
        s.size = mapped;
      } else {
        r = ::mmap(nullptr, want, reserve_prot, reserve_flags, -1, 0);
        if (r == MAP_FAILED) throw_errno(s.path, "mmap (address reservation)", errno);
        s.base = static_cast<std::byte*>(r);
        s.size = 0;
      }
    } else {
      // A failed attempt's mapping, private copies included, goes.
      if (::mmap(s.base, s.size, reserve_prot, reserve_flags | MAP_FIXED, -1, 0) == MAP_FAILED)
        throw_errno(s.path, "mmap (reader retry)", errno);
      s.size = 0;
    }
    // The file's state at `from` (or the view), then the commits after it.
    fit_reader_map(s, m.file_size);
    s.committed = m;
    bool ok = true;
    std::uint64_t next = ~std::uint64_t{0};
    for (std::uint64_t g = first; ok && g <= newest; ++g) ok = overlay(s, g, newest, nullptr, next);
    if (ok) {
      word(t.map, slot_at(static_cast<std::uint64_t>(t.slot))).store(newest,
                                                                     std::memory_order_seq_cst);
      s.alloc = m.alloc;
      s.verified.clear(s.size / space_page);
      s.view_exact = true;
      return;
    }
    if (attempt >= 3)
      fail(s, "the log " + s.log_path.string() + " does not hold the commits after " +
                  std::to_string(from) + " that the reader table names");
  }
}

void refresh_reader(space_state& s) {
  if (!s.read_only) return;
  reader_table& t = *s.readers;
  std::uint64_t newest = 0;
  space_meta m{};
  if (!read_newest(t.map, newest, m, s.fd.get())) fail_torn_table(s);
  const std::uint64_t pinned = s.committed.generation;
  if (newest == pinned) return;
  if (m.uuid != s.committed.uuid || newest < pinned) {
    s.replaced = true;
    fail(s, "the space was replaced by another file of this name: open it again");
  }
  std::vector<std::uint64_t> pages;
  std::uint64_t next = ~std::uint64_t{0};
  space_meta last{};  // the meta of the last record read, checked with it
  s.view_exact = false;  // until the mapping holds all of the newest commit
  for (std::uint64_t g = pinned + 1, retries = 0; g <= newest; ++g) {
    bool wrote = false;
    if (overlay(s, g, newest, &pages, next, &last, &wrote)) continue;
    // The writer may have committed again and restarted its log since
    // `newest` was read: the log at the path then starts with a record of a
    // commit past `newest` (restart_log_beside_readers writes only commits
    // the table already names). The mapping holds commit g - 1 whole when
    // overlay wrote nothing, so the refresh goes on from g towards the
    // table's newest commit read again. A fast writer (a file system where a
    // flush costs nothing) met this within a few thousand commits.
    std::uint64_t again = 0;
    space_meta m2{};
    if (!read_newest(t.map, again, m2, s.fd.get())) fail_torn_table(s);
    if (!wrote && again > newest && m2.uuid == m.uuid && ++retries <= 64) {
      newest = again;
      m = m2;
      --g;
      continue;
    }
    fail(s, "the log " + s.log_path.string() + " does not hold commit " + std::to_string(g) +
                " (damaged, or replaced by another file)");
  }
  // The table's meta is the newest record's (whose checks it then passed),
  // else it is checked here. A refresh that throws, here or above, leaves a
  // reader to be opened again.
  if (std::memcmp(&last, &m, sizeof m) != 0) {
    if (const std::string why = check_meta(m, ~std::uint64_t{0}); !why.empty())
      fail(s, "the reader table " + table_path(s.path).string() + " is damaged (" + why + ")");
  }
  word(t.map, slot_at(static_cast<std::uint64_t>(t.slot))).store(newest,
                                                                 std::memory_order_seq_cst);
  fit_reader_map(s, m.file_size);
  s.committed = m;
  s.alloc = m.alloc;
  // The pages read whole from the log are the commit's (its record's CRC
  // matched them): checked. A page a record changed in part keeps its bit:
  // set, its other bytes were checked in the file before; clear, its first
  // read checks the page against the commit's checksum table.
  const std::uint64_t mapped_pages = s.size / space_page;
  s.verified.resize(mapped_pages);
  for (const std::uint64_t p : pages)
    if (p < mapped_pages) s.verified.set(p);
  s.view_exact = true;
}

std::uint64_t oldest_pinned_generation(const space_state& s) {
  const std::uint64_t g = s.committed.generation;
  return s.readers ? min_pin(*s.readers, g) : g;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
