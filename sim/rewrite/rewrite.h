// gpulabs-sim's rewriting step: turns a CUDA source into C++ that the host compiler builds
// against the simulator's runtime, keeping every line where it was (so compiler messages,
// AddressSanitizer reports and gdb name the original file and line).
//
//   kernel<<<grid, block, shared, stream>>>(args);
//     -> ::gpulabs_sim::launch(::gpulabs_sim::config(grid, block, shared, stream), "kernel",
//                              __FILE__, __LINE__, [&]() { kernel(args); });
//   __shared__ T name[N];          (in a function)
//     -> T (&name)[N] = ::gpulabs_sim::static_shared<T[N]>([] {});
//   extern __shared__ T name[];    (in a function)
//     -> T *const name = ::gpulabs_sim::dynamic_shared<T>();
//   __device__ / __constant__ definitions at namespace scope get internal linkage
//     (GPULABS_SIM_TU_LOCAL), as nvcc's per-file device code has;
//   if (cond) / while (cond) in device code
//     -> if (::gpulabs_sim::branch_point(static_cast<bool>(cond))), a scheduling point;
//   #include "local.h" (found next to the including file) -> the rewritten copy of it.
#ifndef GPULABS_SIM_REWRITE_H
#define GPULABS_SIM_REWRITE_H

#include <functional>
#include <string>
#include <vector>

namespace gpulabs_sim_rewrite {

// Given the path of a header that a file includes with quotes and that exists next to it,
// returns the path the rewritten source should include instead ("" keeps the original).
using IncludeHandler = std::function<std::string(const std::string &header_path)>;

struct Result {
  std::string text;                 // the rewritten source (no #line prologue)
  std::vector<std::string> errors;  // "path:line: error: ..." for what cannot be rewritten
};

// Rewrites `source`, read from `path` (used for messages and to resolve quoted includes).
Result rewrite_source(const std::string &source, const std::string &path,
                      const IncludeHandler &includes);

}  // namespace gpulabs_sim_rewrite

#endif
