// src/simd/isa.cpp: the CPU features fl's kernels need, detected once with
// cpuid (and xgetbv: AVX needs the operating system to save the YMM
// registers), the levels of src/simd/isa_levels.def as feature masks, and the
// active level (FL_ISA, force_isa).
#include "simd/isa.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string_view>

#ifndef FL_NO_SIMD
#include <cpuid.h>
// glibc (2.33 and later) detects the CPU's features once per process, before
// main, for its own function variants, and hands them out without a cpuid.
#if defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#if defined(CPU_FEATURE_ACTIVE)
#define FL_GLIBC_CPU_FEATURES 1
#endif
#endif
#endif

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

using feature_mask = std::uint32_t;

enum class cpuid_reg : unsigned char { ebx, ecx, edx };

// The register state the OS must save for a feature (XCR0 bits): none, SSE
// and AVX's YMM halves, or those and AVX-512's opmask and ZMM registers.
constexpr unsigned no_state = 0, ymm_state = 0x6, zmm_state = 0xE6;

// Where cpuid reports one feature, the register state it needs, and glibc's
// answer for it ("active": the CPU has it and the OS saves its registers),
// where glibc gives one.
struct cpu_feature {
  std::string_view name;  // GCC's -m option without "-m"
  unsigned leaf;
  cpuid_reg reg;
  unsigned bit;
  unsigned state;
  bool (*glibc_active)() noexcept;
};

#if defined(FL_GLIBC_CPU_FEATURES)
#define FL_GLIBC_FEATURE(glibc_name) \
  []() noexcept { return static_cast<bool>(CPU_FEATURE_ACTIVE(glibc_name)); }
#else
#define FL_GLIBC_FEATURE(glibc_name) nullptr
#endif

// Intel SDM vol. 2A, CPUID; leaf 0x80000001 ECX bit 5 is LZCNT (AMD: ABM).
constexpr cpu_feature known_features[] = {
    {"sse2", 1, cpuid_reg::edx, 26, no_state, FL_GLIBC_FEATURE(SSE2)},
    {"sse4.2", 1, cpuid_reg::ecx, 20, no_state, FL_GLIBC_FEATURE(SSE4_2)},
    {"popcnt", 1, cpuid_reg::ecx, 23, no_state, FL_GLIBC_FEATURE(POPCNT)},
    {"avx", 1, cpuid_reg::ecx, 28, ymm_state, FL_GLIBC_FEATURE(AVX)},
    {"avx2", 7, cpuid_reg::ebx, 5, ymm_state, FL_GLIBC_FEATURE(AVX2)},
    {"bmi", 7, cpuid_reg::ebx, 3, no_state, FL_GLIBC_FEATURE(BMI1)},
    {"bmi2", 7, cpuid_reg::ebx, 8, no_state, FL_GLIBC_FEATURE(BMI2)},
    {"lzcnt", 0x80000001, cpuid_reg::ecx, 5, no_state, FL_GLIBC_FEATURE(LZCNT)},
    {"avx512f", 7, cpuid_reg::ebx, 16, zmm_state, FL_GLIBC_FEATURE(AVX512F)},
    {"avx512bw", 7, cpuid_reg::ebx, 30, zmm_state, FL_GLIBC_FEATURE(AVX512BW)},
    {"avx512vl", 7, cpuid_reg::ebx, 31, zmm_state, FL_GLIBC_FEATURE(AVX512VL)},
    {"pclmul", 1, cpuid_reg::ecx, 1, no_state, FL_GLIBC_FEATURE(PCLMULQDQ)},
    {"vpclmulqdq", 7, cpuid_reg::ecx, 10, zmm_state, FL_GLIBC_FEATURE(VPCLMULQDQ)},
};
#undef FL_GLIBC_FEATURE
static_assert(std::size(known_features) <= 32, "feature_mask has 32 bits");

// The mask of a space-separated feature list; a name missing from
// known_features is a compile-time error (the throw is not a constant).
consteval feature_mask mask_of(std::string_view list) {
  feature_mask m = 0;
  while (!list.empty()) {
    const std::size_t sp = list.find(' ');
    const std::string_view name = list.substr(0, sp);
    list = sp == std::string_view::npos ? std::string_view{} : list.substr(sp + 1);
    if (name.empty()) continue;
    bool found = false;
    for (std::size_t i = 0; i < std::size(known_features); ++i) {
      if (known_features[i].name == name) {
        m |= feature_mask{1} << i;
        found = true;
      }
    }
    if (!found) throw "isa_levels.def names a feature that src/simd/isa.cpp cannot detect";
  }
  return m;
}

struct level_info {
  const char* name;
  feature_mask own;  // the features listed on the level's line
};

constexpr level_info level_table[] = {
    {"scalar", 0},
#define FL_ISA_LEVEL(name, features) {#name, mask_of(features)},
#include "simd/isa_levels.def"
#undef FL_ISA_LEVEL
};
static_assert(std::size(level_table) == isa_count);

// The features a level needs: its own and those of every level below.
constexpr feature_mask needed(isa level) noexcept {
  feature_mask m = 0;
  for (std::size_t i = 0; i <= static_cast<std::size_t>(level); ++i) m |= level_table[i].own;
  return m;
}

#ifndef FL_NO_SIMD
struct cpuid_regs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  unsigned get(cpuid_reg r) const noexcept {
    return r == cpuid_reg::ebx ? ebx : r == cpuid_reg::ecx ? ecx : edx;
  }
};

cpuid_regs query(unsigned leaf) noexcept {
  cpuid_regs r;
  // __get_cpuid_count checks the leaf against the highest one the CPU has
  // (basic or extended range) and leaves r zero when it is beyond.
  if (__get_cpuid_count(leaf, 0, &r.eax, &r.ebx, &r.ecx, &r.edx) == 0) r = cpuid_regs{};
  return r;
}

// The register state the OS saves on a context switch (XCR0's low word),
// from leaf 1; 0 when the OS does not say (no xgetbv).
unsigned os_saved_state(const cpuid_regs& l1) noexcept {
  if ((l1.ecx & (1u << 27)) == 0) return 0;  // OSXSAVE: xgetbv is available
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return lo;
}

// Each leaf known_features names, queried once.
feature_mask detect_by_cpuid() noexcept {
  unsigned leaves[std::size(known_features)];
  cpuid_regs regs[std::size(known_features)];
  std::size_t n = 0;
  const auto leaf = [&](unsigned l) -> const cpuid_regs& {
    for (std::size_t i = 0; i < n; ++i)
      if (leaves[i] == l) return regs[i];
    leaves[n] = l;
    regs[n] = query(l);
    return regs[n++];
  };
  const unsigned saved = os_saved_state(leaf(1));
  feature_mask m = 0;
  for (std::size_t i = 0; i < std::size(known_features); ++i) {
    const cpu_feature& f = known_features[i];
    if ((leaf(f.leaf).get(f.reg) >> f.bit & 1u) != 0 && (saved & f.state) == f.state)
      m |= feature_mask{1} << i;
  }
  return m;
}

// cpuid traps to the hypervisor on a virtual machine (about 5 us a call on
// the VMs of docs/performance.md), so a process asks glibc when it can, and
// otherwise asks cpuid once per leaf: the first dispatch of a process made
// 18 calls before, 90 us of a short-lived reader's open.
feature_mask detect() noexcept {
#if defined(FL_GLIBC_CPU_FEATURES)
  feature_mask m = 0;
  for (std::size_t i = 0; i < std::size(known_features); ++i)
    if (known_features[i].glibc_active()) m |= feature_mask{1} << i;
  return m;
#else
  return detect_by_cpuid();
#endif
}
#endif

feature_mask cpu_features() noexcept {
#ifndef FL_NO_SIMD
  static const feature_mask features = detect();
  return features;
#else
  return 0;
#endif
}

// The active level, or -1 before the first dispatch.
std::atomic<int> active_level{-1};

isa initial_level() noexcept {
  isa level = best_isa();
  isa cap = isa::scalar;
  if (const char* env = std::getenv("FL_ISA"); env != nullptr && isa_from_name(env, cap) &&
                                                cap < level) {
    level = cap;
  }
  return level;
}

}  // namespace

const char* isa_name(isa level) noexcept {
  return level_table[static_cast<std::size_t>(level)].name;
}

bool isa_from_name(const char* name, isa& level) noexcept {
  for (std::size_t i = 0; i < isa_count; ++i) {
    if (std::strcmp(level_table[i].name, name) == 0) {
      level = static_cast<isa>(i);
      return true;
    }
  }
  return false;
}

bool isa_supported(isa level) noexcept {
#ifdef FL_NO_SIMD
  return level == isa::scalar;
#else
  const feature_mask want = needed(level);
  return (cpu_features() & want) == want;
#endif
}

std::uint32_t detected_features() noexcept { return cpu_features(); }

std::uint32_t cpuid_features() noexcept {
#ifndef FL_NO_SIMD
  return detect_by_cpuid();
#else
  return 0;
#endif
}

isa best_isa() noexcept {
  isa best = isa::scalar;
  for (std::size_t i = 1; i < isa_count; ++i) {
    if (!isa_supported(static_cast<isa>(i))) break;
    best = static_cast<isa>(i);
  }
  return best;
}

isa active_isa() noexcept {
  int v = active_level.load(std::memory_order_relaxed);
  if (v < 0) {
    // Two threads may both compute it; they store the same value.
    v = static_cast<int>(initial_level());
    active_level.store(v, std::memory_order_relaxed);
  }
  return static_cast<isa>(v);
}

bool force_isa(isa level) noexcept {
  if (!isa_supported(level)) return false;
  active_level.store(static_cast<int>(level), std::memory_order_relaxed);
  install_find_kernels(level);
  install_text_count_kernels(level);
  install_crc32c_kernel(level);
  return true;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
