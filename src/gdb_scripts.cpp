// libfl's GDB pretty-printers, carried in the library itself: the
// .debug_gdb_scripts section holds tools/gdb/fl_printers.py as an inline
// Python script (entry kind 4: a name line, then the text, then NUL), and GDB
// runs it for every program that links libfl, static or shared, installed or
// not, when its auto-load safe-path allows that program (docs/debugging.md).
// The section is not loaded at run time (no "a" flag) and `strip` removes it.
// "MS" (mergeable strings) lets the linker fold duplicate copies into one.
//
// FL_GDB_PRINTERS_PATH (set by CMakeLists.txt) is the script's absolute path;
// builds without it, or for non-ELF targets, carry no script.
//
// Threads: nothing here runs.
#if defined(__ELF__) && defined(FL_GDB_PRINTERS_PATH)

asm(".pushsection .debug_gdb_scripts, \"MS\",@progbits,1\n"
    ".byte 4\n"
    ".ascii \"fl_printers.py\\n\"\n"
    ".incbin \"" FL_GDB_PRINTERS_PATH
    "\"\n"
    ".byte 0\n"
    ".popsection\n");

// A static libfl is linked object by object: the fl target asks the linker
// for this symbol (-u), so this object, and the section with it, are kept.
extern "C" {
extern const char fl_gdb_printers_anchor;
const char fl_gdb_printers_anchor = 1;
}

#endif
