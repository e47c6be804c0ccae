// tests/support/seq_block.hpp: the space the mapped_space reader tests
// commit over and over: its root names a commit number and a block whose
// every byte tells which commit wrote it (and the page it lies in), so a
// reader that shows one commit's number beside another commit's bytes, or a
// page of neither, is caught by seq_state().
#pragma once

#include <fl/mapped_space.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace fl_test {

struct seq_root {
  std::uint64_t seq;
  fl::fptr<unsigned char> block;
};

// The byte commit `seq` writes at offset i of the block.
inline unsigned char seq_byte(std::uint64_t seq, std::size_t i) {
  return static_cast<unsigned char>(seq * 37 + i / 4096 + 1);
}

// Commit `seq`: the root's number, and bytes [from, to) of the block.
inline void commit_seq(fl::mapped_space& sp, std::uint64_t seq, std::size_t from, std::size_t to) {
  seq_root* r = sp.get(sp.root<seq_root>());
  r->seq = seq;
  unsigned char* b = sp.get(r->block);
  for (std::size_t i = from; i < to; ++i) b[i] = seq_byte(seq, i);
  sp.sync();
}

// A new space at `file`: the root and a block of `bytes`, all of it
// written by commit `seq`, committed.
inline fl::mapped_space make_seq_space(const std::filesystem::path& file, std::size_t bytes,
                                       std::uint64_t seq) {
  fl::mapped_space sp(file);
  const auto root = sp.make<seq_root>();
  sp.get(root)->block = sp.allocate(bytes).cast<unsigned char>();
  sp.set_root(root);
  commit_seq(sp, seq, 0, bytes);
  return sp;
}

// "<seq>:ok" when each byte i of the root's block (of `bytes`) is
// expect(seq, i), for the commit number seq the root names; "<seq>:differs
// at <i>" at the first that is not; "<seq>:none" when the root has no block.
template <class Expect>
std::string seq_state(const fl::mapped_space& sp, std::size_t bytes, Expect expect) {
  const seq_root* r = sp.get(sp.root<seq_root>());
  const std::string seq = std::to_string(r->seq);
  if (r->block == nullptr) return seq + ":none";
  const auto* b = reinterpret_cast<const unsigned char*>(sp.checked(r->block, bytes));
  for (std::size_t i = 0; i < bytes; ++i) {
    if (b[i] != expect(r->seq, i)) return seq + ":differs at " + std::to_string(i);
  }
  return seq + ":ok";
}

// seq_state when commit seq wrote the whole block.
inline std::string seq_state(const fl::mapped_space& sp, std::size_t bytes) {
  return seq_state(sp, bytes, seq_byte);
}

// What seq_state gives for commit `seq` read whole.
inline std::string seq_ok(std::uint64_t seq) { return std::to_string(seq) + ":ok"; }

}  // namespace fl_test
