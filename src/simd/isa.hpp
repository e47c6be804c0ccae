// src/simd/isa.hpp: the one registry of fl's instruction-set levels, private
// to src/ and the tests. It says what the CPU has (detected once), which level
// the kernels run at, and lets each family of kernels (find, text counting,
// CRC-32C) pick its best kernel for that level. The levels and their features
// are listed once, in src/simd/isa_levels.def, which also gives each kernel
// file its compile flags (cmake/FlIsa.cmake); so a level's run-time check
// tests every feature its kernels were compiled to use.
//
// Choosing a level: the best one this CPU and build support, capped by the
// environment variable FL_ISA=<level name> (read once, at the first
// dispatch), or set by force_isa (tests). A family keeps its chosen kernels in
// relaxed atomic pointers that start at a resolver, so its first call picks
// them; force_isa re-installs every family at once.
//
// Threads: every function may be called from any thread; force_isa is for
// tests and must not race with searches that expect a particular kernel.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <cstddef>
#include <cstdint>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// The levels, lowest first; a level includes every level below it.
enum class isa : unsigned char {
  scalar,
#define FL_ISA_LEVEL(name, features) name,
#include "simd/isa_levels.def"
#undef FL_ISA_LEVEL
};

inline constexpr std::size_t isa_count = 1
#define FL_ISA_LEVEL(name, features) +1
#include "simd/isa_levels.def"
#undef FL_ISA_LEVEL
    ;

// The level's name in isa_levels.def ("scalar" for the portable one).
const char* isa_name(isa level) noexcept;

// The level named `name`, or false when no level has that name.
bool isa_from_name(const char* name, isa& level) noexcept;

// Whether this build has SIMD kernels and the CPU has every feature of
// `level` (and of the levels below it). Always true for isa::scalar.
bool isa_supported(isa level) noexcept;

// The highest supported level.
isa best_isa() noexcept;

// Test hook: the features of every level as detected (bit i: the i-th
// feature src/simd/isa.cpp knows), and as cpuid alone reports them. The
// detection asks glibc where it can (no cpuid, which traps to the
// hypervisor on a VM); both must agree.
std::uint32_t detected_features() noexcept;
std::uint32_t cpuid_features() noexcept;

// The level the kernels are chosen for: best_isa(), lowered to FL_ISA when
// that names a lower level (an unknown name or a higher level is ignored), or
// the level of the last successful force_isa.
isa active_isa() noexcept;

// Test hook: makes `level` the active level and re-installs every kernel
// family for it, if supported; returns whether it did.
bool force_isa(isa level) noexcept;

// One entry of a family's choice table: the kernels compiled for `level`.
template <class Kernels>
struct isa_choice {
  isa level;
  const Kernels* kernels;
};

// The entry of `table` (highest level first, ending with isa::scalar) that a
// family runs at `level`: the first whose level is not above it.
template <class Kernels, std::size_t N>
constexpr const isa_choice<Kernels>& choose_kernels(const isa_choice<Kernels> (&table)[N],
                                                    isa level) noexcept {
  static_assert(N >= 1);
  for (const isa_choice<Kernels>& c : table) {
    if (c.level <= level) return c;
  }
  return table[N - 1];
}

// Every family's installer, called by force_isa and by each family's
// resolvers (defined beside the family's kernels). Each returns the level of
// the kernels it installed.
isa install_find_kernels(isa level) noexcept;
isa install_text_count_kernels(isa level) noexcept;
isa install_crc32c_kernel(isa level) noexcept;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
