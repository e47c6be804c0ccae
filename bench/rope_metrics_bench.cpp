// bench/rope_metrics_bench.cpp: section rope/, fl::rope's text metrics and
// segmented reads against a scan of a std::string (std) and the same scan
// through absl::Cord's chunks (cord, when abseil is present). Lower time is
// faster; the report shows each peer's ratio to std.
//
// Text: lines of 0..119 bytes (letters, digits, spaces, some 2-byte UTF-8),
// each ended by '\n', 1 MB or 64 MB. fl holds it flat (one chunk: the rope a
// file read or a paste gives; its block index is built by the first query
// and shared from then on) or, in the *_tree rows, as a tree of 4 KiB leaves
// (what an edited rope looks like); the peers' rows are repeated beside the
// tree rows so the report lines them up.
//
//   byte_to_line_{1m,64m}[_tree]   one query per iteration at a random byte:
//                                  std counts '\n' in [0, pos) (std::count)
//   line_to_byte_{1m,64m}[_tree]   start of a random line: std finds the
//                                  k-th '\n' (memchr from one to the next)
//   char_to_byte_{1m,64m}[_tree]   start of a random char (non-continuation
//                                  byte): std counts them byte by byte
//   <conversion>_10m[_tree]        the conversions an editor makes on every
//                                  keystroke, on a 10 MB text: char_to_byte,
//                                  byte_to_char, byte_to_line, and
//                                  line_col_to_byte / byte_to_line_col (a
//                                  line and a UTF-16 column, as LSP gives
//                                  them: rope::line_column_to_byte and
//                                  byte_to_line_column; the column is 0..63,
//                                  past a short line's end it means the end);
//                                  std scans the string as above
//   construct_query_64m            a copy of the 64 MB text, then one
//                                  byte_to_line (fl: the copy's index is
//                                  built by that query), i.e. the cost of the
//                                  lazy index against a plain copy and scan
//   edit_then_query                the editor loop on 1 MB: a one-byte insert
//                                  at a random place, then byte_to_line of
//                                  another (cord: Subcord + Append, then its
//                                  chunks scanned)
//   count_1m[_tree]                count of '\n' over 1 MB: fl::count (SIMD
//                                  per chunk), std::count on std::string,
//                                  std::count per Cord chunk; fl_ranges is
//                                  std::ranges::count through the rope's
//                                  per-char iterators
//
// Query arguments come from fl_bench::rng seeded at run time, 1,024 of them
// cycled.
#include "common.hpp"

#include <fl/rope.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#ifdef FL_BENCH_HAVE_ABSL
#include <absl/strings/cord.h>
#endif

namespace {

constexpr std::size_t mb = 1 << 20;

std::string lines_text(std::size_t bytes) {
  fl_bench::rng g(fl_bench::salt("rope/metrics"));
  static constexpr std::string_view pieces[] = {"ab", "cd", "ef",       "gh",
                                                "12", "  ", "\xC3\xA9", "xy"};
  std::string s;
  s.reserve(bytes + 128);
  while (s.size() < bytes) {
    const std::size_t end = s.size() + g.below(120);
    while (s.size() < end) s += pieces[g.below(std::size(pieces))];
    s += '\n';
  }
  s.resize(bytes);
  return s;
}

// The inputs of one size, built once per process (on first use).
struct inputs {
  std::string text;
  fl::rope flat, tree;
  std::size_t lines = 0, chars = 0;
#ifdef FL_BENCH_HAVE_ABSL
  absl::Cord cord;
#endif
  explicit inputs(std::size_t bytes) : text(lines_text(bytes)), flat(text) {
    for (std::size_t i = 0; i < text.size(); i += 4096)
      tree.append(fl::rope(std::string_view(text).substr(i, 4096)));
    lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    for (char c : text) chars += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
#ifdef FL_BENCH_HAVE_ABSL
    cord = absl::Cord(text);
#endif
  }
};
const inputs& get(std::size_t bytes) {
  static std::map<std::size_t, std::unique_ptr<inputs>> cache;
  auto& p = cache[bytes];
  if (!p) p = std::make_unique<inputs>(bytes);
  return *p;
}

std::vector<std::size_t> args(std::size_t below, std::string_view label) {
  fl_bench::rng g(fl_bench::salt(label));
  std::vector<std::size_t> out(1024);
  for (auto& a : out) a = g.below(below);
  return out;
}

enum class query {
  byte_to_line,
  line_to_byte,
  char_to_byte,
  byte_to_char,
  line_col_to_byte,
  byte_to_line_col
};

std::size_t domain(const inputs& in, query q) {
  switch (q) {
    case query::byte_to_line: return in.text.size() + 1;
    case query::line_to_byte: return in.lines + 1;
    case query::char_to_byte: return in.chars;
    case query::byte_to_char: return in.text.size() + 1;
    case query::line_col_to_byte: return in.lines + 1;
    case query::byte_to_line_col: return in.text.size() + 1;
  }
  return 1;
}

// ---- the plain scans (std) and their chunked form (cord)

bool is_char(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

// Position of the k-th '\n' (0-based) in [p, p + n), or n; `seen` counts the
// ones passed.
std::size_t nth_newline(const char* p, std::size_t n, std::size_t k, std::size_t& seen) {
  const char* at = p;
  const char* end = p + n;
  while (at < end) {
    const void* hit = std::memchr(at, '\n', static_cast<std::size_t>(end - at));
    if (!hit) break;
    const char* h = static_cast<const char*>(hit);
    if (seen == k) return static_cast<std::size_t>(h - p);
    ++seen;
    at = h + 1;
  }
  return n;
}
std::size_t nth_char(const char* p, std::size_t n, std::size_t k, std::size_t& seen) {
  for (std::size_t i = 0; i < n; ++i) {
    if (is_char(p[i])) {
      if (seen == k) return i;
      ++seen;
    }
  }
  return n;
}

// The UTF-16 column of a query for line `line` (0..63), and the UTF-16
// units of a char by its lead byte (two for a 4-byte sequence).
std::size_t column_of(std::size_t line) { return line * 7 % 64; }
std::size_t utf16_units(char c) { return static_cast<unsigned char>(c) >= 0xF0 ? 2 : 1; }

std::size_t std_query(const std::string& s, query q, std::size_t a) {
  std::size_t seen = 0;
  switch (q) {
    case query::byte_to_char: {
      std::size_t n = 0;
      for (std::size_t i = 0; i < a; ++i) n += is_char(s[i]);
      return n;
    }
    case query::line_col_to_byte: {
      // The line's start, then its chars up to the column or the line's end.
      std::size_t at = a == 0 ? 0 : nth_newline(s.data(), s.size(), a - 1, seen) + 1;
      for (std::size_t col = column_of(a), u = 0; at < s.size() && s[at] != '\n'; ++at) {
        if (!is_char(s[at])) continue;
        if (u >= col) break;
        u += utf16_units(s[at]);
      }
      return at;
    }
    case query::byte_to_line_col: {
      // Line: the '\n' before a; column: the UTF-16 units from the line's start.
      const std::size_t line = static_cast<std::size_t>(
          std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(a), '\n'));
      const std::size_t start = s.rfind('\n', a == 0 ? 0 : a - 1);
      std::size_t u = 0;
      for (std::size_t i = start == std::string::npos || a == 0 ? 0 : start + 1; i < a; ++i)
        if (is_char(s[i])) u += utf16_units(s[i]);
      return line * 64 + u;
    }
    case query::byte_to_line:
      return static_cast<std::size_t>(
          std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(a), '\n'));
    case query::line_to_byte: return a == 0 ? 0 : nth_newline(s.data(), s.size(), a - 1, seen) + 1;
    case query::char_to_byte: return nth_char(s.data(), s.size(), a, seen);
  }
  return 0;
}

#ifdef FL_BENCH_HAVE_ABSL
std::size_t cord_query(const absl::Cord& c, query q, std::size_t a) {
  std::size_t lo = 0, seen = 0;
  if (q > query::char_to_byte) return 0;  // no cord rows for the 10 MB conversions
  if (q == query::line_to_byte && a == 0) return 0;
  for (absl::string_view ch : c.Chunks()) {
    switch (q) {
      case query::byte_to_line: {
        const std::size_t take = std::min(ch.size(), a - lo);
        seen += static_cast<std::size_t>(std::count(ch.begin(), ch.begin() + take, '\n'));
        if (take < ch.size() || lo + take == a) return seen;
        break;
      }
      case query::line_to_byte: {
        const std::size_t r = nth_newline(ch.data(), ch.size(), a - 1, seen);
        if (r < ch.size()) return lo + r + 1;
        break;
      }
      case query::char_to_byte: {
        const std::size_t r = nth_char(ch.data(), ch.size(), a, seen);
        if (r < ch.size()) return lo + r;
        break;
      }
    }
    lo += ch.size();
  }
  return q == query::byte_to_line ? seen : c.size();
}
#endif

std::size_t fl_query(const fl::rope& r, query q, std::size_t a) {
  switch (q) {
    case query::byte_to_line: return r.byte_to_line(a);
    case query::line_to_byte: return r.line_to_byte(a);
    case query::char_to_byte: return r.char_to_byte(a);
    case query::byte_to_char: return r.byte_to_char(a);
    case query::line_col_to_byte: return r.line_column_to_byte({a, column_of(a)});
    case query::byte_to_line_col: {
      const fl::rope::line_column lc = r.byte_to_line_column(a);
      return lc.line * 64 + lc.column;
    }
  }
  return 0;
}

// One query per iteration; `who` 0: fl flat, 1: fl tree, 2: std, 3: cord.
void metric_bm(benchmark::State& st, std::size_t bytes, query q, int who) {
  const inputs& in = get(bytes);
  const std::vector<std::size_t> a = args(domain(in, q), "rope/metric_args");
  std::size_t i = 0;
  for (auto _ : st) {
    const std::size_t x = a[i++ & 1023];
    std::size_t r = 0;
    if (who == 0) r = fl_query(in.flat, q, x);
    if (who == 1) r = fl_query(in.tree, q, x);
    if (who == 2) r = std_query(in.text, q, x);
#ifdef FL_BENCH_HAVE_ABSL
    if (who == 3) r = cord_query(in.cord, q, x);
#endif
    benchmark::DoNotOptimize(r);
  }
  fl_bench::set_items(st, 1);
}

// A copy of the 64 MB text made into the library's text, then one line
// lookup in it (fl: the copy is one flat chunk, the query builds its index).
template <class Build>
void construct_query_loop(benchmark::State& st, Build build_and_query) {
  const inputs& in = get(64 * mb);
  const std::vector<std::size_t> a = args(in.text.size(), "rope/metric_args");
  std::size_t i = 0;
  for (auto _ : st) benchmark::DoNotOptimize(build_and_query(in.text, a[i++ & 1023]));
}
void construct_query_fl(benchmark::State& st) {
  construct_query_loop(st, [](const std::string& text, std::size_t x) {
    const fl::rope r(text);
    return r.byte_to_line(x);
  });
}
void construct_query_std(benchmark::State& st) {
  construct_query_loop(st, [](const std::string& text, std::size_t x) {
    const std::string s(text);
    return std_query(s, query::byte_to_line, x);
  });
}

// ---- edit_then_query: a keystroke, then a line lookup

void edit_query_fl(benchmark::State& st) {
  fl::rope r = get(mb).flat;
  const std::vector<std::size_t> a = args(mb, "rope/edit_query");
  std::size_t i = 0;
  for (auto _ : st) {
    r.insert(a[i & 1023], "x");
    benchmark::DoNotOptimize(r.byte_to_line(a[(i + 512) & 1023]));
    ++i;
  }
}
void edit_query_std(benchmark::State& st) {
  std::string s = get(mb).text;
  const std::vector<std::size_t> a = args(mb, "rope/edit_query");
  std::size_t i = 0;
  for (auto _ : st) {
    s.insert(a[i & 1023], 1, 'x');
    benchmark::DoNotOptimize(std_query(s, query::byte_to_line, a[(i + 512) & 1023]));
    ++i;
  }
}
#ifdef FL_BENCH_HAVE_ABSL
void edit_query_cord(benchmark::State& st) {
  absl::Cord c = get(mb).cord;
  const std::vector<std::size_t> a = args(mb, "rope/edit_query");
  std::size_t i = 0;
  for (auto _ : st) {
    const std::size_t pos = a[i & 1023];
    absl::Cord out = c.Subcord(0, pos);
    out.Append("x");
    out.Append(c.Subcord(pos, c.size() - pos));
    c = std::move(out);
    benchmark::DoNotOptimize(cord_query(c, query::byte_to_line, a[(i + 512) & 1023]));
    ++i;
  }
}
#endif

// ---- count_1m

void count_fl(benchmark::State& st, bool tree) {
  const inputs& in = get(mb);
  const fl::rope& r = tree ? in.tree : in.flat;
  for (auto _ : st) {
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(fl::count(r, '\n'));
  }
  fl_bench::set_bytes(st, r.size());
}
void count_fl_ranges(benchmark::State& st, bool tree) {
  const inputs& in = get(mb);
  const fl::rope& r = tree ? in.tree : in.flat;
  for (auto _ : st) {
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(std::ranges::count(r, '\n'));
  }
  fl_bench::set_bytes(st, r.size());
}
void count_std(benchmark::State& st) {
  const inputs& in = get(mb);
  for (auto _ : st) {
    benchmark::DoNotOptimize(in.text);
    benchmark::DoNotOptimize(std::ranges::count(in.text, '\n'));
  }
  fl_bench::set_bytes(st, in.text.size());
}
#ifdef FL_BENCH_HAVE_ABSL
void count_cord(benchmark::State& st) {
  const inputs& in = get(mb);
  for (auto _ : st) {
    benchmark::DoNotOptimize(in.cord);
    std::size_t n = 0;
    for (absl::string_view c : in.cord.Chunks())
      n += static_cast<std::size_t>(std::count(c.begin(), c.end(), '\n'));
    benchmark::DoNotOptimize(n);
  }
  fl_bench::set_bytes(st, in.text.size());
}
#endif

const bool registered = [] {
  const std::pair<const char*, query> queries[] = {{"byte_to_line", query::byte_to_line},
                                                   {"line_to_byte", query::line_to_byte},
                                                   {"char_to_byte", query::char_to_byte}};
  const std::pair<const char*, std::size_t> sizes[] = {{"1m", mb}, {"64m", 64 * mb}};
  for (const auto& [qname, q] : queries) {
    for (const auto& [sname, bytes] : sizes) {
      for (const bool tree : {false, true}) {
        const std::string c = std::string("rope/") + qname + "_" + sname + (tree ? "_tree" : "");
        fl_bench::reg(c + "/fl", metric_bm, bytes, q, tree ? 1 : 0);
        fl_bench::reg(c + "/std", metric_bm, bytes, q, 2);
#ifdef FL_BENCH_HAVE_ABSL
        fl_bench::reg(c + "/cord", metric_bm, bytes, q, 3);
#endif
      }
    }
  }
  const std::pair<const char*, query> conversions[] = {
      {"char_to_byte", query::char_to_byte},
      {"byte_to_char", query::byte_to_char},
      {"byte_to_line", query::byte_to_line},
      {"line_col_to_byte", query::line_col_to_byte},
      {"byte_to_line_col", query::byte_to_line_col}};
  for (const auto& [qname, q] : conversions) {
    for (const bool tree : {false, true}) {
      const std::string c = std::string("rope/") + qname + "_10m" + (tree ? "_tree" : "");
      fl_bench::reg(c + "/fl", metric_bm, 10 * mb, q, tree ? 1 : 0);
      fl_bench::reg(c + "/std", metric_bm, 10 * mb, q, 2);
    }
  }
  fl_bench::reg("rope/construct_query_64m/fl", construct_query_fl)->Unit(benchmark::kMillisecond);
  fl_bench::reg("rope/construct_query_64m/std", construct_query_std)->Unit(benchmark::kMillisecond);
  fl_bench::reg("rope/edit_then_query/fl", edit_query_fl);
  fl_bench::reg("rope/edit_then_query/std", edit_query_std);
#ifdef FL_BENCH_HAVE_ABSL
  fl_bench::reg("rope/edit_then_query/cord", edit_query_cord);
#endif
  for (const bool tree : {false, true}) {
    const std::string c = tree ? "rope/count_1m_tree" : "rope/count_1m";
    fl_bench::reg(c + "/fl", count_fl, tree)->Unit(benchmark::kMicrosecond);
    fl_bench::reg(c + "/fl_ranges", count_fl_ranges, tree)->Unit(benchmark::kMicrosecond);
    fl_bench::reg(c + "/std", count_std)->Unit(benchmark::kMicrosecond);
#ifdef FL_BENCH_HAVE_ABSL
    fl_bench::reg(c + "/cord", count_cord)->Unit(benchmark::kMicrosecond);
#endif
  }
  return true;
}();

}  // namespace
