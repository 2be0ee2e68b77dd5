// DeviceInfo is described once (model/device_fields.h): every field survives
// the capture wire and the store with its own value, and the store's devices
// table has exactly the described columns.
#include <gtest/gtest.h>

#include <set>

#include "model/device_fields.h"
#include "store/run_queries.h"
#include "store/store.h"
#include "store_db.h"
#include "support/temp_dir.h"
#include "wire/frames.h"

namespace ws {
namespace {

// A device whose every field holds a value no other field has.
DeviceInfo distinctDevice() {
    DeviceInfo d;
    int n = 1;
    for (const auto& f : kDeviceFields) {
        if (f.text) d.*f.text = std::string("text-") + f.column;
        if (f.int32) d.*f.int32 = 1000 + n;
        if (f.int64) d.*f.int64 = (std::int64_t(1) << 40) + n;
        ++n;
    }
    return d;
}

void expectSameFields(const DeviceInfo& a, const DeviceInfo& b) {
    for (const auto& f : kDeviceFields) {
        SCOPED_TRACE(f.column);
        if (f.text) {
            EXPECT_EQ(a.*f.text, b.*f.text);
        } else if (f.int32) {
            EXPECT_EQ(a.*f.int32, b.*f.int32);
        } else {
            EXPECT_EQ(a.*f.int64, b.*f.int64);
        }
    }
}

TEST(DeviceFields, EachFieldHasOneTypeAndAColumnOfItsOwn) {
    std::set<std::string> columns;
    for (const auto& f : kDeviceFields) {
        EXPECT_EQ(int(f.text != nullptr) + int(f.int32 != nullptr) + int(f.int64 != nullptr), 1)
            << f.column;
        EXPECT_TRUE(columns.insert(f.column).second) << f.column << " twice";
    }
}

TEST(DeviceFields, EveryFieldCrossesTheWire) {
    auto sent = distinctDevice();
    wire::Encoder enc;
    enc.device(sent);
    std::optional<DeviceInfo> got;
    wire::Sink sink;
    sink.device = [&](const DeviceInfo& d) { got = d; };
    wire::Decoder dec(sink);
    dec.feed(enc.bytes());
    ASSERT_TRUE(got);
    expectSameFields(sent, *got);
}

TEST(DeviceFields, EveryFieldIsStoredAndTheTableHasExactlyTheseColumns) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun(NewRun{});
    auto sent = distinctDevice();
    store.setDevice(run, sent);
    auto got = runDevice(store, run);
    ASSERT_TRUE(got);
    expectSameFields(sent, *got);

    std::set<std::string> described, stored;
    for (const auto& f : kDeviceFields)
        described.insert(f.column);
    sql::Statement info(storeDb(store), "SELECT name FROM pragma_table_info('devices')");
    while (info.step())
        if (info.text(0) != "id") stored.insert(info.text(0));
    EXPECT_EQ(stored, described);
}

}  // namespace
}  // namespace ws
