// bench/persist_bench.cpp: section persist/, values and object graphs in files.
//
// Inputs: a scratch directory (mkdtemp under $TMPDIR or /tmp, removed at exit)
// holding each peer's files, created before the first timed iteration. Every
// value written derives from a counter the compiler cannot know.
//
// Cases:
//   int_assign            assign an int through the handle (no I/O)
//   int_flush             assign a new int, then save it so that a crash
//                         keeps the old or the new value, whole, after the
//                         call returns (disk-bound: about two fsyncs)
//   fptr_new_write_delete_1000
//                         allocate 1,000 objects of 32 bytes in the space,
//                         write each, free them all; items/s counts cycles
//                         (the older design published 1.1M cycles/s)
//   sync_4k_dirty         write 4 KiB of one page, then commit (in wall time:
//                         a durable commit is mostly waiting for the disk,
//                         which CPU time leaves out)
//   reopen_1gb            open a 1 GiB space, read its root object, close
//   small_write/written_<w>
//                         64 bytes pwrite'd at a random page of a 64 MiB file
//                         that was written <w> (4k, 256k, 4m) at a time: the
//                         page cache gives a write a folio as large as the
//                         write, and a later small write walks the whole
//                         folio's blocks (a commit's in-place writes into
//                         pages an import wrote: why the store writes in
//                         calls of at most 256 KiB, write_call_max in
//                         src/persist/posix.hpp; peer raw only: no store)
// Peers:
//   fl         fl::persist<int>, fl::mapped_space (durable commits)
//   std        a plain int; int_flush: std::ofstream to "<path>.tmp", then
//              open + fsync, rename, open + fsync of the directory (the same
//              guarantee as fl, by hand); fptr_new_write_delete: new/delete
//   std_naive  int_flush with std::ofstream overwriting the file, no fsync
//              (torn or lost on a crash; for reference only)
//   boost_ipc  Boost.Interprocess managed_mapped_file (rbtree best-fit
//              allocator, process-shared mutex); sync_4k_dirty: msync(MS_SYNC)
//              of the segment (durable once it returns, but not atomic: a
//              crash during it can leave any mix of old and new pages)
//   lmdb       LMDB (FL_BENCH_HAVE_LMDB, bench/lmdb_peer.hpp), the embedded
//              store with atomic durable commits: sync_4k_dirty puts a
//              4 KiB value (MDB_RESERVE, written in place) and commits (the
//              new pages, then the meta page, each synced); reopen_1gb opens
//              an environment with a 1 GiB map whose data file is 1 GiB
//              (MDB_WRITEMAP extends it to the map size, sparse, as fl's
//              space file is) and reads its root record in a read
//              transaction
//   raw        small_write: pwrite(2) on a file of the scratch directory
//   fdatasync  sync_4k_dirty only: 4 KiB overwritten in a written file, then
//              fdatasync (bench/flush_floor.hpp): no store, no atomicity, the
//              disk's floor for any durable commit (for reference only)
// "Faster" is less time per iteration.
#include "common.hpp"
#include "flush_floor.hpp"
#include "lmdb_peer.hpp"

#include <fl/persist.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(FL_BENCH_HAVE_BOOST)
#include <boost/interprocess/managed_mapped_file.hpp>
#endif

namespace {

namespace fs = std::filesystem;

// The scratch directory, made on first use and removed when the program exits.
struct scratch {
  static const fl_bench::scratch_dir& get() {
    static const fl_bench::scratch_dir dir("fl_persist_bench");
    return dir;
  }
};

struct obj32 {
  std::uint64_t a, b, c, d;
};
static_assert(sizeof(obj32) == 32);

// ---- int_assign / int_flush ----------------------------------------------------

void bm_int_assign_fl(benchmark::State& st) {
  fl::persist<int> p(scratch::get() / "assign_fl");
  int v = static_cast<int>(fl_bench::seed() & 0xFFFF);
  for (auto _ : st) {
    p = ++v;
    benchmark::DoNotOptimize(*p);
  }
  fs::remove(p.path());
}

void bm_int_assign_std(benchmark::State& st) {
  int x = 0;
  int v = static_cast<int>(fl_bench::seed() & 0xFFFF);
  for (auto _ : st) {
    x = ++v;
    benchmark::DoNotOptimize(x);
  }
}

void bm_int_flush_fl(benchmark::State& st) {
  fl::persist<int> p(scratch::get() / "flush_fl");
  int v = static_cast<int>(fl_bench::seed() & 0xFFFF);
  for (auto _ : st) {
    p = ++v;
    p.flush();
  }
}

void fsync_path(const fs::path& p, int flags) {
  const int fd = ::open(p.c_str(), flags | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) throw std::runtime_error("persist_bench: fsync failed");
  ::close(fd);
}

void bm_int_flush_std(benchmark::State& st) {
  const fs::path path = scratch::get() / "flush_std";
  fs::path tmp = path;
  tmp += ".tmp";
  int v = static_cast<int>(fl_bench::seed() & 0xFFFF);
  for (auto _ : st) {
    ++v;
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(&v), sizeof v);
    }
    fsync_path(tmp, O_RDONLY);
    fs::rename(tmp, path);
    fsync_path(path.parent_path(), O_RDONLY | O_DIRECTORY);
  }
}

void bm_int_flush_std_naive(benchmark::State& st) {
  const fs::path path = scratch::get() / "flush_naive";
  int v = static_cast<int>(fl_bench::seed() & 0xFFFF);
  for (auto _ : st) {
    ++v;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&v), sizeof v);
  }
}

// ---- fptr_new_write_delete_1000 ---------------------------------------------------

constexpr std::size_t cycles = 1000;

void bm_cycles_fl(benchmark::State& st) {
  const fs::path path = scratch::get() / "cycles_fl";
  fl::mapped_space s(path);
  std::unique_ptr<fl::fptr<obj32>[]> ptrs(new fl::fptr<obj32>[cycles]);
  const std::size_t n = fl_bench::runtime_count(cycles);
  std::uint64_t v = fl_bench::seed();
  for (auto _ : st) {
    for (std::size_t i = 0; i < n; ++i) {
      const fl::fptr<obj32> p = s.make<obj32>();
      obj32* o = s.get(p);
      o->a = ++v;
      o->d = v;
      ptrs[i] = p;
    }
    benchmark::DoNotOptimize(s.get(ptrs[n - 1])->a);
    for (std::size_t i = 0; i < n; ++i) s.destroy(ptrs[i]);
  }
  fl_bench::set_items(st, cycles);
}

void bm_cycles_std(benchmark::State& st) {
  std::unique_ptr<obj32*[]> ptrs(new obj32*[cycles]);
  const std::size_t n = fl_bench::runtime_count(cycles);
  std::uint64_t v = fl_bench::seed();
  for (auto _ : st) {
    for (std::size_t i = 0; i < n; ++i) {
      obj32* o = new obj32;
      o->a = ++v;
      o->d = v;
      ptrs[i] = o;
      benchmark::DoNotOptimize(o);
    }
    benchmark::DoNotOptimize(ptrs[n - 1]->a);
    for (std::size_t i = 0; i < n; ++i) delete ptrs[i];
  }
  fl_bench::set_items(st, cycles);
}

#if defined(FL_BENCH_HAVE_BOOST)
namespace bip = boost::interprocess;

void bm_cycles_boost(benchmark::State& st) {
  const fs::path path = scratch::get() / "cycles_boost";
  fs::remove(path);
  bip::managed_mapped_file seg(bip::create_only, path.c_str(), 1 << 20);
  std::unique_ptr<obj32*[]> ptrs(new obj32*[cycles]);
  const std::size_t n = fl_bench::runtime_count(cycles);
  std::uint64_t v = fl_bench::seed();
  for (auto _ : st) {
    for (std::size_t i = 0; i < n; ++i) {
      obj32* o = static_cast<obj32*>(seg.allocate(sizeof(obj32)));
      o->a = ++v;
      o->d = v;
      ptrs[i] = o;
    }
    benchmark::DoNotOptimize(ptrs[n - 1]->a);
    for (std::size_t i = 0; i < n; ++i) seg.deallocate(ptrs[i]);
  }
  fl_bench::set_items(st, cycles);
}
#endif

// ---- sync_4k_dirty ---------------------------------------------------------------

constexpr std::size_t page = 4096;

void bm_sync_fl(benchmark::State& st) {
  const fs::path path = scratch::get() / "sync_fl";
  fs::remove(path);
  fl::mapped_space s(path);
  const fl::fptr<char> buf = s.allocate(page, page).cast<char>();
  s.sync();
  std::uint64_t v = fl_bench::seed();
  for (auto _ : st) {
    ++v;
    char* p = s.get(buf);
    for (std::size_t i = 0; i < page; i += 8) std::memcpy(p + i, &v, 8);
    s.sync();
  }
  fl_bench::set_bytes(st, page);
}

#if defined(FL_BENCH_HAVE_BOOST)
void bm_sync_boost(benchmark::State& st) {
  const fs::path path = scratch::get() / "sync_boost";
  fs::remove(path);
  bip::managed_mapped_file seg(bip::create_only, path.c_str(), 1 << 20);
  char* p = static_cast<char*>(seg.allocate_aligned(page, page));
  // flush() is msync(MS_ASYNC), which returns before the disk has the data;
  // the durable equivalent is MS_SYNC over the segment.
  auto* const addr = static_cast<char*>(seg.get_address());
  char* const start = addr - reinterpret_cast<std::uintptr_t>(addr) % page;
  const std::size_t len = seg.get_size() + static_cast<std::size_t>(addr - start);
  std::uint64_t v = fl_bench::seed();
  for (auto _ : st) {
    ++v;
    for (std::size_t i = 0; i < page; i += 8) std::memcpy(p + i, &v, 8);
    if (::msync(start, len, MS_SYNC) != 0) throw std::runtime_error("persist_bench: msync failed");
  }
  fl_bench::set_bytes(st, page);
}
#endif

#if defined(FL_BENCH_HAVE_LMDB)
void bm_sync_lmdb(benchmark::State& st) {
  const fs::path path = scratch::get() / "sync_lmdb";
  const fl_bench::lmdb::env e(path, std::size_t{64} << 20);
  std::uint64_t v = fl_bench::seed();
  for (auto _ : st) {
    ++v;
    fl_bench::lmdb::txn t(e, 0);
    char* p = t.reserve("page", page);
    for (std::size_t i = 0; i < page; i += 8) std::memcpy(p + i, &v, 8);
    t.commit();
  }
  fl_bench::set_bytes(st, page);
}
#endif

void bm_sync_floor(benchmark::State& st) {
  fl_bench::run_flush_floor(st, scratch::get() / "sync_floor");
}

// ---- reopen_1gb --------------------------------------------------------------------

constexpr std::uint64_t gib = std::uint64_t{1} << 30;

void bm_reopen_fl(benchmark::State& st) {
  const fs::path path = scratch::get() / "reopen_fl";
  {
    fs::remove(path);
    fl::mapped_space s(path);
    s.allocate(gib - (std::uint64_t{1} << 20));  // one block: the file is 1 GiB
    const fl::fptr<obj32> root = s.make<obj32>(obj32{fl_bench::seed(), 0, 0, 0});
    s.set_root(root);
    s.sync();
    if (s.stats().file_bytes < gib)
      throw std::runtime_error("persist_bench: space smaller than 1 GiB");
  }
  for (auto _ : st) {
    fl::mapped_space s(path, {.mode = fl::open_mode::open_existing});
    benchmark::DoNotOptimize(s.get(s.root<obj32>())->a);
  }
}

#if defined(FL_BENCH_HAVE_BOOST)
void bm_reopen_boost(benchmark::State& st) {
  const fs::path path = scratch::get() / "reopen_boost";
  {
    fs::remove(path);
    bip::managed_mapped_file seg(bip::create_only, path.c_str(), gib);
    seg.construct<obj32>("root")(obj32{fl_bench::seed(), 0, 0, 0});
    seg.flush();
  }
  for (auto _ : st) {
    bip::managed_mapped_file seg(bip::open_only, path.c_str());
    benchmark::DoNotOptimize(seg.find<obj32>("root").first->a);
  }
}
#endif

#if defined(FL_BENCH_HAVE_LMDB)
void bm_reopen_lmdb(benchmark::State& st) {
  const fs::path path = scratch::get() / "reopen_lmdb";
  {
    const fl_bench::lmdb::env e(path, gib, MDB_WRITEMAP);
    fl_bench::lmdb::txn t(e, 0);
    const obj32 root{fl_bench::seed(), 0, 0, 0};
    t.put("root", std::string_view(reinterpret_cast<const char*>(&root), sizeof root));
    t.commit();
  }
  if (fs::file_size(path) < gib) throw std::runtime_error("persist_bench: lmdb file smaller than 1 GiB");
  for (auto _ : st) {
    const fl_bench::lmdb::env e(path, gib, MDB_WRITEMAP);
    const fl_bench::lmdb::txn t(e, MDB_RDONLY);
    obj32 root;
    std::memcpy(&root, t.get("root").data(), sizeof root);
    benchmark::DoNotOptimize(root.a);
  }
}
#endif

// small_write: the cost of a commit's in-place write of a few bytes in a
// page, by how the page's folio came to be (written `chunk` at a time).
void bm_small_write_raw(benchmark::State& st, std::size_t chunk) {
  constexpr std::size_t file_bytes = std::size_t{64} << 20, page = 4096;
  const fs::path path = scratch::get() / ("small_write_" + std::to_string(chunk));
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("persist_bench: cannot create " + path.string());
  std::string run(chunk, static_cast<char>('a' + fl_bench::seed() % 26));
  for (std::size_t off = 0; off < file_bytes; off += chunk)
    if (::pwrite(fd, run.data(), chunk, static_cast<off_t>(off)) != static_cast<ssize_t>(chunk))
      throw std::runtime_error("persist_bench: cannot write " + path.string());
  fl_bench::rng r(fl_bench::seed());
  char bytes[64];
  std::memset(bytes, static_cast<int>(r.next() & 0xff), sizeof bytes);
  for (auto _ : st) {
    const auto off = static_cast<off_t>(r.below(file_bytes / page) * page + 128);
    benchmark::DoNotOptimize(::pwrite(fd, bytes, sizeof bytes, off));
  }
  ::close(fd);
  fs::remove(path);
}

const bool registered = [] {
  fl_bench::reg("persist/int_assign/fl", bm_int_assign_fl);
  fl_bench::reg("persist/int_assign/std", bm_int_assign_std);
  fl_bench::reg("persist/int_flush/fl", bm_int_flush_fl)->Unit(benchmark::kMicrosecond);
  fl_bench::reg("persist/int_flush/std", bm_int_flush_std)->Unit(benchmark::kMicrosecond);
  fl_bench::reg("persist/int_flush/std_naive", bm_int_flush_std_naive)
      ->Unit(benchmark::kMicrosecond);
  fl_bench::reg("persist/fptr_new_write_delete_1000/fl", bm_cycles_fl)
      ->Unit(benchmark::kMicrosecond);
#if defined(FL_BENCH_HAVE_BOOST)
  fl_bench::reg("persist/fptr_new_write_delete_1000/boost_ipc", bm_cycles_boost)
      ->Unit(benchmark::kMicrosecond);
#endif
  fl_bench::reg("persist/fptr_new_write_delete_1000/std", bm_cycles_std)
      ->Unit(benchmark::kMicrosecond);
  fl_bench::reg("persist/sync_4k_dirty/fl", bm_sync_fl)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
#if defined(FL_BENCH_HAVE_BOOST)
  fl_bench::reg("persist/sync_4k_dirty/boost_ipc", bm_sync_boost)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
#endif
#if defined(FL_BENCH_HAVE_LMDB)
  fl_bench::reg("persist/sync_4k_dirty/lmdb", bm_sync_lmdb)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
#endif
  fl_bench::reg("persist/sync_4k_dirty/fdatasync", bm_sync_floor)
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
  fl_bench::reg("persist/reopen_1gb/fl", bm_reopen_fl)->Unit(benchmark::kMicrosecond);
  for (const auto& [name, chunk] : {std::pair<const char*, std::size_t>{"4k", 4096},
                                    {"256k", std::size_t{256} << 10},
                                    {"4m", std::size_t{4} << 20}})
    fl_bench::reg(std::string("persist/small_write/written_") + name + "/raw", bm_small_write_raw,
                  chunk);
#if defined(FL_BENCH_HAVE_BOOST)
  fl_bench::reg("persist/reopen_1gb/boost_ipc", bm_reopen_boost)->Unit(benchmark::kMicrosecond);
#endif
#if defined(FL_BENCH_HAVE_LMDB)
  fl_bench::reg("persist/reopen_1gb/lmdb", bm_reopen_lmdb)->Unit(benchmark::kMicrosecond);
#endif
  return true;
}();

}  // namespace
