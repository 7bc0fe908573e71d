/* junit.xml for CI: one <testsuite> per lab, one <testcase> per rubric item. A failed item is
 * a <failure>, a not-scored one <skipped>; a partial performance item passes (it earned
 * points) and says how many in its output. Points are <property> elements. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static void append_attr(strbuf *sb, const char *name, const char *value) {
  sb_printf(sb, " %s=\"", name);
  xml_append_escaped(sb, value);
  sb_append_char(sb, '"');
}

static void append_property(strbuf *sb, const char *indent, const char *name, double value) {
  sb_printf(sb, "%s<property name=\"%s\" value=\"%.2f\"/>\n", indent, name, value);
}

static void append_item(strbuf *sb, const lab_result *lab, const item_result *item) {
  char *classname = xasprintf("gpulabs.%s", lab->lab);
  sb_append(sb, "    <testcase");
  append_attr(sb, "classname", classname);
  append_attr(sb, "name", item->item->id);
  sb_append(sb, " time=\"0\">\n");
  free(classname);
  sb_append(sb, "      <properties>\n");
  if (item->state != ITEM_NOT_RUN) append_property(sb, "        ", "score", item->score);
  append_property(sb, "        ", "max_score", item->item->points);
  if (item->item->kind == ITEM_PERF && item->ratio == item->ratio) {
    append_property(sb, "        ", "ratio", item->ratio);
  }
  sb_append(sb, "      </properties>\n");
  if (item->state == ITEM_FAILED) {
    sb_append(sb, "      <failure");
    append_attr(sb, "message", item->reason ? item->reason : "failed");
    sb_append(sb, " type=\"failed\"/>\n");
  } else if (item->state == ITEM_NOT_RUN) {
    sb_append(sb, "      <skipped");
    append_attr(sb, "message", item->reason ? item->reason : "not run");
    sb_append(sb, "/>\n");
  }
  sb_append(sb, "      <system-out>");
  if (item->state == ITEM_NOT_RUN) {
    sb_printf(sb, "not scored (%g points)\n", item->item->points);
  } else {
    sb_printf(sb, "%.2f of %g points\n", item->score, item->item->points);
  }
  if (item->item->bonus) sb_append(sb, "bonus: counted in the score, not in the maximum\n");
  if (item->reason) {
    xml_append_escaped(sb, item->reason);
    sb_append_char(sb, '\n');
  }
  if (lab->build_errors) {
    sb_append(sb, "The first build errors:\n");
    xml_append_escaped(sb, lab->build_errors);
  }
  if (item->detail) xml_append_escaped(sb, item->detail);
  sb_append(sb, "</system-out>\n    </testcase>\n");
}

int write_junit_xml(const grade_report *report, const char *path) {
  strbuf body;
  sb_init(&body);
  size_t all_tests = 0, all_failures = 0, all_skipped = 0;
  for (size_t i = 0; i < report->n_labs; i++) {
    const lab_result *lab = &report->labs[i];
    report_totals totals;
    lab_totals(lab, &totals);
    size_t failures = 0, skipped = 0, count = lab->n_items;
    for (size_t j = 0; j < lab->n_items; j++) {
      failures += lab->items[j].state == ITEM_FAILED;
      skipped += lab->items[j].state == ITEM_NOT_RUN;
    }
    int graded = lab->n_items > 0; /* a lab without a rubric (or items) is one test case */
    if (!graded) {
      count = 1;
      failures = lab->state == LAB_ERROR;
      skipped = lab->state == LAB_NO_RUBRIC;
    }
    all_tests += count;
    all_failures += failures;
    all_skipped += skipped;
    sb_append(&body, "  <testsuite");
    append_attr(&body, "name", lab->lab);
    sb_printf(&body, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.1f\">\n",
              count, failures, skipped, lab->seconds);
    sb_append(&body, "    <properties>\n");
    append_property(&body, "      ", "score", totals.score);
    append_property(&body, "      ", "max_score", totals.max_score);
    append_property(&body, "      ", "not_scored_points", totals.not_scored);
    sb_append(&body, "    </properties>\n");
    if (graded) {
      for (size_t j = 0; j < lab->n_items; j++) append_item(&body, lab, &lab->items[j]);
    } else {
      sb_append(&body, "    <testcase");
      char *classname = xasprintf("gpulabs.%s", lab->lab);
      append_attr(&body, "classname", classname);
      free(classname);
      append_attr(&body, "name", lab->lab);
      sb_append(&body, " time=\"0\">\n");
      sb_append(&body, lab->state == LAB_ERROR ? "      <failure" : "      <skipped");
      append_attr(&body, "message", lab->note ? lab->note : lab_state_name(lab->state));
      sb_append(&body, "/>\n    </testcase>\n");
    }
    sb_append(&body, "  </testsuite>\n");
  }
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  sb_printf(&sb, "<testsuites name=\"gpulabs grade\" tests=\"%zu\" failures=\"%zu\" "
                 "skipped=\"%zu\" time=\"%.1f\">\n",
            all_tests, all_failures, all_skipped, report->seconds);
  sb_append(&sb, body.data);
  sb_append(&sb, "</testsuites>\n");
  int rc = write_file_atomic(path, sb.data, sb.len);
  sb_free(&sb);
  sb_free(&body);
  return rc;
}
