// The rewriting step (see rewrite.h). It is not a C++ parser: it reads tokens, skipping
// comments, string and character literals and preprocessor lines, tracks braces to know
// whether it is at namespace scope, in a class or in a function (of device code or not), and
// rewrites the three CUDA constructs the host compiler cannot take, and the branch conditions
// of device code (a scheduling point). Everything else is copied byte for byte.
#include "rewrite.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include <sys/stat.h>

namespace gpulabs_sim_rewrite {
namespace {

bool is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_' || c == '$'; }
bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$'; }
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// kDevice: a function body (or a block in one) of device code, whose branch conditions get a
// scheduling point; kOther: any other function body or block.
enum class Scope { kNamespace, kClass, kOther, kDevice };

// Specifiers that may stand next to __device__/__constant__ in a definition we make static.
const std::set<std::string> kSpecifiers = {
    "inline",     "__forceinline__", "__noinline__", "__inline__",  "constexpr",
    "__device__", "__constant__",    "volatile",     "const",       "__host__",
    "extern",     "static",          "__global__",   "__managed__", "thread_local"};
// With any of these, the declaration keeps its linkage (host code sees it, it is already
// static, or it is not a definition we should touch).
const std::set<std::string> kKeepLinkage = {"__host__", "extern", "static", "__global__",
                                            "typedef",  "friend", "using",  "__managed__"};

class Rewriter {
 public:
  Rewriter(const std::string &src, const std::string &path, const IncludeHandler &includes)
      : src_(src), path_(path), includes_(includes) {}

  Result run() {
    const size_t n = src_.size();
    while (i_ < n) {
      const char c = src_[i_];
      const char next = i_ + 1 < n ? src_[i_ + 1] : '\0';
      if (c == '\n') {
        out_ += c;
        ++i_;
        line_start_ = true;
        continue;
      }
      if (is_space(c)) {
        out_ += c;
        ++i_;
        continue;
      }
      if (c == '#' && line_start_) {
        directive();
        code_floor_ = out_.size();
        continue;
      }
      line_start_ = false;
      if (c == '/' && (next == '/' || next == '*')) {
        copy_to(skip_comment(i_));
        code_floor_ = out_.size();
        continue;
      }
      if (c == '"' || c == '\'') {
        const size_t end = skip_literal(i_);
        note_token(src_.substr(i_, end - i_));
        copy_to(end);
        continue;
      }
      if (is_ident_start(c)) {
        size_t end = i_;
        while (end < n && is_ident_char(src_[end])) ++end;
        const std::string word = src_.substr(i_, end - i_);
        if (end < n && src_[end] == '"' && is_raw_prefix(word)) {
          const size_t lit_end = skip_raw_string(end);
          note_token(src_.substr(i_, lit_end - i_));
          copy_to(lit_end);
          continue;
        }
        identifier(word, end);
        continue;
      }
      if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)next))) {
        const size_t end = skip_number(i_);
        note_token(src_.substr(i_, end - i_));
        copy_to(end);
        continue;
      }
      if (src_.compare(i_, 3, "<<<") == 0) {
        launch();
        continue;
      }
      if (c == '{') {
        scopes_.push_back(scope_opened_by_statement());
        out_ += c;
        ++i_;
        stmt_.clear();
        continue;
      }
      if (c == '}') {
        if (!scopes_.empty()) scopes_.pop_back();
        out_ += c;
        ++i_;
        stmt_.clear();
        continue;
      }
      if (c == ';') {
        out_ += c;
        ++i_;
        stmt_.clear();
        continue;
      }
      if (c == ':' && next == ':') {
        note_token("::");
        out_ += "::";
        i_ += 2;
        continue;
      }
      note_token(std::string(1, c));
      if (c == ')' && !condition_ends_.empty() && condition_ends_.back() == i_) {
        condition_ends_.pop_back();
        out_ += "))";  // closes branch_point(static_cast<bool>(
      }
      out_ += c;
      ++i_;
    }
    return Result{out_, errors_};
  }

 private:
  // ---- Positions and messages -----------------------------------------------------------

  int line_of(size_t pos) const {
    return 1 + (int)std::count(src_.begin(), src_.begin() + (long)std::min(pos, src_.size()), '\n');
  }
  void error(size_t pos, const std::string &message) {
    errors_.push_back(path_ + ":" + std::to_string(line_of(pos)) + ": error: " + message);
  }
  void copy_to(size_t end) {
    out_.append(src_, i_, end - i_);
    i_ = end;
  }
  void note_token(const std::string &token) {
    if (stmt_.empty()) {
      stmt_first_in_ = i_;
      stmt_first_out_ = out_.size();
    }
    stmt_.push_back(token);
  }

  // ---- Skipping literals and comments ---------------------------------------------------

  static bool is_raw_prefix(const std::string &w) {
    return w == "R" || w == "LR" || w == "uR" || w == "UR" || w == "u8R";
  }
  size_t skip_literal(size_t p) const {
    const char quote = src_[p++];
    while (p < src_.size() && src_[p] != quote && src_[p] != '\n') {
      if (src_[p] == '\\') ++p;
      ++p;
    }
    return p < src_.size() ? p + 1 : p;
  }
  size_t skip_raw_string(size_t p) const {  // p at the opening quote
    const size_t paren = src_.find('(', p);
    if (paren == std::string::npos) return src_.size();
    const std::string close = ")" + src_.substr(p + 1, paren - p - 1) + "\"";
    const size_t end = src_.find(close, paren);
    return end == std::string::npos ? src_.size() : end + close.size();
  }
  size_t skip_comment(size_t p) const {
    if (src_[p + 1] == '/') {
      const size_t nl = src_.find('\n', p);
      return nl == std::string::npos ? src_.size() : nl;
    }
    const size_t end = src_.find("*/", p + 2);
    return end == std::string::npos ? src_.size() : end + 2;
  }
  size_t skip_number(size_t p) const {
    const size_t n = src_.size();
    ++p;
    while (p < n) {
      const char c = src_[p];
      if (is_ident_char(c) || c == '.') {
        ++p;
      } else if (c == '\'' && p + 1 < n && is_ident_char(src_[p + 1])) {
        p += 2;  // digit separator
      } else if ((c == '+' || c == '-') && strchr("eEpP", src_[p - 1]) != nullptr) {
        ++p;
      } else {
        break;
      }
    }
    return p;
  }
  size_t skip_space_and_comments(size_t p) const {
    while (p < src_.size()) {
      if (is_space(src_[p])) {
        ++p;
      } else if (src_[p] == '/' && p + 1 < src_.size() &&
                 (src_[p + 1] == '/' || src_[p + 1] == '*')) {
        p = skip_comment(p);
      } else {
        break;
      }
    }
    return p;
  }

  // Scans from p to the first `stop` character outside brackets, literals and comments.
  // Returns npos at the end of the file, or (when stop_at_directive) at a preprocessor line.
  size_t find_at_depth0(size_t p, const char *stops, bool stop_at_directive) const {
    int depth = 0;
    bool at_line_start = false;
    while (p < src_.size()) {
      const char c = src_[p];
      if (c == '\n') {
        at_line_start = true;
        ++p;
        continue;
      }
      if (is_space(c)) {
        ++p;
        continue;
      }
      if (c == '#' && at_line_start && stop_at_directive) return std::string::npos;
      at_line_start = false;
      if (c == '/' && p + 1 < src_.size() && (src_[p + 1] == '/' || src_[p + 1] == '*')) {
        p = skip_comment(p);
        continue;
      }
      if (c == '"' || c == '\'') {
        p = skip_literal(p);
        continue;
      }
      if (depth == 0 && strchr(stops, c) != nullptr) return p;
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) return std::string::npos;
        --depth;
      }
      ++p;
    }
    return std::string::npos;
  }

  // ---- Scopes ---------------------------------------------------------------------------

  bool contains(const std::string &token) const {
    return std::find(stmt_.begin(), stmt_.end(), token) != stmt_.end();
  }
  Scope scope_opened_by_statement() const {
    if (contains("namespace")) return Scope::kNamespace;
    if (stmt_.size() == 2 && stmt_[0] == "extern" && stmt_[1][0] == '"') return Scope::kNamespace;
    const bool has_class_key =
        contains("struct") || contains("class") || contains("union") || contains("enum");
    if (has_class_key && !contains("(") && !contains("=")) return Scope::kClass;
    if (contains("__global__") || contains("__device__") || in_device_code()) return Scope::kDevice;
    return Scope::kOther;
  }
  bool at_namespace_scope() const {
    for (Scope s : scopes_)
      if (s != Scope::kNamespace) return false;
    return true;
  }
  bool in_function() const {
    for (Scope s : scopes_)
      if (s == Scope::kOther || s == Scope::kDevice) return true;
    return false;
  }
  bool in_device_code() const {
    for (Scope s : scopes_)
      if (s == Scope::kDevice) return true;
    return false;
  }

  // ---- Preprocessor lines ---------------------------------------------------------------

  void directive() {
    size_t end = i_;
    while (end < src_.size() && src_[end] != '\n') {
      if (src_[end] == '\\' && end + 1 < src_.size() && src_[end + 1] == '\n') ++end;
      ++end;
    }
    const std::string line = src_.substr(i_, end - i_);
    std::string replacement;
    size_t p = 1;
    while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
    if (line.compare(p, 6, "pragma") == 0) {
      size_t q = p + 6;
      while (q < line.size() && (line[q] == ' ' || line[q] == '\t')) ++q;
      // nvcc's loop-unrolling hint: the host compiler would warn about an unknown pragma.
      if (line.compare(q, 6, "unroll") == 0 &&
          (q + 6 == line.size() || !is_ident_char(line[q + 6]))) {
        replacement = "/* #pragma unroll: a hint for nvcc */";
      }
    }
    if (line.compare(p, 7, "include") == 0) {
      p += 7;
      while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
      if (p < line.size() && line[p] == '"') {
        const size_t close = line.find('"', p + 1);
        if (close != std::string::npos) {
          const std::string name = line.substr(p + 1, close - p - 1);
          const std::string resolved = resolve_local(name);
          if (!resolved.empty() && includes_) {
            const std::string target = includes_(resolved);
            if (!target.empty()) replacement = "#include \"" + target + "\"";
          }
        }
      }
    }
    if (replacement.empty()) {
      out_ += line;
    } else {  // keep the lines a continued directive spanned
      out_ += replacement;
      out_.append((size_t)std::count(line.begin(), line.end(), '\n'), '\n');
    }
    i_ = end;
  }

  // The header `name` next to this file, or "" when it is not there (then -I finds it).
  std::string resolve_local(const std::string &name) const {
    if (name.empty()) return "";
    std::string candidate;
    if (name[0] == '/') {
      candidate = name;
    } else {
      const size_t slash = path_.rfind('/');
      candidate =
          (slash == std::string::npos ? std::string(".") : path_.substr(0, slash)) + "/" + name;
    }
    struct stat st;
    if (stat(candidate.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
    return candidate;
  }

  // ---- Identifiers: __shared__, __device__, __constant__ ----------------------------------

  void identifier(const std::string &word, size_t end) {
    if (word == "__shared__") {
      shared_declaration(end);
      return;
    }
    note_token(word);
    if ((word == "if" || word == "while") && in_device_code() && branch_condition(end)) return;
    if ((word == "__device__" || word == "__constant__") && at_namespace_scope() &&
        should_be_local(end)) {
      out_ += "GPULABS_SIM_TU_LOCAL ";
    }
    copy_to(end);
  }

  // ---- Branch conditions in device code ----------------------------------------------------

  // `if (cond)` or `while (cond)` (the keyword ends at `end`) in device code becomes
  //   if (::gpulabs_sim::branch_point(static_cast<bool>(cond)))
  // where the scheduler may switch threads after evaluating cond (gpulabs_sim_device.h says
  // why). The condition itself is rewritten as usual; the closing parentheses are added when
  // the run reaches its `)`. Left alone: `if constexpr`, a condition that declares a variable
  // or has an init-statement (a `=`, `;` or `{` outside brackets; an assignment too, which is
  // rare and harmless to skip), and one cut by a preprocessor line. Returns whether it
  // rewrote (and copied up to the condition).
  bool branch_condition(size_t end) {
    const size_t paren = skip_space_and_comments(end);
    if (paren >= src_.size() || src_[paren] != '(') return false;  // if constexpr, consteval
    for (size_t p = paren + 1;;) {
      const size_t q = find_at_depth0(p, ")=;{", true);
      if (q == std::string::npos || src_[q] == ';' || src_[q] == '{') return false;
      if (src_[q] == ')') {
        copy_to(end);
        out_ += src_.substr(end, paren + 1 - end);  // the space and comments, then '('
        i_ = paren + 1;
        note_token("(");
        out_ += "::gpulabs_sim::branch_point(static_cast<bool>(";
        condition_ends_.push_back(q);
        return true;
      }
      if (!is_comparison(q)) return false;
      p = q + 1;
    }
  }
  // Whether the `=` at q is part of ==, !=, <= or >= (not of =, <<=, >>= or op=).
  bool is_comparison(size_t q) const {
    if (q + 1 < src_.size() && src_[q + 1] == '=') return true;   // the first of ==
    if (q == 0) return false;
    const char b = src_[q - 1];
    if (b == '=' || b == '!') return true;                         // the second of ==, or !=
    if ((b == '<' || b == '>') && !(q >= 2 && src_[q - 2] == b)) return true;  // <= >=, not <<= >>=
    return false;
  }

  // Reads the next token after p (skipping spaces and comments); "" at the end.
  std::string peek_token(size_t *p) const {
    size_t q = skip_space_and_comments(*p);
    if (q >= src_.size()) {
      *p = q;
      return "";
    }
    size_t e = q + 1;
    if (is_ident_start(src_[q])) {
      while (e < src_.size() && is_ident_char(src_[e])) ++e;
    } else if (src_.compare(q, 2, "::") == 0) {
      e = q + 2;
    }
    *p = e;
    return src_.substr(q, e - q);
  }

  // Does the __device__/__constant__ declaration just read (its last token) define something
  // that nvcc keeps per file? Then the simulator gives it internal linkage.
  bool should_be_local(size_t end) const {
    for (size_t k = 0; k + 1 < stmt_.size(); ++k)
      if (kKeepLinkage.count(stmt_[k])) return false;
    if (stmt_.size() >= 2) {
      const std::string &prev = stmt_[stmt_.size() - 2];
      if (prev != ">" && !kSpecifiers.count(prev)) return false;
      // template <> (an explicit specialization) takes no storage class.
      for (size_t k = 0; k + 2 < stmt_.size(); ++k)
        if (stmt_[k] == "template" && stmt_[k + 1] == "<" && stmt_[k + 2] == ">") return false;
    }
    // The specifiers after it, then the declarator: `A::f(` is a member or qualified name.
    size_t p = end;
    std::string before_last, last;
    for (int guard = 0; guard < 200; ++guard) {
      const std::string t = peek_token(&p);
      if (t.empty() || t == "(" || t == ";" || t == "=" || t == "{" || t == "[") break;
      if (kKeepLinkage.count(t)) return false;
      before_last = last;
      last = t;
    }
    return before_last != "::";
  }

  // `[extern] __shared__ T name[...];` Everything from the statement's first token to the
  // semicolon is replaced by one line, followed by the newlines it spanned.
  void shared_declaration(size_t token_end) {
    const size_t decl_in = stmt_.empty() ? i_ : stmt_first_in_;
    const size_t decl_out = stmt_.empty() ? out_.size() : stmt_first_out_;
    const size_t shared_pos = i_;
    const size_t semi = find_at_depth0(token_end, ";", true);
    if (semi == std::string::npos) {
      error(shared_pos,
            "cannot find the end of this __shared__ declaration (a preprocessor "
            "line inside it is not supported)");
      copy_to(token_end);
      return;
    }
    const std::vector<std::string> tokens = tokenize(decl_in, semi);
    std::string rewritten, problem;
    if (!rewrite_shared(tokens, &rewritten, &problem)) {
      error(shared_pos, problem);
      copy_to(token_end);
      return;
    }
    const long newlines = std::count(src_.begin() + (long)decl_in, src_.begin() + (long)semi, '\n');
    out_.resize(decl_out);
    out_ += rewritten;
    out_.append((size_t)newlines, '\n');
    i_ = semi + 1;
    stmt_.clear();
  }

  std::vector<std::string> tokenize(size_t p, size_t end) const {
    std::vector<std::string> tokens;
    while (true) {
      p = skip_space_and_comments(p);
      if (p >= end) break;
      size_t e = p + 1;
      const char c = src_[p];
      if (is_ident_start(c)) {
        while (e < end && is_ident_char(src_[e])) ++e;
      } else if (isdigit((unsigned char)c)) {
        e = std::min(skip_number(p), end);
      } else if (c == '"' || c == '\'') {
        e = std::min(skip_literal(p), end);
      } else if (src_.compare(p, 2, "::") == 0) {
        e = p + 2;
      }
      tokens.push_back(src_.substr(p, e - p));
      p = e;
    }
    return tokens;
  }

  static std::string join(const std::vector<std::string> &tokens, size_t from, size_t to) {
    std::string s;
    for (size_t k = from; k < to; ++k) {
      if (!s.empty()) s += ' ';
      s += tokens[k];
    }
    return s;
  }

  // Splits `name[dims]` out of one declarator's tokens: returns the index of the name.
  static size_t name_index(const std::vector<std::string> &d) {
    int angle = 0;
    for (size_t k = 0; k < d.size(); ++k) {
      if (d[k] == "<") ++angle;
      if (d[k] == ">") --angle;
      if (d[k] == "[" && angle == 0) return k == 0 ? std::string::npos : k - 1;
    }
    return d.empty() ? std::string::npos : d.size() - 1;
  }

  bool rewrite_shared(const std::vector<std::string> &tokens, std::string *out,
                      std::string *problem) const {
    bool dynamic = false;
    std::vector<std::string> t;
    for (size_t k = 0; k < tokens.size(); ++k) {
      const std::string &w = tokens[k];
      if (w == "__shared__" || w == "static") continue;
      if (w == "extern") {
        dynamic = true;
        continue;
      }
      if (w == "__align__" || w == "alignas" || w == "__attribute__") {
        // Drop the parenthesised argument too: every shared variable is 16-byte aligned here.
        if (k + 1 < tokens.size() && tokens[k + 1] == "(") {
          int depth = 0;
          for (++k; k < tokens.size(); ++k) {
            if (tokens[k] == "(") ++depth;
            if (tokens[k] == ")" && --depth == 0) break;
          }
        }
        continue;
      }
      t.push_back(w);
    }
    // Split the declarators at top-level commas.
    std::vector<std::vector<std::string>> decls(1);
    int depth = 0;
    for (const std::string &w : t) {
      if (w == "(" || w == "[" || w == "<") ++depth;
      if (w == ")" || w == "]" || w == ">") --depth;
      if (w == "=" && depth == 0) {
        *problem = "a __shared__ variable cannot have an initializer (CUDA does not allow it)";
        return false;
      }
      if (w == "," && depth == 0) {
        decls.emplace_back();
        continue;
      }
      decls.back().push_back(w);
    }
    const bool function = in_function();
    const bool namespace_scope = at_namespace_scope();
    if (!function && !namespace_scope) {
      *problem = "__shared__ is only supported in functions and at namespace scope";
      return false;
    }
    std::string base_type;
    for (size_t d = 0; d < decls.size(); ++d) {
      const std::vector<std::string> &dt = decls[d];
      const size_t name_at = name_index(dt);
      if (name_at == std::string::npos || !is_ident_start(dt[name_at][0])) {
        *problem = "cannot read this __shared__ declaration";
        return false;
      }
      std::string type;
      if (d == 0) {
        type = join(dt, 0, name_at);
        size_t base_end = name_at;
        while (base_end > 0 && (dt[base_end - 1] == "*" || dt[base_end - 1] == "&")) --base_end;
        base_type = join(dt, 0, base_end);
      } else {
        type = base_type + (name_at > 0 ? " " + join(dt, 0, name_at) : "");
      }
      if (type.empty()) {
        *problem = "this __shared__ declaration has no type";
        return false;
      }
      const std::string &name = dt[name_at];
      const std::string dims = join(dt, name_at + 1, dt.size());
      if (dynamic) {
        if (dt.size() < name_at + 3 || dt[name_at + 1] != "[" || dt[name_at + 2] != "]") {
          *problem = "an extern __shared__ array must be declared with empty brackets, as name[]";
          return false;
        }
        const std::string inner = join(dt, name_at + 3, dt.size());
        if (function) {
          const std::string declarator =
              inner.empty() ? "*const " + name : "(*const " + name + ") " + inner;
          *out += type + " " + declarator + " = ::gpulabs_sim::dynamic_shared<" + type +
                  (inner.empty() ? "" : " " + inner) + ">();";
        } else if (inner.empty()) {
          *out += "static ::gpulabs_sim::dynamic_shared_view<" + type + "> " + name + ";";
        } else {
          *problem =
              "a namespace-scope extern __shared__ array must be one-dimensional here; "
              "declare it inside the kernel";
          return false;
        }
      } else if (function) {
        const std::string declarator = dims.empty() ? "&" + name : "(&" + name + ") " + dims;
        *out += type + " " + declarator + " = ::gpulabs_sim::static_shared<" + type +
                (dims.empty() ? "" : " " + dims) + ">([] {});";
      } else if (!dims.empty()) {
        *out += "static ::gpulabs_sim::static_shared_view<" + type + " " + dims + "> " + name + ";";
      } else {
        *problem =
            "a __shared__ scalar at namespace scope is not supported by gpulabs-sim; "
            "declare it inside the kernel";
        return false;
      }
      if (d + 1 < decls.size()) *out += ' ';
    }
    return true;
  }

  // ---- Launches ---------------------------------------------------------------------------

  // Index of the bracket that opens the group closed at `close` in out_, or npos.
  size_t match_back(size_t close) const {
    const char closer = out_[close];
    int depth = 0, angle = 0;
    for (size_t p = close + 1; p-- > 0;) {
      const char c = out_[p];
      if (closer == '>') {
        if (c == ')' || c == ']') ++depth;
        if (c == '(' || c == '[') --depth;
        if (depth == 0 && c == '>' && !(p > 0 && out_[p - 1] == '-')) ++angle;
        if (depth == 0 && c == '<') {
          if (--angle == 0) return p;
        }
      } else {
        if (c == ')' || c == ']' || c == '}') ++depth;
        if (c == '(' || c == '[' || c == '{') {
          if (--depth == 0) return c == (closer == ')' ? '(' : '[') ? p : std::string::npos;
        }
      }
    }
    return std::string::npos;
  }
  size_t skip_space_back(size_t p) const {
    while (p > 0 && is_space(out_[p - 1])) --p;
    return p;
  }

  // The start in out_ of the kernel expression that ends at `end`: a name, possibly
  // qualified (a::b, obj.f, p->f), with template arguments, subscripts or calls.
  size_t kernel_expression_start(size_t end) const {
    size_t p = end;
    for (;;) {
      // Trailing <...>, [...], (...)
      for (;;) {
        const size_t q = skip_space_back(p);
        if (q == 0) return p;
        const char c = out_[q - 1];
        if (c != '>' && c != ']' && c != ')') break;
        const size_t open = match_back(q - 1);
        if (open == std::string::npos) return p;
        p = open;
        if (c == ')') {
          const size_t r = skip_space_back(p);
          if (r == 0 || !(is_ident_char(out_[r - 1]) || strchr(">])", out_[r - 1])))
            return p;  // (expr)
        }
      }
      const size_t q = skip_space_back(p);
      if (q > 0 && is_ident_char(out_[q - 1])) {
        size_t r = q;
        while (r > 0 && is_ident_char(out_[r - 1])) --r;
        p = r;
      }
      const size_t t = skip_space_back(p);
      if (t >= 2 && (out_.compare(t - 2, 2, "::") == 0 || out_.compare(t - 2, 2, "->") == 0)) {
        p = t - 2;
        const size_t u = skip_space_back(p);
        if (u == 0 || !(is_ident_char(out_[u - 1]) || strchr(">])", out_[u - 1])))
          return p;  // ::name
        continue;
      }
      if (t >= 1 && out_[t - 1] == '.') {
        p = t - 1;
        continue;
      }
      return p;
    }
  }

  void launch() {
    const size_t at = i_;
    const size_t expr_end = skip_space_back(out_.size());
    size_t expr_start = kernel_expression_start(expr_end);
    // The kernel expression never reaches back into a comment or a directive: a comment ending
    // in "now." on the line above a launch is not a member access.
    if (expr_start < code_floor_) {
      expr_start = code_floor_;
      while (expr_start < expr_end && is_space(out_[expr_start])) ++expr_start;
    }
    const size_t config_start = i_ + 3;
    const size_t config_end = find_triple_close(config_start);
    if (expr_start >= expr_end || config_end == std::string::npos) {
      error(at, expr_start >= expr_end ? "cannot find the kernel before <<<"
                                       : "cannot find the >>> that closes this launch");
      copy_to(i_ + 3);
      return;
    }
    const size_t paren = skip_space_and_comments(config_end + 3);
    const size_t close = paren < src_.size() && src_[paren] == '('
                             ? find_at_depth0(paren + 1, ")", false)
                             : std::string::npos;
    if (close == std::string::npos) {
      error(at, "expected the kernel's arguments in parentheses after >>>");
      copy_to(i_ + 3);
      return;
    }
    const std::string kernel = out_.substr(expr_start, expr_end - expr_start);
    const std::string gap =
        out_.substr(expr_end) + src_.substr(config_end + 3, paren - config_end - 3);
    const std::string config = src_.substr(config_start, config_end - config_start);
    const std::string args = src_.substr(paren + 1, close - paren - 1);
    out_.resize(expr_start);
    out_ += "::gpulabs_sim::launch(::gpulabs_sim::config(" + config + "), \"" + quoted(kernel) +
            "\", __FILE__, __LINE__, [&]() { " + kernel + "(" + args + "); })";
    out_.append((size_t)std::count(gap.begin(), gap.end(), '\n'), '\n');
    note_token("launch");
    i_ = close + 1;
  }

  // The `>>>` that ends a launch configuration starting at p, or npos.
  size_t find_triple_close(size_t p) const {
    while (true) {
      const size_t q = find_at_depth0(p, ">;", false);
      if (q == std::string::npos || src_[q] == ';') return std::string::npos;
      if (src_.compare(q, 3, ">>>") == 0) return q;
      p = q + 1;
    }
  }

  // The kernel expression as a C string literal, on one line.
  static std::string quoted(const std::string &text) {
    std::string s;
    bool space = false;
    for (char c : text) {
      if (is_space(c)) {
        space = !s.empty();
        continue;
      }
      if (space) s += ' ';
      space = false;
      if (c == '"' || c == '\\') s += '\\';
      s += c;
    }
    return s;
  }

  const std::string &src_;
  const std::string path_;
  const IncludeHandler &includes_;
  size_t i_ = 0;
  std::string out_;
  std::vector<std::string> errors_;
  std::vector<Scope> scopes_;
  std::vector<std::string> stmt_;  // tokens since the last ';', '{' or '}'
  std::vector<size_t> condition_ends_;  // in src_: the ')' of each branch condition being read
  size_t stmt_first_in_ = 0;       // where the statement's first token is in src_ ...
  size_t stmt_first_out_ = 0;      // ... and in out_
  bool line_start_ = true;
  size_t code_floor_ = 0;  // where in out_ the last comment or directive ended
};

}  // namespace

Result rewrite_source(const std::string &source, const std::string &path,
                      const IncludeHandler &includes) {
  return Rewriter(source, path, includes).run();
}

}  // namespace gpulabs_sim_rewrite
