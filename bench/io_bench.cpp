// bench/io_bench.cpp: section io/, reading whole files from the page cache.
//
// Inputs: a scratch directory (mkdtemp under $TMPDIR or /tmp, removed at exit)
// holding 100 files of 1 MiB and one file of 100 MiB of seeded random bytes,
// written once before the first timed iteration; each benchmark reads its
// files once more before timing, so every peer starts with a warm page cache.
//
// Cases:
//   read_1mb_x100   read all 100 files of 1 MiB into strings (100 MiB per iteration)
//   read_100mb      read the 100 MiB file into one string
//   cold_100mb      read_100mb with fl::pool_trim() before every read (not
//                   timed): fl's buffer is then fresh memory, as for a
//                   program's first big read. In read_100mb each result is
//                   destroyed too, and the next read_file gets the block back
//                   from the pool's kept large block (fl/pool.hpp) already
//                   mapped; here the kernel must map and zero it again, which
//                   no reader can avoid for fresh memory. Peers fl and raw.
//   rope_load_<size>  a text file (lines of words, some 2-byte chars) read
//                   into a rope with its char, line and UTF-16 counts ready:
//                   fl_rope (fl::read_rope_file) beside fl_read_file
//                   (fl::read_file of the same file, the floor). 100mb;
//                   FL_BENCH_ROPE_LOAD=1gb adds 1gb (a 1 GiB file, written
//                   on first use).
// Peers:
//   fl    fl::read_file(path) -> fl::string
//   std   std::ifstream + std::ostringstream << rdbuf(), then str()
//   c     fopen, fseek/ftell for the size, fread into a malloc'ed buffer, fclose
//   raw   open + read() into a buffer allocated once, outside the timed loop:
//         the kernel's copy alone, the ceiling for everyone
// "Faster" is more bytes per second (SetBytesProcessed: GB/s in the report).
#include "common.hpp"

#include <fl/io.hpp>
#include <fl/pool.hpp>
#include <fl/rope.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

constexpr std::size_t small_size = std::size_t{1} << 20;
constexpr std::size_t small_count = 100;
constexpr std::size_t big_size = std::size_t{100} << 20;

// The scratch files, created on first use and removed when the program exits.
class io_files {
 public:
  static const io_files& get() {
    static const io_files files;
    return files;
  }
  std::vector<std::string> small;
  std::string big;

 private:
  io_files() {
    fl_bench::rng r(fl_bench::salt("io"));
    std::string data(big_size, '\0');
    for (std::size_t i = 0; i + 8 <= data.size(); i += 8) {
      const std::uint64_t x = r.next();
      std::memcpy(data.data() + i, &x, 8);
    }
    for (std::size_t i = 0; i < small_count; ++i) {
      small.push_back((dir_ / ("small_" + std::to_string(i) + ".bin")).string());
      fl::write_file(small.back(), std::string_view(data).substr(i * small_size / 2, small_size));
    }
    big = (dir_ / "big.bin").string();
    fl::write_file(big, data);
  }
  fl_bench::scratch_dir dir_{"fl_io_bench"};
};

std::size_t read_fl(const std::string& p) {
  const fl::string s = fl::read_file(p.c_str());
  benchmark::DoNotOptimize(s.data());
  return s.size();
}

std::size_t read_std(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  const std::string s = std::move(out).str();
  benchmark::DoNotOptimize(s.data());
  return s.size();
}

std::size_t read_c(const std::string& p) {
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (f == nullptr) return 0;
  std::size_t got = 0;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    const long n = std::ftell(f);
    std::rewind(f);
    if (n >= 0) {
      char* buf = static_cast<char*>(std::malloc(static_cast<std::size_t>(n) + 1));
      if (buf != nullptr) {
        got = std::fread(buf, 1, static_cast<std::size_t>(n), f);
        buf[got] = '\0';
        benchmark::DoNotOptimize(buf);
        std::free(buf);
      }
    }
  }
  std::fclose(f);
  return got;
}

// raw reads into `buf` (capacity `cap`), allocated by the caller once.
std::size_t read_raw(const std::string& p, char* buf, std::size_t cap) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t got = 0;
  for (;;) {
    const ssize_t r = ::read(fd, buf + got, cap - got);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
    if (got == cap) break;
  }
  ::close(fd);
  benchmark::DoNotOptimize(buf);
  return got;
}

enum class peer { fl, std, c, raw };

void bm_read(benchmark::State& st, peer who, bool many, bool cold) {
  const io_files& files = io_files::get();
  const std::vector<std::string> paths = many ? files.small : std::vector<std::string>{files.big};
  const std::size_t each = many ? small_size : big_size;
  std::unique_ptr<char[]> raw_buf;
  if (who == peer::raw) {
    raw_buf.reset(new char[each]);
    std::memset(raw_buf.get(), 0, each);  // faulted in before timing
  }
  auto read_one = [&](const std::string& p) -> std::size_t {
    switch (who) {
      case peer::fl: return read_fl(p);
      case peer::std: return read_std(p);
      case peer::c: return read_c(p);
      case peer::raw: return read_raw(p, raw_buf.get(), each);
    }
    return 0;
  };
  for (const auto& p : paths) read_one(p);  // warm the page cache
  for (auto _ : st) {
    if (cold) {
      st.PauseTiming();
      fl::pool_trim();
      st.ResumeTiming();
    }
    std::size_t total = 0;
    for (const auto& p : paths) total += read_one(p);
    if (total != each * paths.size()) st.SkipWithError("short read");
  }
  fl_bench::set_bytes(st, each * paths.size());
}

// A text file of `bytes`: 1 MiB of seeded lines repeated, written on first
// use of its size into the section's scratch directory.
const std::string& text_file(std::size_t bytes) {
  static fl_bench::scratch_dir dir{"fl_io_text"};
  static std::map<std::size_t, std::string> files;
  auto [it, fresh] = files.try_emplace(bytes);
  if (fresh) {
    fl_bench::rng r(fl_bench::salt("io text"));
    static constexpr std::string_view words[] = {"the ",  "rope ", "line ", "caf\xC3\xA9 ",
                                                 "edit ", "\n",    "x ",    "na\xC3\xAFve "};
    std::string block;
    while (block.size() < (std::size_t{1} << 20)) block += words[r.next() % std::size(words)];
    it->second = (dir.path() / ("text_" + std::to_string(bytes) + ".txt")).string();
    std::string text;
    text.reserve(bytes);
    while (text.size() < bytes) text.append(block, 0, std::min(block.size(), bytes - text.size()));
    fl::write_file(it->second, text);
  }
  return it->second;
}

void bm_rope_load(benchmark::State& st, std::size_t bytes, bool rope) {
  const std::string& path = text_file(bytes);
  (void)fl::read_file(path);  // warm the page cache
  for (auto _ : st) {
    if (rope) {
      const fl::rope r = fl::read_rope_file(path);
      benchmark::DoNotOptimize(r.line_count());
    } else {
      const fl::string s = fl::read_file(path);
      benchmark::DoNotOptimize(s.data());
    }
  }
  fl_bench::set_bytes(st, bytes);
}

const bool registered = [] {
  for (const std::size_t mib : {std::size_t{100}, std::size_t{1024}}) {
    const char* max = std::getenv("FL_BENCH_ROPE_LOAD");
    if (mib == 1024 && (max == nullptr || std::string_view(max) != "1gb")) break;
    const std::string size = mib == 1024 ? "1gb" : "100mb";
    fl_bench::reg("io/rope_load_" + size + "/fl_read_file", bm_rope_load, mib << 20, false)
        ->UseRealTime();
    fl_bench::reg("io/rope_load_" + size + "/fl_rope", bm_rope_load, mib << 20, true)
        ->UseRealTime();
  }
  fl_bench::reg("io/read_1mb_x100/fl", bm_read, peer::fl, true, false)->UseRealTime();
  fl_bench::reg("io/read_1mb_x100/std", bm_read, peer::std, true, false)->UseRealTime();
  fl_bench::reg("io/read_1mb_x100/c", bm_read, peer::c, true, false)->UseRealTime();
  fl_bench::reg("io/read_1mb_x100/raw", bm_read, peer::raw, true, false)->UseRealTime();
  fl_bench::reg("io/read_100mb/fl", bm_read, peer::fl, false, false)->UseRealTime();
  fl_bench::reg("io/read_100mb/std", bm_read, peer::std, false, false)->UseRealTime();
  fl_bench::reg("io/read_100mb/c", bm_read, peer::c, false, false)->UseRealTime();
  fl_bench::reg("io/read_100mb/raw", bm_read, peer::raw, false, false)->UseRealTime();
  fl_bench::reg("io/cold_100mb/fl", bm_read, peer::fl, false, true)->UseRealTime();
  fl_bench::reg("io/cold_100mb/raw", bm_read, peer::raw, false, true)->UseRealTime();
  return true;
}();

}  // namespace
