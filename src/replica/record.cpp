// src/replica/record.cpp: the replica record's text (record.hpp).
#include "replica/record.hpp"

#include <charconv>

namespace fl {
inline namespace FL_ABI_NS {
namespace replica {
namespace detail {

namespace {
constexpr std::string_view magic = "fl-replica 1 ";
constexpr int history_digits = 16;  // a 64-bit id in hex, zero-padded
}  // namespace

std::string encode(std::uint64_t history, std::uint64_t sequence, std::string_view patch) {
  char head[64];
  char* p = head;
  const auto hex = std::to_chars(p, head + sizeof head, history, 16).ptr;
  const int len = static_cast<int>(hex - p);
  std::string out(magic);
  out.append(static_cast<std::size_t>(history_digits - len), '0');
  out.append(p, hex);
  out += ' ';
  const auto dec = std::to_chars(head, head + sizeof head, sequence).ptr;
  out.append(head, dec);
  out += '\n';
  out.append(patch);
  return out;
}

std::optional<record> decode(std::string_view body) {
  if (!body.starts_with(magic)) return std::nullopt;
  body.remove_prefix(magic.size());
  const auto nl = body.find('\n');
  if (nl == std::string_view::npos || nl < history_digits + 2 || body[history_digits] != ' ') {
    return std::nullopt;
  }
  record r;
  const char* b = body.data();
  auto [h_end, h_ec] = std::from_chars(b, b + history_digits, r.history, 16);
  auto [s_end, s_ec] = std::from_chars(b + history_digits + 1, b + nl, r.sequence);
  if (h_ec != std::errc{} || h_end != b + history_digits || s_ec != std::errc{} || s_end != b + nl) {
    return std::nullopt;
  }
  r.patch.assign(body.substr(nl + 1));
  return r;
}

}  // namespace detail
}  // namespace replica
}  // namespace FL_ABI_NS
}  // namespace fl
