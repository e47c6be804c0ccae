// bench/stream_bench.cpp: section stream/, the three stream tests of the
// classic string comparison, at their sizes: formatted output to a file, raw
// output to a file, raw output to memory.
//
// Inputs: a scratch directory (mkdtemp under $TMPDIR or /tmp, removed at
// exit); each iteration creates (truncates) its file, writes everything and
// closes it, so open and close are timed with the writes. The 4-byte piece
// is seeded random text with a run-time length; the fraction of the records
// is read through a volatile.
//
// Cases:
//   format_1M_file   1,000,000 records `i "_" (i + 0.1415926) '\n'` to a file.
//                    Each library prints the double its own default way:
//                    std and c with 6 significant digits ("7_7.14159"),
//                    fmt and fl the shortest text that reads back as the
//                    same double ("7_7.1415926"), so fmt and fl write about
//                    15% more bytes and do the harder conversion.
//   raw_10M_file     10,000,000 writes of the same 4 bytes to a file (40 MB)
//   raw_10M_memory   10,000,000 writes of the same 4 bytes to memory; the
//                    result is left in each library's own string or buffer.
// Peers:
//   std   std::ofstream (<<, write) / std::ostringstream::write then str()
//   c     fprintf("%d_%g\n") and fwrite on a FILE* / a malloc'ed buffer that
//         doubles, memcpy per write
//   fmt   fmt::output_file (print, its 32 KiB buffer) / fmt::memory_buffer
//         (append: fmt's raw path, stronger than format_to for plain bytes)
//   fl    fl::writer over the file descriptor (64 KiB buffer) / fl::writer
//         into an fl::string
// Every library uses its default buffer size. Iterations take 20-300 ms (the
// sizes are the classic test's), so each repetition runs only a few.
// "Faster" is less time per iteration; SetBytesProcessed counts the bytes of
// the std peer's output for every peer, so GB/s compares like with like.
#include "common.hpp"

#include <fl/writer.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#if defined(FL_BENCH_HAVE_FMT)
#include <fmt/format.h>
#include <fmt/os.h>
#endif

namespace {

constexpr int records = 1'000'000;
constexpr int raw_writes = 10'000'000;

// The one output file of the file rows, in a scratch directory made on first
// use and removed when the program exits.
struct scratch_dir {
  static const std::string& file() {
    static const fl_bench::scratch_dir dir("fl_stream_bench");
    static const std::string path = (dir / "out.txt").string();
    return path;
  }
};

double fraction() {
  volatile double f = 0.1415926;
  return f;
}

std::string piece() { return fl_bench::random_text(4, fl_bench::salt("stream/raw")); }

int open_out(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::system_error(errno, std::system_category(), "stream_bench: open " + path);
  return fd;
}

// ---- format_1M_file ----

void format_std(benchmark::State& st) {
  const std::string& path = scratch_dir::file();
  const double frac = fraction();
  for (auto _ : st) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    for (int i = 0; i < records; ++i) out << i << "_" << (i + frac) << '\n';
    out.close();
    if (!out) st.SkipWithError("ofstream failed");
  }
}

void format_c(benchmark::State& st) {
  const std::string& path = scratch_dir::file();
  const double frac = fraction();
  for (auto _ : st) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) {
      st.SkipWithError("fopen failed");
      break;
    }
    for (int i = 0; i < records; ++i) std::fprintf(f, "%d_%g\n", i, i + frac);
    if (std::fclose(f) != 0) st.SkipWithError("fclose failed");
  }
}

#if defined(FL_BENCH_HAVE_FMT)
void format_fmt(benchmark::State& st) {
  const std::string& path = scratch_dir::file();
  const double frac = fraction();
  for (auto _ : st) {
    auto out = fmt::output_file(path);
    for (int i = 0; i < records; ++i) out.print("{}_{}\n", i, i + frac);
    out.close();
  }
}
#endif

void format_fl(benchmark::State& st) {
  const std::string& path = scratch_dir::file();
  const double frac = fraction();
  for (auto _ : st) {
    const int fd = open_out(path);
    {
      fl::writer w(fd);
      for (int i = 0; i < records; ++i) w << i << '_' << (i + frac) << '\n';
      w.flush();
    }
    ::close(fd);
  }
}

// ---- raw_10M_file ----

void raw_file_std(benchmark::State& st) {
  const std::string& path = scratch_dir::file();
  const std::string p = piece();
  for (auto _ : st) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    for (int i = 0; i < raw_writes; ++i)
      out.write(p.data(), static_cast<std::streamsize>(p.size()));
    out.close();
    if (!out) st.SkipWithError("ofstream failed");
  }
}

void raw_file_c(benchmark::State& st) {
  const std::string& path = scratch_dir::file();
  const std::string p = piece();
  for (auto _ : st) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) {
      st.SkipWithError("fopen failed");
      break;
    }
    for (int i = 0; i < raw_writes; ++i) std::fwrite(p.data(), 1, p.size(), f);
    if (std::fclose(f) != 0) st.SkipWithError("fclose failed");
  }
}

#if defined(FL_BENCH_HAVE_FMT)
void raw_file_fmt(benchmark::State& st) {
  const std::string& path = scratch_dir::file();
  const std::string p = piece();
  const fmt::string_view v(p.data(), p.size());
  for (auto _ : st) {
    auto out = fmt::output_file(path);
    for (int i = 0; i < raw_writes; ++i) out.print("{}", v);
    out.close();
  }
}
#endif

void raw_file_fl(benchmark::State& st) {
  const std::string& path = scratch_dir::file();
  const std::string p = piece();
  const std::string_view v = p;
  for (auto _ : st) {
    const int fd = open_out(path);
    {
      fl::writer w(fd);
      for (int i = 0; i < raw_writes; ++i) w.write(v);
      w.flush();
    }
    ::close(fd);
  }
}

// ---- raw_10M_memory ----

void raw_memory_std(benchmark::State& st) {
  const std::string p = piece();
  for (auto _ : st) {
    std::ostringstream out;
    for (int i = 0; i < raw_writes; ++i)
      out.write(p.data(), static_cast<std::streamsize>(p.size()));
    const std::string s = std::move(out).str();
    benchmark::DoNotOptimize(s.data());
  }
}

void raw_memory_c(benchmark::State& st) {
  const std::string p = piece();
  for (auto _ : st) {
    std::size_t cap = 64, len = 0;
    char* buf = static_cast<char*>(std::malloc(cap));
    for (int i = 0; i < raw_writes; ++i) {
      if (cap - len < p.size()) {
        cap *= 2;
        char* nb = static_cast<char*>(std::realloc(buf, cap));
        if (nb == nullptr) {
          std::free(buf);
          st.SkipWithError("realloc failed");
          return;
        }
        buf = nb;
      }
      std::memcpy(buf + len, p.data(), p.size());
      len += p.size();
    }
    benchmark::DoNotOptimize(buf);
    benchmark::DoNotOptimize(len);
    std::free(buf);
  }
}

#if defined(FL_BENCH_HAVE_FMT)
void raw_memory_fmt(benchmark::State& st) {
  const std::string p = piece();
  for (auto _ : st) {
    fmt::memory_buffer buf;
    for (int i = 0; i < raw_writes; ++i) buf.append(p.data(), p.data() + p.size());
    benchmark::DoNotOptimize(buf.data());
  }
}
#endif

void raw_memory_fl(benchmark::State& st) {
  const std::string p = piece();
  const std::string_view v = p;
  for (auto _ : st) {
    fl::string s;
    {
      fl::writer w(s);
      for (int i = 0; i < raw_writes; ++i) w.write(v);
    }
    benchmark::DoNotOptimize(s.data());
  }
}

// Bytes of the std peer's output, the same figure for every peer.
std::size_t formatted_bytes() {
  static const std::size_t n = [] {
    std::ostringstream out;
    const double frac = fraction();
    for (int i = 0; i < records; ++i) out << i << "_" << (i + frac) << '\n';
    return out.str().size();
  }();
  return n;
}

std::size_t raw_bytes() { return std::size_t{4} * raw_writes; }

using body = void (*)(benchmark::State&);

// Registers one case for every peer, in the report's order (std, c, fmt when
// built, fl); `bytes` gives the bytes one iteration writes, for GB/s.
void reg_case(const std::string& section_case, body std_body, body c_body,
              [[maybe_unused]] body fmt_body, body fl_body, std::size_t (*bytes)()) {
  auto run = [](benchmark::State& st, body b, std::size_t (*n)()) {
    b(st);
    fl_bench::set_bytes(st, n());
  };
  fl_bench::reg(section_case + "/std", run, std_body, bytes);
  fl_bench::reg(section_case + "/c", run, c_body, bytes);
#if defined(FL_BENCH_HAVE_FMT)
  fl_bench::reg(section_case + "/fmt", run, fmt_body, bytes);
#endif
  fl_bench::reg(section_case + "/fl", run, fl_body, bytes);
}

#if defined(FL_BENCH_HAVE_FMT)
#define FL_BENCH_FMT_BODY(f) f
#else
#define FL_BENCH_FMT_BODY(f) nullptr
#endif

const bool registered = [] {
  reg_case("stream/format_1M_file", format_std, format_c, FL_BENCH_FMT_BODY(format_fmt), format_fl,
           formatted_bytes);
  reg_case("stream/raw_10M_file", raw_file_std, raw_file_c, FL_BENCH_FMT_BODY(raw_file_fmt),
           raw_file_fl, raw_bytes);
  reg_case("stream/raw_10M_memory", raw_memory_std, raw_memory_c, FL_BENCH_FMT_BODY(raw_memory_fmt),
           raw_memory_fl, raw_bytes);
  return true;
}();

}  // namespace
