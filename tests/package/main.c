/* A C11 consumer of fl::c (tests/package/c, pkgconfig.cmake): <fl/fl.h>
   must compile as C on its own and fl::c must link. */
#include <fl/fl.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  fl_str s;
  int ok = fl_str_from(&s, "fl") == FL_OK;
  ok = ok && fl_str_append(&s, " package") == FL_OK;
  ok = ok && strcmp(fl_str_cstr(&s), "fl package") == 0;
  ok = ok && fl_str_find(&s, "pack", 4, 0) == 3;
  fl_str_free(&s);
  puts(ok ? "fl C package ok" : "fl C package BROKEN");
  return ok ? 0 : 1;
}
