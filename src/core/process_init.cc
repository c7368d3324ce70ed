// tw::InitProcess (include/tensorweave/process.h): the process-wide settings in one place.
#include "core/malloc_tuning.h"
#include "core/mutex_mode.h"
#include "tensorweave/process.h"

namespace tw {

void InitProcess() {
  ConfigureMutexDeadlockDetection();
  TuneMallocForLargeTensors();
}

}  // namespace tw
