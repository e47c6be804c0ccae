# Sourced by check_printers.cmake once the program stopped: facts the test
# checks besides the printed values.
#   fl-layout-table: found | missing        libfl's fl_gdb_layout in the program
#   fl-string-layout-mismatch: [...]        STRING_LAYOUT names that differ from it
#   fl-internal-types: present | absent     debug info of the rope's inner node
import gdb

table = layout_table()  # noqa: F821 (defined by fl_printers.py)
print("fl-layout-table: %s" % ("found" if table else "missing"))
print("fl-string-layout-mismatch: %s" % check_string_layout())  # noqa: F821
# The inner node's name, from the rope variable's type: fl::<abi>::rope_leaf<N>::rope
# names fl::<abi>::detail::rope_leaf<N>::inner, whatever the ABI and leaf names.
rope_type = gdb.parse_and_eval("rope").type.strip_typedefs().tag
scope, leaf, _ = rope_type.rsplit("::", 2)
try:
    gdb.lookup_type("%s::detail::%s::inner" % (scope, leaf))
    print("fl-internal-types: present")
except gdb.error:
    print("fl-internal-types: absent")
