// tests/gdb/gdb_target.cpp: the program the pretty-printer test debugs. It
// builds one value of each printed kind, then stops in stop_here() so that
// GDB can print them from main's frame.
#include <fl/fl.h>
#include <fl/immutable_string.hpp>
#include <fl/rope.hpp>
#include <fl/string.hpp>

#include <string>

extern "C" [[gnu::noinline]] void stop_here() { asm volatile("" ::: "memory"); }

int main() {
  fl::string small = "inline text";
  fl::string heap(40, 'h');
  heap += " and \"quotes\"\n";
  fl::immutable_string ismall("short");
  fl::immutable_string ibig("a shared immutable text of some length");
  // A tree: pieces longer than a leaf, put in front one by one, after a
  // short first leaf, so that the first 200 bytes span two leaves.
  fl::rope tree;
  for (int i = 9; i >= 0; --i) tree.prepend(std::string(5000, static_cast<char>('0' + i)));
  std::string head;
  for (int i = 0; i < 10; ++i) head += "header line " + std::to_string(i) + "\n";
  fl::rope rope(head);
  rope.append(tree);
  if ((*rope.chunks().begin()).size() >= 200) return 2;  // the walk across leaves would go untested
  fl::rope flat("flat rope");
  fl_str c = FL_STR_INIT;
  fl_str_from(&c, "from C");
  fl_str cbig = FL_STR_INIT;
  fl_str_from(&cbig, "a C string too long for the inline bytes");
  stop_here();
  fl_str_free(&c);
  fl_str_free(&cbig);
  return static_cast<int>(small.size() + heap.size() + ismall.size() + ibig.size() + rope.size() +
                          flat.size()) == 0;
}
