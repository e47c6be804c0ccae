// src/pool/build_config.cpp
// Checks, with the library's own compile flags, that the generated
// <fl/detail/build_config.hpp> describes this build. A mismatch would make the
// inline pool code of every consumer disagree with the library (see the
// header); CMakeLists.txt derives the values from FL_SANITIZE and
// CMAKE_CXX_FLAGS, so a sanitizer enabled some other way lands here.
#include <fl/detail/build_config.hpp>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FL_COMPILED_WITH_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(FL_COMPILED_WITH_ASAN)
#define FL_COMPILED_WITH_ASAN 1
#endif
#if !defined(FL_COMPILED_WITH_ASAN)
#define FL_COMPILED_WITH_ASAN 0
#endif

#if FL_COMPILED_WITH_ASAN != FL_BUILT_WITH_ASAN
#error \
    "fl: <fl/detail/build_config.hpp> disagrees with this build's AddressSanitizer flags; enable sanitizers with -DFL_SANITIZE=address (or in CMAKE_CXX_FLAGS), not per target"
#endif
