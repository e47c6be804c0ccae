// src/replica/record.hpp: the one encoding of a replica record, the body of
// each message on the stream: one line "fl-replica 1 <history, 16 hex
// digits> <sequence, decimal>\n", then the commit's RFC 6902 patch as the
// change feed recorded it. A text header, so `nats stream get` shows records
// readably; the version word lets a later layout be told apart.
#pragma once

#include <fl/detail/config.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {
namespace detail {

struct record {
  std::uint64_t history = 0;
  std::uint64_t sequence = 0;
  std::string patch;
};

std::string encode(std::uint64_t history, std::uint64_t sequence, std::string_view patch);
// nullopt for a body that is not a record of this version.
std::optional<record> decode(std::string_view body);

}  // namespace detail
}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
