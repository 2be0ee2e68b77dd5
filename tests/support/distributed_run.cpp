#include "support/distributed_run.h"

#include "model/process_keys.h"
#include "store/store.h"
#include "store/store_writer.h"

namespace ws::testing {

RunId writeTwoRankRun(Store& store, const TwoRankRun& shape) {
    RunId run = store.beginRun({});
    {
        StoreWriter w(store, run);
        w.add(GpuStreamRecord{0, 7, 900, 7});
        w.add(GpuStreamRecord{0, 8, 901, 7});
        for (int i = 0; i < shape.collectives; ++i)
            for (std::uint32_t pid : {900u, 901u}) {
                const std::int64_t round = kTwoRankStartNs + 1'000'000LL * i;
                KernelRecord k;
                k.startNs = round + (shape.latePid(i) == pid ? shape.lateNs : 0);
                k.endNs = round + 400'000;
                k.streamId = pid == 900 ? 7 : 8;
                k.name =
                    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned "
                    "long, ncclWork*)";
                if (shape.messageBytes > 0) {
                    k.correlationId = static_cast<std::uint32_t>(2 * i + 1) + (pid - 900);
                    const bool insideCall = i + 1 < shape.collectives;
                    w.add(CollectiveCallRecord{pid, pid, round - 50'000, round - 20'000,
                                               "AllReduce", 0xc0ffee, shape.messageBytes});
                    const std::int64_t launch = insideCall ? round - 40'000 : round - 10'000;
                    w.add(ApiCallRecord{launch, launch + 5'000, pid, pid, k.correlationId,
                                        ApiKind::Runtime, 211, "cudaLaunchKernel_v7000", 0});
                }
                w.add(k);
                if (shape.withGemm) {
                    KernelRecord gemm = k;
                    gemm.startNs = k.endNs + 10'000;
                    gemm.endNs = gemm.startNs + 500'000;
                    gemm.name = "gemm";
                    w.add(gemm);
                }
            }
    }
    store.setProperty(run, process_keys::rank(900), std::to_string(shape.rankOf900));
    store.setProperty(run, process_keys::rank(901), std::to_string(1 - shape.rankOf900));
    store.finishRun(run, RunStatus::Ok);
    return run;
}

}  // namespace ws::testing
