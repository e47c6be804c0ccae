// bench/rope_bench.cpp: section rope/, fl::rope against absl::Cord (cord,
// when abseil is present), std::string (std) and __gnu_cxx::crope
// (gnu_rope), each where the operation exists. Lower time is faster; the
// report shows each peer's ratio to std.
//
//   concat_flatten/N     N appends of one 100-byte piece to an empty text
//                        (N = 1000 ... 1000000), then the whole as one
//                        contiguous string (fl: std::move(r).flatten(), since
//                        r dies right after: a rope grown by appends alone
//                        hands its buffer over, else it copies once;
//                        fl_copy: r.flatten(), which copies and keeps r;
//                        cord: std::string(cord); gnu_rope: c_str(); std is
//                        contiguous already)
//   substr_1k_of_1m      1,000 bytes from the middle of a 1 MB text
//   edit_mix/B           the classic loop on a B-byte text (B = 1k ... 1m):
//                        v = s; v.insert(0,"qwerty"); v.insert(B/2,"zxcvb");
//                        v.append("rtyui"); v.replace(0,20,"ghfjhfjf");
//                        v.replace(B/2,20,"abcdefg"); cord has no middle
//                        insert/replace: Subcord + Append, Prepend at 0
//   iterate_1m           sum of all bytes of a 1 MB text (100-byte pieces)
//                        through the type's char iterators (fl: a rope built
//                        by appends alone is one flat chunk; iterate_1m_tree
//                        walks the same bytes as a tree of 256 4 KiB leaves;
//                        fl_chunks: the same sum through fl::for_each_chunk;
//                        std_scalar: the std loop not vectorized, the
//                        ceiling of any one-byte-per-step iterator)
//   random_index_1m      1,000 operator[] reads at random positions
//   edit_mix_tree/B      edit_mix on the text held as 4 KiB pieces (fl: a tree
//                        of 4 KiB leaves; cord, gnu_rope: 4 KiB appends), B >= 64k
//   *_1m_tree            iterate, random_index and find_absent on the same
//                        bytes held as a tree of 4 KiB leaves (fl only; the
//                        peers' rows are their usual ones, repeated so the
//                        report lines them up)
//   rebalance_5000x1000  5,000 appends of a 1,000-byte piece
//   find_absent_1m       a 25-byte needle that does not occur, over 1 MB of
//                        100-byte pieces (std: the same text, flat;
//                        abseil's Cord has no find)
//
// Texts are alphanumeric from fl_bench::random_text, seeded at run time.
#include "common.hpp"
#include "rope_edits.hpp"

#include <fl/rope.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ext/rope>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#ifdef FL_BENCH_HAVE_ABSL
#include <absl/strings/cord.h>
#endif

namespace {

constexpr std::size_t mb = 1 << 20;

// 1 MB as 100-byte pieces, the shape of a text built by appends.
std::vector<std::string> pieces_1m(std::string_view label) {
  const std::string all = fl_bench::random_text(mb, fl_bench::salt(label));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < all.size(); i += 100) out.push_back(all.substr(i, 100));
  return out;
}

// The same bytes as a tree: ropes of 4 KiB joined, i.e. 256 leaves under a
// root of height 2 for 1 MB (what a rope edited in many places looks like; a
// rope grown by appends alone stays one flat chunk).
fl::rope tree_of(std::string_view flat) {
  fl::rope r;
  for (std::size_t i = 0; i < flat.size(); i += 4096) r.append(fl::rope(flat.substr(i, 4096)));
  return r;
}
// ---------------------------------------------------------------- concat_flatten / rebalance

// Each library's append of a std::string piece.
const auto add_fl = [](fl::rope& r, const std::string& p) { r.append(p); };
const auto add_std = [](std::string& r, const std::string& p) { r.append(p); };
const auto add_gnu = [](__gnu_cxx::crope& r, const std::string& p) {
  r.append(p.data(), p.size());
};
#ifdef FL_BENCH_HAVE_ABSL
const auto add_cord = [](absl::Cord& r, const std::string& p) { r.Append(p); };
#endif

// The 1 MB text of pieces_1m(label), appended piece by piece to an empty R
// (fl: a rope grown by appends alone is one flat chunk).
template <class R, class Add>
R appended_1m(std::string_view label, Add add) {
  R r;
  for (const auto& p : pieces_1m(label)) add(r, p);
  return r;
}
std::string flat_1m(std::string_view label) { return appended_1m<std::string>(label, add_std); }

// Builds an R of n appended pieces of `piece_bytes` random bytes, then hands
// it to `done`, which reads it (the flattening cases) or lets it escape.
template <class R, class Add, class Done>
void build_loop(benchmark::State& st, std::string_view label, std::size_t piece_bytes,
                std::size_t n, Add add, Done done) {
  const std::string piece = fl_bench::random_text(piece_bytes, fl_bench::salt(label));
  n = fl_bench::runtime_count(n);
  for (auto _ : st) {
    R r;
    for (std::size_t i = 0; i < n; ++i) add(r, piece);
    done(r);
  }
  fl_bench::set_bytes(st, n * piece_bytes);
}

// concat_flatten: n 100-byte pieces, then the whole text contiguous.
template <class R, class Add, class Done>
void concat_loop(benchmark::State& st, std::size_t n, Add add, Done done) {
  build_loop<R>(st, "rope/concat", 100, n, add, done);
}
void concat_fl(benchmark::State& st, std::size_t n) {
  concat_loop<fl::rope>(st, n, add_fl, [](fl::rope& r) {
    fl::string flat = std::move(r).flatten();
    benchmark::DoNotOptimize(flat.data());
  });
}
// The same with the copying flatten (the rope stays usable), like cord's.
void concat_fl_copy(benchmark::State& st, std::size_t n) {
  concat_loop<fl::rope>(st, n, add_fl, [](fl::rope& r) {
    fl::string flat = r.flatten();
    benchmark::DoNotOptimize(flat.data());
    benchmark::DoNotOptimize(r);
  });
}
void concat_std(benchmark::State& st, std::size_t n) {
  concat_loop<std::string>(st, n, add_std,
                           [](std::string& s) { benchmark::DoNotOptimize(s.data()); });
}
void concat_gnu(benchmark::State& st, std::size_t n) {
  concat_loop<__gnu_cxx::crope>(st, n, add_gnu,
                                [](__gnu_cxx::crope& r) { benchmark::DoNotOptimize(r.c_str()); });
}
#ifdef FL_BENCH_HAVE_ABSL
void concat_cord(benchmark::State& st, std::size_t n) {
  concat_loop<absl::Cord>(st, n, add_cord, [](absl::Cord& c) {
    std::string flat(c);
    benchmark::DoNotOptimize(flat.data());
  });
}
#endif

// rebalance: 5,000 appends of a 1,000-byte piece.
template <class R, class Add>
void rebalance_loop(benchmark::State& st, Add add) {
  build_loop<R>(st, "rope/rebalance", 1000, 5000, add, [](R& r) { benchmark::DoNotOptimize(r); });
}
void rebalance_fl(benchmark::State& st) { rebalance_loop<fl::rope>(st, add_fl); }
void rebalance_std(benchmark::State& st) { rebalance_loop<std::string>(st, add_std); }
void rebalance_gnu(benchmark::State& st) { rebalance_loop<__gnu_cxx::crope>(st, add_gnu); }
#ifdef FL_BENCH_HAVE_ABSL
void rebalance_cord(benchmark::State& st) { rebalance_loop<absl::Cord>(st, add_cord); }
#endif

// ---------------------------------------------------------------- substr

// 1,000 bytes from the middle of a 1 MB text held by r, cut by `cut`.
template <class R, class Cut>
void substr_loop(benchmark::State& st, const R& r, Cut cut) {
  const std::size_t pos = fl_bench::runtime_count(mb / 2);
  for (auto _ : st) {
    auto s = cut(r, pos, std::size_t{1000});
    benchmark::DoNotOptimize(s);
  }
}
std::string substr_text() { return fl_bench::random_text(mb, fl_bench::salt("rope/substr")); }
void substr_fl(benchmark::State& st) {
  substr_loop(st, fl::rope(substr_text()),
              [](const fl::rope& r, std::size_t p, std::size_t n) { return r.substr(p, n); });
}
void substr_std(benchmark::State& st) {
  substr_loop(st, substr_text(),
              [](const std::string& r, std::size_t p, std::size_t n) { return r.substr(p, n); });
}
void substr_gnu(benchmark::State& st) {
  const std::string text = substr_text();
  substr_loop(
      st, __gnu_cxx::crope(text.data(), text.size()),
      [](const __gnu_cxx::crope& r, std::size_t p, std::size_t n) { return r.substr(p, n); });
}
#ifdef FL_BENCH_HAVE_ABSL
void substr_cord(benchmark::State& st) {
  substr_loop(st, absl::Cord(substr_text()),
              [](const absl::Cord& r, std::size_t p, std::size_t n) { return r.Subcord(p, n); });
}
#endif

// ---------------------------------------------------------------- edit_mix

template <class R>
void edit_mix_loop(benchmark::State& st, const R& s, std::size_t b) {
  for (auto _ : st) {
    R v = s;
    fl_bench::edit_mix(v, b);
    benchmark::DoNotOptimize(v);
  }
}
void edit_fl(benchmark::State& st, std::size_t b) {
  const fl::rope s(fl_bench::random_text(b, fl_bench::salt("rope/edit")));
  edit_mix_loop(st, s, fl_bench::runtime_count(b));
}
void edit_std(benchmark::State& st, std::size_t b) {
  const std::string s(fl_bench::random_text(b, fl_bench::salt("rope/edit")));
  edit_mix_loop(st, s, fl_bench::runtime_count(b));
}
void edit_gnu_from(benchmark::State& st, const __gnu_cxx::crope& s, std::size_t b) {
  edit_mix_loop(st, s, fl_bench::runtime_count(b));  // crope has the same insert/append/replace
}
void edit_gnu(benchmark::State& st, std::size_t b) {
  const std::string text = fl_bench::random_text(b, fl_bench::salt("rope/edit"));
  edit_gnu_from(st, __gnu_cxx::crope(text.data(), text.size()), b);
}
// edit_mix on the same text held as 4 KiB pieces: fl a tree of 4 KiB
// leaves, cord and gnu_rope built by appending 4 KiB pieces.
void edit_tree_fl(benchmark::State& st, std::size_t b) {
  const fl::rope s = tree_of(fl_bench::random_text(b, fl_bench::salt("rope/edit")));
  edit_mix_loop(st, s, fl_bench::runtime_count(b));
}
void edit_tree_gnu(benchmark::State& st, std::size_t b) {
  const std::string text = fl_bench::random_text(b, fl_bench::salt("rope/edit"));
  __gnu_cxx::crope s;
  for (std::size_t i = 0; i < text.size(); i += 4096)
    s.append(text.data() + i, std::min<std::size_t>(4096, text.size() - i));
  edit_gnu_from(st, s, b);
}
#ifdef FL_BENCH_HAVE_ABSL
// Cord has Append and Prepend only: a middle edit is head + text + tail.
absl::Cord cord_splice(const absl::Cord& v, std::size_t pos, std::size_t n, std::string_view text) {
  absl::Cord out = v.Subcord(0, pos);
  out.Append(absl::string_view(text.data(), text.size()));  // abseil's own view type
  out.Append(v.Subcord(pos + n, v.size() - pos - n));
  return out;
}
void edit_cord_from(benchmark::State& st, const absl::Cord& s, std::size_t b) {
  b = fl_bench::runtime_count(b);
  for (auto _ : st) {
    absl::Cord v = s;
    v.Prepend("qwerty");
    v = cord_splice(v, b / 2, 0, "zxcvb");
    v.Append("rtyui");
    v = cord_splice(v, 0, 20, "ghfjhfjf");
    v = cord_splice(v, b / 2, 20, "abcdefg");
    benchmark::DoNotOptimize(v);
  }
}
void edit_cord(benchmark::State& st, std::size_t b) {
  edit_cord_from(st, absl::Cord(fl_bench::random_text(b, fl_bench::salt("rope/edit"))), b);
}
void edit_tree_cord(benchmark::State& st, std::size_t b) {
  const std::string text = fl_bench::random_text(b, fl_bench::salt("rope/edit"));
  absl::Cord s;
  for (std::size_t i = 0; i < text.size(); i += 4096)
    s.Append(absl::string_view(text.data() + i, std::min<std::size_t>(4096, text.size() - i)));
  edit_cord_from(st, s, b);
}
#endif

// ---------------------------------------------------------------- iterate / index

// The sum of the bytes of r through its char iterators (the compiler
// vectorizes the loop where it can).
template <class R>
std::uint64_t byte_sum(const R& r) {
  std::uint64_t sum = 0;
  for (char c : r) sum += static_cast<unsigned char>(c);
  return sum;
}
// std_scalar: the same for a std::string with GCC's vectorizer off: one byte
// per step, the most any iterator can give a loop that GCC does not
// vectorize. GCC vectorizes no loop over a chunked text's per-char
// iterator: the step into the next chunk is a second path back to the loop
// head, and the loop's sum passes through it unchanged, so GCC keeps one
// loop with a branch inside (-fopt-info-vec: "control flow in loop").
[[gnu::optimize("no-tree-vectorize"), gnu::noinline]] std::uint64_t byte_sum_scalar(
    const std::string& r) {
  std::uint64_t sum = 0;
  for (char c : r) sum += static_cast<unsigned char>(c);
  return sum;
}
// fl_chunks: the sum through fl::for_each_chunk, the segmented form (a plain
// loop over each chunk's bytes, which the compiler vectorizes).
std::uint64_t chunk_sum(const fl::rope& r) {
  std::uint64_t sum = 0;
  fl::for_each_chunk(r, [&sum](std::string_view c) { sum += byte_sum(c); });
  return sum;
}

template <class R, class Sum>
void iterate_loop(benchmark::State& st, const R& r, Sum sum) {
  for (auto _ : st) {
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(sum(r));
  }
  fl_bench::set_bytes(st, r.size());
}
void iterate_fl(benchmark::State& st) {
  iterate_loop(st, appended_1m<fl::rope>("rope/iterate", add_fl), byte_sum<fl::rope>);
}
void iterate_tree_fl(benchmark::State& st) {
  iterate_loop(st, tree_of(flat_1m("rope/iterate")), byte_sum<fl::rope>);
}
void iterate_std(benchmark::State& st) {
  iterate_loop(st, flat_1m("rope/iterate"), byte_sum<std::string>);
}
void iterate_std_scalar(benchmark::State& st) {
  iterate_loop(st, flat_1m("rope/iterate"), byte_sum_scalar);
}
void iterate_chunks_fl(benchmark::State& st) {
  iterate_loop(st, appended_1m<fl::rope>("rope/iterate", add_fl), chunk_sum);
}
void iterate_chunks_tree_fl(benchmark::State& st) {
  iterate_loop(st, tree_of(flat_1m("rope/iterate")), chunk_sum);
}
void iterate_gnu(benchmark::State& st) {
  iterate_loop(st, appended_1m<__gnu_cxx::crope>("rope/iterate", add_gnu),
               byte_sum<__gnu_cxx::crope>);
}
#ifdef FL_BENCH_HAVE_ABSL
// cord: its char range, Chars().
void iterate_cord(benchmark::State& st) {
  iterate_loop(st, appended_1m<absl::Cord>("rope/iterate", add_cord),
               [](const absl::Cord& r) { return byte_sum(r.Chars()); });
}
#endif

std::vector<std::size_t> random_positions() {
  fl_bench::rng g(fl_bench::salt("rope/index"));
  std::vector<std::size_t> out(1000);
  for (auto& p : out) p = g.below(mb);
  return out;
}
template <class R>
void index_loop(benchmark::State& st, const R& r) {
  const std::vector<std::size_t> pos = random_positions();
  for (auto _ : st) {
    std::uint64_t sum = 0;
    for (std::size_t p : pos) sum += static_cast<unsigned char>(r[p]);
    benchmark::DoNotOptimize(sum);
  }
  fl_bench::set_items(st, pos.size());
}
void index_fl(benchmark::State& st) { index_loop(st, appended_1m<fl::rope>("rope/index", add_fl)); }
void index_tree_fl(benchmark::State& st) { index_loop(st, tree_of(flat_1m("rope/index"))); }
void index_std(benchmark::State& st) {
  index_loop(st, appended_1m<std::string>("rope/index", add_std));
}
void index_gnu(benchmark::State& st) {
  index_loop(st, appended_1m<__gnu_cxx::crope>("rope/index", add_gnu));
}
#ifdef FL_BENCH_HAVE_ABSL
void index_cord(benchmark::State& st) {
  index_loop(st, appended_1m<absl::Cord>("rope/index", add_cord));
}
#endif

// ---------------------------------------------------------------- find

// 25 alphanumeric bytes that do not occur in the text.
std::string absent_needle(std::string_view text) {
  for (std::uint64_t k = 0;; ++k) {
    std::string n = fl_bench::random_text(25, fl_bench::salt("rope/needle") + k);
    if (text.find(n) == std::string_view::npos) return n;
  }
}
// Searches r for a needle that the 1 MB text does not hold.
template <class R, class Find>
void find_loop(benchmark::State& st, const R& r, std::string_view flat, Find find) {
  const std::string needle = absent_needle(flat);
  for (auto _ : st) {
    benchmark::DoNotOptimize(needle.data());
    benchmark::DoNotOptimize(find(r, needle));
  }
  fl_bench::set_bytes(st, flat.size());
}
const auto find_in_rope = [](const fl::rope& r, const std::string& n) { return r.find(n); };
void find_fl(benchmark::State& st) {
  const auto r = appended_1m<fl::rope>("rope/find", add_fl);
  find_loop(st, r, flat_1m("rope/find"), find_in_rope);
}
void find_tree_fl(benchmark::State& st) {
  const std::string flat = flat_1m("rope/find");
  find_loop(st, tree_of(flat), flat, find_in_rope);
}
void find_std(benchmark::State& st) {
  const std::string flat = flat_1m("rope/find");
  find_loop(st, flat, flat, [](const std::string& r, const std::string& n) { return r.find(n); });
}
void find_gnu(benchmark::State& st) {
  const auto r = appended_1m<__gnu_cxx::crope>("rope/find", add_gnu);
  find_loop(st, r, flat_1m("rope/find"),
            [](const __gnu_cxx::crope& r, const std::string& n) { return r.find(n.c_str()); });
}

// The cases without arguments, peers back to back (cord when built), in the
// order they run: before and after the edit_mix cases.
struct row {
  const char* name;
  void (*run)(benchmark::State&);
  benchmark::TimeUnit unit;
};
const row first_rows[] = {
    {"rope/substr_1k_of_1m/fl", substr_fl, benchmark::kNanosecond},
#ifdef FL_BENCH_HAVE_ABSL
    {"rope/substr_1k_of_1m/cord", substr_cord, benchmark::kNanosecond},
#endif
    {"rope/substr_1k_of_1m/std", substr_std, benchmark::kNanosecond},
    {"rope/substr_1k_of_1m/gnu_rope", substr_gnu, benchmark::kNanosecond},
};
const row later_rows[] = {
    {"rope/iterate_1m/fl", iterate_fl, benchmark::kMicrosecond},
#ifdef FL_BENCH_HAVE_ABSL
    {"rope/iterate_1m/cord", iterate_cord, benchmark::kMicrosecond},
#endif
    {"rope/iterate_1m/std", iterate_std, benchmark::kMicrosecond},
    {"rope/iterate_1m/gnu_rope", iterate_gnu, benchmark::kMicrosecond},
    {"rope/iterate_1m/std_scalar", iterate_std_scalar, benchmark::kMicrosecond},
    {"rope/iterate_1m/fl_chunks", iterate_chunks_fl, benchmark::kMicrosecond},
    {"rope/iterate_1m_tree/fl", iterate_tree_fl, benchmark::kMicrosecond},
    {"rope/iterate_1m_tree/fl_chunks", iterate_chunks_tree_fl, benchmark::kMicrosecond},
#ifdef FL_BENCH_HAVE_ABSL
    {"rope/iterate_1m_tree/cord", iterate_cord, benchmark::kMicrosecond},
#endif
    {"rope/iterate_1m_tree/std", iterate_std, benchmark::kMicrosecond},
    {"rope/random_index_1m/fl", index_fl, benchmark::kNanosecond},
#ifdef FL_BENCH_HAVE_ABSL
    {"rope/random_index_1m/cord", index_cord, benchmark::kNanosecond},
#endif
    {"rope/random_index_1m/std", index_std, benchmark::kNanosecond},
    {"rope/random_index_1m/gnu_rope", index_gnu, benchmark::kNanosecond},
    {"rope/random_index_1m_tree/fl", index_tree_fl, benchmark::kNanosecond},
#ifdef FL_BENCH_HAVE_ABSL
    {"rope/random_index_1m_tree/cord", index_cord, benchmark::kNanosecond},
#endif
    {"rope/random_index_1m_tree/std", index_std, benchmark::kNanosecond},
    {"rope/rebalance_5000x1000/fl", rebalance_fl, benchmark::kMicrosecond},
#ifdef FL_BENCH_HAVE_ABSL
    {"rope/rebalance_5000x1000/cord", rebalance_cord, benchmark::kMicrosecond},
#endif
    {"rope/rebalance_5000x1000/std", rebalance_std, benchmark::kMicrosecond},
    {"rope/rebalance_5000x1000/gnu_rope", rebalance_gnu, benchmark::kMicrosecond},
    {"rope/find_absent_1m/fl", find_fl, benchmark::kMicrosecond},
    {"rope/find_absent_1m/std", find_std, benchmark::kMicrosecond},
    {"rope/find_absent_1m/gnu_rope", find_gnu, benchmark::kMicrosecond},
    {"rope/find_absent_1m_tree/fl", find_tree_fl, benchmark::kMicrosecond},
    {"rope/find_absent_1m_tree/std", find_std, benchmark::kMicrosecond},
    {"rope/find_absent_1m_tree/gnu_rope", find_gnu, benchmark::kMicrosecond},
};

const bool registered = [] {
  struct sized {
    const char* lib;
    void (*run)(benchmark::State&, std::size_t);
  };
  static constexpr sized concat_peers[] = {
      {"fl", concat_fl}, {"fl_copy", concat_fl_copy},
#ifdef FL_BENCH_HAVE_ABSL
      {"cord", concat_cord},
#endif
      {"std", concat_std}, {"gnu_rope", concat_gnu},
  };
  for (std::size_t n : {1000, 10000, 100000, 1000000})
    for (const sized& p : concat_peers)
      fl_bench::reg("rope/concat_flatten/" + std::to_string(n) + "/" + p.lib, p.run, n)
          ->Unit(benchmark::kMicrosecond);
  for (const row& r : first_rows) fl_bench::reg(r.name, r.run)->Unit(r.unit);
  const std::pair<const char*, std::size_t> blocks[] = {
      {"1k", 1024}, {"4k", 4096}, {"16k", 16384}, {"64k", 65536}, {"256k", 262144}, {"1m", mb}};
  for (const bool tree : {false, true}) {
    for (const auto& [label, b] : blocks) {
      if (tree && b < 65536) continue;  // below 64 KiB a text is a handful of leaves
      const std::string c = std::string(tree ? "rope/edit_mix_tree/" : "rope/edit_mix/") + label;
      fl_bench::reg(c + "/fl", tree ? edit_tree_fl : edit_fl, b);
#ifdef FL_BENCH_HAVE_ABSL
      fl_bench::reg(c + "/cord", tree ? edit_tree_cord : edit_cord, b);
#endif
      fl_bench::reg(c + "/std", edit_std, b);
      fl_bench::reg(c + "/gnu_rope", tree ? edit_tree_gnu : edit_gnu, b);
    }
  }
  for (const row& r : later_rows) fl_bench::reg(r.name, r.run)->Unit(r.unit);
  return true;
}();

}  // namespace
