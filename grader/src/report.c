#include "report.h"

#include <stdlib.h>
#include <string.h>

const char *lab_state_name(lab_state state) {
  switch (state) {
    case LAB_GRADED: return "graded";
    case LAB_BUILD_FAILED: return "build failed";
    case LAB_NO_RUBRIC: return "no rubric";
    case LAB_ERROR: return "error";
  }
  return "unknown";
}

const char *grade_phase_name(grade_phase phase) {
  static const char *const names[PHASE_COUNT] = {"prepare", "gpu_probe", "build", "audit",
                                                 "correctness", "performance", "dependencies"};
  return phase < PHASE_COUNT ? names[phase] : "unknown";
}

void report_init(grade_report *report) {
  memset(report, 0, sizeof *report);
  sl_init(&report->problems);
}

static void lab_free(lab_result *lab) {
  free(lab->lab);
  free(lab->note);
  free(lab->build_errors);
  rubric_free(&lab->rubric);
  tests_free(&lab->tests);
  for (size_t i = 0; i < lab->n_items; i++) item_result_free(&lab->items[i]);
  free(lab->items);
  sl_free(&lab->files_taken);
  sl_free(&lab->files_missing);
  sl_free(&lab->files_rejected);
  sl_free(&lab->files_ignored);
  audit_result_free(&lab->audit);
}

void report_free(grade_report *report) {
  for (size_t i = 0; i < report->n_labs; i++) lab_free(&report->labs[i]);
  free(report->labs);
  free(report->source_dir);
  free(report->build_dir);
  free(report->submission);
  free(report->lab_impl);
  free(report->backend);
  free(report->gpu_name);
  free(report->sandbox);
  free(report->no_gpu_reason);
  free(report->started_at);
  sl_free(&report->problems);
  memset(report, 0, sizeof *report);
}

lab_result *report_add_lab(grade_report *report, const char *lab) {
  report->labs = xrealloc(report->labs, (report->n_labs + 1) * sizeof *report->labs);
  lab_result *result = &report->labs[report->n_labs++];
  memset(result, 0, sizeof *result);
  result->lab = xstrdup(lab);
  result->state = LAB_GRADED;
  rubric_init(&result->rubric, lab);
  tests_init(&result->tests);
  sl_init(&result->files_taken);
  sl_init(&result->files_missing);
  sl_init(&result->files_rejected);
  sl_init(&result->files_ignored);
  audit_result_init(&result->audit);
  return result;
}

/* Every state counts its items: a lab that could not be graded has them all, failed (see
 * lab_not_graded), and only a lab without a rubric has none. */
void lab_totals(const lab_result *lab, report_totals *totals) {
  memset(totals, 0, sizeof *totals);
  for (size_t i = 0; i < lab->n_items; i++) {
    const item_result *item = &lab->items[i];
    if (item->item->bonus) { /* beyond the maximum: what it earns, nothing it could have */
      if (item->state != ITEM_NOT_RUN) totals->score += item->score;
      if (item->state != ITEM_NOT_RUN) totals->bonus += item->score;
      continue;
    }
    totals->rubric_points += item->item->points;
    if (item->state == ITEM_NOT_RUN) {
      totals->not_scored += item->item->points;
    } else {
      totals->score += item->score;
      totals->max_score += item->item->points;
    }
  }
}

void lab_fail_items(lab_result *lab, const char *reason, const char *detail) {
  for (size_t i = 0; i < lab->n_items; i++) item_result_free(&lab->items[i]);
  free(lab->items);
  lab->n_items = lab->rubric.n_items;
  lab->items = xcalloc(lab->n_items + 1, sizeof *lab->items);
  for (size_t i = 0; i < lab->n_items; i++) {
    score_item_lost(&lab->rubric.items[i], reason, detail, &lab->items[i]);
  }
}

void lab_not_graded(lab_result *lab, char *note) {
  lab->state = LAB_ERROR;
  free(lab->note);
  lab->note = note;
  /* Leaving the lab's points out would raise every other score's share of the total: a lab
   * the grader could not grade is shown as lost, with the reason, never as "0 of 0". */
  lab_fail_items(lab, note, "The grader could not grade this lab, so none of its tests counted.\n");
}

void audit_apply(const audit_config *cfg, lab_result *lab) {
  audit_score_items(cfg, &lab->audit, lab->items, lab->n_items);
}

void audit_lines(const lab_result *lab, strlist *lines) {
  for (size_t i = 0; i < lab->audit.count; i++) {
    char *text = audit_finding_text(&lab->audit.findings[i]);
    if (lab->rubric.audit.cost == 0) {
      char *reported = xasprintf("%s (reported only: the rubric's audit cost is none)", text);
      free(text);
      text = reported;
    }
    sl_push_owned(lines, text);
  }
}

char *given_files_sentence(const lab_result *lab) {
  size_t n = lab->files_ignored.count;
  if (n == 0) return NULL;
  strbuf sb;
  sb_init(&sb);
  for (size_t i = 0; i < n; i++) {
    sb_printf(&sb, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " and ", lab->files_ignored.items[i]);
  }
  sb_printf(&sb, " in the submission %s from the course's and %s not used: the given code is "
                 "always the course's", n == 1 ? "differs" : "differ", n == 1 ? "was" : "were");
  return sb_steal(&sb);
}

void report_totals_of(const grade_report *report, report_totals *totals) {
  memset(totals, 0, sizeof *totals);
  for (size_t i = 0; i < report->n_labs; i++) {
    report_totals lab;
    lab_totals(&report->labs[i], &lab);
    totals->score += lab.score;
    totals->max_score += lab.max_score;
    totals->rubric_points += lab.rubric_points;
    totals->not_scored += lab.not_scored;
    totals->bonus += lab.bonus;
  }
}

char *report_gpu_line(const grade_report *report) {
  if (report->backend && strcmp(report->backend, "sim") == 0) {
    return xstrdup("CPU backend (LAB_BACKEND=sim): correctness is checked on the CPU backend; "
                   "performance is not run.");
  }
  if (report->gpu_present) {
    return xasprintf("GPU: %s.", report->gpu_name ? report->gpu_name : "a CUDA device");
  }
  return xasprintf("No GPU: %s. Tests that need a GPU were not run, and their items are not "
                   "scored (neither zero nor full marks). To check correctness on this "
                   "machine's CPU instead, grade with the CPU backend: "
                   "cmake --workflow --preset grade-sim.",
                   report->no_gpu_reason ? report->no_gpu_reason : "no CUDA device was found");
}

/* ---- escaping ---- */

/* Length of the valid UTF-8 sequence at `p` (1..4), or 0 if it is not one. */
static size_t utf8_sequence(const unsigned char *p) {
  if (p[0] < 0x80) return 1;
  size_t n;
  unsigned long cp;
  if ((p[0] & 0xE0) == 0xC0) {
    n = 2;
    cp = p[0] & 0x1Fu;
  } else if ((p[0] & 0xF0) == 0xE0) {
    n = 3;
    cp = p[0] & 0x0Fu;
  } else if ((p[0] & 0xF8) == 0xF0) {
    n = 4;
    cp = p[0] & 0x07u;
  } else {
    return 0;
  }
  for (size_t i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3Fu);
  }
  static const unsigned long smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

void json_append_string(strbuf *sb, const char *text) {
  sb_append_char(sb, '"');
  const unsigned char *p = (const unsigned char *)(text ? text : "");
  while (*p) {
    unsigned char c = *p;
    if (c == '"') sb_append(sb, "\\\"");
    else if (c == '\\') sb_append(sb, "\\\\");
    else if (c == '\n') sb_append(sb, "\\n");
    else if (c == '\r') sb_append(sb, "\\r");
    else if (c == '\t') sb_append(sb, "\\t");
    else if (c < 0x20 || c == 0x7F) sb_printf(sb, "\\u%04x", c);
    else if (c < 0x80) sb_append_char(sb, (char)c);
    else {
      size_t n = utf8_sequence(p);
      if (n == 0) {
        sb_append(sb, "\xEF\xBF\xBD");
        p++;
        continue;
      }
      sb_append_n(sb, (const char *)p, n);
      p += n;
      continue;
    }
    p++;
  }
  sb_append_char(sb, '"');
}

void xml_append_escaped(strbuf *sb, const char *text) {
  const unsigned char *p = (const unsigned char *)(text ? text : "");
  while (*p) {
    unsigned char c = *p;
    if (c == '<') sb_append(sb, "&lt;");
    else if (c == '>') sb_append(sb, "&gt;");
    else if (c == '&') sb_append(sb, "&amp;");
    else if (c == '"') sb_append(sb, "&quot;");
    else if (c == '\'') sb_append(sb, "&apos;");
    else if (c == '\n' || c == '\t' || c == '\r') sb_append_char(sb, (char)c);
    else if (c < 0x20 || c == 0x7F) sb_append(sb, "?"); /* not allowed in XML 1.0 */
    else if (c < 0x80) sb_append_char(sb, (char)c);
    else {
      size_t n = utf8_sequence(p);
      if (n == 0) {
        sb_append(sb, "\xEF\xBF\xBD");
        p++;
        continue;
      }
      sb_append_n(sb, (const char *)p, n);
      p += n;
      continue;
    }
    p++;
  }
}

char *printable_text(const char *text) {
  strbuf sb;
  sb_init(&sb);
  const unsigned char *p = (const unsigned char *)(text ? text : "");
  while (*p) {
    if (*p == '\n' || *p == '\t') {
      sb_append_char(&sb, (char)*p++);
    } else if (*p < 0x20 || *p == 0x7F) {
      sb_append_char(&sb, '?');
      p++;
    } else {
      size_t n = utf8_sequence(p);
      if (n == 0) {
        sb_append(&sb, "\xEF\xBF\xBD");
        p++;
      } else {
        sb_append_n(&sb, (const char *)p, n);
        p += n;
      }
    }
  }
  return sb_steal(&sb);
}

void csv_append_field(strbuf *sb, const char *text) {
  text = text ? text : "";
  if (strpbrk(text, ",\"\n\r") == NULL) {
    sb_append(sb, text);
    return;
  }
  sb_append_char(sb, '"');
  for (const char *p = text; *p; p++) {
    if (*p == '"') sb_append_char(sb, '"');
    sb_append_char(sb, *p);
  }
  sb_append_char(sb, '"');
}
