// The fake course's test main: Google Test with a seed line, as the course's shim prints.
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  printf("[ gpulabs  ] seed 0x1 (set GPULABS_SEED to replay)\n");
  return RUN_ALL_TESTS();
}
