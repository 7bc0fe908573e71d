// The fake course's GPU probe: passes ("a GPU is here") unless FAKE_COURSE_NO_GPU is set.
#include "fake_gpu.h"

class CommonGpu : public FakeGpuTest {};

TEST_F(CommonGpu, DeviceIsThere) { SUCCEED(); }
