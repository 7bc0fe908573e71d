#!/usr/bin/env python3
"""Sums what bench/profile/cuda_profile.c wrote, per kind of program (test_<lab>, lab_<lab>_worker):
wall and CPU seconds, seconds in each CUDA API function, and, from the stacks (a sample is asked
for every 2 ms of CPU; the kernel may deliver fewer, so compare the shares, and the totals with
the user + system seconds above),
the functions with the most CPU time, their own and with what they call. Names come from
addr2line (binutils); functions of stripped libraries show as the library's nearest symbol."""
import collections, os, subprocess, sys

def kind_of(file_name):
    return file_name.rsplit("-", 1)[0]  # the command name (15 characters at most)

def times(folder):
    kinds = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, collections.Counter(), collections.Counter()])
    for name in os.listdir(folder):
        if not name.endswith(".txt"):
            continue
        k = kinds[kind_of(name[:-4])]
        lines = open(os.path.join(folder, name)).read().splitlines()
        if not lines:  # a process killed before it wrote
            continue
        w = lines[0].split()
        k[0] += 1; k[1] += float(w[1]); k[2] += float(w[3]); k[3] += float(w[5])
        for line in lines[1:]:
            domain, fn, calls, seconds = line.split()
            k[4][domain + " " + fn] += float(seconds); k[5][domain + " " + fn] += int(calls)
    for kind, (n, wall, user, system, seconds, calls) in sorted(kinds.items(), key=lambda x: -x[1][1]):
        print("%s: %d processes, wall %.1f s, user %.1f s, system %.1f s" % (kind, n, wall, user, system))
        for fn, s in seconds.most_common(8):
            print("    %8.2f s %8d calls  %s" % (s, calls[fn], fn))

def stacks(folder, top):
    per_kind = collections.defaultdict(list)
    where = collections.defaultdict(set)
    for name in os.listdir(folder):
        if not name.endswith(".stacks"):
            continue
        for line in open(os.path.join(folder, name)):
            p = line.split()
            frames = [(p[i], int(p[i + 1], 16)) for i in range(0, len(p) - 1, 2)]
            per_kind[kind_of(name[:-7])].append(frames)
            for module, offset in frames:
                where[module].add(offset)
    names = {}
    for module, offsets in where.items():
        offsets = sorted(offsets)
        out = []
        if os.path.exists(module):
            out = subprocess.run(["addr2line", "-f", "-C", "-e", module] + ["%x" % o for o in offsets],
                                 capture_output=True, text=True).stdout.split("\n")
        for i, o in enumerate(offsets):
            fn = out[2 * i] if 2 * i < len(out) else "??"
            names[(module, o)] = (fn if fn != "??" else os.path.basename(module) + "?")[:100]
    for kind, all_frames in sorted(per_kind.items(), key=lambda x: -len(x[1])):
        own, within = collections.Counter(), collections.Counter()
        for frames in all_frames:
            if frames:
                own[names[frames[0]]] += 1
                for fn in set(names[f] for f in frames):
                    within[fn] += 1
        print("%s: %.1f s of CPU sampled" % (kind, 0.002 * len(all_frames)))
        for label, counter in (("own", own), ("with callees", within)):
            print("  %s:" % label)
            for fn, c in counter.most_common(top):
                print("    %7.1f s  %s" % (0.002 * c, fn))

if __name__ == "__main__":
    folder = sys.argv[1]
    times(folder)
    stacks(folder, int(sys.argv[2]) if len(sys.argv) > 2 else 12)
