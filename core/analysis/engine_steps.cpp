#include "analysis/engine_steps.h"

#include <algorithm>
#include <map>
#include <string>

#include "store/run_queries.h"

namespace ws {

StepKind stepKind(const EngineStep& s) {
    if (s.prefillTokens > 0) return s.decodeTokens > 0 ? StepKind::Mixed : StepKind::Prefill;
    return s.decodeTokens > 0 ? StepKind::Decode : StepKind::Other;
}

const char* stepKindName(StepKind kind) {
    switch (kind) {
        case StepKind::Decode:
            return "decode";
        case StepKind::Mixed:
            return "mixed";
        case StepKind::Prefill:
            return "prefill";
        case StepKind::Other:
            return "other";
    }
    return "other";
}

std::optional<StepKind> parseStepKind(std::string_view name) {
    for (auto kind : {StepKind::Decode, StepKind::Mixed, StepKind::Prefill, StepKind::Other})
        if (name == stepKindName(kind)) return kind;
    return std::nullopt;
}

namespace {

// Steps first, then kernels one at a time (a served hour holds millions).
class StepKindAccumulator {
  public:
    explicit StepKindAccumulator(std::vector<EngineStep> steps) : steps_(std::move(steps)) {
        std::sort(steps_.begin(), steps_.end(),
                  [](const EngineStep& a, const EngineStep& b) { return a.startNs < b.startNs; });
        for (const auto& s : steps_) {
            auto& a = byKind_[stepKind(s)];
            a.stepNs.push_back(static_cast<double>(s.endNs - s.startNs));
            a.running += s.running;
            a.prefill += s.prefillTokens;
            a.decode += s.decodeTokens;
        }
    }

    // A kernel belongs to the step it starts in: a step launches its kernels
    // and waits for them before it ends (the engine synchronizes each step).
    void add(const KernelRecord& k) {
        auto it =
            std::upper_bound(steps_.begin(), steps_.end(), k.startNs,
                             [](std::int64_t t, const EngineStep& s) { return t < s.startNs; });
        if (it == steps_.begin()) return;
        const auto& step = *std::prev(it);
        if (k.startNs >= step.endNs) return;
        auto& a = byKind_[stepKind(step)];
        a.kernelNs += static_cast<double>(k.durationNs());
        a.kernelTimes[k.name].push_back(static_cast<double>(k.durationNs()));
        a.busy.emplace_back(k.startNs, std::min(k.endNs, step.endNs));
    }

    EngineStepSummary finish() {
        EngineStepSummary out;
        out.steps = steps_.size();
        for (auto& [kind, a] : byKind_) {
            StepKindSummary s;
            s.kind = kind;
            s.stepTime = durations(a.stepNs);
            s.meanRunning = a.stepNs.empty() ? 0 : a.running / static_cast<double>(a.stepNs.size());
            s.prefillTokens = a.prefill;
            s.decodeTokens = a.decode;
            s.kernelNs = a.kernelNs;
            s.gpuBusyFraction =
                s.stepTime.totalNs > 0
                    ? static_cast<double>(unionLength(std::move(a.busy))) / s.stepTime.totalNs
                    : 0;
            s.kernels = kernelStats(a.kernelTimes, a.kernelNs);
            out.kinds.push_back(std::move(s));
        }
        return out;
    }

  private:
    struct Kind {
        std::vector<double> stepNs;
        double running = 0;
        std::int64_t prefill = 0, decode = 0;
        double kernelNs = 0;
        std::vector<std::pair<std::int64_t, std::int64_t>> busy;
        std::map<std::string, std::vector<double>> kernelTimes;
    };
    std::vector<EngineStep> steps_;
    std::map<StepKind, Kind> byKind_;
};

}  // namespace

EngineStepSummary summarizeEngineSteps(std::vector<EngineStep> steps,
                                       const std::vector<KernelRecord>& kernels) {
    StepKindAccumulator acc(std::move(steps));
    for (const auto& k : kernels)
        acc.add(k);
    return acc.finish();
}

std::vector<EngineStep> engineStepsOf(Store& store, RunId run) {
    std::vector<EngineStep> steps;
    forEachRange(store, run, {}, std::nullopt, [&](const RangeRecord& r) {
        if (auto s = engineStepOf(r)) steps.push_back(*s);
    });
    return steps;
}

EngineStepSummary summarizeEngineSteps(Store& store, RunId run) {
    return summarizeEngineSteps(store, run, engineStepsOf(store, run));
}

EngineStepSummary summarizeEngineSteps(Store& store, RunId run, std::vector<EngineStep> steps) {
    if (steps.empty()) return {};
    StepKindAccumulator acc(std::move(steps));
    forEachKernel(store, run, {}, std::nullopt, [&](const KernelRecord& k) { acc.add(k); });
    return acc.finish();
}

std::string whyNoEngineSteps(Store& store, RunId run) {
    const auto properties = runProperties(store, run);
    const auto mode = properties.find("bench.mode");
    const bool served = mode != properties.end() && mode->second == "server";
    if (served && !runDevice(store, run))
        return "the server was recorded with bench serve --server, but no CUDA driver loaded the "
               "capture library on that machine, so nothing of the server was traced; record it "
               "on a machine with an NVIDIA GPU";
    if (served)
        return "the server was traced but emits no engine.step NVTX ranges (docs/serving.md "
               "names the range and its fields; the built-in server and vLLM's profiler "
               "annotations have them)";
    return "record a server with bench serve --server (docs/serving.md names the range and "
           "its fields)";
}

}  // namespace ws
