// gpulabs-sim-rewrite: the build's rewriting step for one CUDA source.
//
//   gpulabs-sim-rewrite <input.cu> <output.cpp> [--header-dir DIR] [--depfile FILE]
//
// Writes output.cpp (the rewritten source, which includes <cuda_runtime.h> and then sets
// #line back to the original). Headers the source includes with quotes from its own folder
// are rewritten too, into DIR, and included from there. FILE lists every source read, for
// the build to rerun the step when one changes. Exit status 1 when something cannot be
// rewritten; the messages name the file and line.
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "rewrite.h"

namespace {

bool read_file(const std::string &path, std::string *text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buf;
  buf << in.rdbuf();
  *text = buf.str();
  return true;
}

// Writes only when the content changed, so unchanged headers do not trigger recompiles.
bool write_file(const std::string &path, const std::string &text) {
  std::string old;
  if (read_file(path, &old) && old == text) return true;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return (bool)out;
}

bool make_dirs(const std::string &dir) {
  for (size_t p = 1; p <= dir.size(); ++p) {
    if (p == dir.size() || dir[p] == '/') {
      const std::string part = dir.substr(0, p);
      if (mkdir(part.c_str(), 0777) != 0 && errno != EEXIST) return false;
    }
  }
  return true;
}

std::string absolute(const std::string &path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : path;
}

std::string c_string(const std::string &text) {
  std::string s;
  for (char c : text) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s;
}

std::string depfile_escape(const std::string &path) {
  std::string s;
  for (char c : path) {
    if (c == ' ' || c == '#') s += '\\';
    if (c == '$') s += '$';
    s += c;
  }
  return s;
}

std::string base_name(const std::string &path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

struct Job {
  std::string header_dir;
  std::vector<std::string> read;            // every source read, for the depfile
  std::map<std::string, std::string> done;  // original header -> its rewritten copy
  bool failed = false;

  // Rewrites `path`; returns the text with its #line prologue ("" on failure).
  std::string rewrite(const std::string &path) {
    std::string text;
    if (!read_file(path, &text)) {
      fprintf(stderr, "gpulabs-sim-rewrite: cannot read %s: %s\n", path.c_str(), strerror(errno));
      failed = true;
      return "";
    }
    read.push_back(path);
    gpulabs_sim_rewrite::IncludeHandler handler = [this](const std::string &header) {
      return this->header(header);
    };
    gpulabs_sim_rewrite::Result r = gpulabs_sim_rewrite::rewrite_source(text, path, handler);
    for (const std::string &e : r.errors) fprintf(stderr, "%s\n", e.c_str());
    if (!r.errors.empty()) failed = true;
    return "#line 1 \"" + c_string(path) + "\"\n" + r.text;
  }

  // A header next to a rewritten file: rewrite it into header_dir (once) and include that.
  std::string header(const std::string &path) {
    const std::string original = absolute(path);
    if (header_dir.empty()) return original;
    auto it = done.find(original);
    if (it != done.end()) return it->second;
    const std::string copy =
        header_dir + "/" + std::to_string(done.size()) + "_" + base_name(original);
    done[original] = copy;  // before recursing, so an include cycle ends
    const std::string text = rewrite(original);
    if (!failed && !write_file(copy, text)) {
      fprintf(stderr, "gpulabs-sim-rewrite: cannot write %s\n", copy.c_str());
      failed = true;
    }
    return copy;
  }
};

}  // namespace

int main(int argc, char **argv) {
  std::string input, output, depfile;
  Job job;
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg == "--header-dir" && k + 1 < argc) {
      job.header_dir = argv[++k];
    } else if (arg == "--depfile" && k + 1 < argc) {
      depfile = argv[++k];
    } else if (input.empty()) {
      input = arg;
    } else if (output.empty()) {
      output = arg;
    } else {
      input.clear();
      break;
    }
  }
  if (input.empty() || output.empty()) {
    fprintf(stderr,
            "usage: gpulabs-sim-rewrite <input.cu> <output.cpp> [--header-dir DIR] "
            "[--depfile FILE]\n");
    return 2;
  }
  if (!job.header_dir.empty()) {
    if (!make_dirs(job.header_dir)) {
      fprintf(stderr, "gpulabs-sim-rewrite: cannot create %s\n", job.header_dir.c_str());
      return 1;
    }
    job.header_dir = absolute(job.header_dir);  // it exists now; the includes name it whole
  }
  const std::string source = absolute(input);
  const std::string body = job.rewrite(source);
  if (job.failed) return 1;
  const std::string text = "// Generated by gpulabs-sim-rewrite from " + source +
                           "; edit that file, not this one.\n#include <cuda_runtime.h>\n" + body;
  // Always written (not only when changed), so the build sees it is up to date.
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) {
    fprintf(stderr, "gpulabs-sim-rewrite: cannot write %s\n", output.c_str());
    return 1;
  }
  if (!depfile.empty()) {
    std::string deps = depfile_escape(output) + ":";
    for (const std::string &p : job.read) deps += " \\\n  " + depfile_escape(p);
    deps += "\n";
    if (!write_file(depfile, deps)) {
      fprintf(stderr, "gpulabs-sim-rewrite: cannot write %s\n", depfile.c_str());
      return 1;
    }
  }
  return 0;
}
