// Files for the grader's own tests: reading and writing whole files, and the grader's
// items.tsv. Every grader_*_test.cpp links the grader's library (mkdir_p comes from there).
#pragma once

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gltest.h"

extern "C" {
#include "util.h"
}

namespace grader_test {

inline std::string ReadText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes `text` to `path`, making its folder first; `mode` as chmod takes it.
inline void WriteText(const std::string &path, const std::string &text, mode_t mode = 0644) {
  std::string folder = path.substr(0, path.rfind('/'));
  ASSERT_EQ(mkdir_p(folder.c_str()), 0) << folder;
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  chmod(path.c_str(), mode);
}

inline bool Exists(const std::string &path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// One row of items.tsv (lab, item, kind, result, score, max_score, ratio, why).
struct Item {
  std::string result, score, max_score, ratio, why;
};

// The items of the report in `out`, keyed "lab item"; or, given a lab, that lab's keyed "item".
inline std::map<std::string, Item> ReadItems(const std::string &out, const std::string &lab = "") {
  std::map<std::string, Item> items;
  std::stringstream in(ReadText(out + "/items.tsv"));
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string row_lab, id, kind;
    Item item;
    std::getline(fields, row_lab, '\t');
    std::getline(fields, id, '\t');
    std::getline(fields, kind, '\t');
    std::getline(fields, item.result, '\t');
    std::getline(fields, item.score, '\t');
    std::getline(fields, item.max_score, '\t');
    std::getline(fields, item.ratio, '\t');
    std::getline(fields, item.why, '\t');
    if (lab.empty()) items[row_lab + " " + id] = item;
    else if (row_lab == lab) items[id] = item;
  }
  return items;
}

}  // namespace grader_test
