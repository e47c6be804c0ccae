// bench/string_bodies.hpp: benchmark bodies that more than one section runs
// over the std::string-like peers (bench/peers.hpp), each with its own sizes:
// string/ and pool/ construct and grow strings, string/ and paper/ append one
// byte at a time and read the classic 62-byte text (through runtime_text, so
// the compiler cannot know it). A section registers the bodies with
// fl_bench::reg_peers and the extra arguments the body takes (its input's salt
// label), e.g.
//   reg_peers(peers, "string/sso_construct_11",
//             []<class P>() { return &bm_construct<P, 11>; }, "sso_construct_11");
// Sizes are template arguments, so each row compiles with the constant sizes
// it always had; inputs come from fl_bench::salt(label), so a row's input is
// the same whichever section holds it.
//
// Threads: each body uses only its own strings (and P::arena, see peers.hpp).
#pragma once

#include "common.hpp"
#include "peers.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace fl_bench {

// The classic 62-byte text of the STL string tests, which paper/ reruns and
// string/ searches.
inline constexpr std::string_view classic_62 =
    "qyweyuewunfkHBUKGYUGL,wehbYGUW^(@T@H!BALWD:h^&@#*@(#:JKHWJ:CND";
static_assert(classic_62.size() == 62);

// `text` as a runtime value: copied through a volatile pointer so no find or
// copy of it can be evaluated at compile time.
inline std::string runtime_text(std::string_view text) {
  const char* volatile p = text.data();
  return std::string(p, text.size());
}

// Constructs a P::string from N bytes of text (made from salt(label)), once
// per iteration, and destroys it: the inline path for N <= 23 in fl and std,
// one allocation above. Reports N bytes per iteration.
template <class P, std::size_t N>
void bm_construct(benchmark::State& st, const char* label) {
  const std::string in = random_text(N, salt(label));
  const char* p = in.data();
  typename P::arena arena;
  for (auto _ : st) {
    benchmark::DoNotOptimize(p);
    typename P::string s(p, N);
    benchmark::DoNotOptimize(s);
    arena.recycle();
  }
  set_bytes(st, N);
}

// From an empty P::string, appends a Piece-byte piece (made from salt(label))
// Rounds times, then destroys the string: growth from empty to
// Piece * Rounds bytes. Reports Piece * Rounds bytes per iteration.
template <class P, std::size_t Piece, std::size_t Rounds>
void bm_append_pieces(benchmark::State& st, const char* label) {
  const std::string in = random_text(Piece, salt(label));
  const char* p = in.data();
  const std::size_t rounds = runtime_count(Rounds);
  typename P::arena arena;
  for (auto _ : st) {
    typename P::string s;
    for (std::size_t i = 0; i < rounds; ++i) {
      benchmark::DoNotOptimize(p);
      s.append(p, Piece);
    }
    benchmark::DoNotOptimize(s);
    arena.recycle();
  }
  set_bytes(st, Piece * Rounds);
}

// From an empty P::string, push_back of one byte N times. Reports N items
// (appends) per iteration.
template <class P, std::size_t N>
void bm_append_char(benchmark::State& st) {
  const char c = runtime_char();
  const std::size_t n = runtime_count(N);
  typename P::arena arena;
  for (auto _ : st) {
    typename P::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(c);
    benchmark::DoNotOptimize(s);
    arena.recycle();
  }
  set_items(st, N);
}

}  // namespace fl_bench
