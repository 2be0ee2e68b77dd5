#include "capture/pc_sampling.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "capture/cupti_callbacks.h"
#include "capture/pc_sample_buffers.h"
#include "capture/sass_listing.h"
#include "model/pc_sampling.h"

namespace ws::capture {

namespace {

// PCs one GetData call returns; CUPTI keeps the rest for the next call.
constexpr std::size_t kBufferPcs = 10000;
// A launch drains CUPTI's decoded PCs once it holds this many, so its
// scratch buffer (below) never fills between drains.
constexpr std::size_t kDrainAtPcs = 5000;
// Knobs for pc-buffer-experiment.sh's experiments with CUPTI's hardware buffer
// (it filled in a 30 s kernel ladder and stopped sampling): PCs to drain at
// (WARPSCOPE_PC_DRAIN_AT), the hardware buffer's size in MiB
// (WARPSCOPE_PC_HW_BUFFER_MB, CUPTI's 512 without it) and the worker's sleep
// (WARPSCOPE_PC_WORKER_MS).
std::size_t knob(const char* name, std::size_t fallback) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    return end && *end == '\0' ? static_cast<std::size_t>(n) : fallback;
}
// CUPTI's buffer of decoded PCs: about 16 bytes per PC and stall reason, so
// 64 MiB holds the kernels of a large program (CUPTI's default, 1 MiB, about
// 5,500 PCs, drops samples in a PyTorch model).
constexpr std::size_t kScratchBytes = std::size_t{64} << 20;
// CUPTI's workers move samples out of the hardware buffer this often (ms;
// CUPTI's default is 100). At a sample per SM every 2^11 cycles an H100
// writes its 512 MB buffer full in well under that, and once it is full
// CUPTI stops sampling for the rest of the run.
constexpr std::uint32_t kWorkerSleepMs = 10;
// Cubins kept for source lines; past this, later modules' lines are left out.
constexpr std::size_t kMostCubinBytes = std::size_t{1} << 30;
// Instructions given a source line, hottest first: CUPTI reads the cubin's
// line table on each call.
constexpr std::size_t kMostCorrelated = 20000;
// nvdisasm reads whole cubins: the hottest modules first, none larger than
// this, and none started once the disassembly has taken kMostSassTime.
constexpr std::size_t kMostDisassembledBytes = std::size_t{64} << 20;
constexpr auto kMostSassTime = std::chrono::seconds(30);

using Clock = std::chrono::steady_clock;

std::int64_t nsSince(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

template <typename P>
P params(std::size_t size) {
    P p{};
    p.size = size;
    return p;
}

// A CUpti_PCSamplingData and the arrays it points into.
class PcBuffer {
  public:
    void allocate(std::size_t pcs, std::size_t reasons) {
        reasons_ = std::max<std::size_t>(reasons, 1);
        pcs_.assign(pcs, CUpti_PCSamplingPCData{});
        slots_.assign(pcs * reasons_, CUpti_PCSamplingStallReason{});
        data_ = CUpti_PCSamplingData{};
        data_.size = sizeof data_;
        data_.collectNumPcs = pcs;
        data_.pPcData = pcs_.data();
        reset();
    }
    // Before each GetData: a PC's stallReasonCount is its room on the way in
    // and what CUPTI wrote on the way out.
    void reset() {
        // Every output zeroed: a call that returns no data (a full hardware
        // buffer) must not leave the previous call's counts to be added again.
        data_.totalNumPcs = 0;
        data_.totalSamples = 0;
        data_.droppedSamples = 0;
        data_.nonUsrKernelsTotalSamples = 0;
        data_.hardwareBufferFull = 0;
        for (std::size_t i = 0; i < pcs_.size(); ++i) {
            pcs_[i].size = sizeof(CUpti_PCSamplingPCData);
            pcs_[i].stallReasonCount = reasons_;
            pcs_[i].stallReason = &slots_[i * reasons_];
        }
    }
    CUpti_PCSamplingData* data() { return &data_; }

  private:
    std::size_t reasons_ = 1;
    std::vector<CUpti_PCSamplingPCData> pcs_;
    std::vector<CUpti_PCSamplingStallReason> slots_;
    CUpti_PCSamplingData data_{};
};

struct Context {
    PcBuffer configured;  // CUPTI writes into it at module unload and disable
    PcBuffer read;        // what GetData fills
    std::vector<std::uint32_t> reasonIndex;
    std::map<std::uint32_t, std::string> reasonName;
    bool enabled = false;
    std::optional<CUdevice> device;
};

struct State {
    PcSamplingSink sink;
    std::uint32_t period = 0;  // log2 cycles; 0: CUPTI's default
    std::mutex mutex;
    std::map<CUcontext, Context> contexts;
    std::set<CUdevice> sampledDevices;
    PcSampleTable samples;
    // WARPSCOPE_PC_SAMPLING_KEEP: every buffer, for tests, in a file of this
    // process's own, opened when a context is first sampled (a program's
    // helper processes that sample nothing write none).
    std::string keepFolder;
    std::FILE* keep = nullptr;
    std::map<std::uint64_t, std::string> cubins;  // by CUPTI's CRC
    std::size_t cubinBytes = 0;
    std::size_t cubinsLeftOut = 0;
    PcSamplingTotals totals;
    bool finished = false;
    bool getDataFailed = false;
    bool sampling = false;                     // a context has been enabled
    Clock::time_point started = Clock::now();  // when the first was
    std::int64_t bufferFullAfterNs = -1;       // when a drain first found the hardware buffer full
};

State* state = nullptr;
thread_local bool busy = false;  // our own CUDA and CUPTI calls

bool ok(CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return true;
    const char* msg = nullptr;
    cuptiGetResultString(r, &msg);
    state->sink.warn(std::string(what) + " failed: " + (msg ? msg : "unknown error"));
    return false;
}

void absorb(Context& c, const CUpti_PCSamplingData& d) {
    if (state->keep) keepPcSamplingData(state->keep, d);
    absorbPcSamplingData(d, c.reasonName, state->samples, state->totals);
}

// Moves every PC CUPTI holds for the context into state->samples.
void drain(CUcontext ctx, Context& c) {
    if (!c.enabled) return;
    for (int call = 0; call < 100000; ++call) {
        c.read.reset();
        auto get = params<CUpti_PCSamplingGetDataParams>(CUpti_PCSamplingGetDataParamsSize);
        get.ctx = ctx;
        get.pcSamplingData = c.read.data();
        // OUT_OF_MEMORY: the read buffer could not take every PC (the rest
        // come with the next call), or the hardware buffer filled: then the
        // data says hardwareBufferFull, holds no PCs, and sampling has
        // stopped for good.
        const CUptiResult r = cuptiPCSamplingGetData(&get);
        if (r != CUPTI_SUCCESS && r != CUPTI_ERROR_OUT_OF_MEMORY) {
            if (!state->getDataFailed) ok(r, "cuptiPCSamplingGetData");
            state->getDataFailed = true;
            return;
        }
        absorb(c, *c.read.data());
        if (c.read.data()->hardwareBufferFull && state->bufferFullAfterNs < 0)
            state->bufferFullAfterNs = nsSince(state->started);
        if (c.read.data()->totalNumPcs == 0) return;
    }
}

void disable(CUcontext ctx, Context& c) {
    if (!c.enabled) return;
    drain(ctx, c);
    auto off = params<CUpti_PCSamplingDisableParams>(CUpti_PCSamplingDisableParamsSize);
    off.ctx = ctx;
    ok(cuptiPCSamplingDisable(&off), "cuptiPCSamplingDisable");
    c.enabled = false;
    // Disabling hands what was still in flight to the configured buffer.
    absorb(c, *c.configured.data());
    c.configured.reset();
}

bool configure(CUcontext ctx, Context& c) {
    std::size_t count = 0;
    auto num = params<CUpti_PCSamplingGetNumStallReasonsParams>(
        CUpti_PCSamplingGetNumStallReasonsParamsSize);
    num.ctx = ctx;
    num.numStallReasons = &count;
    if (!ok(cuptiPCSamplingGetNumStallReasons(&num), "cuptiPCSamplingGetNumStallReasons"))
        return false;
    std::vector<std::vector<char>> names(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
    std::vector<char*> namePtrs;
    for (auto& n : names)
        namePtrs.push_back(n.data());
    c.reasonIndex.assign(count, 0);
    auto get =
        params<CUpti_PCSamplingGetStallReasonsParams>(CUpti_PCSamplingGetStallReasonsParamsSize);
    get.ctx = ctx;
    get.numStallReasons = count;
    get.stallReasonIndex = c.reasonIndex.data();
    get.stallReasons = namePtrs.data();
    if (!ok(cuptiPCSamplingGetStallReasons(&get), "cuptiPCSamplingGetStallReasons")) return false;
    for (std::size_t i = 0; i < count; ++i)
        c.reasonName[c.reasonIndex[i]] = std::string(names[i].data());
    if (!state->keepFolder.empty() && !state->keep) {
        const auto path = state->keepFolder + "/pc-sampling-" + std::to_string(::getpid()) + ".bin";
        if (!(state->keep = std::fopen(path.c_str(), "wb")))
            state->sink.warn("cannot write " + path + " (" + kKeepEnvironment + ")");
    }
    if (state->keep) keepStallReasons(state->keep, c.reasonName);
    c.configured.allocate(kBufferPcs, count);
    c.read.allocate(kBufferPcs, count);

    std::vector<CUpti_PCSamplingConfigurationInfo> info;
    info.reserve(8);  // add's references stay valid
    auto add = [&](CUpti_PCSamplingConfigurationAttributeType type) -> auto& {
        CUpti_PCSamplingConfigurationInfo i{};
        i.attributeType = type;
        info.push_back(i);
        return info.back().attributeData;
    };
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE)
        .collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
    auto& reasons = add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON).stallReasonData;
    reasons.stallReasonCount = count;
    reasons.pStallReasonIndex = c.reasonIndex.data();
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER)
        .samplingDataBufferData.samplingDataBuffer = c.configured.data();
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE)
        .scratchBufferSizeData.scratchBufferSize = kScratchBytes;
    if (const std::size_t mb = knob("WARPSCOPE_PC_HW_BUFFER_MB", 0); mb > 0)
        add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE)
            .hardwareBufferSizeData.hardwareBufferSize = mb << 20;
    if (state->period != 0)
        add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD)
            .samplingPeriodData.samplingPeriod = state->period;
    auto set = params<CUpti_PCSamplingConfigurationInfoParams>(
        CUpti_PCSamplingConfigurationInfoParamsSize);
    set.ctx = ctx;
    set.numAttributes = info.size();
    set.pPCSamplingConfigurationInfo = info.data();
    if (!ok(cuptiPCSamplingSetConfigurationAttribute(&set), "configuring PC sampling"))
        return false;
    // Apart from the rest: a CUPTI that refuses it still samples, with its
    // own 100 ms (and says so).
    CUpti_PCSamplingConfigurationInfo sleep{};
    sleep.attributeType =
        CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_WORKER_THREAD_PERIODIC_SLEEP_SPAN;
    sleep.attributeData.workerThreadPeriodicSleepSpanData.workerThreadPeriodicSleepSpan =
        static_cast<std::uint32_t>(knob("WARPSCOPE_PC_WORKER_MS", kWorkerSleepMs));
    set.numAttributes = 1;
    set.pPCSamplingConfigurationInfo = &sleep;
    ok(cuptiPCSamplingSetConfigurationAttribute(&set), "setting CUPTI's worker period");

    // The period in force, CUPTI's default when none was asked for.
    CUpti_PCSamplingConfigurationInfo period{};
    period.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    auto query = params<CUpti_PCSamplingConfigurationInfoParams>(
        CUpti_PCSamplingConfigurationInfoParamsSize);
    query.ctx = ctx;
    query.numAttributes = 1;
    query.pPCSamplingConfigurationInfo = &period;
    if (cuptiPCSamplingGetConfigurationAttribute(&query) == CUPTI_SUCCESS &&
        period.attributeStatus == CUPTI_SUCCESS)
        state->totals.periodLog2 = period.attributeData.samplingPeriodData.samplingPeriod;
    return true;
}

// CUPTI samples one context per GPU at a time.
std::optional<CUdevice> deviceOf(CUcontext ctx) {
    if (cuCtxPushCurrent(ctx) != CUDA_SUCCESS) return std::nullopt;
    CUdevice device = 0;
    const bool known = cuCtxGetDevice(&device) == CUDA_SUCCESS;
    CUcontext popped = nullptr;
    cuCtxPopCurrent(&popped);
    return known ? std::optional(device) : std::nullopt;
}

void contextCreated(CUcontext ctx) {
    const auto device = deviceOf(ctx);
    if (device && !state->sampledDevices.insert(*device).second) {
        state->sink.warn("GPU " + std::to_string(*device) +
                         " has another context sampled already; CUPTI samples one context per "
                         "GPU, so this one's kernels have no PC samples");
        return;
    }
    Context& c = state->contexts[ctx];
    c.device = device;
    auto on = params<CUpti_PCSamplingEnableParams>(CUpti_PCSamplingEnableParamsSize);
    on.ctx = ctx;
    if (!ok(cuptiPCSamplingEnable(&on), "cuptiPCSamplingEnable")) return;
    c.enabled = true;
    if (!state->sampling) {
        state->sampling = true;
        state->started = Clock::now();
    }
    if (!configure(ctx, c)) {
        auto off = params<CUpti_PCSamplingDisableParams>(CUpti_PCSamplingDisableParamsSize);
        off.ctx = ctx;
        cuptiPCSamplingDisable(&off);
        c.enabled = false;
    }
}

void moduleLoaded(const CUpti_ModuleResourceData* m) {
    if (!m || !m->pCubin || m->cubinSize == 0) return;
    auto crc = params<CUpti_GetCubinCrcParams>(CUpti_GetCubinCrcParamsSize);
    crc.cubin = m->pCubin;
    crc.cubinSize = m->cubinSize;
    if (cuptiGetCubinCrc(&crc) != CUPTI_SUCCESS) return;
    if (state->cubins.count(crc.cubinCrc)) return;
    if (state->cubinBytes + m->cubinSize > kMostCubinBytes) {
        ++state->cubinsLeftOut;
        return;
    }
    state->cubins.emplace(crc.cubinCrc, std::string(m->pCubin, m->cubinSize));
    state->cubinBytes += m->cubinSize;
}

void onCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    static const std::size_t drainAtPcs = knob("WARPSCOPE_PC_DRAIN_AT", kDrainAtPcs);
    if (busy || !state) return;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        if (!isKernelLaunch(domain, cbid) && !isGraphLaunch(domain, cbid)) return;
        auto* cb = static_cast<const CUpti_CallbackData*>(data);
        if (cb->callbackSite != CUPTI_API_EXIT) return;
        busy = true;
        {
            std::lock_guard lock(state->mutex);
            auto it = state->contexts.find(cb->context);
            if (!state->finished && it != state->contexts.end() &&
                it->second.configured.data()->remainingNumPcs >= drainAtPcs) {
                const auto start = Clock::now();
                drain(it->first, it->second);
                state->totals.hostNs += nsSince(start);
            }
        }
        busy = false;
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
    auto* r = static_cast<const CUpti_ResourceData*>(data);
    busy = true;
    {
        std::lock_guard lock(state->mutex);
        const auto start = Clock::now();  // after the lock: another drain's wait is its own
        auto it = state->contexts.find(r->context);
        if (state->finished) {
        } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
            contextCreated(r->context);
        } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
            if (it != state->contexts.end()) {
                disable(it->first, it->second);
                if (it->second.device) state->sampledDevices.erase(*it->second.device);
                state->contexts.erase(it);
            }
        } else if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
            moduleLoaded(static_cast<const CUpti_ModuleResourceData*>(r->resourceDescriptor));
            // Records of a module unloaded before went to the configured buffer.
            if (it != state->contexts.end()) drain(it->first, it->second);
        } else if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
            if (it != state->contexts.end()) drain(it->first, it->second);
        }
        state->totals.hostNs += nsSince(start);
    }
    busy = false;
}

// "dir/file" as the cubin's line table names it; "" without line information.
std::pair<std::string, std::uint32_t> sourceLine(const SampledInstruction& in) {
    auto cubin = state->cubins.find(in.cubinCrc);
    if (cubin == state->cubins.end() || in.function.empty()) return {};
    auto p =
        params<CUpti_GetSassToSourceCorrelationParams>(CUpti_GetSassToSourceCorrelationParamsSize);
    p.cubin = cubin->second.data();
    p.cubinSize = cubin->second.size();
    p.functionName = in.function.c_str();
    p.pcOffset = in.pcOffset;
    if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS) return {};
    std::string file = p.fileName ? p.fileName : "";
    const std::string dir = p.dirName ? p.dirName : "";
    if (!dir.empty() && !file.empty() && file.front() != '/') file = dir + "/" + file;
    std::free(p.fileName);
    std::free(p.dirName);
    if (file.empty() || p.lineNumber == 0) return {};
    return {file, p.lineNumber};
}

// SASS text of every sampled instruction in the hottest modules (by their
// samples), with a sentence for the run's log.
std::map<std::uint64_t, SassListing> disassembleHotModules(
    const std::vector<std::pair<std::int64_t, const SampledInstruction*>>& order,
    std::string& said) {
    std::map<std::uint64_t, std::int64_t> byCubin;
    std::map<std::uint64_t, std::set<std::string>> sampledFunctions;
    for (const auto& [n, in] : order) {
        byCubin[in->cubinCrc] += n;
        sampledFunctions[in->cubinCrc].insert(in->function);
    }
    std::vector<std::pair<std::int64_t, std::uint64_t>> hottest;
    for (const auto& [crc, n] : byCubin)
        if (state->cubins.count(crc)) hottest.emplace_back(n, crc);
    std::sort(hottest.rbegin(), hottest.rend());
    std::map<std::uint64_t, SassListing> out;
    if (hottest.empty()) return out;
    const std::string nvdisasm = findNvdisasm();
    if (nvdisasm.empty()) {
        said =
            "no SASS text: nvdisasm not found (set WARPSCOPE_NVDISASM, or CUDA_HOME to a CUDA "
            "toolkit)";
        return out;
    }
    const auto start = Clock::now();
    std::size_t tooLarge = 0, late = 0;
    std::string failure;
    for (const auto& [n, crc] : hottest) {
        const std::string& cubin = state->cubins.at(crc);
        if (cubin.size() > kMostDisassembledBytes) {
            ++tooLarge;
            continue;
        }
        const auto left = kMostSassTime - (Clock::now() - start);
        if (left <= Clock::duration::zero()) {
            ++late;
            continue;
        }
        std::string why;
        if (auto listing =
                disassembleCubin(nvdisasm, cubin, sampledFunctions[crc],
                                 std::chrono::duration_cast<std::chrono::milliseconds>(left), why))
            out.emplace(crc, std::move(*listing));
        else if (failure.empty())
            failure = why;
    }
    said = "SASS text from " + std::to_string(out.size()) + " of " +
           std::to_string(hottest.size()) + " modules (" +
           std::to_string(nsSince(start) / 1000000) + " ms)";
    if (tooLarge) said += "; " + std::to_string(tooLarge) + " modules over 64 MiB left out";
    if (late) said += "; " + std::to_string(late) + " left out past 30 s";
    if (!failure.empty()) said += "; " + failure;
    return out;
}

std::string sassOf(const std::map<std::uint64_t, SassListing>& listings,
                   const SampledInstruction& in) {
    auto cubin = listings.find(in.cubinCrc);
    if (cubin == listings.end()) return "";
    auto function = cubin->second.find(in.function);
    if (function == cubin->second.end()) return "";
    auto text = function->second.find(in.pcOffset);
    return text == function->second.end() ? "" : text->second;
}

}  // namespace

bool startPcSampling(PcSamplingSink sink) {
    const char* spec = std::getenv(pc_sampling::kEnvironment);
    if (!spec || !*spec) return false;
    state = new State;  // lives until exit: callbacks may come until the end
    state->sink = std::move(sink);
    const long period = std::strtol(spec, nullptr, 10);
    state->period =
        period >= pc_sampling::kShortestPeriodLog2 && period <= pc_sampling::kLongestPeriodLog2
            ? static_cast<std::uint32_t>(period)
            : 0;
    if (const char* keep = std::getenv(kKeepEnvironment); keep && *keep) state->keepFolder = keep;
    auto subscriber = addCallbackHandler(onCallback);
    if (!subscriber) return false;
    for (auto cbid :
         {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
          CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING})
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, cbid);
    for (auto cbid : kKernelLaunchCalls)
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
    for (auto cbid : kGraphLaunchCalls)
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
    return true;
}

void finishPcSampling() {
    if (!state) return;
    busy = true;
    std::lock_guard lock(state->mutex);
    if (state->finished) {
        busy = false;
        return;
    }
    state->finished = true;
    const auto start = Clock::now();
    for (auto& [ctx, c] : state->contexts) {
        if (cuCtxPushCurrent(ctx) != CUDA_SUCCESS) continue;
        disable(ctx, c);
        CUcontext popped = nullptr;
        cuCtxPopCurrent(&popped);
    }
    state->contexts.clear();

    // Hottest first, so the instructions given a source line are those read.
    std::vector<std::pair<std::int64_t, const SampledInstruction*>> order;
    for (const auto& [in, byReason] : state->samples) {
        std::int64_t total = 0;
        for (const auto& [reason, n] : byReason)
            total += n;
        order.emplace_back(total, &in);
    }
    std::sort(order.begin(), order.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    const auto linesStarted = Clock::now();
    std::vector<std::pair<std::string, std::uint32_t>> lines(order.size());
    std::size_t withLine = 0;
    for (std::size_t i = 0; i < order.size() && i < kMostCorrelated; ++i)
        if ((lines[i] = sourceLine(*order[i].second)).second) ++withLine;
    const auto linesMs = nsSince(linesStarted) / 1000000;
    std::string sassSaid;
    const auto listings = disassembleHotModules(order, sassSaid);
    std::size_t withSass = 0;
    std::map<std::string, int> functions;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const SampledInstruction& in = *order[i].second;
        ++functions[in.function];
        std::string sass = sassOf(listings, in);
        if (!sass.empty()) ++withSass;
        std::vector<PcSampleRecord> records;
        for (const auto& [reason, n] : state->samples[in])
            records.push_back(
                {in.function, in.pcOffset, reason, n, lines[i].first, lines[i].second, sass});
        state->sink.instruction(records);
    }
    state->totals.hostNs += nsSince(start);
    state->sink.totals(state->totals);
    const auto& t = state->totals;
    std::string summary =
        std::to_string(t.samples) + " samples (" + std::to_string(t.droppedSamples) + " dropped, " +
        std::to_string(t.nonUserSamples) + " in driver kernels) at " +
        std::to_string(order.size()) + " instructions of " + std::to_string(functions.size()) +
        " kernels; source lines for " + std::to_string(withLine) + " (" + std::to_string(linesMs) +
        " ms), SASS for " + std::to_string(withSass) + "; the sampler's own time " +
        std::to_string(t.hostNs / 1000000) + " ms";
    if (!sassSaid.empty()) summary += "; " + sassSaid;
    if (state->cubinsLeftOut)
        summary += "; " + std::to_string(state->cubinsLeftOut) +
                   " modules past 1 GiB of cubins kept no lines";
    // CUPTI counts no dropped sample when its hardware buffer fills: it
    // stops sampling, and the kernels after that point get none (seen on an
    // H100 at 2^11 cycles: a GEMM ladder's first kernel alone was sampled).
    if (t.hardwareBufferFull)
        summary += "; CUPTI's hardware buffer filled" +
                   (state->bufferFullAfterNs >= 0
                        ? " (noticed " + std::to_string(state->bufferFullAfterNs / 1000000) +
                              " ms after sampling began)"
                        : std::string()) +
                   " and CUPTI stopped sampling there: kernels that ran later have few samples "
                   "or none (a larger --pc-sampling-period samples less often)";
    state->sink.warn(summary);
    if (state->keep) std::fclose(state->keep);
    state->keep = nullptr;
    busy = false;
}

}  // namespace ws::capture
