// Allowed: analysis links the store (DESIGN: analysis → store). The control
// case of layering_arrows, so a failure of the forbidden case means the arrow,
// not a broken probe.
#include "store/run_queries.h"
