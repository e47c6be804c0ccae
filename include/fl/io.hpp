// fl/io.hpp: whole-file reading and writing into and out of fl::string (and
// fl::rope).
//
// read_file reads a file into one exact-size buffer (one open, one fstat, one
// allocation of the reported size without zero-filling it, read() in large
// blocks), then checks for more data, so files that report size 0 (/proc,
// pipes) or that grow while being read are read to EOF. It runs at the speed
// of the page cache. A buffer of 32 to 256 MiB freed on the calling thread
// (say, the previous result) is reused for the next read of about its size
// (the pool's kept block, fl/pool.hpp), which spares the kernel mapping and
// zeroing fresh pages. For files larger than memory, or for random access, map
// or stream them instead.
//
// Paths: const char* (the native form), std::string_view (copied to add the
// terminator; one with an embedded NUL is rejected with EINVAL) or
// std::filesystem::path. Errors throw std::system_error carrying the errno
// (std::system_category()) and a message that names the path and the step
// that failed ("fl::read_file: open \"/x\": No such file or directory").
//
// Threads: the functions share no state; concurrent calls are safe.
#pragma once

#include <fl/detail/config.hpp>

#include <fl/detail/rope_node.hpp>  // FL_ROPE_NS, the namespace of fl::rope
#include <fl/string.hpp>

#include <concepts>
#include <filesystem>
#include <string_view>

namespace fl {
inline namespace FL_ABI_NS {

inline namespace FL_ROPE_NS {
class rope;
}

namespace detail {
void write_rope_file(const char* path, const rope& text);
void write_rope_file(std::string_view path, const rope& text);
}  // namespace detail

// The whole content of the file at `path`. Throws std::system_error (open,
// fstat or read failed; a directory gives EISDIR), std::bad_alloc.
[[nodiscard]] string read_file(const char* path);
[[nodiscard]] string read_file(std::string_view path);

// The whole content of the file at `path` as a rope: read as read_file
// reads it, into one buffer that the rope adopts without a copy, with its
// char, line and UTF-16 counts computed before it returns (one pass of the
// counting kernels over the text), so the first position query is a lookup,
// not a scan. Cost: read_file's plus O(n) counting. The result is one chunk
// (edits then share it piecewise, as any rope made from a contiguous text).
// Throws as read_file (its messages name fl::read_file). Include
// <fl/rope.hpp> to use the result.
[[nodiscard]] rope read_rope_file(const char* path);
[[nodiscard]] rope read_rope_file(std::string_view path);

// Writes `data` to the file at `path`, created with mode 0666 & ~umask or
// truncated, looping over partial writes and EINTR until every byte is
// written. Throws std::system_error if any step fails; the file may then hold
// a prefix of `data`.
void write_file(const char* path, std::string_view data);
void write_file(std::string_view path, std::string_view data);

// The same for a rope: its chunks go to the file as they are (writev, many
// chunks per call), never flattened. Templates on fl::rope exactly, so that
// a C string or std::string argument still picks the std::string_view
// overloads (it converts to a rope too).
template <std::same_as<rope> R>
void write_file(const char* path, const R& text) {
  detail::write_rope_file(path, text);
}
template <std::same_as<rope> R>
void write_file(std::string_view path, const R& text) {
  detail::write_rope_file(path, text);
}

// std::filesystem::path overloads. Templates constrained to exactly path so
// that a std::string argument picks the std::string_view overload instead of
// being ambiguous between the two conversions.
template <class Path>
requires std::same_as<Path, std::filesystem::path>
[[nodiscard]] string read_file(const Path& path) { return read_file(path.c_str()); }
// (R: rope, named through a parameter so that its definition is needed
// only where the call is made.)
template <class Path, class R = rope>
requires std::same_as<Path, std::filesystem::path>
[[nodiscard]] R read_rope_file(const Path& path) { return read_rope_file(path.c_str()); }
template <class Path>
requires std::same_as<Path, std::filesystem::path>
void write_file(const Path& path, std::string_view data) { write_file(path.c_str(), data); }
template <class Path, std::same_as<rope> R>
requires std::same_as<Path, std::filesystem::path>
void write_file(const Path& path, const R& text) { detail::write_rope_file(path.c_str(), text); }

}  // namespace FL_ABI_NS
}  // namespace fl
