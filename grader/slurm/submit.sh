#!/usr/bin/env bash
# usage: grader/slurm/submit.sh --shards N [options] SUBMISSIONS_DIR OUT_DIR [-- GRADE_OPTION...]
#
# Grades a folder of submissions on a Slurm cluster: builds the grade program once (on the
# shared storage this course lives on), submits grade-array.sbatch as a job array of N tasks,
# one GPU each (task K grades shard K/N into OUT_DIR/shards/K/), and merge.sbatch as a job that
# runs once every task has succeeded (afterok) and writes OUT_DIR/merged/. Prints the two job
# ids. The Slurm logs go to OUT_DIR/logs/. See docs/grading-on-slurm.md.
#
# options:
#   --shards N         the number of array tasks (shards); each builds the course once, then
#                      grades its share of the submissions one after another
#   --build-dir DIR    the build tree whose grade program is used (default: build/student;
#                      configured with the student preset if it does not exist, for the CUDA
#                      backend: the login node this runs on may have no GPU)
#   --gres SPEC        the array tasks' GPU request (default: gpu:1); none: no GPU
#   --no-gpu           --gres none, and the course's CPU backend (--cmake-arg -DLAB_BACKEND=sim)
# Without --no-gpu every grade gets --cmake-arg -DLAB_BACKEND=cuda: the submissions are graded
# with nvcc on the GPUs whatever backend the build tree above chose where it was configured.
#   --cpus N           CPUs per array task (default: the script's, 8): build jobs and
#                      parallel correctness tests
#   --sbatch-arg ARG   one more sbatch option for both jobs (--partition=..., --account=...,
#                      --time=...); repeatable
#   --dry-run          print the sbatch commands instead of running them
# GRADE_OPTIONs after -- go to every grade --batch (e.g. --lab reduction, --cmake-arg ...).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
course=$(cd "$here/../.." && pwd)
die() { echo "submit: $*" >&2; exit 2; }

shards=""
build_dir=$course/build/student
gres=gpu:1
cpus=""
no_gpu=0
dry_run=0
sbatch_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --shards) shards=${2:?--shards needs a value}; shift 2 ;;
    --shards=*) shards=${1#*=}; shift ;;
    --build-dir) build_dir=${2:?--build-dir needs a value}; shift 2 ;;
    --build-dir=*) build_dir=${1#*=}; shift ;;
    --gres) gres=${2:?--gres needs a value}; shift 2 ;;
    --gres=*) gres=${1#*=}; shift ;;
    --no-gpu) no_gpu=1; gres=none; shift ;;
    --cpus) cpus=${2:?--cpus needs a value}; shift 2 ;;
    --cpus=*) cpus=${1#*=}; shift ;;
    --sbatch-arg) sbatch_args+=("${2:?--sbatch-arg needs a value}"); shift 2 ;;
    --sbatch-arg=*) sbatch_args+=("${1#*=}"); shift ;;
    --dry-run) dry_run=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    --) break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || die "usage: submit.sh --shards N [options] SUBMISSIONS_DIR OUT_DIR [-- GRADE_OPTION...]"
subs=$1
out=$2
shift 2
if [ $# -gt 0 ]; then
  [ "$1" = -- ] || die "grade options go after --, not '$1'"
  shift
fi
grade_args=("$@")
backend=cuda
[ "$no_gpu" = 1 ] && backend=sim
grade_args=(--cmake-arg "-DLAB_BACKEND=$backend" "${grade_args[@]}")
case $shards in '' | *[!0-9]* | 0) die "--shards N is needed: a number of array tasks, 1 or more" ;; esac
[ -z "$cpus" ] || case $cpus in *[!0-9]* | 0) die "--cpus takes a number, not '$cpus'" ;; esac
[ -d "$subs" ] || die "the submissions folder $subs does not exist"
case $build_dir in /*) ;; *) build_dir=$PWD/$build_dir ;; esac
subs=$(cd "$subs" && pwd)
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
n_subs=$(find "$subs" -mindepth 1 -maxdepth 1 -type d ! -name '.*' | wc -l)
[ "$n_subs" -gt 0 ] || die "$subs holds no submission folders"
if [ "$shards" -gt "$n_subs" ]; then
  echo "submit: $shards shards for $n_subs submissions: $((shards - n_subs)) tasks will have nothing to grade" >&2
fi

# The grader, built once where every node sees it; each task builds the course from it.
if [ "$dry_run" = 1 ]; then
  :
elif [ ! -f "$build_dir/CMakeCache.txt" ]; then
  if [ "$build_dir" = "$course/build/student" ]; then
    (cd "$course" && cmake --preset student "-DLAB_BACKEND=$backend")
  else
    cmake -S "$course" -B "$build_dir" -DLAB_IMPL=labs "-DLAB_BACKEND=$backend"
  fi
fi
if [ "$dry_run" = 1 ]; then
  grade=$build_dir/grader/src/grade
else
  cmake --build "$build_dir" --target grade
  grade=$(cd "$build_dir/grader/src" && pwd)/grade
  [ -x "$grade" ] || die "no grade program at $grade after the build"
fi

array=(sbatch --parsable --array=0-$((shards - 1)) --output="$out/logs/grade-%A_%a.out"
       "--export=ALL,GRADE=$grade")
[ -n "$cpus" ] && array+=(--cpus-per-task="$cpus")
if [ "$gres" = none ]; then array+=(--gres=none); else array+=(--gres="$gres"); fi
array+=("${sbatch_args[@]}" "$here/grade-array.sbatch" "$subs" "$out" "${grade_args[@]}")
merge=(sbatch --parsable --kill-on-invalid-dep=yes --output="$out/logs/merge-%j.out"
       "--export=ALL,GRADE=$grade" "${sbatch_args[@]}")

if [ "$dry_run" = 1 ]; then
  printf '%q ' "${array[@]}"; echo
  printf '%q ' "${merge[@]}" --dependency=afterok:ARRAY_JOB_ID "$here/merge.sbatch" "$out" "$shards"; echo
  exit 0
fi
array_job=$("${array[@]}")
array_job=${array_job%%;*} # "id;cluster" on a federation
merge_job=$("${merge[@]}" --dependency=afterok:"$array_job" "$here/merge.sbatch" "$out" "$shards")
merge_job=${merge_job%%;*}
cat <<EOT
array job $array_job: $shards tasks grade $n_subs submissions of $subs into $out/shards/
merge job $merge_job: after every task succeeds, joins them into $out/merged/ (gradebook.csv, lms.csv, items.csv)
follow them:  squeue -j $array_job,$merge_job     logs: $out/logs/
EOT
