// src/persist/random_id.hpp: the one way fl draws a random 64-bit id (a
// space file's uuid, a change feed's history id). Private to src/.
#pragma once

#include <fl/detail/config.hpp>

#include <cstdint>
#include <random>

#include <sys/random.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// A random id, never 0. From getrandom(2), one system call: a
// std::random_device is built on the CPU's rdrand after a cpuid, and cpuid
// exits to the hypervisor in a VM (17 us per id measured on the development
// VM, against 0.5 us; every import and create draws one). The device is the
// fallback where the call is refused (a seccomp filter, an old kernel).
inline std::uint64_t random_id() {
  std::uint64_t v = 0;
  while (v == 0) {
    if (::getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
      std::random_device rd;
      v = (std::uint64_t{rd()} << 32) ^ rd();
    }
  }
  return v;
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
