// src/json/patch.cpp: RFC 6902 JSON Patch and RFC 7396 JSON Merge Patch
// over json_store's edits (set, insert, erase, and store_file's edits by
// value).
//
// All or nothing: every edit an operation makes is recorded with its inverse
// (a value it removed or replaced is kept as it is, taken out of the
// document with its blocks live); when an operation fails the inverses run
// newest first, so the document is as before the patch. The file is not
// touched either way until sync(), which commits the patch as one commit.
#include "json/store_file.hpp"

#include <fl/json_store.hpp>

#include <algorithm>
#include <charconv>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail::json {
namespace {

// A JSON document (a merge patch, or a "test" operation's value), parsed
// (after check_json has validated it) into a tree that keeps each value's
// text, for set() and for the "test" comparison.
struct node {
  json_type type = json_type::null;
  std::string_view text;          // the value's text in the patch
  std::string str;                // a string's value, unescaped
  std::vector<node> items;        // an array's elements, an object's member values
  std::vector<std::string> keys;  // an object's keys, unescaped
  const node* member(std::string_view k) const {
    const node* found = nullptr;  // the last one, as the store's find()
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] == k) found = &items[i];
    return found;
  }
};

// The type of the value whose text starts with `c` (valid JSON text).
json_type type_of_value_at(char c) noexcept {
  switch (c) {
    case '{': return json_type::object;
    case '[': return json_type::array;
    case '"': return json_type::string;
    case 't':
    case 'f': return json_type::boolean;
    case 'n': return json_type::null;
    default: return json_type::number;
  }
}

// Steps i over the white space at s[i].
void skip_json_ws(std::string_view s, std::size_t& i) noexcept {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
}

// The end of the number or literal starting at s[i] (valid JSON text): the
// ',', ']', '}' or white space after it, or the text's end.
std::size_t scalar_end(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && s[i] != ',' && s[i] != ']' && s[i] != '}' && s[i] != ' ' && s[i] != '\t' &&
         s[i] != '\n' && s[i] != '\r')
    ++i;
  return i;
}

// The items of the container opening at s[i] (valid JSON text), each read
// by `item` (which steps i over it), up to its `close` bracket; i ends past
// it.
template <class Item>
void each_item(std::string_view s, std::size_t& i, char close, const Item& item) {
  ++i;
  skip_json_ws(s, i);
  while (s[i] != close) {
    item();
    skip_json_ws(s, i);
    if (s[i] == ',') ++i;
    skip_json_ws(s, i);
  }
  ++i;
}

// Where the string whose body starts at s[i] (valid JSON text) stops or
// has its next escape: the first '"' or '\\' at or after i.
std::size_t string_stop(std::string_view s, std::size_t i) noexcept {
  while (s[i] != '"' && s[i] != '\\') ++i;
  return i;
}

// The string opening at s[i] (valid JSON text), unescaped; i ends past its
// closing quote. Runs without an escape are appended whole.
std::string read_string(std::string_view s, std::size_t& i) {
  std::string out;
  const auto hex4 = [&] {
    std::uint32_t v = 0;
    std::from_chars(s.data() + i, s.data() + i + 4, v, 16);
    i += 4;
    return v;
  };
  ++i;  // '"'
  for (;;) {
    const std::size_t stop = string_stop(s, i);
    out.append(s, i, stop - i);
    i = stop + 1;
    if (s[stop] == '"') return out;
    const char e = s[i++];
    if (e != 'u') {
      out += unescape(e);
      continue;
    }
    std::uint32_t cp = hex4();
    if (is_high_surrogate(cp)) {  // its low half follows (the text is valid)
      i += 2;
      cp = join_surrogates(cp, hex4());
    }
    append_utf8(out, cp);
  }
}

// A reader of text known to be valid JSON (check_json passed it).
class tree_reader {
 public:
  explicit tree_reader(std::string_view s) : s_(s) {}
  node value() {
    skip_ws();
    node n;
    const std::size_t start = i_;
    n.type = type_of_value_at(s_[i_]);
    switch (s_[i_]) {
      case '{':
        // Most are small (a merge patch's): one allocation each.
        n.keys.reserve(4);
        n.items.reserve(4);
        each_item(s_, i_, '}', [&] {
          n.keys.push_back(string());
          skip_ws();
          ++i_;  // ':'
          n.items.push_back(value());
        });
        break;
      case '[': each_item(s_, i_, ']', [&] { n.items.push_back(value()); }); break;
      case '"': n.str = string(); break;
      default: i_ = scalar_end(s_, i_);
    }
    n.text = s_.substr(start, i_ - start);
    return n;
  }

 private:
  void skip_ws() { skip_json_ws(s_, i_); }
  std::string string() { return read_string(s_, i_); }
  std::string_view s_;
  std::size_t i_ = 0;
};

node parse_tree(std::string_view text) {
  check_json(text);  // throws json_error naming the byte and the reason
  return tree_reader(text).value();
}

// One operation of a patch as apply_one reads it: its members in order,
// each with its value's type and text in the patch and, for a string, its
// value. Names and strings are views of the patch text, or of `owned` for
// those whose escapes make them differ from it.
struct op_field {
  std::string_view key;
  json_type type;
  std::string_view text;  // the value's text in the patch
  std::string_view str;   // a string's value
};
struct patch_op {
  json_type type = json_type::null;  // an operation must be an object
  std::vector<op_field> fields;
  std::vector<std::unique_ptr<std::string>> owned;
  const op_field* member(std::string_view k) const {
    const op_field* found = nullptr;  // the last one, as the store's find()
    for (const op_field& f : fields)
      if (f.key == k) found = &f;
    return found;
  }
};

// The operations of a patch (text known to be valid JSON), one at a time.
// An operation of short strings costs no allocation (the fields' vector is
// reused), where a node tree of the patch cost several an operation and
// unescaped every string a byte at a time.
class op_reader {
 public:
  explicit op_reader(std::string_view s) : s_(s) { skip_ws(); }
  bool is_array() const { return s_[i_] == '['; }
  // The next operation into `op`; false past the last.
  bool next(patch_op& op) {
    if (s_[i_] == ']') return false;  // past the last
    ++i_;                             // '[' or ','
    skip_ws();
    if (s_[i_] == ']') return false;  // an empty patch
    op.fields.clear();
    op.owned.clear();
    op.type = type_at();
    if (op.type != json_type::object) {
      skip_value();
    } else {
      each_item(s_, i_, '}', [&] {
        op_field f{};
        f.key = string(op);
        skip_ws();
        ++i_;  // ':'
        skip_ws();
        f.type = type_at();
        const std::size_t v = i_;
        if (f.type == json_type::string)
          f.str = string(op);
        else
          skip_value();
        f.text = s_.substr(v, i_ - v);
        op.fields.push_back(f);
      });
    }
    skip_ws();  // to the ',' or ']' after it
    return true;
  }

 private:
  json_type type_at() const { return type_of_value_at(s_[i_]); }
  void skip_ws() { skip_json_ws(s_, i_); }
  // The string at i_: a view of the text when it holds no escape.
  std::string_view string(patch_op& op) {
    const std::size_t stop = string_stop(s_, i_ + 1);
    if (s_[stop] == '"') {
      const std::string_view v = s_.substr(i_ + 1, stop - i_ - 1);
      i_ = stop + 1;
      return v;
    }
    op.owned.push_back(std::make_unique<std::string>(read_string(s_, i_)));
    return *op.owned.back();
  }
  void skip_string() {
    ++i_;
    for (;;) {
      const std::size_t stop = string_stop(s_, i_);
      i_ = stop + 1;
      if (s_[stop] == '"') return;
      ++i_;  // the escaped byte (a \u's digits need no care)
    }
  }
  void skip_value() {
    const char c = s_[i_];
    if (c == '"') return skip_string();
    if (c != '{' && c != '[') {
      i_ = scalar_end(s_, i_);
      return;
    }
    std::size_t depth = 0;
    do {
      const char d = s_[i_];
      if (d == '"') {
        skip_string();
        continue;
      }
      if (d == '{' || d == '[') ++depth;
      if (d == '}' || d == ']') --depth;
      ++i_;
    } while (depth != 0);
  }
  std::string_view s_;
  std::size_t i_ = 0;
};

bool is_integer_text(std::string_view t) {
  return t.find_first_of(".eE") == std::string_view::npos;
}

// RFC 6902 section 4.6: the same type and value; numbers by value, objects
// regardless of member order.
bool equal(const json_value& v, const node& n) {
  if (v.type() != n.type) return false;
  switch (n.type) {
    case json_type::null: return true;
    case json_type::boolean: return v.as_bool() == (n.text == "true");
    case json_type::string: return v.as_string_view() == n.str;
    case json_type::number: {
      if (v.is_integer() && is_integer_text(n.text)) {
        const char* b = n.text.data();
        const char* e = b + n.text.size();
        if (n.text[0] == '-') {
          std::int64_t i = 0;
          return std::from_chars(b, e, i).ec == std::errc() && v.as_double() < 0 &&
                 v.as_int64() == i;
        }
        std::uint64_t u = 0;
        return std::from_chars(b, e, u).ec == std::errc() && v.as_double() >= 0 &&
               v.as_uint64() == u;
      }
      return v.as_double() == std::strtod(std::string(n.text).c_str(), nullptr);
    }
    case json_type::array: {
      if (v.size() != n.items.size()) return false;
      for (std::size_t i = 0; i < n.items.size(); ++i)
        if (!equal(v[i], n.items[i])) return false;
      return true;
    }
    case json_type::object: {
      // A repeated key counts once, by its last value (as find() reads it),
      // on both sides. Hashed, so that a test of an object of m members costs
      // O(m) lookups, not O(m^2) comparisons.
      std::unordered_map<std::string_view, const node*> want;
      want.reserve(n.keys.size());
      for (std::size_t i = 0; i < n.keys.size(); ++i) want[n.keys[i]] = &n.items[i];
      if (v.size() < want.size()) return false;
      std::unordered_set<std::string_view> have;
      have.reserve(v.size());
      for (const fl::json_member& m : v.members()) have.insert(m.key);
      if (have.size() != want.size()) return false;
      for (const auto& [k, item] : want) {
        const std::optional<json_value> c = v.find(k);
        if (!c || !equal(*c, *item)) return false;
      }
      return true;
    }
  }
  return false;
}

// The parent pointer and the last token (escaped, as in the pointer).
std::pair<std::string_view, std::string_view> split_last(std::string_view ptr) {
  const std::size_t slash = ptr.rfind('/');
  return {ptr.substr(0, slash), ptr.substr(slash + 1)};
}

}  // namespace

// The edits of one patch and how to undo them, each undo as cheap as its
// edit (a friend of json_store, for its store_file). No operation copies a
// value it takes out of the document: a removed or replaced value is taken
// with its blocks live (store_file's take_value and exchange_value), kept
// for the undo, and retired when the patch succeeds (finish()); a moved one
// is put back under its new parent as it is. An undo puts the value taken
// back, O(log n) whatever its size.
class patch_session {
 public:
  // `texts`: the patch's text, or a call's pointers, which outlive the
  // session (an undo's path is a view of them where it can be).
  patch_session(json_store& s, std::string_view text, std::string_view text2 = {})
      : s_(s), f_(*s.file_), texts_{text, text2}, recorded_(f_.pending_.size()) {}

  // Runs `step`, some operations of the session. When it throws, the
  // session is rolled back (its edits undone, their records cut from the
  // change feed) and the error rethrown, a std::out_of_range or
  // std::invalid_argument with `where()` before its message.
  template <class Where, class Step>
  void run(const Where& where, const Step& step) {
    try {
      step();
    } catch (const std::out_of_range& e) {
      abandon();
      throw std::out_of_range(where() + e.what());
    } catch (const std::invalid_argument& e) {
      abandon();
      throw std::invalid_argument(where() + e.what());
    } catch (...) {
      abandon();
      throw;
    }
  }
  // One operation made as json_store's call `name` (move, copy): a session
  // of its own over the call's pointers, refused on a read-only store and
  // named by the call in its errors.
  using from_to = void (patch_session::*)(std::string_view from, std::string_view path);
  static void call(json_store& s, const char* name, from_to op, std::string_view from,
                   std::string_view path) {
    s.file_->refuse_read_only(name);
    patch_session p(s, from, path);
    p.run([name] { return std::string("fl::json_store::") + name + ": "; },
          [&] { (p.*op)(from, path); });
    p.commit();
  }
  // The session's operations all made: the values they removed or replaced
  // retired, or, when that throws, the session rolled back.
  void commit() {
    try {
      finish();
    } catch (...) {
      abandon();
      throw;
    }
  }

  // RFC 6902 "add" of the value `text` at `path`; with `moved`, of that
  // value, taken from the document by remove() (a move), and then without
  // recording it in the change feed: returns the pointer it went to (an
  // array's index resolved), which move() records (valid as long as `path`
  // and this session). `moved_height` bounds the moved value's height:
  // nesting_room() of where it was (edit() walks it only past that).
  std::string_view add(std::string_view path, std::string_view text,
                       const json_ref* moved = nullptr,
                       std::uint32_t moved_height = detail::json::max_depth) {
    if (path.empty()) {
      put_at(path, text, moved, moved_height);
      return path;
    }
    const auto [parent_ptr, token] = detail::json::split_last(path);
    const std::optional<json_value> parent = s_.find(parent_ptr);
    if (!parent) throw std::out_of_range("no value at \"" + std::string(parent_ptr) + "\"");
    if (parent->is_array()) {
      const std::uint64_t i = token == "-" ? parent->size() : detail::json::token_index(token);
      if (i == detail::json::no_index || i > parent->size())
        throw std::out_of_range("array index \"" + std::string(token) + "\" is not in [0, " +
                                std::to_string(parent->size()) + "]");
      // Its undo removes it again (a moved one is taken back, for its put_back).
      undo u = make_undo(moved ? undo_kind::take_back : undo_kind::erase,
                         std::string(parent_ptr) + "/" + std::to_string(i));
      make_room();
      if (moved)
        f_.put_value(u.path, *moved, true, nullptr, nullptr, moved_height);
      else
        s_.insert(u.path, text);
      undo_.push_back(std::move(u));
      return undo_.back().path;
    } else if (parent->is_object()) {
      put_at(path, text, moved, moved_height);
      return path;
    } else {
      throw std::out_of_range("the parent \"" + std::string(parent_ptr) + "\" is " +
                              parent->type_name() + ", not an object or array");
    }
  }

  // RFC 6902 "remove" of the value at `path`: taken out, its blocks live,
  // for the undo to put back at its place (an array's element by its
  // index, a member at its place in its object, which the edit reports:
  // order survives a refused patch). With `moved` (a move), the value is
  // handed there (its undo puts back what the move's add hands on:
  // rollback()); else it is kept for finish() and the removal recorded in
  // the change feed. One lookup when the value is there; why it is not is
  // found after.
  void remove(std::string_view path, json_ref* moved = nullptr) {
    if (path.empty()) throw std::invalid_argument("the whole document cannot be removed");
    undo u = make_undo(undo_kind::put_back, path);
    make_room();
    if (!f_.take_value(path, u.value)) throw_missing(path, moved != nullptr);
    u.place = f_.edit_place_;
    const json_ref v = u.value;
    undo_.push_back(std::move(u));
    if (moved) {
      *moved = v;
    } else {
      dropped_.push_back(v);
      f_.record_op("remove", path, nullptr);
    }
  }

  void replace(std::string_view path, std::string_view text) {
    if (!s_.find(path)) throw std::out_of_range("no value at \"" + std::string(path) + "\"");
    put_at(path, text, nullptr);
  }

  // RFC 6902 "move" (4.4: a remove, then an add of the value removed). The
  // value changes parents as it is, its blocks untouched: two edits' path
  // copies, O(log n) however big the value, where its text would be dumped
  // and parsed again. Recorded in the change feed as one "move". Onto the
  // document itself (`path` ""), a remove and an add of its text.
  void move(std::string_view from, std::string_view path) {
    if (path.size() > from.size() && path.substr(0, from.size()) == from &&
        path[from.size()] == '/')
      throw std::invalid_argument("\"" + std::string(from) +
                                  "\" cannot move into its own child \"" + std::string(path) +
                                  "\"");
    // A remove and an add: a member moved onto itself goes to the end of
    // its object.
    if (path.empty()) {
      const std::string text = text_at(from);
      remove(from);
      add(path, text);
      return;
    }
    // The value's height is at most the room where it was: a move to a
    // place as deep or shallower needs no walk of it (edit()).
    json_ref v;
    remove(from, &v);
    const std::string_view to = add(path, {}, &v, detail::json::nesting_room(from));
    f_.record_op("move", to, nullptr, &from);
  }

  // RFC 6902 "copy": an add of the text of the value at `from`.
  void copy(std::string_view from, std::string_view path) { add(path, text_at(from)); }

  std::string text_at(std::string_view from) const {
    const std::optional<json_value> v = s_.find(from);
    if (!v) throw std::out_of_range("no value at \"" + std::string(from) + "\" (from)");
    return std::string(std::string_view(v->dump()));
  }

  // A refused session leaves no operation in the change feed: its edits
  // and their inverses are both cut from the record.
  void abandon() noexcept {
    rollback();
    f_.pending_.resize(recorded_);
  }

 private:
  // The patch succeeded: the values it removed or replaced are retired
  // (all or none: a damaged value throws before any is, and commit() rolls
  // the patch back).
  void finish() {
    f_.retire_values(dropped_);
    dropped_.clear();
    undo_.clear();
  }

  void rollback() noexcept {
    try {
      // A move's value, taken back from where its add put it, for the
      // move's put_back (the entry just before: the value may have been
      // edited since the move, so it is the value now there that goes back).
      std::optional<json_ref> carried;
      for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
        switch (it->what) {
          case undo_kind::erase: s_.erase(it->path); break;
          case undo_kind::take_back:
            if (!f_.take_value(it->path, carried.emplace())) throw std::logic_error("undo");
            break;
          case undo_kind::swap_back: {
            // The value the operation put there (edited since or not) is
            // new: retired, or, for a move's, carried back.
            json_ref now;
            f_.put_value(it->path, it->value, false, nullptr, &now,
                         detail::json::nesting_room(it->path));
            if (it->moved_out)
              carried = now;
            else
              f_.retire_values({&now, 1});
            break;
          }
          case undo_kind::put_back: {
            const json_ref v = carried.value_or(it->value);
            carried.reset();
            // Back where it was: within the room there, no walk.
            const std::uint32_t height = detail::json::nesting_room(it->path);
            if (it->place.pos == member_place{}.pos)
              f_.put_value(it->path, v, true, nullptr, nullptr, height);
            else
              f_.put_value(it->path, v, false, &it->place, nullptr, height);
            break;
          }
        }
      }
    } catch (...) {
      // The inverses put back values this patch took out; they fail only
      // when the process is out of memory, which terminates below.
      std::terminate();
    }
    undo_.clear();
    dropped_.clear();  // every one is back in the document
  }

  // erase: a value the operation added, removed; take_back: a moved value
  // taken from `path` again (carried to its put_back); swap_back: `value`,
  // which the operation replaced, put back at `path` and the value there
  // taken out (moved_out: carried, a move's; else retired); put_back: a
  // taken value put back at `path` (before the element at its index, or as
  // the member at `place`), or the one carried to it.
  enum class undo_kind { erase, take_back, swap_back, put_back };
  struct undo {
    undo_kind what;
    std::string_view path;               // a view of the patch's text, or of `own`
    std::unique_ptr<std::string> own{};  // a path the text does not hold
    member_place place{};                // put_back: where the member was in its object
    json_ref value{};                    // swap_back, put_back: the value taken
    bool moved_out = false;
  };
  // An undo at `path`: a view when the patch's text holds it (a path as the
  // operation spells it), else its own copy (an unescaped one, a resolved
  // array index), which stays put as the undo moves.
  undo make_undo(undo_kind what, std::string_view path) const {
    undo u{what, path};
    const std::less<const char*> below;
    const auto within = [&](std::string_view text) {
      return !text.empty() && !below(path.data(), text.data()) &&
             !below(text.data() + text.size(), path.data() + path.size());
    };
    if (!within(texts_[0]) && !within(texts_[1])) {
      u.own = std::make_unique<std::string>(path);
      u.path = *u.own;
    }
    return u;
  }
  // Why remove() found no value at `path`: its parent missing, or not an
  // object or array, or no such member or element in it. A move's `from`
  // is refused as missing whatever the reason ("no value at ... (from)").
  [[noreturn]] void throw_missing(std::string_view path, bool from) const {
    if (from) throw std::out_of_range("no value at \"" + std::string(path) + "\" (from)");
    const std::string_view parent_ptr = detail::json::split_last(path).first;
    const std::optional<json_value> parent = s_.find(parent_ptr);
    if (!parent) throw std::out_of_range("no value at \"" + std::string(parent_ptr) + "\"");
    if (!parent->is_object() && !parent->is_array())
      throw std::out_of_range("the parent \"" + std::string(parent_ptr) + "\" is " +
                              parent->type_name() + ", not an object or array");
    throw std::out_of_range("no value at \"" + std::string(path) + "\"");
  }
  // The value at `path` (an element, a member, or the document: "") set to
  // `text`, or to `moved` without recording it (a move's add), by one edit
  // that replaces the value there or, in an object without that key, adds
  // the member at the end. A value replaced is kept for finish() (its undo
  // swaps it back: a moved one's replacement is carried back, for the
  // move's put_back); an added one's undo removes it again (a moved one is
  // taken back). `moved_height` bounds the moved value's height (edit()).
  void put_at(std::string_view path, std::string_view text, const json_ref* moved,
              std::uint32_t moved_height = detail::json::max_depth) {
    undo u = make_undo(undo_kind::swap_back, path);
    u.moved_out = moved != nullptr;
    make_room();
    if (moved)
      f_.put_value(path, *moved, false, nullptr, &u.value, moved_height);
    else
      u.value = f_.exchange_value(path, text);
    if (std::string_view(f_.edit_op_) == "replace")
      dropped_.push_back(u.value);
    else
      u.what = moved ? undo_kind::take_back : undo_kind::erase;
    undo_.push_back(std::move(u));
    if (!moved) f_.record_op(f_.edit_op_, path, &text);
  }
  // Room for one more undo and one more dropped value, made before the edit
  // they record: once an edit is made, recording its undo cannot fail (an
  // edit without its undo would survive a refused patch).
  void make_room() {
    const auto room = [](auto& v) {
      if (v.size() == v.capacity()) v.reserve(std::max<std::size_t>(8, 2 * v.capacity()));
    };
    room(undo_);
    room(dropped_);
  }

  json_store& s_;
  store_file& f_;
  std::string_view texts_[2];
  std::size_t recorded_;  // the change feed's records before the session
  std::vector<undo> undo_;
  std::vector<json_ref> dropped_;  // taken out by this patch: retired by finish()
};

}  // namespace detail::json

namespace {

using detail::json::node;
using detail::json::op_field;
using detail::json::patch_op;
using detail::json::patch_session;

const op_field& field(const patch_op& op, std::string_view name, std::size_t i) {
  const op_field* f = op.member(name);
  if (!f)
    throw std::invalid_argument("operation " + std::to_string(i) + " has no \"" +
                                std::string(name) + "\"");
  return *f;
}

std::string_view string_field(const patch_op& op, std::string_view name, std::size_t i) {
  const op_field& f = field(op, name, i);
  if (f.type != json_type::string)
    throw std::invalid_argument("operation " + std::to_string(i) + ": \"" + std::string(name) +
                                "\" is not a string");
  return f.str;
}

void apply_one(patch_session& p, json_store& s, const patch_op& op, std::size_t i) {
  if (op.type != json_type::object)
    throw std::invalid_argument("operation " + std::to_string(i) + " is not an object");
  // RFC 6902 A.13: an operation with a repeated member ("op" twice) is not
  // a valid patch; reading one of the two would guess the author's intent.
  // An operation has a few members, compared pairwise; one may carry any
  // number it ignores, hashed then, lest the check cost their square.
  const auto repeated = [&](std::string_view k) {
    throw std::invalid_argument("operation " + std::to_string(i) + " has \"" + std::string(k) +
                                "\" twice");
  };
  const std::vector<op_field>& fs = op.fields;
  if (fs.size() <= 8) {
    for (std::size_t a = 1; a < fs.size(); ++a)
      for (std::size_t b = 0; b < a; ++b)
        if (fs[a].key == fs[b].key) repeated(fs[a].key);
  } else {
    std::unordered_set<std::string_view> names;
    names.reserve(fs.size());
    for (const op_field& f : fs)
      if (!names.insert(f.key).second) repeated(f.key);
  }
  const std::string_view name = string_field(op, "op", i);
  const std::string_view path = string_field(op, "path", i);
  if (name == "add") {
    p.add(path, field(op, "value", i).text);
  } else if (name == "remove") {
    p.remove(path);
  } else if (name == "replace") {
    p.replace(path, field(op, "value", i).text);
  } else if (name == "move") {
    p.move(string_field(op, "from", i), path);
  } else if (name == "copy") {
    p.copy(string_field(op, "from", i), path);
  } else if (name == "test") {
    const std::optional<json_value> v = s.find(path);
    if (!v) throw std::out_of_range("test: no value at \"" + std::string(path) + "\"");
    if (!detail::json::equal(*v, detail::json::parse_tree(field(op, "value", i).text)))
      throw std::invalid_argument("test failed: the value at \"" + std::string(path) + "\" is " +
                                  std::string(std::string_view(v->dump())));
  } else {
    throw std::invalid_argument("unknown operation \"" + std::string(name) + "\"");
  }
}

// RFC 7396 of object `patch` at `ptr` (the document, or a member of an
// object), by the session's operations, so that a merge patch is all or
// nothing as a JSON Patch is (one that runs out of room part of the way
// undoes what it made): a target that is not an object becomes {}, a null
// member is removed where there is one, an object merges, anything else
// is added (an add replaces a member there).
void merge(patch_session& p, const json_store& s, const std::string& ptr, const node& patch) {
  const std::optional<json_value> target = s.find(ptr);
  if (!target || !target->is_object()) p.add(ptr, "{}");
  for (std::size_t i = 0; i < patch.keys.size(); ++i) {
    std::string child = ptr;
    detail::json::append_token(child, patch.keys[i]);
    const node& v = patch.items[i];
    if (v.type == json_type::null) {
      if (s.find(child)) p.remove(child);
    } else if (v.type == json_type::object) {
      merge(p, s, child, v);
    } else {
      p.add(child, v.text);
    }
  }
}

}  // namespace

void json_store::apply_patch(std::string_view json_patch) {
  detail::json::check_json(json_patch);  // throws json_error naming the byte and the reason
  detail::json::op_reader ops(json_patch);
  if (!ops.is_array())
    throw std::invalid_argument("fl::json_store::apply_patch: a patch is an array of operations");
  patch_session p(*this, json_patch);
  patch_op op;
  op.fields.reserve(8);  // an operation has three or four
  for (std::size_t i = 0; ops.next(op); ++i)
    p.run([i] { return "fl::json_store::apply_patch: operation " + std::to_string(i) + ": "; },
          [&] { apply_one(p, *this, op, i); });
  p.commit();
}

void json_store::move(std::string_view from_pointer, std::string_view to_pointer) {
  patch_session::call(*this, "move", &patch_session::move, from_pointer, to_pointer);
}

void json_store::copy(std::string_view from_pointer, std::string_view to_pointer) {
  patch_session::call(*this, "copy", &patch_session::copy, from_pointer, to_pointer);
}

void json_store::merge_patch(std::string_view merge_patch_text) {
  const node patch = detail::json::parse_tree(merge_patch_text);
  if (patch.type != json_type::object) return set("", patch.text);
  file_->refuse_read_only("merge_patch");
  patch_session p(*this, merge_patch_text);
  p.run([] { return std::string("fl::json_store::merge_patch: "); },
        [&] { merge(p, *this, "", patch); });
  p.commit();
}

}  // namespace FL_ABI_NS
}  // namespace fl
