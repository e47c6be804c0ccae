// fl/fl.hpp: the umbrella header; it only includes the public headers.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/version.hpp>
#include <fl/pool.hpp>
#include <fl/string.hpp>
#include <fl/concat.hpp>
#include <fl/builder.hpp>
#include <fl/immutable_string.hpp>
#include <fl/rope.hpp>
#include <fl/find.hpp>
#include <fl/io.hpp>
#include <fl/persist.hpp>
