/* fl_status_str: every status has its own text, led by its name, and a value
 * outside the enum gets a text too (never NULL). */
#include <fl/fl.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect_text(fl_status st, const char* name) {
  const char* text = fl_status_str(st);
  size_t n = strlen(name);
  if (text == NULL || strncmp(text, name, n) != 0 || text[n] != ':' || text[n + 1] != ' ' ||
      text[n + 2] == '\0') {
    fprintf(stderr, "fl_status_str(%d) = \"%s\", want \"%s: <meaning>\"\n", (int)st,
            text ? text : "(null)", name);
    ++failures;
  }
}

int main(void) {
  fl_str s = FL_STR_INIT;
  expect_text(FL_OK, "FL_OK");
  expect_text(FL_ENOMEM, "FL_ENOMEM");
  expect_text(FL_ERANGE, "FL_ERANGE");
  expect_text(FL_EIO, "FL_EIO");
  expect_text(FL_EINVAL, "FL_EINVAL");
  expect_text((fl_status)99, "FL_?");
  expect_text((fl_status)-1, "FL_?");
  /* The text of a real failure, as a program would print it. */
  expect_text(fl_str_substr(&s, 1, 0, &s), "FL_ERANGE");
  expect_text(fl_str_init(NULL), "FL_EINVAL");
  if (strcmp(fl_status_str(FL_ENOMEM), fl_status_str(FL_EIO)) == 0) {
    fprintf(stderr, "two statuses share one text\n");
    ++failures;
  }
  fl_str_free(&s);
  return failures == 0 ? 0 : 1;
}
