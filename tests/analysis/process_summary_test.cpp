// Kernel time by process: a run whose GPU work is one process's reads the
// same totals from its summary as from a pass over every kernel.
#include <gtest/gtest.h>

#include "analysis/kernel_summary.h"
#include "analysis/process_summary.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/temp_dir.h"

namespace ws {
namespace {

TEST(ProcessSummary, OneProcessTakesTheSummaryTotalsWithoutASecondPass) {
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(GpuStreamRecord{0, 7, 800, 7});
        for (int i = 0; i < 3; ++i) {
            KernelRecord k;
            k.startNs = 1000 * (i + 1);
            k.endNs = k.startNs + 100 * (i + 1);
            k.streamId = 7;
            k.name = "k";
            w.add(k);
        }
        MemcpyRecord m;
        m.startNs = 10'000;
        m.endNs = 10'500;
        m.streamId = 7;
        m.bytes = 4096;
        w.add(m);
    }
    store.setProperty(run, process_keys::command(800), "python3 serve.py");
    auto scanned = summarizeProcesses(store, run);
    auto summary = summarizeRun(store, run);
    auto fromSummary = summarizeProcesses(store, run, {}, &summary);
    ASSERT_EQ(scanned.size(), 1u);
    ASSERT_EQ(fromSummary.size(), 1u);
    for (const auto* p : {&scanned[0], &fromSummary[0]}) {
        EXPECT_EQ(p->process.pid, 800u);
        EXPECT_EQ(p->process.command, "python3 serve.py");
        EXPECT_EQ(p->kernels, 3);
        EXPECT_EQ(p->kernelNs, 600);
        EXPECT_EQ(p->memcpys, 1);
        EXPECT_EQ(p->memcpyBytes, 4096);
        EXPECT_DOUBLE_EQ(p->kernelShare, 1.0);
    }
}

}  // namespace
}  // namespace ws
