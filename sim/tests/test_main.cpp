// main() for the simulator's tests: prints the schedule seed first (under gpulabs-sim), so
// any failure can be replayed with GPULABS_SIM_SEED.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>

#ifdef GPULABS_SIM
#include "gpulabs_sim.h"
#endif

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
#ifdef GPULABS_SIM
  printf("[ sim      ] schedule seed 0x%llx (GPULABS_SIM_SEED replays it), %d host threads\n",
         (unsigned long long)gpulabs_sim_schedule_seed(), gpulabs_sim_worker_count());
#else
  printf("[ cuda     ] running on the GPU\n");
#endif
  return RUN_ALL_TESTS();
}
