// The scheduler's settings: the schedule seed, the number of host threads ("workers") and
// the size of a thread's stack, read once from the environment (README, "Reproducing and
// debugging"); and gpulabs_sim.h's functions that read or change them. Apart from the rest
// because every part reads them and none of that is on a hot path.
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "scheduler.h"

namespace gpulabs_sim {

Settings &settings() {
  static Settings *s = new Settings;  // never destroyed: pool threads may outlive main()
  return *s;
}

namespace {

bool parse_u64(const char *text, uint64_t *value) {
  if (text == nullptr || text[0] == '\0') return false;
  char *end = nullptr;
  unsigned long long v = strtoull(text, &end, 0);
  if (end == text || *end != '\0') return false;
  *value = v;
  return true;
}

}  // namespace

void init_settings_locked(Settings &s) {
  if (s.ready) return;
  uint64_t value = 0;
  if (parse_u64(getenv("GPULABS_SIM_SEED"), &value)) {
    s.seed = value;
    s.seed_source = "GPULABS_SIM_SEED";
  } else if (parse_u64(getenv("GPULABS_SEED"), &value)) {
    s.seed = value;
    s.seed_source = "GPULABS_SEED";
  } else {
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t state =
        (uint64_t)now.tv_sec * 1000000007ull ^ (uint64_t)now.tv_nsec ^ ((uint64_t)getpid() << 32);
    s.seed = splitmix64(&state) & 0xFFFFFFFFFFull;  // short enough to type back in
    s.seed_source = "fresh";
  }
  unsigned cpus = std::thread::hardware_concurrency();
  s.workers = cpus > 0 ? (int)cpus : 2;
  if (parse_u64(getenv("GPULABS_SIM_THREADS"), &value) && value >= 1 && value <= 256) {
    s.workers = (int)value;
  }
  if (parse_u64(getenv("GPULABS_SIM_STACK_KIB"), &value) && value >= 16 && value <= 65536) {
    s.stack_bytes = (size_t)value * 1024;
  }
  s.quiet = getenv("GPULABS_SIM_QUIET") != nullptr && strcmp(getenv("GPULABS_SIM_QUIET"), "0") != 0;
  s.ready = true;
}

namespace {

Settings &ready_settings() {
  Settings &s = settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  init_settings_locked(s);
  return s;
}

}  // namespace
}  // namespace gpulabs_sim

// ---- gpulabs_sim.h ------------------------------------------------------------------------

extern "C" uint64_t gpulabs_sim_schedule_seed(void) { return gpulabs_sim::ready_settings().seed; }

extern "C" void gpulabs_sim_set_schedule_seed(uint64_t seed) {
  gpulabs_sim::Settings &s = gpulabs_sim::settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  gpulabs_sim::init_settings_locked(s);
  s.seed = seed;
  s.seed_source = "set by the program";
  s.launches.store(0);
}

extern "C" int gpulabs_sim_worker_count(void) { return gpulabs_sim::ready_settings().workers; }

extern "C" void gpulabs_sim_set_worker_count(int count) {
  gpulabs_sim::Settings &s = gpulabs_sim::settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  gpulabs_sim::init_settings_locked(s);
  s.workers = count < 1 ? 1 : (count > 256 ? 256 : count);
}

extern "C" uint64_t gpulabs_sim_launch_count(void) {
  return gpulabs_sim::settings().launches.load();
}

namespace gpulabs_sim {
int worker_count() { return ready_settings().workers; }
}  // namespace gpulabs_sim
