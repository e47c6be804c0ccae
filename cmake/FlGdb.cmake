# GDB pretty-printers: libfl carries them in its .debug_gdb_scripts section
# (src/debug/gdb_scripts.cpp), so installing the library is enough for GDB to load
# them. The script is also installed on its own, for `source` by hand or for
# binaries whose debug sections were stripped:
#   (gdb) source <prefix>/share/fl/gdb/fl_printers.py
install(FILES "${FL_GDB_PRINTERS}" DESTINATION ${CMAKE_INSTALL_DATADIR}/fl/gdb)
