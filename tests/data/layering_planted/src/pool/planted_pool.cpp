// tests/data/layering_planted/src/pool/planted_pool.cpp: a planted violation
// for layering_planted_test. The pool may include nothing of fl, so the
// string include below must be reported; the config include must not.
#include <fl/detail/config.hpp>
#include "string/planted_string.hpp"
