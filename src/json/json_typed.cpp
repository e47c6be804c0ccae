// src/json/json_typed.cpp: the typed API of json_store over its text API:
// json_text's escaping, create/open_or_create, put() (with parent creation),
// typed reads' errors, and indented dumps.
#include "json_internal.hpp"

#include <fl/json_store.hpp>

#include <cmath>
#include <ostream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace fl::inline FL_ABI_NS {
namespace detail::json {

void append_escaped(std::string& out, std::string_view s) {
  byte_buffer b;
  dump_string(s, b);
  out.append(reinterpret_cast<const char*>(b.data()), b.size());
}

void append_double(std::string& out, double d) {
  if (!std::isfinite(d)) throw std::domain_error("fl::json_text: JSON has no NaN or infinity");
  byte_buffer b;
  dump_double(d, b);
  out.append(reinterpret_cast<const char*>(b.data()), b.size());
}

void wrong_type(const json_value& v, const char* want) {
  throw std::invalid_argument(std::string("fl::json_value: not ") + want + " but " + v.type_name());
}

void out_of_range_number(const json_value& v, const char* want) {
  throw std::out_of_range("fl::json_value: the number " + std::string(v.dump()) + " does not fit " +
                          want);
}

namespace {

// Re-indents compact RFC 8259 text (as dump() writes it: no whitespace
// outside strings) by `indent` spaces a level.
std::string indent_text(std::string_view s, int indent) {
  std::string out;
  out.reserve(s.size() * 2);
  int depth = 0;
  auto newline = [&] {
    out += '\n';
    out.append(static_cast<std::size_t>(depth * indent), ' ');
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '"': {  // copy the string, escapes included
        const std::size_t start = i++;
        while (s[i] != '"') i += s[i] == '\\' ? 2 : 1;
        out.append(s.substr(start, i - start + 1));
        break;
      }
      case '{':
      case '[':
        out += c;
        if (s[i + 1] == (c == '{' ? '}' : ']')) {  // empty container stays "{}"
          out += s[++i];
          break;
        }
        ++depth;
        newline();
        break;
      case '}':
      case ']':
        --depth;
        newline();
        out += c;
        break;
      case ',':
        out += c;
        newline();
        break;
      case ':': out += indent > 0 ? ": " : ":"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace
}  // namespace detail::json

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

fl::string json_value::dump(int indent) const {
  const fl::string compact = dump();
  if (indent < 0) return compact;
  const std::string out = detail::json::indent_text(std::string_view(compact), indent);
  return fl::string(out.data(), out.size());
}

std::ostream& operator<<(std::ostream& os, const json_value& v) {
  const fl::string s = v.dump();
  return os << std::string_view(s);
}

json_store json_store::create(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::exists(file, ec) || ec)
    throw persist_error(file,
                        ec ? "create: " + ec.message() : std::string("create: the file exists"));
  json_store s = import("{}", file);
  s.sync();
  return s;
}

json_store json_store::open_or_create(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) return open(file);
  return create(file);
}

void json_store::put(std::string_view json_pointer, const json_text& value, parents p) {
  if (p == parents::must_exist) return set(json_pointer, value.str());
  // Every proper prefix that is missing becomes {} (prefixes end where a
  // later '/' begins a token); if the put fails, the first one made (which
  // holds the others) is removed again.
  std::string_view made;
  try {
    for (std::size_t slash = json_pointer.find('/', 1); slash != std::string_view::npos;
         slash = json_pointer.find('/', slash + 1)) {
      const std::string_view prefix = json_pointer.substr(0, slash);
      if (find(prefix)) continue;
      set(prefix, "{}");
      if (made.empty()) made = prefix;
    }
    set(json_pointer, value.str());
  } catch (...) {
    if (!made.empty()) erase(made);
    throw;
  }
}

void json_store::missing(std::string_view json_pointer) {
  throw std::out_of_range("fl::json_store: no value at \"" + std::string(json_pointer) + "\"");
}

std::string json_store::value(std::string_view json_pointer, const char* fallback) const {
  const std::optional<json_value> v = find(json_pointer);
  return v ? v->get<std::string>() : std::string(fallback);
}

fl::string json_store::dump(int indent) const { return root().dump(indent); }

}  // namespace fl::inline FL_ABI_NS
