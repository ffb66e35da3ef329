// SwiftPM needs one source file per C target; the module is the header alone.
#include "CLinuxEpoll.h"
