// src/json/read.cpp: reading a json_store: what a json_value sees (its
// type, numbers, strings, children), member lookup by key (the sorted index
// of an object of more than 64 members, a scan up to that), RFC 6901 pointers,
// and the errors typed reads raise (the actual type, the pointer, the index
// and the size).
#include "json/store_file.hpp"

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

namespace {
// Whether the n bytes at a and b are equal: keys are short, and a call of
// memcmp cost more than the compare (loads of the first and last words, which
// overlap below a word, never past the n bytes).
inline bool same_bytes(const unsigned char* a, const char* b, std::size_t n) noexcept {
  const auto words = [&](auto w) {
    using word = decltype(w);
    word a0, b0, a1, b1;
    std::memcpy(&a0, a, sizeof(word));
    std::memcpy(&b0, b, sizeof(word));
    std::memcpy(&a1, a + n - sizeof(word), sizeof(word));
    std::memcpy(&b1, b + n - sizeof(word), sizeof(word));
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  };
  if (n >= 8) return n <= 16 ? words(std::uint64_t{}) : std::memcmp(a, b, n) == 0;
  if (n >= 4) return words(std::uint32_t{});
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != static_cast<unsigned char>(b[i])) return false;
  return true;
}

// Up to this many members an object's keys are scanned, last first, even
// where it has a sorted index: its lengths are read in order, a key only
// where the length matches (most of them in the page of the one before),
// where a binary search reads an index entry and then a member, one after
// the other, at every probe (json/pointer_lookup_twitter: 198 -> 171 us).
constexpr std::uint32_t scan_max_members = 64;
}  // namespace

// Member lookup in object `obj` (below `limit`): the position of the last
// member named `key`, or npos.
std::size_t store_file::find_member(const json_ref& obj, std::uint64_t limit,
                                    std::string_view key) const {
  if (obj.tree()) return find_tree_member(obj, limit, key);
  std::uint64_t page = ~std::uint64_t{0};
  return find_table_member(obj, limit, key, nullptr, page);
}

std::size_t store_file::find_table_member(const json_ref& obj, std::uint64_t limit,
                                          std::string_view key, json_ref* value,
                                          std::uint64_t& page) const {
  const std::uint32_t n = obj.n;
  const bool indexed = n >= index_min_members;
  const unsigned char* t =
      bytes_in(obj.x, std::uint64_t{n} * sizeof(json_member) + (indexed ? std::uint64_t{n} * 4 : 0),
               limit, page);
  const auto found = [&](std::uint32_t i) -> std::size_t {
    if (value != nullptr) {
      json_member m;
      std::memcpy(&m, t + std::size_t{i} * sizeof(json_member), sizeof m);
      if (!valid_kind(m.value.k)) damaged("a value of unknown kind");
      *value = m.value;
    }
    return i;
  };
  auto key_at = [&](std::uint32_t i, json_member& m) {
    std::memcpy(&m, t + std::size_t{i} * sizeof(json_member), sizeof m);
    return std::string_view(reinterpret_cast<const char*>(bytes(m.key, m.key_len, limit)),
                            m.key_len);
  };
  json_member m;
  if (!indexed || n <= scan_max_members) {
    const auto klen = static_cast<std::uint32_t>(key.size());
    for (std::uint32_t i = n; i-- > 0;) {
      const unsigned char* e = t + std::size_t{i} * sizeof(json_member);
      std::uint32_t len;
      std::memcpy(&len, e + offsetof(json_member, key_len), sizeof len);
      if (len != klen) continue;
      std::uint64_t at;
      std::memcpy(&at, e + offsetof(json_member, key), sizeof at);
      if (same_bytes(bytes_in(at, len, limit, page), key.data(), len)) return found(i);
    }
    return std::string_view::npos;
  }
  const unsigned char* index = t + std::size_t{n} * sizeof(json_member);
  auto pos = [&](std::uint32_t j) {
    std::uint32_t v;
    std::memcpy(&v, index + std::size_t{j} * 4, 4);
    if (v >= n) damaged("a member index entry out of range");
    return v;
  };
  // Upper bound of key, then step back: the last member with that key.
  std::uint32_t lo = 0, hi = n;
  const auto klen = static_cast<std::uint32_t>(key.size());
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    std::memcpy(&m, t + std::size_t{pos(mid)} * sizeof(json_member), sizeof m);
    // Lengths first: most probes end without reading the key's bytes.
    const int c = m.key_len != klen
                      ? (m.key_len < klen ? -1 : 1)
                      : key_order(key_at(pos(mid), m).data(), m.key_len, key.data(), klen);
    if (c <= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == 0) return std::string_view::npos;
  const std::uint32_t i = pos(lo - 1);
  return key_at(i, m) == key ? found(i) : std::string_view::npos;
}

// The value at pointer `ptr` below `v`, or nullopt.
std::optional<json_value> store_file::lookup(json_value v, std::string_view ptr) const {
  std::string buf;
  // The page of the last checked read (bytes_in): a pointer's steps read
  // small pieces, often of one page.
  std::uint64_t page = ~std::uint64_t{0};
  while (!ptr.empty()) {
    const std::string_view tok = next_token(ptr, buf);
    if (v.ref_.k == static_cast<std::uint8_t>(kind::object) && v.ref_.tree()) {
      // The lookup's descent of the member tree found the member's entry.
      member_entry m;
      if (!find_tree_entry(v.ref_, v.limit_, tok, m)) return std::nullopt;
      v = json_value(this, m.value, v.limit_, v.stamp_);
    } else if (v.ref_.k == static_cast<std::uint8_t>(kind::object)) {
      json_ref found;
      if (find_table_member(v.ref_, v.limit_, tok, &found, page) == std::string_view::npos)
        return std::nullopt;
      v = json_value(this, found, v.limit_, v.stamp_);
    } else if (v.ref_.k == static_cast<std::uint8_t>(kind::array)) {
      const std::uint64_t i = token_index(tok);
      if (i >= v.ref_.n) return std::nullopt;
      const std::uint64_t at = element_offset(v.ref_, v.limit_, i);
      v = json_value(this, read_ref(bytes_in(at, sizeof(json_ref), v.limit_, page)), v.limit_,
                     v.stamp_);
    } else {
      return std::nullopt;
    }
  }
  return v;
}

// ---- RFC 6901 ---------------------------------------------------------------

// The first call sees the whole pointer (later ones start at a '/'), so
// the message quotes what the caller wrote.
std::string_view next_token(std::string_view& rest, std::string& buf) {
  if (rest.empty() || rest[0] != '/')
    throw std::invalid_argument("fl::json_store: the JSON pointer \"" + std::string(rest) +
                                "\" must be empty or start with '/' (did you mean \"/" +
                                std::string(rest) + "\"?)");
  rest.remove_prefix(1);
  // One pass to the next '/', noting the first '~': tokens are a few bytes,
  // and two calls of memchr cost a lookup more than this loop.
  std::size_t end = 0, tilde = std::string_view::npos;
  for (; end < rest.size() && rest[end] != '/'; ++end)
    if (rest[end] == '~' && tilde == std::string_view::npos) tilde = end;
  const std::string_view tok = rest.substr(0, end);
  rest.remove_prefix(end);
  if (tilde == std::string_view::npos) return tok;
  buf.assign(tok.data(), tilde);
  for (std::size_t i = tilde; i < tok.size(); ++i) {
    if (tok[i] != '~') {
      buf += tok[i];
      continue;
    }
    if (i + 1 < tok.size() && tok[i + 1] == '0')
      buf += '~';
    else if (i + 1 < tok.size() && tok[i + 1] == '1')
      buf += '/';
    else
      throw std::invalid_argument("fl::json_store: in the JSON pointer token \"" +
                                  std::string(tok) +
                                  "\", '~' must be followed by 0 ('~') or 1 ('/')");
    ++i;
  }
  return buf;
}

std::uint64_t token_index(std::string_view t) noexcept {
  if (t.empty() || t.size() > 16 || (t.size() > 1 && t[0] == '0')) return no_index;
  std::uint64_t v = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return no_index;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

void not_json_text(const json_error& e, const char* call, std::string_view pointer) {
  const std::string p(pointer);
  throw json_error(e.offset(), e.line(), e.column(),
                   e.reason() + "; " + call + "(\"" + p +
                       "\", text) takes JSON text (a string in quotes); put(\"" + p +
                       "\", value) stores a C++ string as a JSON string");
}

namespace {
// "the value at "/a"" or "the value".
std::string the_value(const std::string_view* pointer) {
  return pointer ? "the value at \"" + std::string(*pointer) + "\"" : std::string("the value");
}
// "fl::json_store: " for reads through the store, "fl::json_value: " otherwise.
const char* reader(const std::string_view* pointer) {
  return pointer ? "fl::json_store: " : "fl::json_value: ";
}
}  // namespace

void wrong_type(const json_value& v, const char* want, const std::string_view* pointer) {
  std::string actual;
  switch (v.type()) {
    case json_type::null: actual = "null"; break;
    case json_type::boolean: actual = v.as_bool() ? "true" : "false"; break;
    case json_type::number: {
      std::string text(std::string_view(v.dump()));
      if (text.size() > 40) text = text.substr(0, 37) + "...";
      actual = "the number " + text;
      break;
    }
    case json_type::string: actual = "a string"; break;
    case json_type::array: actual = "an array"; break;
    case json_type::object: actual = "an object"; break;
  }
  throw std::invalid_argument(std::string(reader(pointer)) + "cannot read " + the_value(pointer) +
                              " as " + want + ": it is " + actual);
}

void out_of_range_number(const json_value& v, const char* want, const std::string_view* pointer) {
  throw std::out_of_range(std::string(reader(pointer)) + "cannot read " + the_value(pointer) +
                          " as " + want + ": the number " + std::string(v.dump()) +
                          " is outside its range");
}

}  // namespace json
}  // namespace detail


using detail::json::json_ref;
using detail::json::kind;

// ---- json_value ---------------------------------------------------------------

json_type json_value::type() const noexcept {
  switch (static_cast<kind>(ref_.k)) {
    case kind::null_v: return json_type::null;
    case kind::false_v:
    case kind::true_v: return json_type::boolean;
    case kind::int64:
    case kind::uint64:
    case kind::real:
    case kind::number_text: return json_type::number;
    case kind::string: return json_type::string;
    case kind::array: return json_type::array;
    case kind::object: return json_type::object;
  }
  return json_type::null;  // unreachable: kinds are checked when a value is read
}

void json_value::check_view() const { file_->check(stamp_); }

bool json_value::as_bool() const {
  file_->check(stamp_);
  if (ref_.k == static_cast<std::uint8_t>(kind::true_v)) return true;
  if (ref_.k == static_cast<std::uint8_t>(kind::false_v)) return false;
  detail::json::wrong_type(*this, "bool", nullptr);
}

std::int64_t json_value::as_int64() const {
  file_->check(stamp_);
  if (ref_.k == static_cast<std::uint8_t>(kind::int64)) return static_cast<std::int64_t>(ref_.x);
  detail::json::wrong_type(*this, "std::int64_t", nullptr);
}

std::uint64_t json_value::as_uint64() const {
  file_->check(stamp_);
  if (ref_.k == static_cast<std::uint8_t>(kind::uint64)) return ref_.x;
  if (ref_.k == static_cast<std::uint8_t>(kind::int64) && static_cast<std::int64_t>(ref_.x) >= 0)
    return ref_.x;
  detail::json::wrong_type(*this, "std::uint64_t", nullptr);
}

double json_value::as_double() const {
  file_->check(stamp_);
  switch (static_cast<kind>(ref_.k)) {
    case kind::int64: return static_cast<double>(static_cast<std::int64_t>(ref_.x));
    case kind::uint64: return static_cast<double>(ref_.x);
    case kind::real: {
      double d;
      std::memcpy(&d, &ref_.x, sizeof d);
      return d;
    }
    case kind::number_text: {
      const std::string t(reinterpret_cast<const char*>(file_->bytes(ref_.x, ref_.n, limit_)),
                          ref_.n);
      return std::strtod(t.c_str(), nullptr);
    }
    default: detail::json::wrong_type(*this, "double", nullptr);
  }
}

std::string_view json_value::as_string_view() const {
  file_->check(stamp_);
  if (ref_.k != static_cast<std::uint8_t>(kind::string))
    detail::json::wrong_type(*this, "std::string_view", nullptr);
  return {reinterpret_cast<const char*>(file_->bytes(ref_.x, ref_.n, limit_)), ref_.n};
}

json_value json_value::element(std::size_t i) const {
  file_->check(stamp_);
  return json_value(file_, file_->element_ref(ref_, limit_, i), limit_, stamp_);
}

json_value json_value::element_at(std::size_t i, detail::json::child_hint& h) const {
  file_->check(stamp_);
  return json_value(file_, file_->element_ref(ref_, limit_, i, h), limit_, stamp_);
}

// A table's member i is one read; a tree's is read from the leaf in `h`
// when it holds member i (the next member of an iteration), else found by
// a descent that keeps its leaf in `h`.
json_member json_value::member_at(std::size_t i, detail::json::child_hint& h) const {
  if (!ref_.tree()) return member(i);
  file_->check(stamp_);
  const std::uint64_t off = i - h.first < h.count
                                ? h.at + (i - h.first) * sizeof(detail::json::member_entry)
                                : file_->member_offset(ref_, limit_, i, &h);
  return tree_member(off);
}

json_member json_value::tree_member(std::uint64_t off) const {
  const detail::json::member_entry m = file_->read_member_entry(off, limit_);
  return {file_->key_bytes(m.key, m.key_len, limit_), json_value(file_, m.value, limit_, stamp_)};
}

json_member json_value::member(std::size_t i) const {
  file_->check(stamp_);
  if (ref_.tree()) return tree_member(file_->member_offset(ref_, limit_, i));
  detail::json::json_member m;
  std::memcpy(&m, file_->bytes(ref_.x + i * sizeof(m), sizeof(m), limit_), sizeof m);
  const auto* k = reinterpret_cast<const char*>(file_->bytes(m.key, m.key_len, limit_));
  if (!detail::json::valid_kind(m.value.k)) file_->damaged("a value of unknown kind");
  return {std::string_view(k, m.key_len), json_value(file_, m.value, limit_, stamp_)};
}

json_value json_value::operator[](std::size_t i) const {
  file_->check(stamp_);
  if (!is_array())
    throw std::out_of_range("fl::json_value: index " + std::to_string(i) + " of a " + type_name() +
                            ", not of an array");
  if (i >= ref_.n)
    throw std::out_of_range("fl::json_value: index " + std::to_string(i) +
                            " is past the end of an array of size " + std::to_string(ref_.n));
  return element(i);
}

std::optional<json_value> json_value::find(std::string_view key) const {
  file_->check(stamp_);
  if (!is_object()) return std::nullopt;
  if (ref_.tree()) {
    detail::json::member_entry m;
    if (!file_->find_tree_entry(ref_, limit_, key, m)) return std::nullopt;
    return json_value(file_, m.value, limit_, stamp_);
  }
  detail::json::json_ref found;
  std::uint64_t page = ~std::uint64_t{0};
  if (file_->find_table_member(ref_, limit_, key, &found, page) == std::string_view::npos)
    return std::nullopt;
  return json_value(file_, found, limit_, stamp_);
}

std::optional<json_value> json_value::at_pointer(std::string_view json_pointer) const {
  file_->check(stamp_);
  return file_->lookup(*this, json_pointer);
}

const char* json_value::type_name() const noexcept {
  switch (type()) {
    case json_type::null: return "null";
    case json_type::boolean: return "boolean";
    case json_type::number: return "number";
    case json_type::string: return "string";
    case json_type::array: return "array";
    case json_type::object: return "object";
  }
  return "null";
}

// ---- json_store -----------------------------------------------------------------

namespace detail::json {
void store_file::stale_view([[maybe_unused]] view_stamp s) const {
  std::string what = "fl::json_value: a stale view of \"" + path_.string() +
                     "\": the store was edited (set, insert, put, erase, a patch, compact or "
                     "refresh) after this value or its iterator was taken";
#if FL_JSON_CHECK_VIEWS
  what +=
      " (edit " + std::to_string(s.edition) + ", store at edit " + std::to_string(edition_) + ")";
#endif
  throw std::logic_error(what + "; read it again from the store");
}
}  // namespace detail::json

std::optional<json_value> json_store::find(std::string_view json_pointer) const& {
  return file_->lookup(file_->root_value(), json_pointer);
}

std::optional<fl::string> json_store::at(std::string_view json_pointer) const {
  const auto v = find(json_pointer);
  if (!v) return std::nullopt;
  return v->dump();
}

json_value json_store::root() const& { return file_->root_value(); }

void json_store::missing(std::string_view json_pointer) {
  throw std::out_of_range("fl::json_store: no value at \"" + std::string(json_pointer) + "\"");
}

std::string json_store::value(std::string_view json_pointer, const char* fallback) const {
  const std::optional<json_value> v = find(json_pointer);
  return v ? v->get<std::string>() : std::string(fallback);
}

}  // namespace FL_ABI_NS
}  // namespace fl
