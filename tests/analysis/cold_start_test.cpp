#include "analysis/cold_start.h"

#include <gtest/gtest.h>

#include "model/query_calls.h"
#include "report/report_data.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

TEST(ColdStart, NamesStartUpCallsByKind) {
    EXPECT_STREQ(coldStartKind("cuLibraryLoadData"), "module loading");
    EXPECT_STREQ(coldStartKind("cuModuleLoadDataEx"), "module loading");
    EXPECT_STREQ(coldStartKind("cudaLibraryLoadFromFile"), "module loading");
    EXPECT_STREQ(coldStartKind("cuLinkComplete"), "JIT compilation");
    EXPECT_STREQ(coldStartKind("nvrtcCompileProgram"), "JIT compilation");
    EXPECT_STREQ(coldStartKind("cuDevicePrimaryCtxRetain"), "first-call initialisation");
    EXPECT_EQ(coldStartKind("cuLaunchKernel"), nullptr);
    EXPECT_EQ(coldStartKind("cudaMemcpyAsync"), nullptr);
    EXPECT_EQ(coldStartKind("cuModuleGetFunction"), nullptr);  // a lookup, microseconds
}

ApiCallRecord call(std::int64_t start, std::int64_t end, const char* name) {
    return ApiCallRecord{start, end, 1, 1, 0, ApiKind::Driver, 0, name, 0};
}

// Request 0 arrives cold: two overlapping library loads (600 µs of union)
// fall before its first token. Request 1 is warm; a load after a first token
// (during decode) is not in any TTFT window.
// A recording leaves state-reading calls out unless --all-apis: none of them
// may be a call cold-start detection looks for.
TEST(ColdStart, EveryStartUpCallIsRecordedByDefault) {
    for (const char* name :
         {"cuModuleLoadData", "cuModuleLoadDataEx", "cuModuleGetLoadingMode", "cuLibraryLoadData",
          "cudaLibraryLoadData", "cuLinkCreate_v2", "cuLinkComplete", "cuInit",
          "cuDevicePrimaryCtxRetain", "cuCtxCreate_v4", "cudaInitDevice"}) {
        EXPECT_NE(coldStartKind(name), nullptr) << name;
        EXPECT_FALSE(isQueryCall(name)) << name;
    }
}

TEST(ColdStart, FlagsRequestsWhoseTtftWindowHoldsStartUpWork) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(RequestRecord{0, 0, 5'000'000, 16, 2, true});
        w.add(TokenRecord{0, 0, 1'000'000});
        w.add(TokenRecord{0, 1, 5'000'000});
        w.add(RequestRecord{1, 6'000'000, 9'000'000, 16, 2, true});
        w.add(TokenRecord{1, 0, 6'300'000});
        w.add(TokenRecord{1, 1, 9'000'000});
        w.add(call(100'000, 500'000, "cuLibraryLoadData"));
        w.add(call(300'000, 700'000, "cuLibraryLoadData"));
        w.add(call(710'000, 720'000, "cuLaunchKernel"));
        w.add(call(6'100'000, 6'110'000, "cuLaunchKernel"));
        w.add(call(2'000'000, 2'900'000, "cuModuleLoadData"));  // request 0 decoding
    }
    auto c = checkColdStart(store, run);
    ASSERT_TRUE(c.checked) << c.why;
    EXPECT_EQ(c.requests, 2);
    ASSERT_EQ(c.hits.size(), 1u);
    EXPECT_EQ(c.hits[0].requestId, 0);
    EXPECT_EQ(c.hits[0].ttftNs, 1'000'000);
    EXPECT_EQ(c.hits[0].coldNs, 600'000);
    EXPECT_EQ(c.hits[0].calls, "cuLibraryLoadData ×2");
    EXPECT_EQ(c.hits[0].kinds, "module loading");

    // The report says it as a finding with the numbers, and how to avoid it.
    auto report = buildReport(store, run);
    bool found = false;
    for (const auto& f : report.findings)
        if (f.title.find("1 of 2 requests timed start-up work") != std::string::npos) {
            found = true;
            EXPECT_NE(f.evidence.find("request 0: 600 µs of its 1.00 ms TTFT"), std::string::npos)
                << f.evidence;
        }
    EXPECT_TRUE(found);
}

TEST(ColdStart, SaysWhyARunCannotBeChecked) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    auto noRequests = store.beginRun({});
    {
        StoreWriter w(store, noRequests);
        w.add(call(0, 10, "cuLibraryLoadData"));
    }
    auto a = checkColdStart(store, noRequests);
    EXPECT_FALSE(a.checked);
    EXPECT_EQ(a.why, "the run has no requests with a first token");
    auto noCalls = store.beginRun({});  // an imported benchmark result: tokens only
    {
        StoreWriter w(store, noCalls);
        w.add(RequestRecord{0, 0, 10, 1, 1, true});
        w.add(TokenRecord{0, 0, 10});
    }
    auto b = checkColdStart(store, noCalls);
    EXPECT_FALSE(b.checked);
    EXPECT_EQ(b.why, "the run has no CUDA API calls while its requests were served");
}

}  // namespace
}  // namespace ws
