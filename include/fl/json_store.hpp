// fl/json_store.hpp: a JSON document that lives in a fl::mapped_space (its
// own file) and opens without parsing. import() parses RFC 8259 text once
// (simdjson, with a strict fallback parser that names the byte and the reason
// of any error) into the space; open() maps the space and reads the root from
// it, O(1) in the document size; reads (find, json_value) return views into
// the mapping without copying; set() and erase() write the changed value and
// new copies of the containers on its path into the space; sync() is
// mapped_space::sync(). Use nlohmann::json or simdjson instead for a document
// that is read once and thrown away.
//
// Crash guarantee: that of mapped_space: after sync() returns, a crash (of
// the process, or of the machine) never loses what it committed; until then
// the file holds the previous commit, and a crash inside sync() reopens as
// the previous commit or, completed from the redo log, the new one. Edits not
// synced are dropped when the store is destroyed.
// Damage: every byte the store reads is on a page whose CRC-32C (in the
// space's page checksum table) is checked the first time a read touches it,
// and the space's meta slots carry their own checksums; damage in a string, a
// number, the structure or the meta raises fl::persist_error naming the file
// and the reason, never a different value and never an older commit.
// Layout: fl/detail/json_format.hpp; the space's: docs/design.md ("Persistence").
//
// Numbers: integers in [INT64_MIN, UINT64_MAX] are exact; other numbers are
// doubles (shortest round-trip text on dump; an integral double keeps a ".0"
// so it re-parses as a double); a number whose value is beyond the range of a
// double is kept as its text, exactly.
//
// Threads and processes: one writer per file (the space's lock: an open,
// import or publishing sync() onto a store open in another process throws
// fl::persist_error "locked" and changes nothing). In one process, open() of
// a file another json_store has open takes it over when that one has nothing
// uncommitted (the earlier json_store is retired: its reads and writes throw
// "superseded"), and throws "locked" otherwise. Beside the writer, any number
// of readers (open(file, open_mode::read_only)) in any processes, this one
// included, each see one committed document until refresh(), never waiting
// for the writer nor making it wait (fl/mapped_space.hpp). A json_store and the
// json_values taken from it may be used by one thread at a time.
// Views: a json_value (and an iterator or member of one) is valid until the
// next edit of its store that may move or free blocks (set, insert, put, an
// erase that removes something, apply_patch, merge_patch, move, copy,
// compact, and a reader's refresh), or the store's destruction: an edit
// reuses the blocks of values replaced before the last commit, and at once
// those of values made and replaced since it. A string_view read from a
// value is valid until the same edits or the next sync: keep a copy
// (get<std::string>) across them. With FL_JSON_CHECK_VIEWS (on by default,
// in every build type), reading a json_value after such an edit throws
// std::logic_error ("stale view") instead of reading old blocks; a
// std::string_view cannot be checked. Off, the check compiles to nothing
// (json_value stays 32 bytes). docs/json_store.md, "Views", has the details. import() keeps one simdjson
// parser per thread, its buffers sized by the largest text up to 64 MiB that
// thread imported; a longer text is parsed in one pass as its store is
// built, in memory that does not grow with the text (an object of more than
// about 100,000 members sorts its keys in runs kept in an unnamed temporary
// file in the store's directory, removed when the object is built).
#pragma once

#include <fl/detail/config.hpp>

#include <fl/detail/json_config.hpp>
#include <fl/detail/json_format.hpp>
#include <fl/detail/lifetime.hpp>
#include <fl/json_build.hpp>
#include <fl/mapped_space.hpp>
#include <fl/persist_error.hpp>
#include <fl/string.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <concepts>
#include <iosfwd>
#include <iterator>
#include <utility>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {

// Invalid JSON text: offset() is the byte of the input where the text stops
// being JSON, reason() says why ("invalid escape", "invalid UTF-8", ...).
// line() and column() place that byte for a person editing the text, both
// 1-based: a line ends at each '\n' (a "\r\n" pair ends one line), and the
// column counts BYTES from the line's start (a multi-byte UTF-8 character
// before the fault counts as its bytes; tabs count one), so it is exact even
// where the text is not valid UTF-8. what() reads
// "fl::json_error: at line L, column C (byte B): reason".
class json_error : public std::runtime_error {
 public:
  json_error(std::size_t offset, std::size_t line, std::size_t column, const std::string& reason);
  std::size_t offset() const noexcept { return offset_; }
  std::size_t line() const noexcept { return line_; }
  std::size_t column() const noexcept { return column_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::size_t offset_;
  std::size_t line_;
  std::size_t column_;
  std::string reason_;
};

// (GCC's -Wshadow counts the scoped enumerator `string` as shadowing fl::string.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wshadow"
enum class json_type : std::uint8_t { null, boolean, number, string, array, object };
#pragma GCC diagnostic pop

namespace detail::json {
class store_file;
class patch_session;

// What a view keeps of its store's state to detect that it went stale: with
// FL_JSON_CHECK_VIEWS, the store's edition (its count of edits that may move
// or free blocks) when the view was taken; without it, nothing (an empty
// member that takes no room).
#if FL_JSON_CHECK_VIEWS
struct view_stamp {
  std::uint64_t edition = 0;
};
#else
struct view_stamp {};
#endif

// Where the child an iterator read last lies, when it is an element of an
// array tree or a member of an object tree: the leaf's first index, its
// entry count and the offset of its first entry, so that the next child in
// the same leaf is read without a descent (iteration is O(1) amortized per
// child). Unused for tables.
struct child_hint {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  std::uint64_t at = 0;
};

// The iterator of json_value::elements() and members(): child i of the value
// `v`, read with `Read` (json_value::element_at or json_value::member_at). Models
// std::forward_iterator. operator* returns a reference to the child it read
// last, kept in the iterator (so `for (auto& [k, v] : members())` binds), valid
// until the iterator moves or is destroyed.
template <class V, class T, T (V::*Read)(std::size_t, child_hint&) const>
class child_iterator {
 public:
  using iterator_concept = std::forward_iterator_tag;
  using iterator_category = std::input_iterator_tag;  // C++17 algorithms: one pass
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using reference = const T&;
  using pointer = const T*;
  child_iterator() = default;
  child_iterator(const V* v, std::size_t i) noexcept : v_(v), i_(i) {}
  child_iterator(const child_iterator& o) noexcept : v_(o.v_), i_(o.i_), hint_(o.hint_) {}
  child_iterator& operator=(const child_iterator& o) noexcept {
    v_ = o.v_;
    i_ = o.i_;
    hint_ = o.hint_;
    cur_.reset();
    return *this;
  }
  const T& operator*() const FL_LIFETIMEBOUND {
    if (!cur_) cur_.emplace((v_->*Read)(i_, hint_));
    return *cur_;
  }
  const T* operator->() const FL_LIFETIMEBOUND { return &**this; }
  child_iterator& operator++() noexcept {
    ++i_;
    cur_.reset();
    return *this;
  }
  child_iterator operator++(int) noexcept {
    child_iterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const child_iterator& o) const noexcept { return i_ == o.i_; }

 private:
  const V* v_ = nullptr;
  std::size_t i_ = 0;
  mutable child_hint hint_;
  mutable std::optional<T> cur_;  // child i_, once read
};
}  // namespace detail::json

class json_value;
struct json_member;

namespace detail::json {
// The types json_store::get/value return that point into the store.
template <class T>
concept store_view = std::same_as<T, std::string_view> || std::same_as<T, json_value>;
}  // namespace detail::json

// A view of one value in a json_store. Typed reads throw std::invalid_argument
// when the value has another type (and as_int64/as_uint64 when the number is
// not an integer in range); reads that meet damage throw fl::persist_error.
class json_value {
  // Child i of an array or object (elements() and members() iterate them,
  // through the _at forms, which read the next element of an array tree's
  // leaf without a descent).
  json_value element(std::size_t i) const;
  json_member member(std::size_t i) const;
  json_value element_at(std::size_t i, detail::json::child_hint& h) const;
  json_member member_at(std::size_t i, detail::json::child_hint& h) const;
  json_member tree_member(std::uint64_t off) const;  // an object tree's member entry at off

 public:
  json_type type() const noexcept;
  bool is_null() const noexcept { return type() == json_type::null; }
  bool is_object() const noexcept { return type() == json_type::object; }
  bool is_array() const noexcept { return type() == json_type::array; }
  bool is_bool() const noexcept { return type() == json_type::boolean; }
  bool is_string() const noexcept { return type() == json_type::string; }
  bool is_number() const noexcept { return type() == json_type::number; }
  // A number stored as an exact integer (in [INT64_MIN, UINT64_MAX]).
  bool is_integer() const noexcept {
    return ref_.k == static_cast<std::uint8_t>(detail::json::kind::int64) ||
           ref_.k == static_cast<std::uint8_t>(detail::json::kind::uint64);
  }
  // Any other number (a double, or text beyond a double's range).
  bool is_double() const noexcept { return is_number() && !is_integer(); }
  // The name of the type: "null", "boolean", "number", "string", "array", "object".
  const char* type_name() const noexcept;

  // This value as T: bool, an integer type (std::out_of_range when the value
  // does not fit), a floating type, std::string, std::string_view (a view into
  // the map), fl::string, or json_value. std::invalid_argument naming the
  // actual type when it is not one T can hold.
  template <class T>
  T get() const;

  bool as_bool() const;
  std::int64_t as_int64() const;
  std::uint64_t as_uint64() const;
  double as_double() const;  // any number (a number kept as text: its nearest double)
  std::string_view as_string_view() const;  // a view into the mapped file

  // Members of an object, elements of an array, 0 for other values.
  std::size_t size() const noexcept { return is_container() ? ref_.n : 0; }
  // Element i of an array; throws std::out_of_range past the end.
  json_value operator[](std::size_t i) const;
  // The member named `key` of an object (the last one, if the key repeats);
  // O(log n) for objects of more than 64 members, a scan up to that.
  std::optional<json_value> find(std::string_view key) const;
  // The value at an RFC 6901 pointer relative to this one.
  std::optional<json_value> at_pointer(std::string_view json_pointer) const;

  using element_iterator =
      detail::json::child_iterator<json_value, json_value, &json_value::element_at>;
  using member_iterator =
      detail::json::child_iterator<json_value, json_member, &json_value::member_at>;
  struct element_range;
  struct member_range;
  element_range elements() const;  // an array's elements (empty for other values)
  member_range members() const;    // an object's members in document order

  // This value as RFC 8259 text.
  fl::string dump() const;
  // Indented by `indent` spaces a level, one member or element a line
  // (indent < 0: as dump()).
  fl::string dump(int indent) const;

 private:
  friend class json_store;
  friend class detail::json::store_file;
  json_value(const detail::json::store_file* f, detail::json::json_ref r, std::uint64_t limit,
             detail::json::view_stamp stamp) noexcept
      : file_(f), ref_(r), limit_(limit), stamp_(stamp) {}
  // get<T>(), naming `pointer` (json_store::get and value) in its errors.
  template <class T>
  T read_as(const std::string_view* pointer) const;
  // Throws std::logic_error "stale view" (FL_JSON_CHECK_VIEWS) if the store
  // was edited since this view was taken.
  void check_view() const;
  bool is_container() const noexcept {
    return ref_.k == static_cast<std::uint8_t>(detail::json::kind::array) ||
           ref_.k == static_cast<std::uint8_t>(detail::json::kind::object);
  }
  const detail::json::store_file* file_;
  detail::json::json_ref ref_;
  std::uint64_t limit_;  // the end of the store's data: every reference it follows lies below
  [[no_unique_address]] detail::json::view_stamp stamp_;  // checked by every read of the store
};
// 32 bytes without FL_JSON_CHECK_VIEWS (the check adds its edition, 8 bytes).
static_assert(FL_JSON_CHECK_VIEWS || sizeof(json_value) == 32);

struct json_member {
  std::string_view key;
  json_value value;
};

struct json_value::element_range {
  json_value v;
  // Iterators point into the range: keep it (a named range, or the one a
  // range-for holds) while they are used.
  element_iterator begin() const noexcept FL_LIFETIMEBOUND { return {&v, 0}; }
  element_iterator end() const noexcept FL_LIFETIMEBOUND {
    return {&v, v.is_array() ? v.size() : 0};
  }
};
struct json_value::member_range {
  json_value v;
  member_iterator begin() const noexcept FL_LIFETIMEBOUND { return {&v, 0}; }
  member_iterator end() const noexcept FL_LIFETIMEBOUND {
    return {&v, v.is_object() ? v.size() : 0};
  }
};

inline json_value::element_range json_value::elements() const { return {*this}; }
inline json_value::member_range json_value::members() const { return {*this}; }

// One commit of a json_store's change feed (json_store::changes).
struct json_change {
  std::uint64_t sequence = 0;
  fl::string patch;  // an RFC 6902 patch: a JSON array of operations
};

class json_store {
 public:
  // Parses `json_text` (exactly RFC 8259: UTF-8, one value, whitespace around
  // it) into a new store for `file`. Throws fl::json_error for invalid text,
  // before any file is touched (past 64 MiB, where the text is parsed as the
  // store is built, the temporary file below is removed then; `file` is
  // never touched). Throws fl::persist_error "locked" when a store at `file`
  // is open (in another process or another handle) or another import to
  // `file` is in progress. The store is built in the space
  // `file` + ".tmp" (without waiting for the disk); the first sync() makes
  // it durable and renames it to `file` (an existing store there stays as it
  // was until then), and throws "locked", changing nothing, if a store was
  // opened there meanwhile (sync() may be retried); destroyed before that,
  // the temporary file is removed. Throws fl::persist_error on I/O errors.
  static json_store import(std::string_view json_text, const std::filesystem::path& file);

  // Opens a store written by sync(): opens its mapped_space (which checks
  // the meta slots and completes a commit a crash interrupted) and reads the
  // root object; no parsing, O(1) in the document size. Throws
  // fl::persist_error for a missing file, a file that is not a store,
  // truncated or damaged, one another json_store or process has open, or an
  // I/O error.
  // open_mode::read_only opens a reader: it sees the newest commit at the
  // time of the open (a writer's edits not yet synced are not part of it)
  // until refresh(); set(), erase() and sync() throw persist_error ("opened
  // read-only"). Cost: that of the space's open, plus reading from the redo
  // log the pages of commits the data file does not hold yet (a writer keeps
  // the file behind the oldest reader). Throws std::invalid_argument for a
  // mode other than read_write and read_only.
  static json_store open(const std::filesystem::path& file,
                         open_mode mode = open_mode::read_write);
  // A reader: moves to the newest commit (views taken before are invalid).
  // A few microseconds for a small commit: the pages it changed are read
  // from the log. When the writer replaced the file (compact(), a
  // re-import), the reader opens the file the path names, at its newest
  // commit. The writer: nothing.
  void refresh();

  json_store(json_store&&) noexcept;
  json_store& operator=(json_store&&) noexcept;
  ~json_store();

  // The whole document as RFC 8259 text (member order kept, no whitespace).
  fl::string dump() const;
  // The value at an RFC 6901 pointer ("" is the whole document, "/a/0",
  // "~0" is '~' and "~1" is '/'), as JSON text; nullopt if nothing is there.
  // Throws std::invalid_argument for a malformed pointer.
  std::optional<fl::string> at(std::string_view json_pointer) const;
  // The same lookup as a view, without copying anything out of the map.
  // Views point into the store: taking one from a temporary store does not
  // compile (it would dangle at the end of the statement).
  // Clang also warns when such a view is returned from the function that
  // holds the store (FL_LIFETIMEBOUND).
  std::optional<json_value> find(std::string_view json_pointer) const& FL_LIFETIMEBOUND;
  std::optional<json_value> find(std::string_view json_pointer) const&& = delete;
  json_value root() const& FL_LIFETIMEBOUND;
  json_value root() const&& = delete;

  // Puts the value `json_text` at the pointer: replaces an existing member or
  // element, adds a member to an object, appends to an array at index size()
  // or "-". Throws fl::json_error for invalid text, std::out_of_range if the
  // parent does not exist or is not a container, or the index is past the end
  // (the message names the prefix of the pointer at fault, or the index and
  // the array's size), std::invalid_argument if the member it would add has
  // a key (the pointer's last token) that is not UTF-8, std::length_error if
  // the value would nest the document deeper than the 1,024 containers a
  // document may nest (as the parser refuses such text); insert, put,
  // apply_patch, move and copy refuse both alike. The document is unchanged
  // after a throw.
  void set(std::string_view json_pointer, std::string_view json_text);
  // RFC 6902 "add": as set(), except that at an array index the value is
  // inserted before the element there (set() replaces it).
  void insert(std::string_view json_pointer, std::string_view json_text);
  // Removes the member or element at the pointer; false if there is none
  // (and for "", the whole document, which cannot be removed).
  bool erase(std::string_view json_pointer);
  // Commits every edit since the last sync (or the import): after it returns
  // a crash never loses them. mapped_space::sync(): the pages the edits
  // changed (the new value's block, the head, the checksum table's entries)
  // go to the redo log, flushed once, then in place without a flush.
  void sync();
  // Rewrites the document compactly (as an import of its dump() would lay it
  // out) into "<file>.compact"; the next sync() commits it and renames it over
  // the store, which then takes about the live data's size. Until then the
  // store stays open and locked as it is; destroyed before that sync(), the
  // compaction (and the edits since the last sync) is discarded and the
  // store is as it was. O(document) time; memory bounded as an import's
  // (blocks go to the new file every 4 MiB, a big object's keys are sorted
  // in runs in a temporary file beside it). A store written by an earlier format
  // (which edits do not reclaim space in) becomes the current one. Throws
  // fl::persist_error on I/O errors or damage met while reading.
  void compact();
  // Checks the whole structure of the committed document (a reader's: the
  // commit it holds) and the space under it: every page's checksum; every
  // value's kind; each reference inside the file and, in formats 3 and 4, to
  // a live block of its own (not free, not waiting in a deferred batch,
  // reached from no other value) that holds the value's bytes; container
  // tables and array trees (levels, node tags, counts), member
  // keys inside their object's block, the key index of an object of 16 or
  // more members sorted and a permutation; strings and keys valid UTF-8; the
  // space's block headers, free lists and deferred batches. Format 2 stores
  // (whose values share blocks) get the bounds checked instead of the block
  // ownership. Throws fl::persist_error naming the first fault and the JSON
  // pointer where it was found ("verify: /recent/2: a string's block is on
  // the free list"); returns the number of values checked. Works on a
  // read-only open while the writer commits; a writer verifies its last
  // commit (its edits not yet synced are not part of it), and throws while
  // a reader holds an older commit (the file holds that one then). O(file
  // size); memory O(blocks + depth).
  std::uint64_t verify() const;

  // ---- typed API ----
  // A new store at `file` holding the empty object {}, durable when this
  // returns. fl::persist_error "exists" if something is at `file`.
  static json_store create(const std::filesystem::path& file);
  // open(file) if a file is there, create(file) otherwise.
  static json_store open_or_create(const std::filesystem::path& file);

  enum class parents : bool { must_exist, create };
  // set() with a C++ value: put("/theme", "dark") stores the string "dark",
  // put("/size", 12), put("/tags", std::vector<std::string>{...}),
  // put("/a", json_text::object({{"k", 1}})). With parents::create, missing
  // objects on the pointer's path are created first (as `mkdir -p`).
  void put(std::string_view json_pointer, const json_text& value,
           parents p = parents::must_exist);

  // The value at the pointer as T (json_value::get). std::out_of_range
  // naming the pointer when nothing is there. A T that views the store
  // (std::string_view, json_value) is valid while the store is; clang warns
  // when it outlives a temporary store (FL_LIFETIMEBOUND).
  template <class T>
    requires(!detail::json::store_view<T>)
  T get(std::string_view json_pointer) const;
  template <class T>
    requires detail::json::store_view<T>
  T get(std::string_view json_pointer) const FL_LIFETIMEBOUND;
  // The value at the pointer as T, or `fallback` when nothing is there; a
  // value of another type throws as get() does.
  template <class T>
    requires(!detail::json::store_view<T>)
  T value(std::string_view json_pointer, const T& fallback) const;
  template <class T>
    requires detail::json::store_view<T>
  T value(std::string_view json_pointer, const T& fallback) const
      FL_LIFETIMEBOUND;
  std::string value(std::string_view json_pointer, const char* fallback) const;

  // The document indented by `indent` spaces a level (json_value::dump).
  fl::string dump(int indent) const;

  // RFC 6902 JSON Patch (an array of add, remove, replace, move, copy and
  // test operations), all or nothing: when an operation fails (a path that
  // is not there, a failed test, invalid text) the document is as before and
  // the exception says which operation and why (std::invalid_argument for a
  // malformed patch or a failed test, std::out_of_range for a missing path,
  // fl::json_error for invalid text). Its edits become one commit at the
  // next sync(). Each operation, and its undo when a later one fails, costs
  // what the same set, insert or erase does: O(log n) in a container of n
  // children (a removed member goes back to its place in its object). A
  // value removed or replaced is kept for the undo as it is, never copied,
  // and a move takes its value along as it is: O(log n) however big the
  // value (a move onto the whole document, path "", excepted: it goes as
  // its text).
  void apply_patch(std::string_view json_patch);
  // RFC 6902 "move" and "copy" as calls, for the edits that rename a member or
  // relocate a value without a patch's text to build and escape: each is
  // what apply_patch does with that one operation (the same checks, errors
  // and change-feed record, all or nothing). move() removes the value at
  // `from_pointer` and adds it at `to_pointer` (a new member goes to the end
  // of its object, an existing one is replaced, an array index inserts
  // before, "-" appends), taking it along as it is: O(log n) however big.
  // copy() adds a copy of it there (its text parsed again: O(its size)).
  // Throws std::out_of_range when there is no value at `from_pointer` or
  // `to_pointer`'s parent is missing or not a container, and
  // std::invalid_argument for a move into the value's own child.
  void move(std::string_view from_pointer, std::string_view to_pointer);
  void copy(std::string_view from_pointer, std::string_view to_pointer);
  // RFC 7396 JSON Merge Patch: members of the patch object replace the
  // document's, null members remove them, nested objects merge. All or
  // nothing, as apply_patch: a call that fails part of the way (its file out
  // of room, persist_error) leaves the document as it was.
  void merge_patch(std::string_view merge_patch_text);

  // ---- the change feed ----
  // Every commit (sync()) that changed the document has a sequence number,
  // one more than the last; the document an import or create() made is
  // sequence 0 of a new history (history(), a random id; compact() keeps
  // it). For each commit the store keeps, in the file and with the commit,
  // the RFC 6902 patch that turns the previous committed document into this
  // one: the edits as made (set/put: "add" or "replace", insert: "add",
  // erase: "remove"; a patch's operations as those edits (a copy an add of
  // the value, a test nothing), but a move as one "move", from and path
  // (onto the document, "", a remove and a replace); a merge patch its adds,
  // replaces and removes; a refused patch nothing).
  // The newest 1,024 commits are kept, or fewer while their patches' text
  // passes 256 KiB (keep_changes). Format 5; a store of
  // an older format throws persist_error from these until compact().

  // The newest commit's sequence number (a reader: the commit it holds).
  std::uint64_t sequence() const;
  // The history's id: it changes only when an import replaces the file.
  // 0 for a format without a feed.
  std::uint64_t history() const;
  // The smallest `since` changes() answers.
  std::uint64_t oldest_change() const;
  // The patches of the commits after `since`, oldest first, at most
  // `max_count`: apply them in order to the document at `since` and it
  // becomes this one. Works on a reader (its commit's records), in any
  // process. Throws persist_error when the records after `since` are no
  // longer kept ("start again from the document"), or `since` is past
  // sequence() (another history: compare history()). O(the records' size).
  std::vector<json_change> changes(std::uint64_t since,
                                   std::size_t max_count = static_cast<std::size_t>(-1)) const;
  // How many commits' records to keep, up to 1,048,576 (std::invalid_argument
  // above), and the most text they may hold: the oldest records go while
  // their text passes `max_bytes` (the newest is always kept). Applied now
  // (the text budget: at the next commit), durable with the next sync(); a
  // smaller ring retires the oldest records. 0 commits keeps none
  // (sequence() still counts the commits): a store of big values that no one
  // follows then writes each value once, not twice. O(records kept).
  void keep_changes(std::uint32_t commits,
                    std::uint64_t max_bytes = detail::json::default_feed_bytes);

  const std::filesystem::path& path() const noexcept;
  // Bytes of the store's data file (free blocks kept for reuse included).
  std::uint64_t file_bytes() const noexcept;
  // The space's figures (mapped_space::stats()): file, live and free bytes,
  // commits so far (generation). After compact() and before the sync() that
  // publishes it, those of the compacted space.
  space_stats stats() const;

 private:
  friend class detail::json::patch_session;
  explicit json_store(std::unique_ptr<detail::json::store_file> f) noexcept;
  void write(std::string_view json_pointer, std::string_view json_text, bool insert);
  [[noreturn]] static void missing(std::string_view json_pointer);
  // get() (no fallback: missing() throws) and value(): one reading for both.
  template <class T>
  T read(std::string_view json_pointer, const T* fallback) const;
  std::unique_ptr<detail::json::store_file> file_;
};

// The text of the value (json_value::dump).
std::ostream& operator<<(std::ostream& os, const json_value& v);

// An RFC 6902 patch (JSON text, "[]" when the values are equal) that turns
// `from` into `to`: applied to a document holding `from` by apply_patch (or
// by any RFC 6902 implementation that keeps member order), it leaves `to`
// exactly, member order and number text included. The values may live in
// one store or in two. Objects: removes, then the members of `to` in its
// order (those already in order stay in place; later ones are appended, by
// "add" or by a "move" onto themselves). Arrays: equal elements at both ends
// stay; the elements between are diffed by index, then removed from the
// highest index down or added in increasing order. An object with a
// repeated key is replaced whole. O(size of both values) but for arrays,
// where finding the equal ends compares elements deeply. Throws
// fl::persist_error if reading meets damage.
fl::string json_diff(const json_value& from, const json_value& to);

namespace detail::json {
// A typed read that failed, for `want` (T in C++ terms: "int", "std::string"),
// at `pointer` when the read came through json_store::get or value (else
// null): std::invalid_argument "cannot read the value at "/a" as int: it is a
// string", std::out_of_range for a number outside T.
[[noreturn]] void wrong_type(const json_value& v, const char* want,
                             const std::string_view* pointer);
[[noreturn]] void out_of_range_number(const json_value& v, const char* want,
                                      const std::string_view* pointer);

// The name of T as a C++ programmer writes it, for messages.
template <class T>
constexpr const char* cpp_type_name() noexcept {
  if constexpr (std::same_as<T, bool>) return "bool";
  else if constexpr (std::same_as<T, char>) return "char";
  else if constexpr (std::same_as<T, signed char>) return "signed char";
  else if constexpr (std::same_as<T, unsigned char>) return "unsigned char";
  else if constexpr (std::same_as<T, short>) return "short";
  else if constexpr (std::same_as<T, unsigned short>) return "unsigned short";
  else if constexpr (std::same_as<T, int>) return "int";
  else if constexpr (std::same_as<T, unsigned>) return "unsigned int";
  else if constexpr (std::same_as<T, long>) return "long";
  else if constexpr (std::same_as<T, unsigned long>) return "unsigned long";
  else if constexpr (std::same_as<T, long long>) return "long long";
  else if constexpr (std::same_as<T, unsigned long long>) return "unsigned long long";
  else if constexpr (std::same_as<T, float>) return "float";
  else if constexpr (std::same_as<T, double>) return "double";
  else if constexpr (std::same_as<T, long double>) return "long double";
  else if constexpr (std::same_as<T, std::string>) return "std::string";
  else if constexpr (std::same_as<T, std::string_view>) return "std::string_view";
  else if constexpr (std::same_as<T, fl::string>) return "fl::string";
  else if constexpr (std::integral<T>) return "an integer type";
  else return "this type";
}
}  // namespace detail::json

template <class T>
T json_value::get() const {
  return read_as<T>(nullptr);
}

template <class T>
T json_value::read_as(const std::string_view* pointer) const {
  check_view();
  constexpr const char* want = detail::json::cpp_type_name<T>();
  using detail::json::kind;
  if constexpr (std::same_as<T, json_value>) {
    return *this;
  } else if constexpr (std::same_as<T, bool>) {
    if (!is_bool()) detail::json::wrong_type(*this, want, pointer);
    return ref_.k == static_cast<std::uint8_t>(kind::true_v);
  } else if constexpr (std::integral<T>) {
    if (ref_.k == static_cast<std::uint8_t>(kind::int64)) {
      const auto i = static_cast<std::int64_t>(ref_.x);
      if (!std::in_range<T>(i)) detail::json::out_of_range_number(*this, want, pointer);
      return static_cast<T>(i);
    }
    if (ref_.k == static_cast<std::uint8_t>(kind::uint64)) {
      if (!std::in_range<T>(ref_.x)) detail::json::out_of_range_number(*this, want, pointer);
      return static_cast<T>(ref_.x);
    }
    detail::json::wrong_type(*this, want, pointer);
  } else if constexpr (std::floating_point<T>) {
    if (!is_number()) detail::json::wrong_type(*this, want, pointer);
    return static_cast<T>(as_double());
  } else if constexpr (std::same_as<T, std::string_view>) {
    if (!is_string()) detail::json::wrong_type(*this, want, pointer);
    return as_string_view();
  } else if constexpr (std::same_as<T, std::string> || std::same_as<T, fl::string>) {
    if (!is_string()) detail::json::wrong_type(*this, want, pointer);
    const std::string_view s = as_string_view();
    return T(s.data(), s.size());
  } else {
    static_assert(sizeof(T) == 0, "json_value::get<T>: T is not a type a JSON value converts to");
  }
}

// A value equals a C++ value of its type: null and nullptr, a boolean and
// bool, a string and a string, a number and an integer (exactly) or a
// floating-point value (as doubles). Values of other types are unequal.
template <class T>
  requires(std::same_as<T, std::nullptr_t> || std::same_as<T, bool> || std::integral<T> ||
           std::floating_point<T> || detail::json::string_like<T>)
bool operator==(const json_value& v, const T& x) {
  if constexpr (std::same_as<T, std::nullptr_t>) {
    return v.is_null();
  } else if constexpr (std::same_as<T, bool>) {
    return v.is_bool() && v.as_bool() == x;
  } else if constexpr (std::integral<T>) {
    if (!v.is_integer()) return v.is_number() && v.as_double() == static_cast<double>(x);
    if constexpr (std::signed_integral<T>) {
      if (x < 0) return v.as_double() < 0 && v.as_int64() == x;
    }
    const std::uint64_t ux = static_cast<std::uint64_t>(x);
    return v.as_double() >= 0 && v.as_uint64() == ux;
  } else if constexpr (std::floating_point<T>) {
    return v.is_number() && v.as_double() == static_cast<double>(x);
  } else {
    return v.is_string() && v.as_string_view() == std::string_view(x);
  }
}

template <class T>
T json_store::read(std::string_view json_pointer, const T* fallback) const {
  const std::optional<json_value> v = find(json_pointer);
  if (v) return v->read_as<T>(&json_pointer);
  if (!fallback) missing(json_pointer);
  return *fallback;
}

template <class T>
  requires(!detail::json::store_view<T>)
T json_store::get(std::string_view json_pointer) const {
  return read<T>(json_pointer, nullptr);
}

// (FL_LIFETIMEBOUND is repeated on the definitions: clang reads it from the
// declaration a template is instantiated from.)
template <class T>
  requires detail::json::store_view<T>
T json_store::get(std::string_view json_pointer) const FL_LIFETIMEBOUND {
  return read<T>(json_pointer, nullptr);
}

template <class T>
  requires(!detail::json::store_view<T>)
T json_store::value(std::string_view json_pointer, const T& fallback) const {
  return read<T>(json_pointer, &fallback);
}

template <class T>
  requires detail::json::store_view<T>
T json_store::value(std::string_view json_pointer, const T& fallback) const
    FL_LIFETIMEBOUND {
  return read<T>(json_pointer, &fallback);
}

}  // namespace FL_ABI_NS
}  // namespace fl
