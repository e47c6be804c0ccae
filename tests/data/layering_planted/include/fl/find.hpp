// tests/data/layering_planted/include/fl/find.hpp: a planted violation for
// layering_planted_test: find may include nothing of fl but config and simd.
#pragma once
#include <fl/string.hpp>
