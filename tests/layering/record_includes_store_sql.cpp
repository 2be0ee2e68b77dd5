// Forbidden: the store's SQL connection is its own (store_db.h lies outside
// the store's include root); the recorder asks the store's functions.
#include "store_db.h"
