// The extern "C" entry points. Each one only hands its arguments to the
// helpers in shim.h and the C++ API; there is no logic here to get wrong.

#include "nodeplan/c_api.h"

#include <cstdlib>

#include "nodeplan/version.h"
#include "shim.h"

static_assert(NODEPLAN_CAPI_ABI_VERSION == NODEPLAN_ABI_VERSION,
              "capi/include/nodeplan/c_api.h and CMakeLists.txt disagree on "
              "the ABI version");

extern "C" {

const char* nodeplan_version(void) { return NODEPLAN_VERSION_STRING; }

int nodeplan_abi_version(void) { return NODEPLAN_CAPI_ABI_VERSION; }

void nodeplan_free(void* ptr) { std::free(ptr); }

}  // extern "C"
