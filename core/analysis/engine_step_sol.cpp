#include "analysis/engine_step_sol.h"

#include <algorithm>
#include <cmath>

#include "analysis/statistics.h"
#include "analysis/token_steps.h"
#include "store/run_queries.h"

namespace ws {

namespace {

StepSolKind solOf(std::string kind, const std::vector<double>& stepNs,
                  const std::vector<double>& floorNs) {
    StepSolKind k;
    k.kind = std::move(kind);
    k.steps = static_cast<int>(stepNs.size());
    std::vector<double> sol;
    for (std::size_t i = 0; i < stepNs.size(); ++i) {
        k.stepNs += stepNs[i];
        k.floorNs += floorNs[i];
        if (stepNs[i] > 0) sol.push_back(100 * floorNs[i] / stepNs[i]);
    }
    if (!sol.empty()) {
        k.solP50 = stats::percentile(sol, 50);
        k.solP1 = stats::percentile(sol, 1);
    }
    return k;
}

// The median decode-only step time at each decode batch (tokens).
std::map<int, double> decodeOnlyMedians(const std::vector<EngineStep>& steps) {
    std::map<int, std::vector<double>> byBatch;
    for (const auto& s : steps)
        if (stepKind(s) == StepKind::Decode)
            byBatch[s.decodeTokens].push_back(static_cast<double>(s.endNs - s.startNs));
    std::map<int, double> medians;
    for (auto& [batch, times] : byBatch)
        medians[batch] = stats::percentile(std::move(times), 50);
    return medians;
}

double nearest(const std::map<int, double>& byBatch, int batch) {
    auto above = byBatch.lower_bound(batch);
    if (above == byBatch.end()) return std::prev(above)->second;
    if (above->first == batch || above == byBatch.begin()) return above->second;
    auto below = std::prev(above);
    return batch - below->first <= above->first - batch ? below->second : above->second;
}

}  // namespace

std::optional<EngineStepCost> declaredEngineStepCost(
    const std::map<std::string, std::string>& properties) {
    EngineStepCost c;
    for (auto [key, field] : {std::pair{"serve.step_weight_bytes", &c.weightBytes},
                              std::pair{"serve.kv_bytes_per_token", &c.kvBytesPerToken},
                              std::pair{"serve.matmul_flops_per_token", &c.matmulFlopsPerToken},
                              std::pair{"serve.attention_flops_per_pair", &c.attentionFlopsPerPair},
                              std::pair{"ceiling.copy_gbs", &c.copyGbs},
                              std::pair{"ceiling.bf16_tflops", &c.tensorTflops}}) {
        auto v = positiveProperty(properties, key);
        if (!v) return std::nullopt;
        *field = *v;
    }
    return c;
}

std::optional<StepFloorNs> engineStepFloor(const EngineStep& step, const EngineStepCost& cost) {
    if (step.kvReadTokens < 0 || step.attentionPairs < 0) return std::nullopt;
    const double tokens = step.prefillTokens + step.decodeTokens;
    const double bytesPerNs = cost.copyGbs;             // GB/s = bytes per ns
    const double flopsPerNs = cost.tensorTflops * 1e3;  // TFLOP/s = 1e3 FLOP per ns
    StepFloorNs f;
    f.matmul =
        std::max(cost.weightBytes / bytesPerNs, cost.matmulFlopsPerToken * tokens / flopsPerNs);
    // The KV of every position read once, and this step's own positions written.
    const double kvBytes = cost.kvBytesPerToken * (double(step.kvReadTokens) + tokens);
    f.attention = std::max(kvBytes / bytesPerNs,
                           cost.attentionFlopsPerPair * double(step.attentionPairs) / flopsPerNs);
    return f;
}

std::optional<EngineStepSol> engineStepSol(std::vector<EngineStep> steps, const WhatIfRun& run,
                                           const EngineStepCost& cost) {
    EngineStepSol sol;
    sol.cost = cost;
    std::sort(steps.begin(), steps.end(),
              [](const EngineStep& a, const EngineStep& b) { return a.startNs < b.startNs; });
    std::vector<EngineStep> described;
    std::vector<StepFloorNs> floors;
    for (const auto& s : steps) {
        if (auto f = engineStepFloor(s, cost)) {
            described.push_back(s);
            floors.push_back(*f);
        } else {
            ++sol.stepsWithoutWork;
        }
    }
    if (described.empty()) return std::nullopt;

    std::map<StepKind, std::pair<std::vector<double>, std::vector<double>>> byKind;
    std::vector<double> allSteps, allFloors;
    std::vector<StepSpan> spans;
    std::int64_t reached = described.front().startNs;
    for (std::size_t i = 0; i < described.size(); ++i) {
        const auto& s = described[i];
        const double ns = static_cast<double>(s.endNs - s.startNs);
        auto& [kindSteps, kindFloors] = byKind[stepKind(s)];
        kindSteps.push_back(ns);
        kindFloors.push_back(floors[i].total());
        allSteps.push_back(ns);
        allFloors.push_back(floors[i].total());
        sol.floorMatmulNs += floors[i].matmul;
        sol.floorAttentionNs += floors[i].attention;
        // Steps of one engine follow each other; should two overlap (two
        // engines), the later one's overlap is not counted twice.
        const auto begin = std::max(s.startNs, reached);
        if (s.startNs > reached) sol.hostBetweenStepsNs += double(s.startNs - reached);
        if (s.endNs > begin) spans.push_back({begin, s.endNs});
        reached = std::max(reached, s.endNs);
    }
    sol.windowNs = static_cast<double>(reached - described.front().startNs);
    for (auto& [kind, v] : byKind)
        sol.kinds.push_back(solOf(stepKindName(kind), v.first, v.second));
    sol.kinds.push_back(solOf("all", allSteps, allFloors));

    for (const auto& p : stepTimeParts(run, spans)) {
        for (const auto& [kind, ns] : p.kernelNs)
            sol.kernelNs[kind] += ns;
        sol.launchGapNs += p.launchGapNs;
        sol.hostInStepsNs += p.hostNs;
    }

    const auto decodeOnly = decodeOnlyMedians(described);
    for (const auto& s : described) {
        const double ns = static_cast<double>(s.endNs - s.startNs);
        const auto kind = stepKind(s);
        if (kind == StepKind::Mixed && !decodeOnly.empty())
            sol.prefillInterferenceNs += std::max(0.0, ns - nearest(decodeOnly, s.decodeTokens));
        if (kind == StepKind::Prefill && s.prefillSeqs >= 0 && s.running > s.prefillSeqs)
            sol.prefillInterferenceNs += ns;
    }
    return sol;
}

std::vector<SolPart> windowParts(const EngineStepSol& sol) {
    auto kernelNs = sol.kernelNs;
    std::vector<SolPart> parts = {
        {"the floor (speed of light)", sol.floorNs()},
        {"matmul kernels above their floor", kernelNs[KernelClass::Matmul] - sol.floorMatmulNs},
        {"attention kernels above their floor",
         kernelNs[KernelClass::Attention] - sol.floorAttentionNs}};
    std::vector<SolPart> rest;
    for (const auto& [kind, ns] : kernelNs)
        if (kind != KernelClass::Matmul && kind != KernelClass::Attention && ns > 0)
            rest.push_back({std::string(toString(kind)) + " kernels", ns});
    std::sort(rest.begin(), rest.end(),
              [](const SolPart& a, const SolPart& b) { return a.ns > b.ns; });
    parts.insert(parts.end(), rest.begin(), rest.end());
    parts.push_back(
        {"launch gaps (GPU idle between a step's first and last kernel)", sol.launchGapNs});
    parts.push_back(
        {"host inside steps (before a step's first kernel, after its last)", sol.hostInStepsNs});
    parts.push_back({"host between steps", sol.hostBetweenStepsNs});
    return parts;
}

}  // namespace ws
