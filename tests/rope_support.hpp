// tests/rope_support.hpp: the small-leaf rope tests' view of
// rope_check.hpp (random text, positions, reading a rope every way, trees of
// small leaves, metric checks). These programs link fl_rope_small (FL_ROPE_LEAF_MAX=16, see CMakeLists.txt), so
// a few hundred bytes already make trees of depth 3-6 and every edit crosses
// leaf boundaries.
#pragma once

#include "rope_check.hpp"

static_assert(fl::detail::leaf_max_bytes == 16,
              "rope tests must link fl_rope_small (16-byte leaves)");
