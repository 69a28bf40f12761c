// Escaping text for HTML element content, quoted attributes and relative URLs.
#include "html_escape.h"

#include <stdarg.h>

void tf_html_puts(FILE* f, const char* s) {
  if (!s) return;
  for (const char* c = s; *c; c++) {
    switch (*c) {
      case '&':
        fputs("&amp;", f);
        break;
      case '<':
        fputs("&lt;", f);
        break;
      case '>':
        fputs("&gt;", f);
        break;
      case '"':
        fputs("&quot;", f);
        break;
      case '\'':
        fputs("&#39;", f);
        break;
      default:
        fputc(*c, f);
        break;
    }
  }
}

void tf_html_printf(FILE* f, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  tf_html_puts(f, buf);
}

// RFC 3986 unreserved characters, plus '/' which separates the path's folders
static int url_plain(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~' || c == '/';
}

void tf_html_url_path(FILE* f, const char* path) {
  if (!path) return;
  for (const unsigned char* c = (const unsigned char*)path; *c; c++) {
    if (url_plain(*c)) {
      fputc(*c, f);
    } else {
      fprintf(f, "%%%02X", *c);
    }
  }
}
