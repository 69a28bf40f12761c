// Private to results_file.c and results_recover.c (and their tests): the CSV column set, cell
// formatting and line writing that appending a live row and rebuilding the CSV from the JSONL
// share, so that a rebuilt file is byte for byte what appending would have written.
#ifndef TF_RESULTS_INTERNAL_H
#define TF_RESULTS_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "metrics.h"

#define TF_RESULTS_HEADER_MAX (1u << 20)       // bytes read to find the CSV header
#define TF_RESULTS_MAX_FILE ((size_t)1 << 30)  // results.jsonl / .csv read back for --resume

// the CSV's columns (results_columns.c); zero-initialized is empty. A hash index answers
// tf_results_columns_has in constant time, so collecting the union of many rows' keys, each
// row with thousands of them, stays linear
typedef struct tf_results_columns {
  int n;
  char** name;   // (n) malloc'd
  int* slot;     // (nslot) open addressing over name[0 .. nindexed - 1]: index + 1, 0 empty
  int nslot;     // a power of two, 0 before the first tf_results_columns_add
  int nindexed;  // names in the index; names appended to name[] directly are searched in turn
} tf_results_columns;

// the CSV columns for a first row whose metric names are names (see results_file.h);
// returns 0, or -1 when out of memory
int tf_results_columns_build(tf_results_columns* c, const char* const* names, int n,
                             const char* const* known, int nknown);
void tf_results_columns_free(tf_results_columns* c);
// appends name unless present; 0, or -1 when out of memory
int tf_results_columns_add(tf_results_columns* c, const char* name);
int tf_results_columns_has(const tf_results_columns* c, const char* name);
// 1 for the names the files give their own place: run_id, command, error, metrics_overflow
int tf_results_reserved(const char* name);

// writes one CSV cell: the text of a column (run_id, command, error or a metric) or nothing
typedef void (*tf_results_cell_fn)(FILE* f, const char* column, const void* ctx);

// one CSV line with its newline (malloc'd); returns 0, or -1 when out of memory
int tf_results_csv_line(const tf_results_columns* c, tf_results_cell_fn cell, const void* ctx,
                        char** line, size_t* len);

// a text cell, quoted when it holds a comma, quote or line break (quotes doubled)
void tf_results_csv_text(FILE* f, const char* s);
// a metric's cell, as tf_metric_csv_cell writes it
void tf_results_csv_metric(FILE* f, const tf_metric* m);

// parses the CSV record at *pos (moving *pos past it): the cells into cells (when not NULL;
// each up to 255 bytes), the first cell into first (when not NULL). Returns the cell count, 0
// at the end of the text, -1 when the record is incomplete (no line end, an open quote)
int tf_results_csv_record(const char* s, size_t n, size_t* pos, tf_results_columns* cells,
                          char* first, size_t firstlen);
// the columns of a CSV's header line; -1 when incomplete or not starting with run_id
int tf_results_csv_header(const char* s, size_t n, tf_results_columns* columns);

// one whole line with one write(); a short write is cut back off; 0, or -1 with a message
int tf_results_write_line(int fd, const char* path, const char* line, size_t len, char* err,
                          size_t errlen);

// "DIR/NAME" into out; -1 when it does not fit
int tf_results_path(char* out, size_t n, const char* dir, const char* name);
void tf_results_sync_dir(const char* dir);
int tf_results_fail(char* err, size_t errlen, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif  // TF_RESULTS_INTERNAL_H
