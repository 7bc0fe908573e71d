#!/usr/bin/env bash
# The hostile submissions of grader/selftest/hostile/ (its README says what each one tries),
# graded as a class would be: one `grade --batch` of all of them, with a submission made of the
# solutions' files after them (two graders sharing the GPU, --gpus 0,0, where there is one).
# Checks, each a PASS or FAIL line:
#   - each hostile submission earns no more than its expect file allows (0 for every item it
#     does not name), and its items' reasons say what the expect file says they say;
#   - the solutions, graded after them, keep every correctness point (without a GPU: no step
#     fails);
#   - no process started by a submission is alive once the batch has ended, the test programs
#     in the work folders are still programs, and the reports are the same a while later.
# It ends with "hostile: N passed, M failed" and exits non-zero when anything failed.
#
# usage: grader/selftest/hostile.sh [--work DIR] [--grade GRADE] [--lab LAB]... [--jobs N]
#                                   [--allow-no-gpu]
#   --work DIR      builds and reports (default: build/selftest/hostile)
#   --grade GRADE   the grade program (default: built in DIR/grader-build)
#   --lab LAB       only the hostile submissions of this lab (repeatable)
#   --allow-no-gpu  without a GPU, grade the submissions that need none (on the CPU backend)
#   HOSTILE_WAIT    seconds between the batch's end and the second look at its reports (10)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
hostile="$root/grader/selftest/hostile"
work="$root/build/selftest/hostile"
grade=""
labs=()
jobs=()
allow_no_gpu=0
while [ $# -gt 0 ]; do
  case "$1" in
    --work) work="$2"; shift 2 ;;
    --grade) grade="$2"; shift 2 ;;
    --lab) labs+=("$2"); shift 2 ;;
    --jobs) jobs=(--jobs "$2"); shift 2 ;;
    --allow-no-gpu) allow_no_gpu=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "hostile: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
tally_name=hostile
source "$root/grader/selftest/tally.sh"
wants_lab() {
  [ ${#labs[@]} -eq 0 ] && return 0
  local lab
  for lab in "${labs[@]}"; do [ "$lab" = "$1" ] && return 0; done
  return 1
}
# expect_field <expect file> <keyword>: the rest of each line that starts with the keyword.
expect_field() { awk -v k="$2" '$1 == k { sub(/^[^ \t]+[ \t]+/, ""); print }' "$1"; }

have_gpu=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' && have_gpu=1
if [ "$have_gpu" -eq 0 ] && [ "$allow_no_gpu" -eq 0 ]; then
  fail "no GPU: the hostile submissions are graded on a GPU (--allow-no-gpu: the CPU backend)"
  finish
fi

mkdir -p "$work"
work="$(cd "$work" && pwd)"
if [ -z "$grade" ]; then
  build="$work/grader-build"
  if ! cmake -S "$root" -B "$build" -DLAB_IMPL=labs >"$work/configure.log" 2>&1 ||
     ! cmake --build "$build" --target grade --parallel >"$work/build-grade.log" 2>&1; then
    fail "building the grader: see $work/configure.log and $work/build-grade.log"
    finish
  fi
  grade="$build/grader/src/grade"
fi

# ---- the batch: the hostile submissions, then the solutions ------------------------------------
batch="$work/batch"
rm -rf "$batch" "$work/out"
mkdir -p "$batch"
names=()
graded_labs=()
for dir in "$hostile"/*/; do
  name="$(basename "$dir")"
  [ -f "$dir/expect" ] || continue
  lab="$(expect_field "$dir/expect" lab)"
  wants_lab "$lab" || continue
  if [ "$have_gpu" -eq 0 ] && grep -q '^needs gpu' "$dir/expect"; then
    echo "note  $name: needs a GPU: not graded here"
    continue
  fi
  cp -R "$dir" "$batch/$name"
  # A file may come as the solutions' file with a patch (labs/<lab>/<file>.patch): made here, so
  # that the submission follows the solutions and holds only what it changes.
  while IFS= read -r patch_file; do
    rel="${patch_file#"$batch/$name/"}"
    rel="${rel%.patch}"
    if ! cp "$root/solutions/${rel#labs/}" "$batch/$name/$rel" ||
       ! patch --quiet --no-backup-if-mismatch "$batch/$name/$rel" "$patch_file" >"$work/patch.log" 2>&1; then
      fail "$name: ${rel}.patch does not apply to solutions/${rel#labs/} (patch(1) needed; see $work/patch.log)"
    fi
    rm -f "$patch_file"
  done < <(find "$batch/$name/labs" -name '*.patch' -type f 2>/dev/null)
  names+=("$name")
  [[ " ${graded_labs[*]} " == *" $lab "* ]] || graded_labs+=("$lab")
done
[ ${#names[@]} -gt 0 ] || { echo "hostile: no hostile submission to grade"; finish; }

# The solutions of the same labs, named to be graded last.
solutions="$batch/zz-solutions"
for lab in "${graded_labs[@]}"; do
  for pattern in $(awk '$1 == "files" { for (i = 2; i <= NF; i++) print $i }' \
                     "$root/labs/$lab/$lab.rubric"); do
    for file in "$root"/solutions/${pattern#labs/}; do
      rel="labs/${file#"$root"/solutions/}"
      mkdir -p "$solutions/$(dirname "$rel")"
      cp "$file" "$solutions/$rel"
    done
  done
done

lab_args=()
for lab in "${graded_labs[@]}"; do lab_args+=(--lab "$lab"); done
gpu_args=()
[ "$have_gpu" -eq 1 ] && gpu_args=(--gpus 0,0)
echo "hostile: grading ${names[*]} and zz-solutions (${graded_labs[*]})"
"$grade" --batch "$batch" --out "$work/out" --work-dir "$work/work" --quiet "${lab_args[@]}" \
  "${gpu_args[@]}" "${jobs[@]}" </dev/null >"$work/grade.log" 2>&1
status=$?
[ "$status" -eq 0 ] || fail "grade --batch exited with $status (see $work/grade.log)"

# ---- what outlived the batch -------------------------------------------------------------------
reports() { find "$work/out" -type f \( -name '*.json' -o -name '*.tsv' -o -name '*.csv' -o -name '*.md' -o -name '*.xml' \) -exec sha256sum {} + | sort; }
before="$(reports)"
left=""
for exe in /proc/[0-9]*/exe; do
  target="$(readlink "$exe" 2>/dev/null)" || continue
  case "$target" in "$work"/*) left="$left ${exe#/proc/} (${target#"$work"/})" ;; esac
done
[ -z "$left" ] && pass "no process of a submission outlived the batch" ||
  fail "processes of a submission outlived the batch:${left//\/exe/}"
not_programs=""
while IFS= read -r program; do
  [ "$(head -c 4 "$program" | od -An -c | tr -d ' ')" = "177ELF" ] || not_programs="$not_programs ${program#"$work"/}"
done < <(find "$work/work" -path '*/grader/tests/test_*' -type f -perm -u+x 2>/dev/null)
[ -z "$not_programs" ] && pass "every test program in the work folders is still a program" ||
  fail "test programs replaced:$not_programs"
sleep "${HOSTILE_WAIT:-10}"
[ "$before" = "$(reports)" ] && pass "the batch's reports are the same ${HOSTILE_WAIT:-10} s after it ended" ||
  fail "the batch's reports changed after it ended: $(diff <(echo "$before") <(reports) | head -n 4 | tr '\n' ' ')"

# ---- each submission's items -------------------------------------------------------------------
for name in "${names[@]}"; do
  expect="$batch/$name/expect"
  lab="$(expect_field "$expect" lab)"
  items="$work/out/$name/items.tsv"
  if [ ! -f "$items" ]; then
    fail "$name: no report (see $work/grade.log)"
    continue
  fi
  # Each item of the lab: no more points than its earns line allows (0 without one); each reason
  # line's text in the item's reason.
  verdict="$(awk -F'\t' -v lab="$lab" '
    FNR == NR {
      if ($1 == "earns") allowed[$2] = $3
      if ($1 == "reason") reason[$2] = $3
      next
    }
    FNR > 1 && $1 == lab {
      seen[$2] = 1
      limit = ($2 in allowed) ? allowed[$2] + 0 : 0
      if ($5 != "" && $5 + 0 > limit) bad = bad sprintf("%s earned %s (at most %s); ", $2, $5, limit)
      if (($2 in reason) && index(tolower($8), tolower(reason[$2])) == 0)
        bad = bad sprintf("%s: the reason \"%s\" does not say \"%s\"; ", $2, $8, reason[$2])
      total += ($5 == "" ? 0 : $5)
    }
    END {
      for (name in reason) if (!(name in seen)) bad = bad sprintf("no item %s in the report; ", name)
      if (bad != "") print "FAIL\t" bad; else printf "PASS\t%s points\n", total + 0
    }' <(awk '{ k = $1; i = $2; $1 = $2 = ""; sub(/^ +/, ""); print k "\t" i "\t" $0 }' "$expect") "$items")"
  if [ "${verdict%%$'\t'*}" = "PASS" ]; then
    pass "$name ($lab): ${verdict#*$'\t'}, no more than allowed"
  else
    fail "$name ($lab): ${verdict#*$'\t'}(report: $work/out/$name)"
  fi
done

for lab in "${graded_labs[@]}"; do
  problems="$(awk -F'\t' -v lab="$lab" -v gpu="$have_gpu" '
    NR > 1 && $1 == lab && $3 == "step" {
      if ($4 == "failed" || (gpu && $4 != "passed")) print $2 " " $4 ": " $8
    }' "$work/out/zz-solutions/items.tsv" 2>/dev/null)"
  if [ ! -f "$work/out/zz-solutions/items.tsv" ]; then
    fail "zz-solutions: no report (see $work/grade.log)"
  elif [ -z "$problems" ]; then
    pass "zz-solutions ($lab), graded after the hostile ones: no correctness step lost"
  else
    fail "zz-solutions ($lab), graded after the hostile ones: $(echo "$problems" | paste -sd ';' -)"
  fi
done
finish
