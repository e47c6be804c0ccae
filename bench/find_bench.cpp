// bench/find_bench.cpp: section find/, substring search in one flat buffer:
// fl::find against std::string_view::find (`std`), glibc memmem (`memmem`),
// std::boyer_moore_searcher (`std_bm`) and std::boyer_moore_horspool_searcher
// (`std_bmh`).
//
// Names: find/<text>/<size>/n<needle length>/<where>/<library>.
//   text   random    26 lowercase letters, uniform
//          dna       A, C, G, T, uniform
//          english   words of a small English vocabulary with skewed
//                    frequencies, separated by spaces and some punctuation
//          periodic  the adversarial case of a first-byte filter: a run of
//                    one letter ('a'), needle a...ab; every position is an
//                    almost-match for std's memchr+memcmp
//   size   1k, 64k, 1m, 4m bytes
//   where  early (needle planted at 10%), mid (50%), late (95%), absent
//          (nowhere; checked at set-up)
// Grid: every text x size x {n13, n25} x {late, absent}; at 64k also n1, n4,
// n64, n300 x {late, absent} and n25 x {early, mid}; at 1m n300 x
// {late, absent}. Needles come from the same text model (a different seed),
// planted with every earlier accidental occurrence broken.
//
// The std searchers are constructed once, outside the timed loop: only the
// search is timed. This favours std_bm and std_bmh (their table set-up is not
// paid), which fl, std and memmem do on every call.
//
// Extra rows:
//   find/short_62/<library>: the three successful finds of the classic test
//     in a 62-byte string; call overhead decides, not bandwidth.
//   find/random/4m/n1/absent/memchr: the bandwidth of memchr over the same
//     4 MB random buffer, the reference for fl's n25 absent row.
// Bytes processed (GB/s in the report) are the bytes a search must pass: the
// match position plus the needle, or the whole haystack when absent.
#include "common.hpp"

#include <fl/find.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view lower = "abcdefghijklmnopqrstuvwxyz";
constexpr std::string_view dna = "ACGT";

// Text like English prose: common words weighted by repetition in this list.
std::string english_text(std::size_t n, std::uint64_t s) {
  static constexpr std::string_view words[] = {
      "the",     "the",       "the",    "the",     "of",      "of",      "of",     "and",
      "and",     "and",       "to",     "to",      "a",       "a",       "in",     "in",
      "is",      "it",        "you",    "that",    "he",      "was",     "for",    "on",
      "are",     "with",      "as",     "I",       "his",     "they",    "be",     "at",
      "one",     "have",      "this",   "from",    "or",      "had",     "by",     "hot",
      "word",    "but",       "what",   "some",    "we",      "can",     "out",    "other",
      "were",    "all",       "there",  "when",    "up",      "use",     "your",   "how",
      "said",    "an",        "each",   "she",     "which",   "do",      "their",  "time",
      "if",      "will",      "way",    "about",   "many",    "then",    "them",   "write",
      "would",   "like",      "so",     "these",   "her",     "long",    "make",   "thing",
      "see",     "him",       "two",    "has",     "look",    "more",    "day",    "could",
      "go",      "come",      "did",    "number",  "sound",   "no",      "most",   "people",
      "my",      "over",      "know",   "water",   "than",    "call",    "first",  "who",
      "may",     "down",      "side",   "been",    "now",     "find",    "string", "search",
      "library", "benchmark", "memory", "quickly", "between", "because", "through"};
  fl_bench::rng r(s);
  std::string out;
  out.reserve(n + 16);
  while (out.size() < n) {
    out += words[r.below(std::size(words))];
    const std::size_t p = r.below(20);
    out += p == 0 ? ", " : p == 1 ? ". " : " ";
  }
  out.resize(n);
  return out;
}

enum class text_kind { random, dna, english, periodic };

std::string make_text(text_kind t, std::size_t n, std::uint64_t s) {
  switch (t) {
    case text_kind::random: return fl_bench::random_text(n, s, lower);
    case text_kind::dna: return fl_bench::random_text(n, s, dna);
    case text_kind::english: return english_text(n, s);
    case text_kind::periodic: return std::string(n, 'a');
  }
  return {};
}

std::string make_needle(text_kind t, std::size_t m, std::uint64_t s) {
  if (t == text_kind::periodic) {
    std::string x(m, 'a');
    x.back() = 'b';
    return x;
  }
  if (t == text_kind::english) {
    // A phrase from the same model, starting at a word.
    const std::string text = english_text(m + 64, s);
    const std::size_t start = text.find(' ') + 1;
    return text.substr(start, m);
  }
  return make_text(t, m, s);
}

// One haystack and needle per case; peers of a case run back to back, so a
// one-entry cache builds each input once.
struct input {
  std::string key;
  std::string hay;
  std::string needle;
  std::size_t scanned = 0;  // bytes a search must pass
};

const input& get_input(text_kind t, std::size_t n, std::size_t m, int where_percent,
                       const std::string& key) {
  static input cached;
  if (cached.key == key) return cached;
  input in;
  in.key = key;
  const std::uint64_t s = fl_bench::salt(key);
  in.needle = make_needle(t, m, s ^ 0x9e3779b97f4a7c15ULL);
  if (where_percent < 0) {
    in.hay = make_text(t, n, s);
    // Break every occurrence: change the last byte of each to a byte the
    // needle does not end with (a needle of one byte is never in the
    // text's alphabet after this).
    const char repl = t == text_kind::dna ? (in.needle.back() == 'A' ? 'C' : 'A')
                                          : (in.needle.back() == 'a' ? 'c' : 'a');
    for (std::size_t p = in.hay.find(in.needle); p != std::string::npos;
         p = in.hay.find(in.needle)) {
      in.hay[p + m - 1] = repl;
    }
    in.scanned = n;
  } else {
    const std::size_t at = std::min(n - m, n * static_cast<std::size_t>(where_percent) / 100);
    if (t == text_kind::periodic) {
      in.hay = make_text(t, n, s);
      in.hay.replace(at, m, in.needle);
    } else if (t == text_kind::english) {
      // English text around the planted needle, earlier matches broken.
      in.hay = english_text(n, s);
      in.hay.replace(at, m, in.needle);
      for (std::size_t p = in.hay.find(in.needle); p < at; p = in.hay.find(in.needle))
        in.hay[p] = '#';
    } else {
      in.hay = fl_bench::haystack_with(n, in.needle, at, s, t == text_kind::dna ? dna : lower);
    }
    in.scanned = at + m;
  }
  cached = std::move(in);
  return cached;
}

template <class Search>
void timed(benchmark::State& st, const input& in, Search search) {
  std::string_view h = in.hay, x = in.needle;
  for (auto _ : st) {
    benchmark::DoNotOptimize(h);
    benchmark::DoNotOptimize(x);
    std::size_t r = search(h, x);
    benchmark::DoNotOptimize(r);
  }
  fl_bench::set_bytes(st, in.scanned);
}

void run_std(benchmark::State& st, const input& in) {
  timed(st, in, [](std::string_view h, std::string_view x) { return h.find(x); });
}
void run_memmem(benchmark::State& st, const input& in) {
  timed(st, in, [](std::string_view h, std::string_view x) {
    const void* p = ::memmem(h.data(), h.size(), x.data(), x.size());
    return p ? static_cast<std::size_t>(static_cast<const char*>(p) - h.data())
             : std::string_view::npos;
  });
}
void run_fl(benchmark::State& st, const input& in) {
  timed(st, in, [](std::string_view h, std::string_view x) { return fl::find(h, x); });
}
template <template <class...> class Searcher>
void run_searcher(benchmark::State& st, const input& in) {
  const Searcher<std::string::const_iterator> searcher(in.needle.begin(), in.needle.end());
  std::string_view h = in.hay;
  for (auto _ : st) {
    benchmark::DoNotOptimize(h);
    const auto it = std::search(h.begin(), h.end(), searcher);
    std::size_t r =
        it == h.end() ? std::string_view::npos : static_cast<std::size_t>(it - h.begin());
    benchmark::DoNotOptimize(r);
  }
  fl_bench::set_bytes(st, in.scanned);
}

template <class It>
using bm = std::boyer_moore_searcher<It>;
template <class It>
using bmh = std::boyer_moore_horspool_searcher<It>;

void reg_case(text_kind t, const char* tname, std::size_t n, const char* nname, std::size_t m,
              int where, const char* wname) {
  const std::string c =
      std::string("find/") + tname + "/" + nname + "/n" + std::to_string(m) + "/" + wname;
  auto wrap = [=](void (*fn)(benchmark::State&, const input&)) {
    return [=](benchmark::State& st) { fn(st, get_input(t, n, m, where, c)); };
  };
  fl_bench::reg(c + "/std", wrap(&run_std));
  fl_bench::reg(c + "/memmem", wrap(&run_memmem));
  fl_bench::reg(c + "/fl", wrap(&run_fl));
  fl_bench::reg(c + "/std_bm",
                wrap([](benchmark::State& st, const input& in) { run_searcher<bm>(st, in); }));
  fl_bench::reg(c + "/std_bmh",
                wrap([](benchmark::State& st, const input& in) { run_searcher<bmh>(st, in); }));
  if (t == text_kind::random && n == (4u << 20) && m == 1 && where < 0) {
    fl_bench::reg(c + "/memchr", wrap([](benchmark::State& st, const input& in) {
                    std::string_view h = in.hay;
                    const int ch = static_cast<unsigned char>(in.needle[0]);
                    for (auto _ : st) {
                      benchmark::DoNotOptimize(h);
                      const void* p = std::memchr(h.data(), ch, h.size());
                      benchmark::DoNotOptimize(p);
                    }
                    fl_bench::set_bytes(st, in.scanned);
                  }));
  }
}

// The classic test: three successful finds in a 62-byte string.
constexpr std::string_view short_text =
    "qyweyuewunfkHBUKGYUGL,wehbYGUW^(@T@H!BALWD:h^&@#*@(#:JKHWJ:CND";
constexpr std::string_view short_needles[3] = {"unfkHBUKGY", "W^(@T@H!B", "J:CND"};

template <class Search>
void short_62(benchmark::State& st, Search search) {
  const std::string hay(short_text);
  const std::string x0(short_needles[0]), x1(short_needles[1]), x2(short_needles[2]);
  std::string_view h = hay, a = x0, b = x1, c = x2;
  for (auto _ : st) {
    benchmark::DoNotOptimize(h);
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    benchmark::DoNotOptimize(c);
    std::size_t r = search(h, a) + search(h, b) + search(h, c);
    benchmark::DoNotOptimize(r);
  }
  fl_bench::set_items(st, 3);
}

template <template <class...> class Searcher>
void short_62_searcher(benchmark::State& st) {
  const std::string hay(short_text);
  const std::string x0(short_needles[0]), x1(short_needles[1]), x2(short_needles[2]);
  const Searcher<std::string::const_iterator> s0(x0.begin(), x0.end()), s1(x1.begin(), x1.end()),
      s2(x2.begin(), x2.end());
  std::string_view h = hay;
  for (auto _ : st) {
    benchmark::DoNotOptimize(h);
    std::size_t r = static_cast<std::size_t>(std::search(h.begin(), h.end(), s0) - h.begin()) +
                    static_cast<std::size_t>(std::search(h.begin(), h.end(), s1) - h.begin()) +
                    static_cast<std::size_t>(std::search(h.begin(), h.end(), s2) - h.begin());
    benchmark::DoNotOptimize(r);
  }
  fl_bench::set_items(st, 3);
}

const bool registered = [] {
  fl_bench::reg("find/short_62/std", [](benchmark::State& st) {
    short_62(st, [](std::string_view h, std::string_view x) { return h.find(x); });
  });
  fl_bench::reg("find/short_62/memmem", [](benchmark::State& st) {
    short_62(st, [](std::string_view h, std::string_view x) {
      const void* p = ::memmem(h.data(), h.size(), x.data(), x.size());
      return p ? static_cast<std::size_t>(static_cast<const char*>(p) - h.data())
               : std::string_view::npos;
    });
  });
  fl_bench::reg("find/short_62/fl", [](benchmark::State& st) {
    short_62(st, [](std::string_view h, std::string_view x) { return fl::find(h, x); });
  });
  fl_bench::reg("find/short_62/std_bm", short_62_searcher<bm>);
  fl_bench::reg("find/short_62/std_bmh", short_62_searcher<bmh>);

  struct text_def {
    text_kind t;
    const char* name;
  };
  struct size_def {
    std::size_t n;
    const char* name;
  };
  const text_def texts[] = {{text_kind::random, "random"},
                            {text_kind::dna, "dna"},
                            {text_kind::english, "english"},
                            {text_kind::periodic, "periodic"}};
  const size_def sizes[] = {
      {1u << 10, "1k"}, {64u << 10, "64k"}, {1u << 20, "1m"}, {4u << 20, "4m"}};
  for (const auto& td : texts) {
    for (const auto& sd : sizes) {
      std::vector<std::size_t> lens = {13, 25};
      if (sd.n == (64u << 10)) lens = {1, 4, 13, 25, 64, 300};
      if (sd.n == (1u << 20)) lens = {13, 25, 300};
      for (std::size_t m : lens) {
        reg_case(td.t, td.name, sd.n, sd.name, m, 95, "late");
        reg_case(td.t, td.name, sd.n, sd.name, m, -1, "absent");
        if (sd.n == (64u << 10) && m == 25) {
          reg_case(td.t, td.name, sd.n, sd.name, m, 10, "early");
          reg_case(td.t, td.name, sd.n, sd.name, m, 50, "mid");
        }
      }
    }
  }
  reg_case(text_kind::random, "random", 4u << 20, "4m", 1, -1, "absent");
  return true;
}();

}  // namespace
