// Writing untrusted text (task parameters, commands, file names, JSON) into an HTML page
// without letting it become markup: the only way report code puts a string on the page.
#ifndef TF_HTML_ESCAPE_H
#define TF_HTML_ESCAPE_H

#include <stdio.h>

// writes s with & < > " ' as character references, safe in element text and in a quoted
// attribute; NULL writes nothing
void tf_html_puts(FILE* f, const char* s);

// printf into a bounded buffer, then tf_html_puts (a message longer than 1 KiB is cut)
void tf_html_printf(FILE* f, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// writes a relative file path as a URL path for src / href: bytes outside the unreserved set
// and '/' are %XX-encoded, so names with spaces, '#' or '?' still point at their file
void tf_html_url_path(FILE* f, const char* path);

#endif  // TF_HTML_ESCAPE_H
