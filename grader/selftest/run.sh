#!/usr/bin/env bash
# The grader's self-test: does the grader give the scores it should? Run it on a machine with a
# GPU (it checks the kernels for real). Four parts:
#   1. the untouched stubs earn 0 correctness points in every lab;
#   2. a submission made of the solutions' files (copied to their labs/ paths) earns every
#      correctness point (performance items may be partial: their ratios are shown);
#   3. for each mutation of a lab (labs/<lab>/<lab>_mutations.txt), the solutions with that one
#      change lose exactly the named items' points, and the report says why;
#   4. the hostile submissions of hostile/, graded by hostile.sh (which says how).
# It ends with "selftest: N passed, M failed" and exits non-zero when anything failed.
#
# usage: grader/selftest/run.sh [--work DIR] [--lab LAB]... [--jobs N] [--cmake-arg ARG]...
#                               [--no-mutations] [--allow-no-gpu] [--check-mutations]
#                               [--write-mutation DESCRIPTION FILE]
#   --work DIR       where builds and reports go (default: build/selftest; kept between runs,
#                    so a second run rebuilds only what changed)
#   --lab LAB        check only this lab (repeatable); mutations of other labs are skipped
#   --jobs N         passed to grade
#   --cmake-arg ARG  passed to the first configure, e.g. -DCMAKE_CUDA_ARCHITECTURES=90
#   --no-mutations   parts 1, 2 and 4 only
#   --allow-no-gpu   without a GPU, check what can be checked (no step earns points from a
#                    stub; no step of the solutions fails; the hostile submissions that need
#                    no GPU) instead of stopping
#   --write-mutation DESCRIPTION FILE  only write the solution file that the mutation with this
#                    description (its sixth field) changes, changed, to FILE; no build, no GPU
#                    (grader/tests/sim_checks builds one this way)
#   --check-mutations  only check that each mutation line applies to its solution (its
#                    text occurs once, its items exist); no build, no GPU
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$root/build/selftest"
labs=()
jobs=()
cmake_args=()
run_mutations=1
allow_no_gpu=0
check_only=0
write_description=""
write_target=""

while [ $# -gt 0 ]; do
  case "$1" in
    --work) work="$2"; shift 2 ;;
    --lab) labs+=("$2"); shift 2 ;;
    --jobs) jobs=(--jobs "$2"); shift 2 ;;
    --cmake-arg) cmake_args+=("$2"); shift 2 ;;
    --no-mutations) run_mutations=0; shift ;;
    --allow-no-gpu) allow_no_gpu=1; shift ;;
    --check-mutations) check_only=1; shift ;;
    --write-mutation) write_description="$2"; write_target="$3"; shift 3 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "selftest: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
tally_name=selftest
source "$root/grader/selftest/tally.sh"

lab_args=()
for lab in "${labs[@]}"; do lab_args+=(--lab "$lab"); done
wants_lab() {
  [ ${#labs[@]} -eq 0 ] && return 0
  local lab
  for lab in "${labs[@]}"; do [ "$lab" = "$1" ] && return 0; done
  return 1
}

# ---- the labs' mutations ------------------------------------------------------------------------
# labs/<lab>/<lab>_mutations.txt, one mutation per line, fields separated by '|' (the format is in
# grader/selftest/README.md):
#   lab | file | text to find | replacement | items | description | text the reason shows
trim() {
  local s="$1"
  s="${s#"${s%%[![:space:]]*}"}"
  s="${s%"${s##*[![:space:]]}"}"
  printf '%s' "$s"
}

# Splits one line into the variables lab, file, find, replace, items, description, expect.
# Returns 1 (after saying why) for a line that is not a mutation.
parse_mutation() {
  local line="${1//\\|/$'\x1f'}" value i
  local -a fields
  IFS='|' read -r -a fields <<<"$line"
  if [ "${#fields[@]}" -lt 6 ] || [ "${#fields[@]}" -gt 7 ]; then
    echo "has ${#fields[@]} fields separated by '|', not 6 or 7 (a '|' inside a field is written \\|)"
    return 1
  fi
  for i in "${!fields[@]}"; do
    value="$(trim "${fields[i]}")"
    value="${value//$'\x1f'/|}"
    fields[i]="${value//\\n/$'\n'}"
  done
  lab="${fields[0]}" file="${fields[1]}" find="${fields[2]}" replace="${fields[3]}"
  items="${fields[4]}" description="${fields[5]}" expect="${fields[6]:-}"
}

# Writes the mutated copy of $source to $target. Returns 1 (after saying why) when the text to
# find does not occur exactly once.
apply_mutation() {
  local source="$1" target="$2" content rest count=0
  if [ ! -f "$source" ]; then
    echo "$source does not exist"
    return 1
  fi
  content="$(cat "$source"; printf x)"
  content="${content%x}"
  rest="$content"
  while [ -n "$find" ] && [[ "$rest" == *"$find"* ]]; do
    rest="${rest#*"$find"}"
    count=$((count + 1))
  done
  if [ "$count" -ne 1 ]; then
    echo "the text to find occurs $count times in ${source#"$root"/} (it must occur once)"
    return 1
  fi
  printf '%s' "${content/"$find"/"$replace"}" >"$target"
}

# The items of $items missing from the lab's rubric, one per line.
missing_items() {
  local name
  local -a names rubrics=("$root/labs/$lab/$lab.rubric")
  [ -f "$root/grader/private/$lab.rubric" ] && rubrics+=("$root/grader/private/$lab.rubric")
  IFS=',' read -r -a names <<<"$items"
  for name in "${names[@]}"; do
    name="$(trim "$name")"
    name="${name#\?}"
    [ -n "$name" ] || continue
    awk -v id="$name" '($1 == "step" || $1 == "perf") && $2 == id { found = 1 } END { exit !found }' \
      "${rubrics[@]}" 2>/dev/null || echo "$name"
  done
}

# Every lab's mutation lines, in the course's order. A line must name the lab whose file it is in.
mutation_lines() {
  local lab file line
  for lab in $("$root/grader/course-labs"); do
    file="$root/labs/$lab/${lab}_mutations.txt"
    [ -f "$file" ] || continue
    while IFS= read -r line; do
      if [ "$(trim "${line%%|*}")" != "$lab" ]; then
        echo "selftest: a line of labs/$lab/${lab}_mutations.txt names another lab: ${line:0:60}" >&2
        return 1
      fi
      printf '%s\n' "$line"
    done < <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$file")
  done
}

if [ -n "$write_description" ]; then
  while IFS= read -r line; do
    parse_mutation "$line" >/dev/null || continue
    [ "$description" = "$write_description" ] || continue
    apply_mutation "$root/solutions/$lab/$file" "$write_target" || exit 1
    exit 0
  done < <(mutation_lines)
  echo "selftest: no mutation of the labs' *_mutations.txt is described as '$write_description'" >&2
  exit 1
fi

if [ "$check_only" -eq 1 ]; then
  number=0
  scratch="$(mktemp)"
  while IFS= read -r line; do
    number=$((number + 1))
    if ! why="$(parse_mutation "$line")"; then
      fail "mutation $number: $why"
      continue
    fi
    parse_mutation "$line" >/dev/null
    wants_lab "$lab" || continue
    if ! why="$(apply_mutation "$root/solutions/$lab/$file" "$scratch")"; then
      fail "mutation $number ($lab: $description): $why"
    elif [ -n "$(missing_items)" ]; then
      fail "mutation $number ($lab: $description): no item $(missing_items | paste -sd ',' -) in the rubric"
    else
      pass "mutation $number ($lab: $description): applies"
    fi
  done < <(mutation_lines)
  rm -f "$scratch"
  finish
fi

mkdir -p "$work"
work="$(cd "$work" && pwd)"

# ---- the grader itself, built in the stubs' build tree ----------------------------------------
stub_build="$work/stub-build"
echo "selftest: building the grader in $stub_build"
if ! cmake -S "$root" -B "$stub_build" -DLAB_IMPL=labs "${cmake_args[@]}" >"$work/configure.log" 2>&1 ||
   ! cmake --build "$stub_build" --target grade --parallel >"$work/build-grade.log" 2>&1; then
  fail "building the grader: see $work/configure.log and $work/build-grade.log"
  finish
fi
grade="$stub_build/grader/src/grade"

# items.tsv: lab, item, kind, result, score, max_score, ratio, why (tab-separated).
gpu_present() { grep -q '"present": true' "$1/results.json"; }
labs_in() { awk -F'\t' 'NR > 1 && $2 != "-" { print $1 }' "$1/items.tsv" | uniq; }

# ---- 1. the stubs ------------------------------------------------------------------------------
echo "selftest: 1. grading the untouched stubs"
"$grade" --build-dir "$stub_build" --out "$work/out-stubs" --quiet "${lab_args[@]}" "${jobs[@]}" \
  >"$work/out-stubs.log" 2>&1
status=$?
[ "$status" -eq 0 ] || fail "stubs: grade exited with $status (see $work/out-stubs.log)"
have_gpu=1
if ! gpu_present "$work/out-stubs"; then
  have_gpu=0
  if [ "$allow_no_gpu" -eq 0 ]; then
    fail "no GPU: the self-test checks kernels on a GPU (--allow-no-gpu checks what it can without)"
    finish
  fi
  echo "selftest: no GPU: checking only what needs none; the mutations are skipped"
fi
awk -F'\t' 'NR > 1 && ($4 == "error" || $4 == "no rubric") { print $1 ": " $4 ": " $8 }' \
  "$work/out-stubs/items.tsv" | while IFS= read -r line; do echo "note  stubs: $line"; done
for lab in $(labs_in "$work/out-stubs"); do
  problems="$(awk -F'\t' -v lab="$lab" -v gpu="$have_gpu" '
    NR > 1 && $1 == lab && $3 == "step" {
      if ($5 != "" && $5 + 0 > 0) print $2 " earned " $5 " of " $6 " points";
      else if (gpu && $4 == "not run") print $2 " was not run (" $8 ")";
      steps += $6
    }
    END { if (steps == 0) print "no step has points" }' "$work/out-stubs/items.tsv")"
  total="$(awk -F'\t' -v lab="$lab" 'NR > 1 && $1 == lab && $3 == "step" { s += $6 } END { print s + 0 }' \
    "$work/out-stubs/items.tsv")"
  if [ -z "$problems" ] && [ "$have_gpu" -eq 0 ]; then
    pass "stubs: $lab: no correctness step earned points (most were not run: no GPU)"
  elif [ -z "$problems" ]; then
    pass "stubs: $lab: 0 of $total correctness points"
  else
    fail "stubs: $lab: $(echo "$problems" | paste -sd ';' -)"
  fi
done

# ---- 2. the solutions, as a submission ---------------------------------------------------------
echo "selftest: 2. grading a submission made of the solutions"
submission="$work/solutions-submission"
rm -rf "$submission"
mkdir -p "$submission"
shopt -s nullglob
for lab in $("$root/grader/course-labs"); do
  rubric="$root/labs/$lab/$lab.rubric"
  wants_lab "$lab" || continue
  while IFS= read -r pattern; do
    found=0
    # labs/<lab>/<file> of the stub is solutions/<lab>/<file> of the solution.
    for file in "$root"/solutions/${pattern#labs/}; do
      rel="labs/${file#"$root"/solutions/}"
      mkdir -p "$submission/$(dirname "$rel")"
      cp "$file" "$submission/$rel"
      found=1
    done
    [ "$found" -eq 1 ] || fail "solutions: $lab: no solution file for $pattern"
  done < <(awk '$1 == "files" { for (i = 2; i <= NF; i++) print $i }' "$rubric")
done
shopt -u nullglob
"$grade" --work-dir "$work/work" --out "$work/out-solutions" --quiet "${lab_args[@]}" "${jobs[@]}" \
  "$submission" >"$work/out-solutions.log" 2>&1
status=$?
[ "$status" -eq 0 ] || fail "solutions: grade exited with $status (see $work/out-solutions.log)"
for lab in $(labs_in "$work/out-solutions"); do
  problems="$(awk -F'\t' -v lab="$lab" -v gpu="$have_gpu" '
    NR > 1 && $1 == lab && $3 == "step" {
      if ($4 == "failed" || (gpu && $4 != "passed")) print $2 " " $4 ": " $8
    }' "$work/out-solutions/items.tsv")"
  if [ -z "$problems" ] && [ "$have_gpu" -eq 0 ]; then
    pass "solutions: $lab: no correctness step failed (most were not run: no GPU)"
  elif [ -z "$problems" ]; then
    pass "solutions: $lab: every correctness point"
  else
    fail "solutions: $lab: $(echo "$problems" | paste -sd ';' -)"
  fi
  awk -F'\t' -v lab="$lab" 'NR > 1 && $1 == lab && $3 == "perf" {
      printf "info  solutions: %s %s: %s of %s points, ratio %s %s\n", $1, $2, ($5 == "" ? "--" : $5), $6, ($7 == "" ? "--" : $7), $8
    }' "$work/out-solutions/items.tsv"
done
cp "$work/out-solutions/items.tsv" "$work/baseline.tsv"

# ---- 3. the mutations --------------------------------------------------------------------------
if [ "$run_mutations" -eq 1 ] && [ "$have_gpu" -eq 1 ]; then
  echo "selftest: 3. grading the mutations in labs/<lab>/<lab>_mutations.txt"
  number=0
  # Read whole before the first grade: nothing a grade starts can take lines from the loop.
  mapfile -t mutations < <(mutation_lines)
  for line in "${mutations[@]}"; do
    number=$((number + 1))
    if ! why="$(parse_mutation "$line")"; then
      fail "mutation $number: $why"
      continue
    fi
    parse_mutation "$line" >/dev/null
    wants_lab "$lab" || continue
    label="mutation $number ($lab: $description)"
    mutant="$work/mutant"
    rm -rf "$mutant"
    cp -R "$submission" "$mutant"
    if ! why="$(apply_mutation "$root/solutions/$lab/$file" "$mutant/labs/$lab/$file")"; then
      fail "$label: $why"
      continue
    fi
    out="$work/out-mutation-$number"
    "$grade" --lab "$lab" --work-dir "$work/work" --out "$out" --quiet "${jobs[@]}" "$mutant" \
      </dev/null >"$out.log" 2>&1
    status=$?
    if [ "$status" -ne 0 ]; then
      fail "$label: grade exited with $status (see $out.log)"
      continue
    fi
    # Each item of the lab: a required one (listed) must lose points and say why; an optional
    # one (listed with '?') may; any other step must keep its score, and any other perf item
    # must not turn into a failure.
    verdict="$(awk -F'\t' -v lab="$lab" -v items="$items" -v expect="$expect" '
      BEGIN {
        n = split(items, list, ",")
        for (i = 1; i <= n; i++) {
          name = list[i]; gsub(/^[ \t]+|[ \t]+$/, "", name)
          if (substr(name, 1, 1) == "?") optional[substr(name, 2)] = 1
          else if (name != "") required[name] = 1
        }
      }
      FNR == NR { if ($1 == lab) { base_result[$2] = $4; base_score[$2] = $5 } next }
      FNR > 1 && $1 == lab {
        seen[$2] = 1
        if ($2 in required) {
          if ($5 == "" || $5 + 0 >= base_score[$2] + 0) bad = bad sprintf("%s kept its points (%s); ", $2, $4)
          else if ($8 == "") bad = bad sprintf("%s lost its points but the report does not say why; ", $2)
          else if (expect != "" && index(tolower($8), tolower(expect)) == 0)
            bad = bad sprintf("%s: the reason \"%s\" does not mention \"%s\"; ", $2, $8, expect)
          else good = good sprintf("%s lost %s points: %s; ", $2, base_score[$2] - $5, $8)
        } else if ($2 in optional) {
          if ($5 + 0 < base_score[$2] + 0) good = good sprintf("%s (optional) lost its points too; ", $2)
        } else if ($3 == "step" && $5 != base_score[$2]) {
          bad = bad sprintf("%s changed from %s to %s (%s); ", $2, base_score[$2], $5, $8)
        } else if ($3 == "perf" && $4 == "failed" && base_result[$2] != "failed") {
          bad = bad sprintf("%s failed: %s; ", $2, $8)
        }
      }
      END {
        for (name in required) if (!(name in seen)) bad = bad sprintf("no item %s in the rubric; ", name)
        if (bad != "") print "FAIL\t" bad; else print "PASS\t" good
      }' "$work/baseline.tsv" "$out/items.tsv")"
    if [ "${verdict%%$'\t'*}" = "PASS" ]; then
      pass "$label: ${verdict#*$'\t'}"
    else
      fail "$label: ${verdict#*$'\t'}(report: $out)"
    fi
  done
elif [ "$run_mutations" -eq 1 ]; then
  echo "selftest: 3. the mutations need a GPU: skipped"
fi

# ---- 4. the hostile submissions ----------------------------------------------------------------
echo "selftest: 4. grading the hostile submissions (grader/selftest/hostile.sh)"
hostile_args=(--work "$work/hostile" --grade "$grade")
[ "$allow_no_gpu" -eq 1 ] && hostile_args+=(--allow-no-gpu)
while IFS= read -r line; do
  echo "$line"
  case "$line" in PASS*) passed=$((passed + 1)) ;; FAIL*) failed=$((failed + 1)) ;; esac
done < <("$root/grader/selftest/hostile.sh" "${hostile_args[@]}" "${lab_args[@]}" "${jobs[@]}" 2>&1)

finish
