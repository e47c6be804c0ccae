// bench/concat_bench.cpp: sections concat/, shared/ and builder/.
//
// Method. Inputs are built at run time (fl_bench::seed) and passed through
// benchmark::DoNotOptimize inside each loop, so nothing is constant-folded;
// every result goes to benchmark::DoNotOptimize. "Faster" is lower time per
// iteration; the report divides each row by its `std` neighbour.
//
//   concat/chain6         s = s1 + "/" + s2 + s3 + " => " + s4 into a string
//                         that lives across iterations (the classic "string
//                         proxy" test): s1 = "1234567", s2 = 20 digits,
//                         s3 = ".ext", s4 = " /* my comment about this */",
//                         64 chars in all. fl: `+` (std::string semantics,
//                         rvalues appended to in place); fl_concat:
//                         fl::concat; absl_strcat: absl::StrCat; std: `+`.
//   concat/mixed_numbers  a 19-char string, an int, a double and a char joined
//                         (the double, 3.14159, prints the same in fl's
//                         shortest form and in absl's 6 digits; std::to_string
//                         prints "3.141590").
//   shared/copy_64        copy-construct and destroy a 64-char string.
//   shared/copy_by_value_func_64
//                         the same copy through a noinline function taking its
//                         argument by value.
//   shared/copy_2threads  two threads copying one shared 64-char string at
//                         once. This machine gives about 1.1 cores of parallel
//                         throughput, so the row shows contention on the shared
//                         count (fl_immutable) or on malloc (std), not scaling.
//   builder/build_4k      256 appends of a 16-byte piece, then the final
//                         fl::string/std::string: fl = fl::string_builder and
//                         build(); fl_string = fl::string +=; *_reserve first
//                         reserves 4096.
#include "common.hpp"

#include <fl/builder.hpp>
#include <fl/concat.hpp>
#include <fl/immutable_string.hpp>
#include <fl/string.hpp>

#include <string>
#include <string_view>

#if defined(FL_BENCH_HAVE_ABSL)
#include <absl/strings/str_cat.h>
#endif

namespace {

// The chain6 operands, made at run time from the seed so the compiler cannot
// know them: the seed's value selects nothing, it only hides the constants.
std::string runtime_copy(std::string_view s) {
  std::string out(s);
  benchmark::DoNotOptimize(out.data());
  return out;
}

struct chain6_inputs {
  std::string s1 = runtime_copy("1234567");
  std::string s2 = runtime_copy("12345678901234567890");
  std::string s3 = runtime_copy(".ext");
  std::string s4 = runtime_copy(" /* my comment about this */");
};

// One loop for every peer: `join` builds s from the four operands (for fl's
// lazy `+` it returns the expression, which refers to this frame's strings
// and becomes a string in the assignment).
template <class Str, class Join>
void chain6_loop(benchmark::State& st, Join join) {
  const chain6_inputs in;
  Str s1(in.s1), s2(in.s2), s3(in.s3), s4(in.s4), s;
  for (auto _ : st) {
    benchmark::DoNotOptimize(s1);
    benchmark::DoNotOptimize(s2);
    benchmark::DoNotOptimize(s3);
    benchmark::DoNotOptimize(s4);
    s = join(s1, s2, s3, s4);
    benchmark::DoNotOptimize(s);
  }
}
void bm_chain6_fl(benchmark::State& st) {
  chain6_loop<fl::string>(st, [](const auto& a, const auto& b, const auto& c, const auto& d) {
    return a + "/" + b + c + " => " + d;
  });
}
void bm_chain6_std(benchmark::State& st) {
  chain6_loop<std::string>(st, [](const auto& a, const auto& b, const auto& c, const auto& d) {
    return a + "/" + b + c + " => " + d;
  });
}
#if defined(FL_BENCH_HAVE_ABSL)
void bm_chain6_absl(benchmark::State& st) {
  chain6_loop<std::string>(st, [](const auto& a, const auto& b, const auto& c, const auto& d) {
    return absl::StrCat(a, "/", b, c, " => ", d);
  });
}
#endif
void bm_chain6_fl_concat(benchmark::State& st) {
  chain6_loop<fl::string>(st, [](const auto& a, const auto& b, const auto& c, const auto& d) {
    return fl::concat(a, "/", b, c, " => ", d);
  });
}

struct mixed_inputs {
  std::string name = runtime_copy("temperature_sensor_");
  int id = static_cast<int>(fl_bench::runtime_count(48213));
  double value = static_cast<double>(fl_bench::runtime_count(314159)) / 100000.0;
  char sep = static_cast<char>(fl_bench::runtime_count(';'));
};

void bm_mixed_fl_concat(benchmark::State& st) {
  mixed_inputs in;
  const fl::string name(in.name);
  fl::string s;
  for (auto _ : st) {
    benchmark::DoNotOptimize(in);
    s = fl::concat(name, in.id, in.value, in.sep);
    benchmark::DoNotOptimize(s);
  }
}
#if defined(FL_BENCH_HAVE_ABSL)
void bm_mixed_absl(benchmark::State& st) {
  mixed_inputs in;
  std::string s;
  const char sep[2] = {in.sep, '\0'};
  for (auto _ : st) {
    benchmark::DoNotOptimize(in);
    s = absl::StrCat(in.name, in.id, in.value,
                     absl::string_view(sep, 1));  // AlphaNum takes no char
    benchmark::DoNotOptimize(s);
  }
}
#endif
void bm_mixed_std(benchmark::State& st) {
  mixed_inputs in;
  std::string s;
  for (auto _ : st) {
    benchmark::DoNotOptimize(in);
    s = in.name + std::to_string(in.id) + std::to_string(in.value) + in.sep;
    benchmark::DoNotOptimize(s);
  }
}

// ---- shared/ ----

template <class Str>
Str make_64() {
  return Str(std::string_view(fl_bench::random_text(64, fl_bench::salt("shared/64"))));
}

template <class Str>
void bm_copy_64(benchmark::State& st) {
  const Str src = make_64<Str>();
  for (auto _ : st) {
    benchmark::DoNotOptimize(&src);
    Str copy(src);
    benchmark::DoNotOptimize(copy);
  }
}

template <class Str>
[[gnu::noinline]] std::size_t take_by_value(Str s) {
  benchmark::DoNotOptimize(s);
  return s.size();
}

template <class Str>
void bm_copy_by_value_func_64(benchmark::State& st) {
  const Str src = make_64<Str>();
  for (auto _ : st) {
    benchmark::DoNotOptimize(&src);
    benchmark::DoNotOptimize(take_by_value<Str>(src));
  }
}

template <class Str>
void bm_copy_2threads(benchmark::State& st) {
  static const Str* shared = nullptr;  // made by thread 0 before any thread times
  if (st.thread_index() == 0) shared = new Str(make_64<Str>());
  for (auto _ : st) {
    Str copy(*shared);
    benchmark::DoNotOptimize(copy);
  }
  if (st.thread_index() == 0) {
    delete shared;
    shared = nullptr;
  }
}

// ---- builder/ ----

std::string piece_16() { return fl_bench::random_text(16, fl_bench::salt("builder/piece")); }

void bm_build_builder(benchmark::State& st, bool reserve) {
  const std::string piece = piece_16();
  const std::size_t n = fl_bench::runtime_count(256);
  for (auto _ : st) {
    fl::string_builder b;
    if (reserve) b.reserve(4096);
    for (std::size_t i = 0; i < n; ++i) b.append(std::string_view(piece));
    fl::string s = std::move(b).build();
    benchmark::DoNotOptimize(s);
  }
  fl_bench::set_bytes(st, 4096);
}

template <class Str>
void bm_build_string(benchmark::State& st, bool reserve) {
  const std::string piece = piece_16();
  const std::size_t n = fl_bench::runtime_count(256);
  for (auto _ : st) {
    Str s;
    if (reserve) s.reserve(4096);
    for (std::size_t i = 0; i < n; ++i) s.append(piece.data(), piece.size());
    benchmark::DoNotOptimize(s);
  }
  fl_bench::set_bytes(st, 4096);
}

const bool registered = [] {
  fl_bench::reg("concat/chain6/fl", bm_chain6_fl);
  fl_bench::reg("concat/chain6/std", bm_chain6_std);
#if defined(FL_BENCH_HAVE_ABSL)
  fl_bench::reg("concat/chain6/absl_strcat", bm_chain6_absl);
#endif
  fl_bench::reg("concat/chain6/fl_concat", bm_chain6_fl_concat);

  fl_bench::reg("concat/mixed_numbers/fl_concat", bm_mixed_fl_concat);
#if defined(FL_BENCH_HAVE_ABSL)
  fl_bench::reg("concat/mixed_numbers/absl_strcat", bm_mixed_absl);
#endif
  fl_bench::reg("concat/mixed_numbers/std", bm_mixed_std);

  fl_bench::reg("shared/copy_64/fl_immutable", bm_copy_64<fl::immutable_string>);
  fl_bench::reg("shared/copy_64/std", bm_copy_64<std::string>);
  fl_bench::reg("shared/copy_64/fl", bm_copy_64<fl::string>);
  fl_bench::reg("shared/copy_by_value_func_64/fl_immutable",
                bm_copy_by_value_func_64<fl::immutable_string>);
  fl_bench::reg("shared/copy_by_value_func_64/std", bm_copy_by_value_func_64<std::string>);
  fl_bench::reg("shared/copy_by_value_func_64/fl", bm_copy_by_value_func_64<fl::string>);
  fl_bench::reg("shared/copy_2threads/fl_immutable", bm_copy_2threads<fl::immutable_string>)
      ->Threads(2);
  fl_bench::reg("shared/copy_2threads/std", bm_copy_2threads<std::string>)->Threads(2);
  fl_bench::reg("shared/copy_2threads/fl", bm_copy_2threads<fl::string>)->Threads(2);

  fl_bench::reg("builder/build_4k/fl", bm_build_builder, false);
  fl_bench::reg("builder/build_4k/fl_reserve", bm_build_builder, true);
  fl_bench::reg("builder/build_4k/std", bm_build_string<std::string>, false);
  fl_bench::reg("builder/build_4k/std_reserve", bm_build_string<std::string>, true);
  fl_bench::reg("builder/build_4k/fl_string", bm_build_string<fl::string>, false);
  fl_bench::reg("builder/build_4k/fl_string_reserve", bm_build_string<fl::string>, true);
  return true;
}();

}  // namespace
