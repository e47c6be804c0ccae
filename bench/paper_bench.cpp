// bench/paper_bench.cpp: section paper/, the classic STL string tests (t1..t6)
// rerun for fl, std, boost, pmr and gnu_rope (__gnu_cxx::crope, which has
// every operation these tests use).
//
// The classic tests are long loops over one operation; here every benchmark
// iteration is a batch of `batch` operations (1,000; t1: one million
// appends) and items/s counts operations, so each run stays short and the
// rates compare directly with the classic numbers. string/append_char_10m
// is the full ten-million-append version of t1 for the std-like peers; the
// rope needs about 100 ns per appended char, so t1 is scaled to 1M.
//
// The 62-byte text is the classic one (fl_bench::classic_62, read through
// runtime_text so the compiler sees no constant); the three needles occur in
// it.
//   t1_append_char   push_back of one byte, 1,000,000 times, from empty
//   t2_find3_62      three successful finds in the 62-byte string
//   t3_mixed         assign the 62-byte string, find "unfkHBUKGY", replace
//                    those 10 bytes by 12 others, append 5 bytes
//   t4_copy_by_value the 62-byte string passed by value (copy + destroy)
//   t5_copy_by_ref   the 62-byte string passed by const&, copy-assigned into
//                    a string kept by the caller
//   t6_copy_short    a 10-byte string (its first 10 bytes) passed by value
//
// Every test also runs as <test>_2threads: the same loop in two threads at
// once (Google Benchmark ->Threads(2)), each on its own strings, so the
// allocator and any shared counts are exercised by two threads as in the
// classic rerun. Times are per operation of one thread. The reference machine
// gives about 1.1 cores of parallel throughput, so these rows show contention
// costs, not speed-up. pmr is left out of them: its arena is the process-wide
// default memory resource (bench/peers.hpp), which two threads cannot share.
#include "common.hpp"
#include "peers.hpp"
#include "string_bodies.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace {

using fl_bench::reg_peers;

using paper_peers = decltype(fl_bench::string_peers{} +
                             fl_bench::peer_list<fl_bench::gnu_rope_peer>{});

using fl_bench::classic_62;
using fl_bench::runtime_text;

constexpr std::size_t batch = 1000;

template <class P>
void bm_t2_find3_62(benchmark::State& st) {
  const typename P::string s = fl_bench::make<P>(runtime_text(classic_62));
  const std::string n1 = runtime_text("unfkHBUKGY"), n2 = runtime_text("W^(@T@H!B"),
                    n3 = runtime_text("J:CND");
  const char* p1 = n1.c_str();
  const char* p2 = n2.c_str();
  const char* p3 = n3.c_str();
  const std::size_t n = fl_bench::runtime_count(batch);
  if (s.find(p1) != 8 || s.find(p2) != 29 || s.find(p3) != 57) {
    st.SkipWithError("t2_find3_62: needles not where the classic text has them");
    return;
  }
  for (auto _ : st) {
    for (std::size_t i = 0; i < n; ++i) {
      benchmark::DoNotOptimize(s);
      benchmark::DoNotOptimize(p1);
      benchmark::DoNotOptimize(p2);
      benchmark::DoNotOptimize(p3);
      std::size_t r = s.find(p1) + s.find(p2) + s.find(p3);
      benchmark::DoNotOptimize(r);
    }
  }
  fl_bench::set_items(st, 3 * batch);
}

template <class P>
void bm_t3_mixed(benchmark::State& st) {
  const typename P::string base = fl_bench::make<P>(runtime_text(classic_62));
  const std::string needle = runtime_text("unfkHBUKGY"), with = runtime_text("0123456789AB"),
                    tail = runtime_text("tail!");
  const char* pn = needle.c_str();
  const char* pw = with.c_str();
  const char* pt = tail.c_str();
  const std::size_t n = fl_bench::runtime_count(batch);
  typename P::arena arena;
  for (auto _ : st) {
    {
      typename P::string s;
      for (std::size_t i = 0; i < n; ++i) {
        benchmark::DoNotOptimize(pn);
        benchmark::DoNotOptimize(pw);
        benchmark::DoNotOptimize(pt);
        s = base;
        std::size_t pos = s.find(pn);
        s.replace(pos, 10, pw);
        s.append(pt);
        benchmark::DoNotOptimize(s);
      }
    }
    arena.recycle();
  }
  fl_bench::set_items(st, batch);
}

template <class P, std::size_t Len>
void bm_copy_by_value(benchmark::State& st) {
  const typename P::string s = fl_bench::make<P>(runtime_text(classic_62.substr(0, Len)));
  const std::size_t n = fl_bench::runtime_count(batch);
  typename P::arena arena;
  for (auto _ : st) {
    for (std::size_t i = 0; i < n; ++i) fl_bench::call_pass_by_value(s);
    arena.recycle();
  }
  fl_bench::set_items(st, batch);
}

template <class P>
void bm_t5_copy_by_ref(benchmark::State& st) {
  const typename P::string s = fl_bench::make<P>(runtime_text(classic_62));
  typename P::string out;  // kept across calls, on the heap for pmr too
  const std::size_t n = fl_bench::runtime_count(batch);
  for (auto _ : st) {
    for (std::size_t i = 0; i < n; ++i) fl_bench::call_pass_by_ref(s, out);
  }
  fl_bench::set_items(st, batch);
}

// The peers of the _2threads rows: every peer but pmr (see the top comment).
using paper_2threads_peers = decltype(fl_bench::peer_list<fl_bench::std_peer, fl_bench::fl_peer>{} +
                                      fl_bench::boost_if_present{} +
                                      fl_bench::peer_list<fl_bench::gnu_rope_peer>{});

// Registers `section_case`_2threads/<peer> for every peer, each run by two
// threads at once.
template <class... Ps, class Make>
void reg_2threads(fl_bench::peer_list<Ps...>, std::string_view section_case, Make make) {
  (fl_bench::reg(std::string(section_case) + "_2threads/" + std::string(Ps::name),
                 make.template operator()<Ps>())
       ->Threads(2),
   ...);
}

// Registers one classic test for the peers, then its two-thread version.
template <class Make>
void reg_test(std::string_view section_case, Make make) {
  reg_peers(paper_peers{}, section_case, make);
  reg_2threads(paper_2threads_peers{}, section_case, make);
}

const bool registered = [] {
  reg_test("paper/t1_append_char",
           []<class P>() { return &fl_bench::bm_append_char<P, 1'000'000>; });
  reg_test("paper/t2_find3_62", []<class P>() { return &bm_t2_find3_62<P>; });
  reg_test("paper/t3_mixed", []<class P>() { return &bm_t3_mixed<P>; });
  reg_test("paper/t4_copy_by_value", []<class P>() { return &bm_copy_by_value<P, 62>; });
  reg_test("paper/t5_copy_by_ref", []<class P>() { return &bm_t5_copy_by_ref<P>; });
  reg_test("paper/t6_copy_short", []<class P>() { return &bm_copy_by_value<P, 10>; });
  return true;
}();

}  // namespace
