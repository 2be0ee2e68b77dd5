// Forbidden: the kernels link model only, never the store.
#include "store/store.h"
