// src/persist/reservation.cpp: the address range a mapped_space reserves and
// maps its file into (space.hpp: reserve_prot, file_prot), and the one range
// a closed space leaves for the next open of the same size. The design in
// docs/design.md ("Allocator", growth).
#include "persist/space.hpp"

#include <cstring>
#include <mutex>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

// What a kept range still maps at its start: nothing (a hole), its file
// holding only the file's pages, or a closed reader's view of its file at one
// commit (the file mapped privately, with the pages of the commits the file
// lacked read from the log, and zeros past its end).
enum class kept_map { none, file, view };

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
  kept_map kept = kept_map::none;  // at [base, base + hole)
  space_meta view_meta{};          // a view's commit
  std::uint64_t view_log_bytes = 0;
  file_id file;
  // The descriptor that mapping was opened by, left open with it (only
  // while something is kept): the next open of the same path in this process
  // uses it instead of opening the file again (take_kept_fd). `writable`: opened
  // read-write (a writer's, which a reader may use too). Unlocked.
  int fd = -1;
  bool writable = false;
  pid_t owner = 0;  // a child after fork() must not use its parent's
  std::filesystem::path path;
  // Closes the kept descriptor, if any (the mapping goes, or is taken).
  void close_fd() noexcept {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
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

void* take_reservation(std::uint64_t bytes, int fd, std::uint64_t file_bytes,
                       const file_id& file) noexcept {
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);
  if (c.base == nullptr || c.bytes != bytes) return nullptr;
  std::byte* const base = std::exchange(c.base, nullptr);
  const std::uint64_t hole = c.hole;
  c.close_fd();  // not taken by this open (another path, or another file)
  const kept_map was = std::exchange(c.kept, kept_map::none);
  if (was == kept_map::view) {
    // A reader's view, not taken as one: its pages go, leaving the hole.
    if (::munmap(base, hole) != 0) {
      ::munmap(base, bytes);
      return nullptr;
    }
  } else if (was == kept_map::file) {
    if (c.file == file) {
      // The pages stay as they are: clean, they show the page cache, which
      // a truncation since has cut from every mapping. The end follows the
      // file: more of it mapped, or what lies past it reserved again.
      bool fitted = true;
      if (file_bytes > hole)
        fitted = ::mmap(base + hole, file_bytes - hole, file_prot, file_flags | MAP_FIXED, fd,
                        static_cast<off_t>(hole)) != MAP_FAILED;
      else if (file_bytes < hole)
        fitted = ::mmap(base + file_bytes, hole - file_bytes, reserve_prot,
                        reserve_flags | MAP_FIXED, -1, 0) != MAP_FAILED;
      if (fitted) return base;
      ::munmap(base, bytes);
      return nullptr;
    }
    // Another file: the kept pages go, leaving the hole.
    if (::munmap(base, hole) != 0) {
      ::munmap(base, bytes);
      return nullptr;
    }
  }
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

void give_reservation(space_state& s, bool clean) noexcept {
  // The file's pages (private copies included) are unmapped, leaving a hole
  // at the range's start: one call, cheaper than mapping PROT_NONE over them
  // (no new mapping to merge back into the range). A clean mapping stays
  // instead: no unmap now, no map and no faults at the next open of the
  // file; so does a reader's exact view, private pages and all, for the next
  // reader of its commit (take_reader_view: no unmap, no log read, no copy).
  // A full cache or a failure unmaps the whole range.
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);
  const bool view =
      !clean && s.read_only && s.view_exact && !s.replaced && s.view_log_bytes <= view_keep_bound;
  if (c.base == nullptr && (clean || view || ::munmap(s.base, s.size) == 0)) {
    c.base = s.base;
    c.bytes = s.reserve;
    c.hole = s.size;
    c.kept = clean ? kept_map::file : view ? kept_map::view : kept_map::none;
    c.view_meta = s.committed;
    c.view_log_bytes = s.view_log_bytes;
    if (clean || view) {
      c.file = s.file;
      c.owner = process_id();
      try {
        c.path = s.path;
        c.fd = s.fd.release();
        c.writable = !s.read_only;
      } catch (...) {  // no memory for the path: the descriptor closes as it would have
      }
    }
    return;
  }
  ::munmap(s.base, s.reserve);
}

void* take_reader_view(std::uint64_t bytes, const file_id& file, const space_meta& commit,
                       std::uint64_t& size, std::uint64_t& log_bytes) noexcept {
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);
  if (c.base == nullptr || c.kept != kept_map::view || c.bytes != bytes || !(c.file == file) ||
      std::memcmp(&c.view_meta, &commit, sizeof commit) != 0 || c.owner != process_id())
    return nullptr;
  c.kept = kept_map::none;
  c.close_fd();  // the opener's take_kept_fd took it, else it opened the path itself
  size = c.hole;
  log_bytes = c.view_log_bytes;
  return std::exchange(c.base, nullptr);
}

unique_fd take_kept_fd(const std::filesystem::path& path, bool writable, file_id* file) noexcept {
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);
  if (c.fd < 0 || c.owner != process_id() || (writable && !c.writable) || c.path != path)
    return unique_fd();
  if (file != nullptr) *file = c.file;
  return unique_fd(std::exchange(c.fd, -1));
}

bool read_kept_file(const file_id& file, void* out, std::uint64_t bytes) noexcept {
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);  // no other open unmaps it meanwhile
  if (c.base == nullptr || c.kept != kept_map::file || !(c.file == file) || c.hole < bytes)
    return false;
  std::memcpy(out, c.base, bytes);
  return true;
}

void drop_kept_file(const file_id& file) noexcept {
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);
  if (c.base == nullptr || c.kept == kept_map::none || !(c.file == file)) return;
  c.kept = kept_map::none;
  c.close_fd();
  if (::munmap(c.base, c.hole) != 0) {  // no hole to leave: the whole range goes
    ::munmap(c.base, c.bytes);
    c.base = nullptr;
  }
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
