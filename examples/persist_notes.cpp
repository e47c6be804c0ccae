// examples/persist_notes.cpp: state that survives restarts. A run counter in
// fl::persist<T>, and a linked list of notes (fl::pstring) in an
// fl::mapped_space, committed with sync(). Runs twice over one directory
// (given as argv[1], else a fresh temporary one that is removed at the end),
// as two starts of a program would.
#include <fl/persist.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

struct note {
  fl::pstring text;
  fl::fptr<note> next;
};

void start(const std::filesystem::path& dir) {
  fl::persist<std::uint64_t> runs(dir / "runs");  // 0 when the file is missing
  *runs += 1;
  runs.flush();  // atomic and durable

  fl::mapped_space space(dir / "notes");
  fl::fptr<note> head = space.root<note>();  // null in a new space
  const fl::fptr<note> n = space.make<note>();
  space.get(n)->text.assign(space, "start number " + std::to_string(*runs));
  space.get(n)->next = head;
  space.set_root(n);
  space.sync();  // commit: survives a crash from here on

  std::printf("run %llu, notes so far:\n", static_cast<unsigned long long>(*runs));
  for (fl::fptr<note> p = space.root<note>(); p; p = space.get(p)->next)
    std::printf("  %s\n", fl::string(space.get(p)->text.view(space)).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path dir;
  bool temporary = false;
  if (argc > 1) {
    dir = argv[1];
  } else {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fl_notes_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) return 1;
    dir = tmpl;
    temporary = true;
  }
  try {
    start(dir);
    start(dir);
  } catch (const fl::persist_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  if (temporary) std::filesystem::remove_all(dir);
  return 0;
}
