// Forbidden: analysis must not see the recorder. CMake gives ws_analysis no
// path to record/, so this file must fail to compile.
#include "record/recorder.h"
