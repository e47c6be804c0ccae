// tests/powerloss/recorder.hpp: the recording layer of the power-loss test.
//
// The test program itself defines the POSIX calls through which a store
// changes files (recorder.cpp: open/openat/creat with O_CREAT or O_TRUNC,
// write, pwrite, pwritev, writev, ftruncate, fallocate, posix_fallocate,
// fsync, fdatasync, rename, renameat, renameat2, link, linkat, unlink, unlinkat, close,
// and their 64-bit and fortified names). The dynamic linker binds the
// library's calls to these definitions, which forward to the C library's
// (dlsym(RTLD_NEXT)) and, while recording, append what they did to files of
// one directory to a trace. The library is the one users link: it has no
// hook for this test. Calls the model does not cover (a writable shared
// mapping of a recorded file, msync, sync_file_range, syncfs, sync, a rename
// in or out of the directory, O_APPEND) are listed in trace::unmodelled, and
// the test fails on any.
//
// Threads: recording is for a single-threaded workload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fl_powerloss {

// One change to the recorded directory or to a file in it, in the order the
// workload made them. Files are named by inode: the model's own numbers,
// one per file created while recording (a name may later name another one).
enum class op_kind {
  create,     // name -> inode (a new, empty file: open with O_CREAT)
  link,       // to -> inode of `name`
  rename,     // to -> inode of `name`; `name` removed
  unlink,     // `name` removed
  write,      // inode: `data` at `offset` (the file grows to cover it)
  truncate,   // inode: size set to `offset` (zeros when it grows)
  flush,      // fsync or fdatasync of inode: its data and size are durable
  dir_flush,  // fsync of the directory: its entries are durable
};

struct op {
  op_kind kind;
  int inode = -1;
  std::string name, to;      // directory entries; for the others, the file's name then
  std::uint64_t offset = 0;  // write: where; truncate: the new size
  std::string data;          // write
};

struct trace {
  // Files the directory held when recording started (durable: what a state
  // being recovered holds), as inode, name, bytes.
  struct initial_file {
    int inode;
    std::string name, bytes;
  };
  std::vector<initial_file> initial;
  std::vector<op> ops;
  std::vector<std::string> inode_names;  // the last name each inode was given
  std::vector<std::string> unmodelled;   // calls the model does not cover
};

// Starts recording the changes to files in `dir` (which must exist and hold
// regular files only: they become trace::initial).
void start_recording(const std::filesystem::path& dir);
// Stops recording and returns the trace.
trace stop_recording();
// The number of operations recorded so far: a crash point names the prefix
// of this length.
std::size_t recorded_ops();

// While set, fsync and fdatasync return 0 without reaching the disk: the
// model decides what is durable, and the states are checked from the page
// cache, so the real flushes would only cost time.
void skip_flushes(bool skip);

// "pwrite store-log @4096 +8192" and the like, for failure messages.
std::string describe(const trace& t, std::size_t op_index);

}  // namespace fl_powerloss
