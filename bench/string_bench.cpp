// bench/string_bench.cpp: section string/, the everyday operations of one
// string, for every peer with the std::string interface (std, fl, boost, pmr).
//
// Every case is a template over the peer, so all peers run the same source.
// Inputs come from fl_bench::random_text (seeded at run time); results go
// through benchmark::DoNotOptimize, and inputs of pure operations (find,
// compare, substr) are passed through DoNotOptimize inside the loop so the
// work cannot be hoisted out of it.
//
// Cases (the list):
//   sso_construct_11       construct from 11 bytes (inline for every peer)
//   heap_construct_100     construct from 100 bytes (one allocation)
//   append_growth_256x16   256 appends of 16 bytes to an empty string, no
//                          reserve: 4 KiB and every reallocation on the way
//   find_1k_13             find a 13-byte needle planted at 90% of a 1,024-byte
//                          random alphanumeric haystack
//   find_literal_62        three finds of C-string literals in the classic
//                          62-byte text, written as users write them
//                          (s.find("unfkHBUKGY")): the needles are constants
//                          the compiler sees, the text is not
//   find_char_62           four finds of a char literal in the same text
//                          (three present, one absent)
//   compare_64             three compares of 64-byte strings: equal, differing
//                          at byte 0, differing at byte 63
//   substr_64_of_512       a 64-byte substr of a 512-byte string (allocates)
//   copy_by_value_64       a 64-byte string passed by value to a non-inlined
//                          function: copy construct + destroy per call
//   copy_by_ref_64         a 64-byte string passed by const& to a non-inlined
//                          function that copy-assigns it into a string kept
//                          across calls: the copy reuses that string's capacity
//   copy_short_10          a 10-byte string passed by value (inline copy)
//   append_char_10m        push_back of one byte, ten million times
#include "common.hpp"
#include "peers.hpp"
#include "string_bodies.hpp"

#include <cstddef>
#include <string>

namespace {

using fl_bench::bm_append_char;
using fl_bench::bm_append_pieces;
using fl_bench::bm_construct;
using fl_bench::reg_peers;
using fl_bench::string_peers;

template <class P>
void bm_find_1k_13(benchmark::State& st) {
  const std::string needle_text = fl_bench::random_text(13, fl_bench::salt("find_1k_13 needle"));
  const std::size_t at = 1024 * 9 / 10;
  const std::string hay_text =
      fl_bench::haystack_with(1024, needle_text, at, fl_bench::salt("find_1k_13"));
  typename P::string hay = fl_bench::make<P>(hay_text);
  typename P::string needle = fl_bench::make<P>(needle_text);
  if (hay.find(needle) != at) {
    st.SkipWithError("find_1k_13: needle not at 90%");
    return;
  }
  for (auto _ : st) {
    benchmark::DoNotOptimize(hay);
    benchmark::DoNotOptimize(needle);
    auto pos = hay.find(needle);
    benchmark::DoNotOptimize(pos);
  }
  fl_bench::set_bytes(st, at + needle_text.size());
}

template <class P>
void bm_find_literal_62(benchmark::State& st) {
  typename P::string s = fl_bench::make<P>(fl_bench::runtime_text(fl_bench::classic_62));
  if (s.find("unfkHBUKGY") != 8 || s.find("W^(@T@H!B") != 29 || s.find("J:CND") != 57) {
    st.SkipWithError("find_literal_62: needles not where the classic text has them");
    return;
  }
  for (auto _ : st) {
    benchmark::DoNotOptimize(s);
    std::size_t r = s.find("unfkHBUKGY") + s.find("W^(@T@H!B") + s.find("J:CND");
    benchmark::DoNotOptimize(r);
  }
  fl_bench::set_items(st, 3);
}

template <class P>
void bm_find_char_62(benchmark::State& st) {
  typename P::string s = fl_bench::make<P>(fl_bench::runtime_text(fl_bench::classic_62));
  if (s.find('H') != 12 || s.find('^') != 30 || s.find('N') != 60 ||
      s.find('z') != P::string::npos) {
    st.SkipWithError("find_char_62: chars not where the classic text has them");
    return;
  }
  for (auto _ : st) {
    benchmark::DoNotOptimize(s);
    std::size_t r = s.find('H') + s.find('^') + s.find('N') + s.find('z');
    benchmark::DoNotOptimize(r);
  }
  fl_bench::set_items(st, 4);
}

template <class P>
void bm_compare_64(benchmark::State& st) {
  const std::string text = fl_bench::random_text(64, fl_bench::salt("compare_64"));
  std::string at0 = text, at63 = text;
  at0[0] = static_cast<char>(at0[0] ^ 1);
  at63[63] = static_cast<char>(at63[63] ^ 1);
  typename P::string a = fl_bench::make<P>(text);
  typename P::string eq = fl_bench::make<P>(text);
  typename P::string d0 = fl_bench::make<P>(at0);
  typename P::string d63 = fl_bench::make<P>(at63);
  for (auto _ : st) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(eq);
    benchmark::DoNotOptimize(d0);
    benchmark::DoNotOptimize(d63);
    int r1 = a.compare(eq);
    int r2 = a.compare(d0);
    int r3 = a.compare(d63);
    benchmark::DoNotOptimize(r1);
    benchmark::DoNotOptimize(r2);
    benchmark::DoNotOptimize(r3);
  }
  fl_bench::set_items(st, 3);
}

template <class P>
void bm_substr_64_of_512(benchmark::State& st) {
  const std::string text = fl_bench::random_text(512, fl_bench::salt("substr_64_of_512"));
  typename P::string s = fl_bench::make<P>(text);
  std::size_t pos = fl_bench::runtime_count(200);
  typename P::arena arena;
  for (auto _ : st) {
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(pos);
    typename P::string sub = s.substr(pos, 64);
    benchmark::DoNotOptimize(sub);
    arena.recycle();
  }
  fl_bench::set_bytes(st, 64);
}

template <class P, std::size_t N>
void bm_copy_by_value(benchmark::State& st) {
  const std::string text = fl_bench::random_text(N, fl_bench::salt("copy_by_value"));
  typename P::string s = fl_bench::make<P>(text);
  typename P::arena arena;
  for (auto _ : st) {
    fl_bench::call_pass_by_value(s);
    arena.recycle();
  }
  fl_bench::set_bytes(st, N);
}

template <class P>
void bm_copy_by_ref_64(benchmark::State& st) {
  const std::string text = fl_bench::random_text(64, fl_bench::salt("copy_by_ref_64"));
  typename P::string s = fl_bench::make<P>(text);
  // `out` lives across iterations: after the first call its capacity fits,
  // which is the point of passing by reference into a kept string. It is
  // made before the arena, so for pmr it lives on the heap like `s`.
  typename P::string out;
  for (auto _ : st) fl_bench::call_pass_by_ref(s, out);
  fl_bench::set_bytes(st, 64);
}

const bool registered = [] {
  constexpr string_peers peers{};
  reg_peers(
      peers, "string/sso_construct_11", []<class P>() { return &bm_construct<P, 11>; },
      "sso_construct_11");
  reg_peers(
      peers, "string/heap_construct_100", []<class P>() { return &bm_construct<P, 100>; },
      "heap_construct_100");
  reg_peers(
      peers, "string/append_growth_256x16", []<class P>() { return &bm_append_pieces<P, 16, 256>; },
      "append_growth_256x16");
  reg_peers(peers, "string/find_1k_13", []<class P>() { return &bm_find_1k_13<P>; });
  reg_peers(peers, "string/find_literal_62", []<class P>() { return &bm_find_literal_62<P>; });
  reg_peers(peers, "string/find_char_62", []<class P>() { return &bm_find_char_62<P>; });
  reg_peers(peers, "string/compare_64", []<class P>() { return &bm_compare_64<P>; });
  reg_peers(peers, "string/substr_64_of_512", []<class P>() { return &bm_substr_64_of_512<P>; });
  reg_peers(peers, "string/copy_by_value_64", []<class P>() { return &bm_copy_by_value<P, 64>; });
  reg_peers(peers, "string/copy_by_ref_64", []<class P>() { return &bm_copy_by_ref_64<P>; });
  reg_peers(peers, "string/copy_short_10", []<class P>() { return &bm_copy_by_value<P, 10>; });
  reg_peers(peers, "string/append_char_10m",
            []<class P>() { return &bm_append_char<P, 10'000'000>; });
  return true;
}();

}  // namespace
