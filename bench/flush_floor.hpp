// bench/flush_floor.hpp: the reference row "fdatasync" of the durable-commit
// cases (persist/sync_4k_dirty, json/edit_sync_<doc>): overwrite 4 KiB of a
// file whose blocks are already written, then fdatasync it. It is not a
// store (no atomicity: a crash can leave the 4 KiB torn) but the least any
// durable commit costs on the disk under the benchmark: one data write and
// one device cache flush, with no block allocation and no inode to write. A
// store's commit over this row says how much it spends beyond the disk's
// floor; a peer's says how many such round trips its save takes.
#pragma once

#include "common.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

namespace fl_bench {

inline void run_flush_floor(benchmark::State& st, const std::filesystem::path& path) {
  constexpr std::size_t page = 4096, slots = 64;
  alignas(64) static char buf[page];
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("flush_floor: open failed");
  // Every block written and flushed once, so the timed writes overwrite them
  // (as a store's preallocated log is overwritten).
  for (std::size_t k = 0; k < slots; ++k) {
    if (::pwrite(fd, buf, page, static_cast<off_t>(k * page)) != static_cast<ssize_t>(page))
      throw std::runtime_error("flush_floor: write failed");
  }
  if (::fsync(fd) != 0) throw std::runtime_error("flush_floor: fsync failed");
  std::uint64_t v = seed(), k = 0;
  for (auto _ : st) {
    ++v;
    for (std::size_t i = 0; i < page; i += 8) std::memcpy(buf + i, &v, 8);
    if (::pwrite(fd, buf, page, static_cast<off_t>(k++ % slots * page)) !=
        static_cast<ssize_t>(page))
      throw std::runtime_error("flush_floor: write failed");
    if (::fdatasync(fd) != 0) throw std::runtime_error("flush_floor: fdatasync failed");
  }
  ::close(fd);
  set_bytes(st, page);
}

}  // namespace fl_bench
