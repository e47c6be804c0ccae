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
  // A tree: pieces longer than a leaf, put in front one by one.
  fl::rope rope;
  for (int i = 9; i >= 0; --i) rope.prepend(std::string(5000, static_cast<char>('0' + i)));
  fl::rope flat("flat rope");
  fl_str c = FL_STR_INIT;
  fl_str_from(&c, "from C");
  fl_str cbig = FL_STR_INIT;
  fl_str_from(&cbig, "a C string too long for the inline bytes");
  stop_here();
  fl_str_free(&c);
  fl_str_free(&cbig);
  return static_cast<int>(small.size() + heap.size() + ismall.size() + ibig.size() + rope.size() + flat.size()) == 0;
}
