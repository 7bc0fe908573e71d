/* The gradebook files of a batch (grade --batch, grade --merge), one line per submission or per
 * item, all CSV (RFC 4180: a field is quoted when it holds a comma, a quote or a line break):
 *   gradebook.csv  submission, totals, status, each lab's score, each item's score
 *   lms.csv        for a learning-management system's import: id, total, each lab's score
 *   items.csv      one line per item: submission, lab, item, score, max, reason
 * The columns are documented in grader/README.md ("The gradebook files"). An empty score cell
 * means not scored, never zero. */
#ifndef GRADE_GRADEBOOK_H
#define GRADE_GRADEBOOK_H

#include "report.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gradebook_file { GRADEBOOK_MAIN, GRADEBOOK_LMS, GRADEBOOK_ITEMS } gradebook_file;
#define GRADEBOOK_FILES 3

/* The file's name in an output folder: "gradebook.csv", "lms.csv", "items.csv". */
const char *gradebook_file_name(gradebook_file file);

/* Appends the file's header line; gradebook.csv's and lms.csv's columns follow the labs and
 * items of `report` (every submission of a batch has the same). */
void gradebook_file_header(gradebook_file file, const grade_report *report, strbuf *csv);
/* Appends the file's lines for one submission: one line, or for items.csv one per item. */
void gradebook_file_rows(gradebook_file file, const char *submission, const grade_report *report,
                         strbuf *csv);

/* gradebook.csv's header and line (the same as gradebook_file_header/rows with GRADEBOOK_MAIN). */
void gradebook_header(const grade_report *report, strbuf *csv);
void gradebook_row(const char *submission, const grade_report *report, strbuf *csv);

/* Splits CSV text into records (each with its line break, quoted line breaks included).
 * Returns 0, or -1 when a quoted field is not closed. Records are copies, in order. */
int csv_records(const char *text, size_t length, strlist *records);
/* The first field of a record, unquoted. */
char *csv_first_field(const char *record);

#ifdef __cplusplus
}
#endif
#endif
