// bench/peers.hpp: the string types fl is measured against, as "peer" structs
// that benchmark templates are written over, and the helper that registers one
// case for a list of peers, one after another.
//
// A peer P has:
//   P::string   the type (std::string interface, except gnu_rope and cord)
//   P::name     the library name, the last component of a benchmark name
//   P::arena    an RAII object to create right before the timing loop and
//               to recycle() at the end of every iteration (see pmr below);
//               for all peers but pmr it does nothing and costs nothing
//
// Peers:
//   std       std::string (libstdc++)
//   fl        fl::string
//   boost     boost::container::string (FL_BENCH_HAVE_BOOST)
//   pmr       std::pmr::string on a std::pmr::monotonic_buffer_resource
//   gnu_rope  __gnu_cxx::crope from <ext/rope> (libstdc++ only)
//   cord      absl::Cord, and absl::StrCat for absl_strcat (FL_BENCH_HAVE_ABSL)
// A peer whose library is missing is compiled out, its column is absent from
// the report, and main.cpp records it under "peers_missing": never faked.
//
// What `pmr` measures: std::pmr::string whose allocations are bump-pointer
// allocations from a monotonic buffer and whose deallocations are free. It
// is the best case for an arena: no free list, no locking, no reuse until the
// arena is reset. The arena is a 64 KiB block, touched before the loop so no
// page fault lands in the timing, and it is recycled
// (monotonic_buffer_resource::release) at the end of the first iteration
// that had to take a chunk from the heap. So memory stays bounded (64 KiB plus
// one iteration's overflow), the block stays in cache as it would in a
// program that resets its arena per request, and the rare reset is included
// in the time, spread over the iterations that filled the block.
// While an arena object lives, it is the default memory resource, so code
// written against the std::string interface (`P::string s(p, n);`) allocates
// from it; inputs built before the arena exists stay on the heap and survive
// recycling. Rule: only call recycle() when no string created inside the
// loop is alive (the end of the loop body).
//
// Threads: an arena changes the process-wide default memory resource; the
// benchmarks are single-threaded.
#pragma once

#include "common.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <ext/rope>
#include <memory>
#include <memory_resource>
#include <string>
#include <string_view>
#include <type_traits>

#include <fl/string.hpp>
#if defined(FL_BENCH_HAVE_BOOST)
#include <boost/container/string.hpp>
#endif
#if defined(FL_BENCH_HAVE_ABSL)
#include <absl/strings/cord.h>
#include <absl/strings/str_cat.h>
#endif

namespace fl_bench {

// The arena of every peer that allocates from the ordinary heap.
struct no_arena {
  void recycle() noexcept {}
};

// Forwards to the heap and counts the bytes it holds, so pmr_arena knows
// how much the monotonic buffer has taken beyond its initial block.
class counting_resource final : public std::pmr::memory_resource {
 public:
  std::size_t held() const noexcept { return held_; }

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    void* p = std::pmr::new_delete_resource()->allocate(bytes, align);
    held_ += bytes;
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    std::pmr::new_delete_resource()->deallocate(p, bytes, align);
    held_ -= bytes;
  }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
    return this == &o;
  }

  std::size_t held_ = 0;
};

// A monotonic buffer that is the default memory resource while it lives.
class pmr_arena {
 public:
  static constexpr std::size_t initial_bytes = 64 * 1024;

  pmr_arena()
      : initial_(touched_block()),
        mono_(initial_.get(), initial_bytes, &upstream_),
        previous_(std::pmr::set_default_resource(&mono_)) {}
  ~pmr_arena() {
    std::pmr::set_default_resource(previous_);
    mono_.release();
  }
  pmr_arena(const pmr_arena&) = delete;
  pmr_arena& operator=(const pmr_arena&) = delete;

  // Frees everything the arena handed out once it has taken memory from
  // the heap (its block is full). Precondition: no string allocated from
  // the arena is alive.
  void recycle() noexcept {
    if (upstream_.held() != 0) [[unlikely]]
      mono_.release();
  }

 private:
  static std::unique_ptr<std::byte[]> touched_block() {
    std::unique_ptr<std::byte[]> b(new std::byte[initial_bytes]);
    std::memset(b.get(), 0, initial_bytes);
    return b;
  }

  std::unique_ptr<std::byte[]> initial_;
  counting_resource upstream_;
  std::pmr::monotonic_buffer_resource mono_;
  std::pmr::memory_resource* previous_;
};

// One peer: its string type, its library name and its arena.
template <std::size_t N>
struct peer_name {
  constexpr peer_name(const char (&s)[N]) { std::copy_n(s, N, text); }
  char text[N];
};

template <class String, peer_name Name, class Arena = no_arena>
struct peer {
  using string = String;
  using arena = Arena;
  static constexpr std::string_view name{Name.text, sizeof Name.text - 1};
};

using std_peer = peer<std::string, "std">;
using fl_peer = peer<fl::string, "fl">;
#if defined(FL_BENCH_HAVE_BOOST)
using boost_peer = peer<boost::container::string, "boost">;
#endif
using pmr_peer = peer<std::pmr::string, "pmr", pmr_arena>;
// A rope: copies share the tree (reference counted), edits build new nodes.
// Its interface differs from std::string (push_back/append/find/replace
// exist; compare is operator< and ==), so only benchmarks written for it use it.
using gnu_rope_peer = peer<__gnu_cxx::crope, "gnu_rope">;
#if defined(FL_BENCH_HAVE_ABSL)
using cord_peer = peer<absl::Cord, "cord">;
#endif

// A compile-time list of peers.
template <class... Ps>
struct peer_list {};

template <class... As, class... Bs>
constexpr peer_list<As..., Bs...> operator+(peer_list<As...>, peer_list<Bs...>) {
  return {};
}

#if defined(FL_BENCH_HAVE_BOOST)
using boost_if_present = peer_list<boost_peer>;
#else
using boost_if_present = peer_list<>;
#endif
#if defined(FL_BENCH_HAVE_ABSL)
using cord_if_present = peer_list<cord_peer>;
#else
using cord_if_present = peer_list<>;
#endif

// The peers with the std::string interface, baseline first.
using string_peers = decltype(peer_list<std_peer, fl_peer>{} + boost_if_present{} +
                              peer_list<pmr_peer>{});

// Registers `section_case + "/" + P::name` for every P of the list, in list
// order, each with the function pointer that `make.template operator()<P>()`
// returns. Use with a template lambda:
//   fl_bench::reg_peers(fl_bench::string_peers{}, "string/compare_64",
//                       []<class P>() { return &bm_compare_64<P>; });
// Any `args` are passed on to every body (see fl_bench::reg).
template <class... Ps, class Make, class... Args>
void reg_peers(peer_list<Ps...>, std::string_view section_case, Make make, const Args&... args) {
  (reg(std::string(section_case) + "/" + std::string(Ps::name), make.template operator()<Ps>(),
       args...),
   ...);
}

// Builds a P::string from bytes. Every std::string-like peer has the
// (pointer, length) constructor; the rope spells it the same way.
template <class P>
typename P::string make(std::string_view text) {
  return typename P::string(text.data(), text.size());
}

// The callees of the copy cases (string/copy_*, paper/t4..t6). noinline
// keeps the call, and with it the copy into the parameter, in the measured
// code; DoNotOptimize makes the callee use its copy so it cannot be elided.
//   pass_by_value: copy construction into the parameter + destruction.
//   pass_by_ref:   the argument by const&, copy-assigned into `out`, a string
//                  the caller keeps across calls (its capacity is reused).
template <class Str>
[[gnu::noinline]] std::size_t pass_by_value(Str s) {
  benchmark::DoNotOptimize(s);
  return s.size();
}

template <class Str>
[[gnu::noinline]] std::size_t pass_by_ref(const Str& s, Str& out) {
  out = s;
  benchmark::DoNotOptimize(out);
  return out.size();
}

// One call of each, as string/ and paper/ time it: the argument goes through
// DoNotOptimize before the call and the result after, so no call is hoisted
// out of the loop or dropped. S is the string type, const or not. Always
// inlined, so the timed loop holds the call itself, not a call to this.
template <class S>
[[gnu::always_inline]] inline void call_pass_by_value(S& s) {
  benchmark::DoNotOptimize(s);
  std::size_t r = pass_by_value<std::remove_const_t<S>>(s);
  benchmark::DoNotOptimize(r);
}

template <class S>
[[gnu::always_inline]] inline void call_pass_by_ref(S& s, std::remove_const_t<S>& out) {
  benchmark::DoNotOptimize(s);
  std::size_t r = pass_by_ref<std::remove_const_t<S>>(s, out);
  benchmark::DoNotOptimize(r);
}

// Names of the peers compiled into this binary, and of those left out with
// the reason; main.cpp puts both in the JSON context and report.py prints them.
inline std::string peers_compiled_in() {
  std::string s = "std pmr gnu_rope fl";
#if defined(FL_BENCH_HAVE_BOOST)
  s += " boost";
#endif
#if defined(FL_BENCH_HAVE_ABSL)
  s += " cord absl_strcat";
#endif
#if defined(FL_BENCH_HAVE_C_API)
  s += " fl_c";
#endif
#if defined(FL_BENCH_HAVE_LMDB)
  s += " lmdb";
#endif
#if defined(FL_BENCH_HAVE_SQLITE)
  s += " sqlite sqlite_json";
#endif
  return s;
}

inline std::string peers_missing() {
  std::string s;
#if !defined(FL_BENCH_HAVE_BOOST)
  s += "boost (Boost headers not found); ";
#endif
#if !defined(FL_BENCH_HAVE_ABSL)
  s += "cord, absl_strcat (abseil not found); ";
#endif
#if !defined(FL_BENCH_HAVE_C_API)
  s += "fl_c (C API library not built); ";
#endif
#if !defined(FL_BENCH_HAVE_LMDB)
  s += "lmdb (liblmdb-dev not found); ";
#endif
#if !defined(FL_BENCH_HAVE_SQLITE)
  s += "sqlite, sqlite_json (libsqlite3-dev not found); ";
#endif
  if (s.empty()) return "none";
  s.resize(s.size() - 2);
  return s;
}

}  // namespace fl_bench
