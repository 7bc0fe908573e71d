// The rewriting step on snippets: what each CUDA construct becomes, what is left alone, and
// that every line stays where it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

#include "rewrite.h"

namespace {

using gpulabs_sim_rewrite::Result;

Result Rewrite(const std::string &source, const std::string &path = "/nowhere/test.cu",
               const gpulabs_sim_rewrite::IncludeHandler &includes = nullptr) {
  Result r = gpulabs_sim_rewrite::rewrite_source(source, path, includes);
  EXPECT_EQ(std::count(source.begin(), source.end(), '\n'),
            std::count(r.text.begin(), r.text.end(), '\n'))
      << "the line count changed:\n"
      << source << "\n---\n"
      << r.text;
  return r;
}

// The rewritten text with runs of white space squeezed to one space.
std::string Squeezed(const std::string &source) {
  const Result r = Rewrite(source);
  EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0]);
  std::string out;
  for (char c : r.text) {
    if (isspace((unsigned char)c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool Has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

// ---- Launches ---------------------------------------------------------------------------

TEST(RewriteLaunch, PlainLaunch) {
  EXPECT_EQ(
      "void f() { ::gpulabs_sim::launch(::gpulabs_sim::config(blocks, 256), \"kernel\", __FILE__, "
      "__LINE__, [&]() { kernel(d_in, n); }); }",
      Squeezed("void f() { kernel<<<blocks, 256>>>(d_in, n); }"));
}

TEST(RewriteLaunch, AllFourConfigurationArguments) {
  EXPECT_TRUE(Has(Squeezed("void f() { k<<<g, b, bytes * 2, stream>>>(x); }"),
                  "::gpulabs_sim::config(g, b, bytes * 2, stream)"));
}

TEST(RewriteLaunch, KernelExpressions) {
  EXPECT_TRUE(Has(Squeezed("void f() { reduce<T, 256><<<g, 256>>>(a); }"),
                  "\"reduce<T, 256>\", __FILE__, __LINE__, [&]() { reduce<T, 256>(a); }"));
  EXPECT_TRUE(Has(Squeezed("void f() { ns::inner::k<<<1, 1>>>(); }"), "[&]() { ns::inner::k(); }"));
  EXPECT_TRUE(Has(Squeezed("void f() { ::k<<<1, 1>>>(); }"), "[&]() { ::k(); }"));
  EXPECT_TRUE(Has(Squeezed("void f() { (*fp)<<<1, 1>>>(p); }"), "[&]() { (*fp)(p); }"));
  EXPECT_TRUE(Has(Squeezed("void f() { table[step]<<<1, 1>>>(p); }"), "[&]() { table[step](p); }"));
  EXPECT_TRUE(
      Has(Squeezed("void f() { if (x) k<<<1, 1>>>(p); }"), "if (x) ::gpulabs_sim::launch("));
  EXPECT_TRUE(
      Has(Squeezed("void f() { return k<<<1, 1>>>(p); }"), "return ::gpulabs_sim::launch("));
}

TEST(RewriteLaunch, ConfigurationsWithShiftsAndTemplates) {
  EXPECT_TRUE(Has(Squeezed("void f() { k<<<n >> 5, 32>>>(p); }"), "config(n >> 5, 32)"));
  EXPECT_TRUE(Has(Squeezed("void f() { k<<<div_up<int>(n, 256), dim3(16, 16)>>>(p); }"),
                  "config(div_up<int>(n, 256), dim3(16, 16))"));
  EXPECT_TRUE(Has(Squeezed("void f() { k <<< g , b >>> ( p , q ) ; }"), "[&]() { k( p , q ); })"));
}

TEST(RewriteLaunch, SpanningLinesKeepsLineNumbers) {
  const Result r = Rewrite(
      "void f() {\n  kernel<<<grid,\n           block>>>(a,\n                    b);\n  "
      "after();\n}\n");
  EXPECT_TRUE(r.errors.empty());
  // after() is still on line 5.
  int line = 1;
  for (size_t k = 0; k < r.text.find("after"); ++k) line += r.text[k] == '\n';
  EXPECT_EQ(5, line) << r.text;
}

TEST(RewriteLaunch, CommentsAndStringsAreLeftAlone) {
  const std::string source =
      "// k<<<1, 1>>>(x);\n/* __shared__ int s[3]; */\nconst char *s = \"k<<<1,1>>>()\";\n"
      "const char *r = R\"x(__shared__ k<<<1,1>>>())x\";\nchar c = '<';\n";
  EXPECT_EQ(source, Rewrite(source).text);
}

TEST(RewriteLaunch, ACommentAboveTheLaunchIsNotPartOfTheKernel) {
  // A comment that ends in a word and a period (or "->", or "::") looks like a member access
  // when read backwards from the kernel's name.
  EXPECT_TRUE(Has(Squeezed("void f() {\n  // launch it now.\n  k<<<1, 1>>>(p);\n}"),
                  "// launch it now. ::gpulabs_sim::launch(::gpulabs_sim::config(1, 1), \"k\""));
  EXPECT_TRUE(Has(Squeezed("void f() {\n  /* see a:: */ ns::k<<<1, 1>>>(p);\n}"),
                  "/* see a:: */ ::gpulabs_sim::launch(::gpulabs_sim::config(1, 1), \"ns::k\""));
  EXPECT_TRUE(Has(Squeezed("#define X a.\nk<<<1, 1>>>(p);"), "\"k\", __FILE__"));
}

TEST(RewriteLaunch, BrokenLaunchesAreErrorsWithTheLine) {
  Result r = Rewrite("void f() {\n  k<<<1, 1(x);\n}\n");
  ASSERT_EQ(1u, r.errors.size());
  EXPECT_TRUE(Has(r.errors[0], "/nowhere/test.cu:2: error:")) << r.errors[0];
  r = Rewrite("void f() {\n  k<<<1, 1>>>;\n}\n");
  ASSERT_EQ(1u, r.errors.size());
  EXPECT_TRUE(Has(r.errors[0], "arguments in parentheses")) << r.errors[0];
}

// ---- Shared memory ----------------------------------------------------------------------

TEST(RewriteShared, StaticArraysAndScalarsInFunctions) {
  EXPECT_EQ(
      "__global__ void k() { int (&s) [ 256 ] = ::gpulabs_sim::static_shared<int [ 256 ]>([] {}); "
      "}",
      Squeezed("__global__ void k() { __shared__ int s[256]; }"));
  EXPECT_TRUE(
      Has(Squeezed("void k() { __shared__ float tile[32][33]; }"),
          "float (&tile) [ 32 ] [ 33 ] = ::gpulabs_sim::static_shared<float [ 32 ] [ 33 ]>"));
  EXPECT_TRUE(Has(Squeezed("void k() { __shared__ bool last; }"),
                  "bool &last = ::gpulabs_sim::static_shared<bool>([] {});"));
  EXPECT_TRUE(Has(Squeezed("void k() { __shared__ int *where; }"),
                  "int * &where = ::gpulabs_sim::static_shared<int *>([] {});"));
  EXPECT_TRUE(Has(Squeezed("void k() { volatile __shared__ int v[32]; }"),
                  "volatile int (&v) [ 32 ] = ::gpulabs_sim::static_shared<volatile int [ 32 ]>"));
  EXPECT_TRUE(Has(Squeezed("void k() { static __shared__ __align__(16) T buf[N * 2]; }"),
                  "T (&buf) [ N * 2 ] = ::gpulabs_sim::static_shared<T [ N * 2 ]>"));
  EXPECT_TRUE(Has(Squeezed("void k() { __shared__ Pair<int, short> p[2]; }"),
                  "Pair < int , short > (&p) [ 2 ]"));
}

TEST(RewriteShared, SeveralDeclarators) {
  const std::string out = Squeezed("void k() { __shared__ int a[8], b[4], *c; }");
  EXPECT_TRUE(Has(out, "int (&a) [ 8 ] = ::gpulabs_sim::static_shared<int [ 8 ]>([] {});")) << out;
  EXPECT_TRUE(Has(out, "int (&b) [ 4 ] = ::gpulabs_sim::static_shared<int [ 4 ]>([] {});")) << out;
  EXPECT_TRUE(Has(out, "int * &c = ::gpulabs_sim::static_shared<int *>([] {});")) << out;
}

TEST(RewriteShared, ExternDynamicArrays) {
  EXPECT_TRUE(Has(Squeezed("void k() { extern __shared__ float sdata[]; }"),
                  "float *const sdata = ::gpulabs_sim::dynamic_shared<float>();"));
  EXPECT_TRUE(Has(Squeezed("void k() { extern __shared__ __align__(16) unsigned char raw[]; }"),
                  "unsigned char *const raw = ::gpulabs_sim::dynamic_shared<unsigned char>();"));
  EXPECT_TRUE(Has(Squeezed("void k() { extern __shared__ int rows[][32]; }"),
                  "int (*const rows) [ 32 ] = ::gpulabs_sim::dynamic_shared<int [ 32 ]>();"));
}

TEST(RewriteShared, NamespaceScopeArraysBecomeViews) {
  EXPECT_EQ("static ::gpulabs_sim::static_shared_view<int [ 64 ]> tile;",
            Squeezed("__shared__ int tile[64];"));
  EXPECT_EQ("namespace a { static ::gpulabs_sim::dynamic_shared_view<double> d; }",
            Squeezed("namespace a { extern __shared__ double d[]; }"));
}

TEST(RewriteShared, WhatCannotBeRewrittenIsAnError) {
  EXPECT_EQ(1u, Rewrite("__shared__ int counter;\n").errors.size());
  EXPECT_EQ(1u, Rewrite("void k() { __shared__ int x = 0; }\n").errors.size());
  EXPECT_EQ(1u, Rewrite("struct S { __shared__ int x[4]; };\n").errors.size());
  EXPECT_EQ(1u, Rewrite("void k() { extern __shared__ int d[4]; }\n").errors.size());
  const Result r = Rewrite("void k() {\n  __shared__ int\n#if A\n  x[4];\n#endif\n}\n");
  ASSERT_EQ(1u, r.errors.size());
  EXPECT_TRUE(Has(r.errors[0], "test.cu:2:")) << r.errors[0];
}

TEST(RewriteShared, DeclarationSpanningLinesKeepsLineNumbers) {
  const Result r =
      Rewrite("void k() {\n  __shared__ float\n    tile[16];  // note\n  use(tile);\n}\n");
  int line = 1;
  for (size_t k = 0; k < r.text.find("use("); ++k) line += r.text[k] == '\n';
  EXPECT_EQ(4, line) << r.text;
  EXPECT_TRUE(Has(r.text, "// note"));
}

TEST(RewriteShared, DirectiveBeforeTheDeclarationStaysPut) {
  const std::string out =
      Squeezed("void k() { int a = 0;\n#pragma once_upon\n  __shared__ int s[2]; }");
  EXPECT_TRUE(Has(out, "int a = 0; #pragma once_upon int (&s) [ 2 ]")) << out;
}

// ---- Linkage of __device__ and __constant__ -----------------------------------------------

TEST(RewriteLinkage, NamespaceScopeDeviceDefinitionsBecomeLocal) {
  EXPECT_EQ("GPULABS_SIM_TU_LOCAL __device__ int f(int x) { return x; }",
            Squeezed("__device__ int f(int x) { return x; }"));
  EXPECT_EQ("__forceinline__ GPULABS_SIM_TU_LOCAL __device__ int f();",
            Squeezed("__forceinline__ __device__ int f();"));
  EXPECT_EQ("template <int N> GPULABS_SIM_TU_LOCAL __device__ void g();",
            Squeezed("template <int N> __device__ void g();"));
  EXPECT_EQ("GPULABS_SIM_TU_LOCAL __constant__ float c[4] = {1, 2, 3, 4};",
            Squeezed("__constant__ float c[4] = {1, 2, 3, 4};"));
  EXPECT_EQ("namespace { GPULABS_SIM_TU_LOCAL __device__ unsigned long long calls; }",
            Squeezed("namespace { __device__ unsigned long long calls; }"));
  EXPECT_EQ("extern \"C\" { GPULABS_SIM_TU_LOCAL __device__ int h(); }",
            Squeezed("extern \"C\" { __device__ int h(); }"));
}

TEST(RewriteLinkage, WhatHostCodeSeesKeepsItsLinkage) {
  for (const char *keep :
       {"__host__ __device__ int f();", "__device__ __host__ int f();",
        "static __device__ int f();", "extern __device__ int x;", "__global__ void k();",
        "template <> __device__ int f<1>();", "__device__ int Foo::bar() { return 0; }",
        "struct S { __device__ int f(); };",
        "void h() { auto l = [] __device__ (int x) { return x; }; }"}) {
    EXPECT_EQ(keep, Squeezed(keep));
  }
}

// ---- Directives ---------------------------------------------------------------------------

TEST(RewriteDirectives, PragmaUnrollBecomesAComment) {
  EXPECT_EQ("void f() {\n/* #pragma unroll: a hint for nvcc */\n  for (;;) {}\n}\n",
            Rewrite("void f() {\n#pragma unroll 4\n  for (;;) {}\n}\n").text);
  EXPECT_EQ("#pragma once\n#pragma unrolling\n", Rewrite("#pragma once\n#pragma unrolling\n").text);
}

TEST(RewriteDirectives, LocalIncludesGoThroughTheHandler) {
  char dir_template[] = "/tmp/gpulabs_sim_rewrite_XXXXXX";
  ASSERT_NE(nullptr, mkdtemp(dir_template));
  const std::string dir = dir_template;
  std::ofstream(dir + "/kernels.cuh") << "__device__ int f();\n";
  std::string asked;
  gpulabs_sim_rewrite::IncludeHandler handler = [&](const std::string &path) {
    asked = path;
    return std::string("/generated/0_kernels.cuh");
  };
  const Result r = Rewrite(
      "#include \"kernels.cuh\"\n#include \"missing.h\"\n#include <vector>\n  #  include "
      "\"kernels.cuh\" // again\n",
      dir + "/main.cu", handler);
  EXPECT_EQ(dir + "/kernels.cuh", asked);
  EXPECT_EQ(
      "#include \"/generated/0_kernels.cuh\"\n#include \"missing.h\"\n#include <vector>\n"
      "  #include \"/generated/0_kernels.cuh\"\n",
      r.text);
  remove((dir + "/kernels.cuh").c_str());
  rmdir(dir.c_str());
}

// ---- Branch conditions in device code ----------------------------------------------------

TEST(RewriteBranches, IfAndWhileInDeviceCodeGetASchedulingPoint) {
  EXPECT_EQ(
      "__global__ void k(int *p) { if (::gpulabs_sim::branch_point(static_cast<bool>(p[0] == 0))) "
      "p[0] = 1; while (::gpulabs_sim::branch_point(static_cast<bool>(p[1] >= 2 && p[2] != 3))) "
      "--p[1]; }",
      Squeezed("__global__ void k(int *p) { if (p[0] == 0) p[0] = 1; "
               "while (p[1] >= 2 && p[2] != 3) --p[1]; }"));
  // __device__ and __host__ __device__ functions, members, nested blocks, else if, do-while.
  const std::string out = Squeezed(
      "struct S { __device__ bool f(int x) { { if (x) return true; } return false; } };\n"
      "__host__ __device__ int g(int x) { if (x < 0) return 0; else if (x > 9) return 9;\n"
      "  do { --x; } while (x > 5); return x; }");
  EXPECT_TRUE(Has(out, "{ { if (::gpulabs_sim::branch_point(static_cast<bool>(x))) return true;"))
      << out;
  EXPECT_TRUE(Has(out, "else if (::gpulabs_sim::branch_point(static_cast<bool>(x > 9)))")) << out;
  EXPECT_TRUE(Has(out, "} while (::gpulabs_sim::branch_point(static_cast<bool>(x > 5)));")) << out;
}

TEST(RewriteBranches, HostCodeAndDeclaringConditionsAreLeftAlone) {
  const std::string host = "void h(int x) { if (x) x = 0; while (x < 3) ++x; }";
  EXPECT_EQ(host, Squeezed(host));
  const std::string kept =
      "__device__ int f(int *p) { if constexpr (sizeof(int) == 4) {} if (int y = p[0]) return y; "
      "if (int z = 0; z < p[1]) {} while (p[2] = p[3]) {} if (p[4] >>= 1) {} "
      "if (int w{p[5]}) {} return 0; }";
  EXPECT_EQ("GPULABS_SIM_TU_LOCAL " + kept, Squeezed(kept));
}

TEST(RewriteBranches, ConditionsSpanningLinesAndNestedParentheses) {
  const Result r = Rewrite(
      "__global__ void k(int *p) {\n"
      "  if ((p[0] == 0) /* ) */ &&\n"
      "      f(\")\", [=] { return p[1] <= 2; }))\n"
      "    p[0] = 1;\n}\n");
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(Has(r.text,
                  "if (::gpulabs_sim::branch_point(static_cast<bool>((p[0] == 0) /* ) */ &&\n"
                  "      f(\")\", [=] { return p[1] <= 2; }))))\n"))
      << r.text;
}
