// bench/rope_line_break_bench.cpp: section rope/, the cost of fl::rope's
// line_break::lf_crlf mode beside line_break::lf on the same Windows text (1 MB
// of lines ended by "\r\n", held as a tree of 4 KiB leaves). Lower time is
// faster; the report shows each peer's ratio to std.
//
//   crlf_edit_mix_tree/1m   v = s; then the five edits of edit_mix
//                           (rope_edits.hpp), at the start, the middle and
//                           the end, plus a "\r\n" typed at the start of the
//                           middle line and erased again: fl (lf mode),
//                           fl_crlf (lf_crlf mode: each edit reads the bytes
//                           its ends meet), std (std::string)
//   crlf_line_text_1m_tree  the text of 1,000 random lines without their
//                           break: fl_crlf line_text(i) (O(log n) each), std
//                           the same bytes found from a vector of line starts
//                           computed beforehand (what a std::string user
//                           keeps), copied into a std::string
#include "common.hpp"
#include "rope_edits.hpp"

#include <fl/rope.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::size_t text_bytes = 1 << 20;

std::string windows_text() {
  fl_bench::rng g(fl_bench::salt("rope/crlf"));
  const std::string words = fl_bench::random_text(text_bytes, fl_bench::salt("rope/crlf_words"));
  std::string s;
  s.reserve(text_bytes + 128);
  std::size_t at = 0;
  while (s.size() < text_bytes) {
    const std::size_t len = g.below(100);
    s.append(words, at % (words.size() - 100), len);
    at += len + 7;
    s += "\r\n";
  }
  return s;
}

fl::rope tree_of(std::string_view flat, fl::line_break mode) {
  fl::rope r(mode);
  for (std::size_t i = 0; i < flat.size(); i += 4096) r.append(fl::rope(flat.substr(i, 4096)));
  return r;
}

template <class R>
void edit_loop(benchmark::State& st, const R& s, std::size_t b, std::size_t mid_line) {
  for (auto _ : st) {
    R v = s;
    fl_bench::edit_mix(v, b);
    v.insert(mid_line, "\r\n");
    v.erase(mid_line, 2);
    benchmark::DoNotOptimize(v);
  }
}

// The start of the line holding the middle byte (after a "\r\n").
std::size_t middle_line(const std::string& s) { return s.rfind('\n', s.size() / 2) + 1; }

void edit_fl(benchmark::State& st, fl::line_break mode) {
  const std::string text = windows_text();
  edit_loop(st, tree_of(text, mode), fl_bench::runtime_count(text.size()), middle_line(text));
}
void edit_std(benchmark::State& st) {
  const std::string text = windows_text();
  edit_loop(st, text, fl_bench::runtime_count(text.size()), middle_line(text));
}

std::vector<std::size_t> random_lines(std::size_t lines) {
  fl_bench::rng g(fl_bench::salt("rope/crlf_lines"));
  std::vector<std::size_t> q(1000);
  for (std::size_t& i : q) i = g.below(lines);
  return q;
}

void line_text_fl(benchmark::State& st) {
  const fl::rope r = tree_of(windows_text(), fl::line_break::lf_crlf);
  const std::vector<std::size_t> q = random_lines(r.line_count());
  for (auto _ : st) {
    std::size_t sum = 0;
    for (const std::size_t i : q) sum += r.line_text(i).size();
    benchmark::DoNotOptimize(sum);
  }
  fl_bench::set_items(st, q.size());
}
void line_text_std(benchmark::State& st) {
  const std::string s = windows_text();
  std::vector<std::size_t> start{0};
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n') start.push_back(i + 1);
  const std::vector<std::size_t> q = random_lines(start.size());
  for (auto _ : st) {
    std::size_t sum = 0;
    for (const std::size_t i : q) {
      std::size_t end = i + 1 < start.size() ? start[i + 1] - 1 : s.size();
      if (end > start[i] && s[end - 1] == '\r' && i + 1 < start.size()) --end;
      const std::string line = s.substr(start[i], end - start[i]);
      sum += line.size();
    }
    benchmark::DoNotOptimize(sum);
  }
  fl_bench::set_items(st, q.size());
}

const bool registered = [] {
  fl_bench::reg("rope/crlf_edit_mix_tree/1m/fl", edit_fl, fl::line_break::lf);
  fl_bench::reg("rope/crlf_edit_mix_tree/1m/fl_crlf", edit_fl, fl::line_break::lf_crlf);
  fl_bench::reg("rope/crlf_edit_mix_tree/1m/std", edit_std);
  fl_bench::reg("rope/crlf_line_text_1m_tree/fl_crlf", line_text_fl);
  fl_bench::reg("rope/crlf_line_text_1m_tree/std", line_text_std);
  return true;
}();

}  // namespace
