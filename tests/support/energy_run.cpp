#include "support/energy_run.h"

#include <string>

#include "store/store_writer.h"

namespace ws::testing {

namespace {
constexpr std::int64_t kMs = 1'000'000;
}

RunId writeEnergyRun(Store& store) {
    auto run = store.beginRun({});
    StoreWriter w(store, run);
    auto step = [&](std::int64_t from, std::int64_t to, int prefill, int decode) {
        w.add(RangeRecord{from * kMs, to * kMs, 1, 1,
                          "engine.step:1;running=2;waiting=0;prefill_seqs=" +
                              std::to_string(prefill > 0 ? 2 : 0) + ";prefill_tokens=" +
                              std::to_string(prefill) + ";decode_seqs=" + std::to_string(decode) +
                              ";decode_tokens=" + std::to_string(decode),
                          "", RangeKind::PushPop, 0, 0});
    };
    step(0, 40, 64, 0);
    step(40, 100, 0, 2);
    KernelRecord k;
    k.startNs = 0;
    k.endNs = 50 * kMs;
    k.name = "gemv_bf16_splitk";
    k.streamId = 7;
    w.add(k);
    for (int r = 0; r < 2; ++r) {
        w.add(RequestRecord{r, 0, 200 * kMs, 32, 3, true});
        for (int t = 0; t < 3; ++t)
            w.add(TokenRecord{r, t, (40 + 80 * t) * kMs});
    }
    for (int i = 0; i <= 2; ++i) {
        SampleRecord s;
        s.timeNs = i * 100 * kMs;
        s.energyJ = 30.0 * i;
        s.powerW = 200.0 + 100 * i;
        s.gpuUtilPercent = 90;
        w.add(s);
    }
    return run;
}

}  // namespace ws::testing
