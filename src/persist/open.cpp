// src/persist/open.cpp: fl::mapped_space's open (the choice of the committed
// state: the meta slots, recovery through the log's run), the creation of a
// new file, the writer lock and its table, the handle's moves and accessors,
// rename. The formats it reads are owned by meta.cpp and log_record.cpp; the
// design in docs/design.md ("Persistence", "Rules").
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"

#include "persist/posix.hpp"
#include "persist/random_id.hpp"
#include "persist/space.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

// Picks the committed state of an open, locked data file. When the newest
// meta slot has meta_log_bit (or the other slot is torn), replays the run of
// records the log holds from offset 0, then writes the final state into a
// slot (sets `replayed`). Never writes unless a valid run is replayed.
// While live readers pin commits older than the run's newest, the file may
// not move past them: only what a dead writer had announced is written, the
// slot stays, and `lag` receives the records the file lacks.
space_meta choose_meta(space_state& s, std::uint64_t file_bytes, bool& replayed,
                       lagging_open& lag) {
  const meta_slots slots = read_meta_slots(s);
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
  unique_fd log(open_store_file(s.log_path, O_RDONLY));
  if (!log) fail(s, missing);
  struct stat sb;
  if (::fstat(log.get(), &sb) != 0) throw_errno(s.log_path, "fstat", errno);
  const auto log_bytes = static_cast<std::uint64_t>(sb.st_size);
  std::vector<record_head> run;
  std::uint64_t at = 0;
  for (std::uint64_t gen = run_first_generation(log.get(), m.uuid, first);; ++gen) {
    record_head r;
    if (!read_record(log.get(), log_bytes, at, m.uuid, gen, r)) {
      if (run.empty()) fail(s, missing);
      check_no_later_record(s, log.get(), log_bytes, at, m.uuid, gen);
      break;
    }
    at += r.head.record_bytes;
    run.push_back(std::move(r));
  }
  const space_meta last = run.back().meta;
  const readers_hold held =
      file_held_by_readers(s, m.uuid, run.front().meta.generation, last.generation);
  if (held.file_gen < last.generation) {
    std::vector<record_head> announced;
    for (record_head& r : run) {
      const std::uint64_t g = r.meta.generation;
      if (g > held.may_write)
        lag.records.push_back(std::move(r));
      else if (g > held.file_gen)
        announced.push_back(std::move(r));
    }
    if (!announced.empty()) replay(s, log.get(), announced);
    if (!lag.records.empty()) {
      lag.file_gen = held.may_write;
      lag.log_end = at;
      return last;
    }
  } else {
    replay(s, log.get(), run);
  }
  s.newest_slot = n;
  write_slot(s, last, false);
  replayed = true;
  return last;
}

// Creates an empty space at s.path: built under a unique temporary name,
// made durable, locked, then linked into place, so that the file appears
// under its name already locked (no other opener can take it in between).
// Returns the locked descriptor, or an empty one if link found a file there
// (another process created it meanwhile).
unique_fd create_file(const space_state& s) {
  const std::filesystem::path tmp = unique_sibling(s.path, "new");
  unique_fd fd(open_store_file(tmp, O_RDWR | O_CREAT | O_EXCL, 0666));
  if (!fd) throw_errno(tmp, "create", errno);
  space_alloc_state a{};
  a.top = space_first_block;
  const std::uint64_t uuid = random_id();  // a new file's: never 0
  // The whole file's blocks (reserve_file): the mapping writes into it.
  // Before the meta pages, so that the file system gives the file one
  // extent: written first, they got one of their own (ext4), and each
  // extent is one more discard when the file is removed (about 100 us on a
  // virtual disk mounted with `discard`, for every import never synced).
  const char* step = "fallocate";
  int e = reserve_file(fd.get(), 0, created_file_size);
  // Generation 1 in slot 1 and generation 0 in slot 0: both valid, as after
  // any commit.
  for (std::uint64_t g = 0; e == 0 && g < 2; ++g) {
    space_meta m = make_meta(uuid, g, created_file_size, a);
    m.crc = meta_crc(m);
    if (const int w = pwrite_all(fd.get(), &m, sizeof m, g * space_page)) {
      step = "write";
      e = w;
    }
  }
  if (e == 0 && s.durable) {
    step = "fdatasync";
    e = sync_data(fd.get());
  }
  if (e == 0 && ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    step = "flock";
    e = errno;
  }
  if (e != 0) {
    ::unlink(tmp.c_str());
    throw_errno(tmp, step, e);
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
  // The descriptor a closed space of this path left open: locked, and then
  // checked to be the file the path names (one stat: which file it is, is
  // known). Otherwise (the lock held elsewhere, the path renamed over), it
  // closes and the path is opened as below.
  file_id kept_file;
  if (unique_fd kept = mode == open_mode::create_new ? unique_fd()
                                                       : take_kept_fd(s.path, true, &kept_file)) {
    if (::flock(kept.get(), LOCK_EX | LOCK_NB) == 0) {
      if (::stat(s.path.c_str(), &sb) == 0 && id_of(sb) == kept_file) {
        s.fd = std::move(kept);
        return nullptr;
      }
      ::flock(kept.get(), LOCK_UN);  // the mapping kept elsewhere holds the description
    }
  }
  for (int attempt = 0;; ++attempt) {
    if (attempt > 16) fail(s, "the file keeps being replaced while it is opened");
    unique_fd fd(open_store_file(s.path, O_RDWR));
    if (!fd) {
      if (errno != ENOENT) throw_errno(s.path, "open", errno);
      if (mode == open_mode::open_existing)
        fail(s, "no such file");
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
    const auto it = find_file(t, sb, process_id());
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
  const pid_t self = process_id();
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
  std::uint64_t links = 0;
  if (!stat_field(s.fd.get(), STATX_NLINK, links)) throw_errno(s.path, "statx", errno);
  if (links == 0)
    fail(s,
         "the file was removed or replaced while open (by a writer that ignored its lock); "
         "nothing was committed");
  if (s.log_fd) {
    if (!stat_field(s.log_fd.get(), STATX_NLINK, links)) throw_errno(s.log_path, "statx", errno);
    if (links == 0)
      fail(s, "the log " + s.log_path.string() +
                  " was removed or replaced while open (by a writer that ignored its lock); "
                  "nothing was committed");
  }
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
  s.log_path = detail::side_file(path, detail::log_suffix);
  s.durable = options.durable;
  s.writes_reported = options.writes_reported;
  s.check_reports = options.writes_reported && detail::checks_reports();
  const long ps = ::sysconf(_SC_PAGESIZE);
  if (ps < 4096 || ps > 65536 || (ps & (ps - 1)) != 0)
    detail::fail(s, "unsupported system page size");
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
  s.file = detail::id_of(sb);
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
  // A size between pages is damage, unless a power cut ended a run of the
  // log: a commit writes in place only the bytes it changed, and one that
  // reached the disk without the growth before it (not flushed until a
  // checkpoint) ends the file there. The run's records hold every page past
  // the size its checkpoint made durable, so the replay rewrites them.
  const std::string torn_end = file_bytes % space_page == 0
                                   ? std::string()
                                   : "size " + std::to_string(file_bytes) +
                                         " is not a multiple of 4096 (truncated or damaged)";

  bool replayed = false;
  detail::lagging_open lag;
  const space_meta m = detail::choose_meta(s, file_bytes, replayed, lag);
  const bool lagging = !lag.records.empty();
  if (!torn_end.empty() && !replayed && !lagging) detail::fail(s, torn_end);
  if (!torn_end.empty() && lagging) {
    // The readers' commits are in the log: the file's last page, whole.
    if (::ftruncate(s.fd.get(), static_cast<off_t>(detail::round_up(file_bytes, space_page))) != 0)
      detail::throw_errno(path, "ftruncate (the file's last page)", errno);
  }
  if (replayed || lagging) {  // a replay may have grown the file
    if (::fstat(s.fd.get(), &sb) != 0) detail::throw_errno(path, "fstat", errno);
    file_bytes = static_cast<std::uint64_t>(sb.st_size);
  }
  if (lagging && file_bytes < m.file_size) {
    // Commits the file lacks grew the space: the writer maps their size.
    if (const int e = detail::reserve_file(s.fd.get(), file_bytes, m.file_size))
      detail::throw_errno(path, "fallocate (growth the file lacks)", e);
    file_bytes = m.file_size;
  }
  if (lagging && file_bytes > m.file_size) {
    // A reader may read the pages past the committed size: the file keeps
    // them (its dead end, cut once the file is current: sync()).
    s.stale_end = file_bytes;
    file_bytes = m.file_size;
  } else if (file_bytes > m.file_size) {
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
  s.verified.clear(m.file_size / space_page);

  // Reserve the address range (or reuse one a closed space left), then map
  // the file over its start.
  std::uint64_t want =
      options.reserve != 0 ? options.reserve : std::max(detail::default_reserve, 4 * file_bytes);
  want = detail::round_up(std::max(want, file_bytes), s.granule);
  void* r = detail::take_reservation(want, s.fd.get(), file_bytes, s.file);  // the file mapped in it
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
  // A failure from here on unmaps the file: a mapping left behind would keep
  // the open file description, and with it the writer's lock, for the life
  // of the process.
  try {
    if (s.created) detail::ensure_table(*this, s, true);
    detail::register_writer(s, sb, from);
    if (options.readers || !s.created) detail::open_readers_as_writer(s, &lag);
    detail::table_crc_is_committed(s);
  } catch (...) {
    detail::unregister_writer(&s);
    ::munmap(s.base, s.reserve);
    s.base = nullptr;
    throw;
  }
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

bool mapped_space::replaced() const noexcept { return st_->replaced; }

mapped_space::mapped_space(mapped_space&& o) noexcept
    : base_(std::exchange(o.base_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      remaps_(std::exchange(o.remaps_, 0)),
      st_(std::move(o.st_)) {}

namespace {

// A writer's lock kept past its space's close (close_space's keep_lock): a
// descriptor of the locked open file description, and the file it locks.
// It unlocks as it goes, as a close does: a child forked meanwhile holds the
// description too.
struct held_lock {
  detail::unique_fd fd;
  detail::file_id file;
  held_lock() = default;
  held_lock(held_lock&&) = default;
  ~held_lock() {
    if (fd) ::flock(fd.get(), LOCK_UN);
  }
};

// A clean close: the commits the log alone holds go to the data file and a
// meta slot (detail::checkpoint), so the next open reads no log. A failure
// leaves them in the log, where the next open finds them.
// With `keep_lock`, a writer's lock outlives the close, held by the
// returned held_lock (for rename(to, replaced)); an empty one when the space
// held none (a reader, or a writer another handle took the file over from).
held_lock close_space(detail::space_state* s, bool keep_lock = false) noexcept {
  held_lock held;
  if (s == nullptr || s->base == nullptr) return held;
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
  // A writer releases its lock here, not by closing its descriptor: flock's
  // lock belongs to the open file description, which a kept mapping holds,
  // and so does every child forked while this process kept a descriptor the
  // writer took (take_kept_fd). Not a writer another handle took over: that
  // one holds the same description, and the lock is its own.
  const bool retired = !s->read_only && s->retired.load(std::memory_order_relaxed);
  if (keep_lock && !s->read_only && !retired) {
    held.fd = detail::unique_fd(::fcntl(s->fd.get(), F_DUPFD_CLOEXEC, 0));
    held.file = s->file;
  }
  const bool unlocked =
      !s->read_only && !retired && !held.fd && ::flock(s->fd.get(), LOCK_UN) == 0;
  // A mapping that holds only the file's pages is left for the next open of
  // the file: a reader's unless it read the log or zeros past the file's end
  // (private_pages), a writer's when its page tables show no page it wrote
  // (its uncommitted changes, and the copies its commits kept).
  const bool clean =
      s->read_only ? !s->private_pages : unlocked && detail::maps_only_file(*s);
  detail::give_reservation(*s, clean);
  return held;
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

void mapped_space::wrote(fptr<const void> p, std::uint64_t bytes) noexcept {
  if (st_ != nullptr) detail::note_write(*st_, p.offset(), bytes);
}

void mapped_space::set_root(fptr<void> root) {
  detail::refuse_read_only(*st_, "set_root");
  const std::uint64_t off = root.offset();
  if (off != 0 && (off % 16 != 0 || off < space_first_block + 8 || off >= st_->alloc.top))
    throw std::invalid_argument("fl::mapped_space::set_root: not a block of this space");
  st_->alloc.root = off;
}

std::uint64_t mapped_space::live_blocks() const noexcept { return st_->alloc.live_blocks; }

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
  r.last_sync_log_bytes = s.last_sync_log_bytes;
  r.pinned_generation = detail::oldest_pinned_generation(s);
  r.deferred_bytes = detail::deferred_bytes(s);
  return r;
}

void mapped_space::rename(const std::filesystem::path& to) { rename_over(to, nullptr); }

void mapped_space::rename(const std::filesystem::path& to, mapped_space&& replaced) {
  if (&replaced == this)
    throw std::invalid_argument("fl::mapped_space::rename: a space cannot replace itself");
  rename_over(to, &replaced);
}

void mapped_space::rename_over(const std::filesystem::path& to, mapped_space* replaced) {
  detail::space_state& s = *st_;
  detail::refuse_read_only(s, "rename");
  detail::check_not_retired(s);
  // A space created without its table (mapped_space_options::readers) takes
  // one now: under `to`, readers will open it.
  if (!s.readers) detail::open_readers_as_writer(s, nullptr);
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
  const std::filesystem::path log_to = detail::side_file(to, detail::log_suffix);
  std::filesystem::path from = s.path;
  // The replaced space closes (its commits checkpointed, its reader table
  // let go) but its lock stays held, by `held`, until the rename is made:
  // between the two, no one else can open the store at `to` or replace it.
  const held_lock held = replaced != nullptr ? close_space(replaced->st_.get(), true) : held_lock();
  if (replaced != nullptr) {
    replaced->base_ = nullptr;
    replaced->size_ = 0;
    replaced->st_.reset();
  }
  // Readers open a store by two names, the data file's and its table's
  // (`<to>-readers`): the table there is held from before the data file's
  // rename until this space's table replaces it (table_handover).
  detail::table_handover table(to);
  if (!s.renamed_from.empty() && s.path == to) {
    from = s.renamed_from;  // an earlier call renamed the file, then failed: its steps finish here
  } else {
    if (!detail::names_file(s.path, s.fd.get()))
      detail::fail(s, "renamed or replaced by another process while open");
    // 2. The name `to`: a file there is replaced only while this space holds
    // its lock (a store open elsewhere refuses), and only if `to` still names
    // the file locked; a missing one only if it stays missing (no replace).
    for (int attempt = 0;; ++attempt) {
      if (attempt > 16)
        throw persist_error(to, "the file keeps being replaced while it is renamed onto");
      detail::unique_fd old(detail::open_store_file(to, O_RDWR));
      if (!old) {
        if (errno != ENOENT) detail::throw_errno(to, "open", errno);
        if (::renameat2(AT_FDCWD, s.path.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0)
          break;
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
      struct stat sb;
      if (::fstat(old.get(), &sb) != 0) detail::throw_errno(to, "fstat", errno);
      // Its lock: held already (the replaced space's), or taken here, and
      // then only while `to` still names the file locked.
      if (!held.fd || detail::id_of(sb) != held.file) {
        if (::flock(old.get(), LOCK_EX | LOCK_NB) != 0) {
          if (errno == EWOULDBLOCK)
            throw persist_error(
                to, "locked: another process or handle has it open; nothing was changed");
          detail::throw_errno(to, "flock", errno);
        }
        if (!detail::names_file(to, old.get())) continue;  // replaced meanwhile
      }
      if (::rename(s.path.c_str(), to.c_str()) != 0) detail::throw_errno(s.path, "rename", errno);
      // A closed space's mapping of the replaced file would keep its blocks.
      detail::drop_kept_file(detail::id_of(sb));
      table.mark_replaced(s.committed);  // its readers must open `to` again
      break;  // `old` and `held` unlock the replaced file as they close
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
    // The space is at its new name from here: a failure of the steps below
    // leaves it usable there, and a rename() onto `to` again finishes them.
    s.renamed_from = s.path;
    s.path = to;
    s.log_path = log_to;
  }
  // 4. The reader table goes with them (readers of the file replaced there
  // keep theirs open; they belong to a file no longer named), and the held
  // table's lock is released.
  table.hand_over(from);
  if (s.durable) detail::fsync_parent(s.path);
  s.renamed_from.clear();
  // 5. Once the rename is durable: the replaced store's log (or a stale one)
  // goes; it could only ever be read by the replaced file.
  ::unlink(log_to.c_str());
}

void mapped_space::set_durable(bool durable) noexcept { st_->durable = durable; }

// The probe takes the writer's lock for an instant on a descriptor of its
// own: flock belongs to an open file description, so a writer in this
// process (another handle) conflicts with it as one in another process does.
bool mapped_space::locked(const std::filesystem::path& path) {
  const detail::unique_fd fd(detail::open_store_file(path, O_RDONLY));
  if (!fd) return false;  // missing or unreadable: an open reports which
  return ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
}

void mapped_space::discard() noexcept {
  detail::space_state* s = st_.get();
  if (s == nullptr || s->base == nullptr) return;
  if (s->read_only || s->retired.load(std::memory_order_relaxed)) {
    close_space(s);
  } else {
    detail::unregister_writer(s);
    // Locked by this space, so nobody else's: removed only while the name
    // is still its file (a store renamed onto the name meanwhile stays).
    if (detail::names_file(s->path, s->fd.get())) ::unlink(s->path.c_str());
    // The side files whether or not this handle opened them (an earlier
    // handle's log stays until a checkpoint empties it), as remove() does.
    ::unlink(s->log_path.c_str());
    ::unlink(detail::side_file(s->path, detail::readers_suffix).c_str());
    // Not kept for a next open: the mapping would keep the removed file's
    // blocks. The descriptor, and with it the lock, closes with s.
    detail::give_reservation(*s, false);
  }
  base_ = nullptr;
  size_ = 0;
  st_.reset();
}

bool mapped_space::remove(const std::filesystem::path& path) {
  const detail::unique_fd fd(detail::open_store_file(path, O_RDONLY));
  if (fd) {
    // A closed space's mapping of the file would keep its blocks.
    struct stat sb;
    if (::fstat(fd.get(), &sb) == 0) detail::drop_kept_file(detail::id_of(sb));
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return false;
    // Held by this call, so nobody's: removed only while the name is still
    // that file (a store renamed onto it meanwhile stays).
    if (detail::names_file(path, fd.get())) ::unlink(path.c_str());
  }
  ::unlink(detail::side_file(path, detail::log_suffix).c_str());
  ::unlink(detail::side_file(path, detail::readers_suffix).c_str());
  return true;
}

}  // namespace FL_ABI_NS
}  // namespace fl
