// fl/detail/config.hpp: the language check, included first by every public C++
// header of fl (directly, or as the first include of the detail header they
// start with), so that an older standard stops at one clear message instead
// of hundreds of errors from C++20 code further down.
#pragma once

// MSVC reports 199711L in __cplusplus unless /Zc:__cplusplus is given;
// _MSVC_LANG always holds the real value.
#if defined(_MSVC_LANG)
#define FL_CPLUSPLUS _MSVC_LANG
#else
#define FL_CPLUSPLUS __cplusplus
#endif

#if FL_CPLUSPLUS < 202002L
#error \
    "fl requires C++20: compile with -std=c++20 or newer (CMake: link fl::fl, which requires cxx_std_20; MSVC: /std:c++20)"
// #error does not stop the compiler; a missing header does, so the message
// above is the only one besides this line's.
#include <fl_requires_cxx20_see_the_error_above>
#endif
