#include "store/chunk_directory.h"
#include "store_db.h"

#include "store/sqlite_db.h"
#include "store/store.h"

namespace ws {

std::vector<LaneChunks> chunkDirectory(Store& store, RunId id, codec::ChunkKind kind) {
    // The index (run_id, kind, group_id, lane_id, first_start_ns) gives this
    // order without a sort.
    sql::Statement st(storeDb(store),
                      "SELECT group_id, lane_id, first_start_ns, max_end_ns, count, busy_ns FROM "
                      "event_chunks WHERE run_id = ?1 AND kind = ?2 ORDER BY group_id, lane_id, "
                      "first_start_ns");
    st.bind(1, id);
    st.bind(2, static_cast<int>(kind));
    std::vector<LaneChunks> lanes;
    while (st.step()) {
        auto group = static_cast<std::uint32_t>(st.int64(0));
        auto lane = static_cast<std::uint32_t>(st.int64(1));
        if (lanes.empty() || lanes.back().groupId != group || lanes.back().laneId != lane)
            lanes.push_back({kind, group, lane, {}});
        lanes.back().chunks.push_back({st.int64(2), st.int64(3), st.int64(4), st.int64(5)});
    }
    return lanes;
}

}  // namespace ws
