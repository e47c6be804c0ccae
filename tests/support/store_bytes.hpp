// tests/support/store_bytes.hpp: a closed json_store's file as bytes, for
// the tests that plant faults in it (json_verify_test): the newest meta
// slot, the file offset of the json_ref a JSON pointer names, and the
// repair of every checksum after a planted change, so that a structural
// fault reaches the check meant to find it instead of the page checksum.
// Reads the formats through src/persist/persist_format.hpp and
// fl/detail/json_format.hpp, never restating them.
#pragma once

#include "persist/crc32c.hpp"
#include "persist/persist_format.hpp"
#include <fl/detail/json_format.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fl_test {

class store_bytes {
 public:
  // Reads `path` (a store closed by its writer: its log checkpointed).
  explicit store_bytes(std::filesystem::path path) : path_(std::move(path)) {
    std::ifstream in(path_, std::ios::binary);
    f_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (f_.size() < 2 * fl::detail::space_page) throw std::runtime_error("not a store file");
  }

  // Writes the bytes back and removes the log and the reader table, whose
  // copies of the meta would otherwise be preferred to the planted one.
  void save() const {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(f_.data(), static_cast<std::streamsize>(f_.size()));
    out.close();
    std::error_code ec;
    std::filesystem::remove(path_.string() + "-log", ec);
    std::filesystem::remove(path_.string() + "-readers", ec);
  }

  std::string& bytes() { return f_; }

  template <class T>
  T get(std::uint64_t off) const {
    T v;
    if (off + sizeof v > f_.size()) throw std::out_of_range("store_bytes::get past the file");
    std::memcpy(&v, f_.data() + off, sizeof v);
    return v;
  }
  template <class T>
  void put(std::uint64_t off, const T& v) {
    if (off + sizeof v > f_.size()) throw std::out_of_range("store_bytes::put past the file");
    std::memcpy(f_.data() + off, &v, sizeof v);
  }

  // The newest valid meta slot (0 or 1): the higher write count.
  int newest_slot() const {
    const auto a = get<fl::detail::space_meta>(0), b = get<fl::detail::space_meta>(4096);
    const std::uint32_t sa = a.state >> 1, sb = b.state >> 1;
    const bool va = fl::detail::meta_crc(a) == a.crc, vb = fl::detail::meta_crc(b) == b.crc;
    if (va && vb) return ((sb - sa) & fl::detail::meta_seq_mask) == 1 ? 1 : 0;
    return va ? 0 : 1;
  }
  fl::detail::space_meta meta() const {
    return get<fl::detail::space_meta>(newest_slot() * fl::detail::space_page);
  }

  // The file offset of the json_ref of the value at `pointer` (unescaped
  // tokens only: "/a/0/b"): the head's root, an array's element or an
  // object member's value (the last member of that name).
  std::uint64_t ref_at(std::string_view pointer) const {
    namespace fj = fl::detail::json;
    std::uint64_t at = meta().alloc.root + offsetof(fj::json_head, root);
    while (!pointer.empty()) {
      pointer.remove_prefix(1);
      const std::size_t slash = pointer.find('/');
      const std::string tok(pointer.substr(0, slash));
      pointer = slash == std::string_view::npos ? std::string_view() : pointer.substr(slash);
      const auto r = get<fj::json_ref>(at);
      if (r.k == static_cast<std::uint8_t>(fj::kind::array)) {
        at = r.x + std::stoull(tok) * sizeof(fj::json_ref);
      } else if (r.k == static_cast<std::uint8_t>(fj::kind::object)) {
        std::uint64_t found = 0;
        for (std::uint32_t i = 0; i < r.n; ++i) {
          const auto m = get<fj::json_member>(r.x + i * sizeof(fj::json_member));
          if (std::string_view(f_.data() + m.key, m.key_len) == tok)
            found = r.x + i * sizeof(fj::json_member) + offsetof(fj::json_member, value);
        }
        if (found == 0) throw std::out_of_range("store_bytes::ref_at: no member " + tok);
        at = found;
      } else {
        throw std::out_of_range("store_bytes::ref_at: not a container before " + tok);
      }
    }
    return at;
  }
  fl::detail::json::json_ref ref(std::string_view pointer) const {
    return get<fl::detail::json::json_ref>(ref_at(pointer));
  }

  // Recomputes every page's entry in the page checksum table, the table's
  // CRC and the newest meta slot's CRC: the file passes every checksum.
  void fix_checksums() {
    namespace fd = fl::detail;
    constexpr std::uint64_t page = fd::space_page;
    const std::uint64_t at = newest_slot() * page;
    auto m = get<fd::space_meta>(at);
    const std::uint64_t table = m.alloc.crc_table, tbytes = m.alloc.crc_table_bytes;
    const std::uint64_t pages = f_.size() / page;
    for (std::uint64_t p = 2; p < pages && p < tbytes / 4; ++p) {
      const bool own = p * page >= table && p * page < table + tbytes;
      const std::uint32_t c = own ? 0 : fd::crc32c(f_.data() + p * page, page);
      put(table + p * 4, c);
    }
    m.table_crc = fd::crc32c(f_.data() + table, tbytes);
    m.crc = fd::meta_crc(m);
    put(at, m);
  }

 private:
  std::filesystem::path path_;
  std::string f_;
};

}  // namespace fl_test
