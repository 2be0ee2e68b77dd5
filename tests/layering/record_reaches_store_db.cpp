// Forbidden: Store::db() is private, so SQL on a store runs in core/store only.
#include "store/store.h"

void probe(ws::Store& store) {
    (void)&store.db();
}
