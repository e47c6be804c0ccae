/* fl from C: a value-type string with inline storage and status codes. */
#include <fl/fl.h>

#include <stdio.h>

int main(void) {
  fl_str s = FL_STR_INIT;
  if (fl_str_from(&s, "hello") != FL_OK) return 1;
  if (fl_str_appendf(&s, ", %s #%d", "world", 42) != FL_OK) return 1;
  size_t at = fl_str_find(&s, "world", 5, 0);
  printf("%s (world at %zu, %zu bytes)\n", fl_str_cstr(&s), at, fl_str_len(&s));
  fl_str_free(&s);
  return at == 7 ? 0 : 1;
}
