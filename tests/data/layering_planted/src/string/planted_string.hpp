// tests/data/layering_planted/src/string/planted_string.hpp: a string header
// that includes what string may (pool, find): no violation here.
#pragma once
#include <fl/pool.hpp>
#include <fl/find.hpp>
