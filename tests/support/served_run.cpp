#include "support/served_run.h"

#include "store/store.h"
#include "store/store_writer.h"

namespace ws::testing {

RunId writeServedRun(const std::string& storePath, bool declareStepCosts) {
    Store store(storePath);
    NewRun info;
    info.label = "served";
    RunId run = store.beginRun(info);
    {
        StoreWriter w(store, run);
        std::int64_t t = 0;
        for (int i = 0; i < 20; ++i) {
            const bool prefill = i == kServedPrefillStep;
            const std::int64_t length = prefill ? 9'000'000 : 1'000'000;
            w.add(RangeRecord{t, t + length, 1, 1,
                              "engine.step:" + std::to_string(i) +
                                  ";running=4;prefill_tokens=" + std::to_string(prefill ? 512 : 0) +
                                  ";decode_tokens=" + std::to_string(prefill ? 3 : 4) +
                                  // contexts of 100 positions; the prompt's 512 score 512·513/2
                                  (prefill ? ";kv_read_tokens=812;attention_pairs=131628"
                                           : ";kv_read_tokens=400;attention_pairs=400"),
                              "", RangeKind::PushPop, 0, 0});
            KernelRecord k;
            k.startNs = t + 100'000;
            k.endNs = t + 900'000;
            k.name = "decode";
            w.add(k);
            t += length;
            w.add(TokenRecord{0, i, t + 50'000});
        }
        RequestRecord r;
        r.requestId = 0;
        r.startNs = -1'000'000;
        r.endNs = t + 50'000;
        r.promptTokens = 16;
        r.outputTokens = 20;
        w.add(r);
    }
    if (declareStepCosts)
        for (auto [key, value] :
             {std::pair{"serve.step_weight_bytes", "4e5"},
              std::pair{"serve.kv_bytes_per_token", "100"},
              std::pair{"serve.matmul_flops_per_token", "1000"},
              std::pair{"serve.attention_flops_per_pair", "1000"},
              std::pair{"ceiling.copy_gbs", "1"}, std::pair{"ceiling.bf16_tflops", "1"}})
            store.setProperty(run, key, value);
    store.finishRun(run, RunStatus::Ok, 0);
    return run;
}

}  // namespace ws::testing
