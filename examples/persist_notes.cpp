// examples/persist_notes.cpp: state that survives restarts. A run counter in
// fl::persist<T>, and a linked list of notes (fl::pstring) in an
// fl::mapped_space, committed with sync() and read by a read-only reader;
// then all but the newest note are freed and the space compacted. Runs twice over one directory
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

  // A reader beside the writer (here in the same process; usually another
  // one): it sees the newest commit, takes no lock and never waits.
  const fl::mapped_space reader = fl::mapped_space::open(dir / "notes", fl::open_mode::read_only);
  std::uint64_t seen = 0;
  for (fl::fptr<note> p = reader.root<note>(); p; p = reader.get(p)->next) ++seen;
  std::printf("a reader sees %llu notes\n", static_cast<unsigned long long>(seen));
}

// Keeps the newest note only: the others are freed, and compact() cuts the
// free blocks at the end of the file off at the next sync().
void trim(const std::filesystem::path& dir) {
  fl::mapped_space space(dir / "notes", {.mode = fl::open_mode::open_existing});
  const fl::fptr<note> head = space.root<note>();
  for (fl::fptr<note> p = space.get(head)->next; p;) {
    const fl::fptr<note> next = space.get(p)->next;
    space.get(p)->text.clear(space);
    space.destroy(p);
    p = next;
  }
  space.get(head)->next = nullptr;
  space.compact();
  space.sync();
  const fl::space_stats st = space.stats();
  std::printf("kept one note: %llu live bytes, %llu commits\n",
              static_cast<unsigned long long>(st.used_bytes),
              static_cast<unsigned long long>(st.generation));
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
    trim(dir);
  } catch (const fl::persist_error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  if (temporary) std::filesystem::remove_all(dir);
  return 0;
}
