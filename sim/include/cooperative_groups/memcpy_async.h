// gpulabs-sim: cooperative_groups::memcpy_async and wait are not simulated.
#error "gpulabs-sim: <cooperative_groups/memcpy_async.h> (cg::memcpy_async, cg::wait) is not simulated by the CPU backend; copy with plain loads and stores and a sync(), or run this code on a GPU"
