// src/persist/reservation.cpp: the address range a mapped_space reserves and
// maps its file into (space.hpp: reserve_prot, file_prot), and the one range
// a closed space leaves for the next open of the same size. The design in
// docs/design.md ("Allocator", growth).
#include "persist/space.hpp"

#include <mutex>
#include <utility>

#include <sys/mman.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

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

void* take_reservation(std::uint64_t bytes, int fd, std::uint64_t file_bytes) noexcept {
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);
  if (c.base == nullptr || c.bytes != bytes) return nullptr;
  std::byte* const base = std::exchange(c.base, nullptr);
  const std::uint64_t hole = c.hole;
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

void give_reservation(std::byte* base, std::uint64_t mapped, std::uint64_t bytes) noexcept {
  // The file's pages (private copies included) are unmapped, leaving a hole
  // at the range's start: one call, cheaper than mapping PROT_NONE over them
  // (no new mapping to merge back into the range). A full cache or a failure
  // unmaps the whole range.
  reservation_cache& c = cached_reservation();
  const std::lock_guard<std::mutex> lock(c.m);
  if (c.base == nullptr && ::munmap(base, mapped) == 0) {
    c.base = base;
    c.bytes = bytes;
    c.hole = mapped;
    return;
  }
  ::munmap(base, bytes);
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
