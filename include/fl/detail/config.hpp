// fl/detail/config.hpp: the language check, included first by every public C++
// header of fl (directly, or as the first include of the detail header they
// start with), so that an older standard stops at one clear message instead
// of hundreds of errors from C++20 code further down.
#pragma once

// fl is written for GCC and Clang (its headers use __builtin_* and GNU
// attributes), whose __cplusplus is the language in effect.
#if __cplusplus < 202002L
#error \
    "fl requires C++20: compile with -std=c++20 or newer (CMake: link fl::fl, which requires cxx_std_20)"
// #error does not stop the compiler; a missing header does, so the message
// above is the only one besides this line's.
#include <fl_requires_cxx20_see_the_error_above>
#endif

// The ABI namespace: everything of fl's C++ side lives in
// `namespace fl { inline namespace FL_ABI_NS {` (fl::abi_v1::string, spelled
// fl::string).
// Much of fl is compiled into its users (the string core, the pool's inline
// size-class tables, the rope's nodes), so a program that mixes objects built
// against two incompatible layouts must fail to link rather than run with
// both. Change the name (abi_v1 -> abi_v2) with any change to a layout or table
// that inline code reads: detail/string_layout.h, detail/pool_impl.hpp's
// classes, detail/rope_node.hpp (whose rope symbols add their own leaf-size
// namespace inside this one). The C API (fl.h) has C linkage and is not named.
#define FL_ABI_NS abi_v1
