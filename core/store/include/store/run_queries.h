// Read side of the store: runs, their records in a time window, aggregates.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/records.h"
#include "wire/event_codec.h"

namespace ws {

class Store;

struct TimeWindow {
    std::int64_t beginNs = std::numeric_limits<std::int64_t>::min();
    std::int64_t endNs = std::numeric_limits<std::int64_t>::max();
};

struct StreamKey {
    std::uint32_t deviceId = 0;
    std::uint32_t streamId = 0;
    auto operator<=>(const StreamKey&) const = default;
};

struct RunAggregates {
    std::int64_t kernelCount = 0;
    std::int64_t kernelTimeNs = 0;
    std::int64_t memcpyCount = 0;
    std::int64_t memcpyBytes = 0;
    std::int64_t memcpyTimeNs = 0;
    std::int64_t memsetCount = 0;
    std::int64_t apiCallCount = 0;
    std::int64_t rangeCount = 0;
    std::int64_t requestCount = 0;
    std::int64_t tokenCount = 0;
    std::int64_t sampleCount = 0;
    std::int64_t overheadCount = 0;
    std::int64_t streamCount = 0;
    std::optional<std::int64_t> firstNs;  // earliest GPU or API record
    std::optional<std::int64_t> lastNs;
};

std::vector<RunInfo> listRuns(Store& store);
std::optional<RunInfo> findRun(Store& store, RunId id);
// Throws StoreError(NotFound) naming the store and the id.
RunInfo requireRun(Store& store, RunId id);
std::optional<DeviceInfo> runDevice(Store& store, RunId id);
std::optional<WorkloadInfo> runWorkload(Store& store, RunId id);
std::string runLog(Store& store, RunId id);
std::map<std::string, std::string> runProperties(Store& store, RunId id);
// A property read as a number; nullopt when absent or not numeric.
std::optional<double> numberProperty(const std::map<std::string, std::string>& properties,
                                     const std::string& key);
// The same, only when it is a positive finite number (a byte count, a rate).
std::optional<double> positiveProperty(const std::map<std::string, std::string>& properties,
                                       const std::string& key);
// Every run holding property `key`, with its value, by run id.
std::vector<std::pair<RunId, std::string>> runsWithProperty(Store& store, const std::string& key);
RunAggregates runAggregates(Store& store, RunId id);
std::vector<StreamKey> runStreams(Store& store, RunId id);

// Records overlapping `window`, ordered by start; a stream or thread filter of
// std::nullopt means all of them.
std::vector<KernelRecord> kernelsIn(Store& store, RunId id, TimeWindow window = {},
                                    std::optional<std::uint32_t> stream = std::nullopt);
std::vector<MemcpyRecord> memcpysIn(Store& store, RunId id, TimeWindow window = {},
                                    std::optional<std::uint32_t> stream = std::nullopt);
std::vector<MemsetRecord> memsetsIn(Store& store, RunId id, TimeWindow window = {},
                                    std::optional<std::uint32_t> stream = std::nullopt);
std::vector<RangeRecord> rangesIn(Store& store, RunId id, TimeWindow window = {},
                                  std::optional<std::uint32_t> thread = std::nullopt);
// rangesIn(store, id)'s records that start in [starts.beginNs,
// starts.endNs): a part of it in the same order, to read a run's ranges on
// several threads. Chunks ending before starts.beginNs are skipped, which
// assumes no range ends before it starts; *reversed says whether a chunk read
// held one (then records may be missing).
std::vector<RangeRecord> rangesStartingIn(Store& store, RunId id, TimeWindow starts,
                                          bool* reversed);
std::vector<ApiCallRecord> apiCallsIn(Store& store, RunId id, TimeWindow window = {},
                                      std::optional<std::uint32_t> thread = std::nullopt);
// Streaming forms of the above: rows are visited one at a time, so exporting
// millions of records never holds them all in memory.
void forEachKernel(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> stream,
                   const std::function<void(const KernelRecord&)>& visit);
void forEachMemcpy(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> stream,
                   const std::function<void(const MemcpyRecord&)>& visit);
void forEachMemset(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> stream,
                   const std::function<void(const MemsetRecord&)>& visit);
void forEachRange(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> thread,
                  const std::function<void(const RangeRecord&)>& visit);
void forEachApiCall(Store& store, RunId id, TimeWindow window, std::optional<std::uint32_t> thread,
                    const std::function<void(const ApiCallRecord&)>& visit);

// Records of one kind overlapping `window` across all lanes in one start
// order, pulled one at a time (ties: the earlier chunk's first, then order
// within a chunk), so that two kinds can be walked side by side. Holds the
// chunks still open at the current time (about one per lane) and a list of
// the chunks' positions, never all the records. T is a record type, or
// codec::KernelBrief / codec::ApiCallBrief for a pass that keys names by
// their string id and builds no string per record.
template <typename T>
class StartOrderReader {
  public:
    StartOrderReader(Store& store, RunId id, TimeWindow window = {});
    // Only the records of `window` that start in [starts.beginNs,
    // starts.endNs): one time slice of the run, for a reader per thread.
    // Chunks ending before starts.beginNs are skipped, which assumes no record
    // ends before it starts; reversed() says whether an opened chunk held one.
    StartOrderReader(Store& store, RunId id, TimeWindow window, TimeWindow starts);
    ~StartOrderReader();
    StartOrderReader(const StartOrderReader&) = delete;
    StartOrderReader& operator=(const StartOrderReader&) = delete;
    // The next record, valid until the next call of next() or peekStart();
    // nullptr after the last.
    const T* next();
    // The start of the record next() returns next, without taking it;
    // nullopt after the last.
    std::optional<std::int64_t> peekStart();
    // The text of a string id (a brief record's nameId), read once per id.
    const std::string& text(std::int64_t stringId);
    // Whether a chunk opened so far held a record that ends before it starts.
    bool reversed() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};
extern template class StartOrderReader<KernelRecord>;
extern template class StartOrderReader<MemcpyRecord>;
extern template class StartOrderReader<MemsetRecord>;
extern template class StartOrderReader<ApiCallRecord>;
extern template class StartOrderReader<RangeRecord>;
extern template class StartOrderReader<codec::KernelBrief>;
extern template class StartOrderReader<codec::ApiCallBrief>;

// The API call that launched `kernel` (same correlation id, within
// kLaunchSearchWindowNs), if recorded.
std::optional<ApiCallRecord> launchingCall(Store& store, RunId id, const KernelRecord& kernel);

std::vector<RequestRecord> requestsOf(Store& store, RunId id);
// One past the highest request id the run holds (0 for none): where another
// client's requests of the same run begin.
std::int64_t nextRequestId(Store& store, RunId id);
std::vector<TokenRecord> tokensOf(Store& store, RunId id);
std::vector<SampleRecord> samplesOf(Store& store, RunId id);
std::vector<QualityRecord> qualityOf(Store& store, RunId id);
// CUDA graph nodes in the order they were recorded.
std::vector<GraphNodeRecord> graphNodesOf(Store& store, RunId id);
// NCCL calls with message sizes, by start.
std::vector<CollectiveCallRecord> collectiveCallsOf(Store& store, RunId id);
// Which process each GPU stream's work came from (schema 4 on; older runs: none).
std::vector<GpuStreamRecord> gpuStreamsOf(Store& store, RunId id);
// GPU performance-monitor samples (record --gpu-metrics): one series per
// (device, metric), by device then metric, samples by start; with a window,
// the samples that overlap [startNs, endNs) only. Schema 8 on; older runs: none.
std::vector<GpuMetricSeries> gpuMetricsOf(Store& store, RunId id);
std::vector<GpuMetricSeries> gpuMetricsOf(Store& store, RunId id, std::int64_t startNs,
                                          std::int64_t endNs);
// Hardware counter values per kernel (record --metrics), by correlation id.
// The run's PC samples (record --pc-sampling), by function, offset, reason;
// or those of one function (its CUPTI name).
std::vector<PcSampleRecord> pcSamplesOf(Store& store, RunId id);
std::vector<PcSampleRecord> pcSamplesOf(Store& store, RunId id, const std::string& function);
// All the run's samples in user kernels, the "not issued" repeats left out
// (model/pc_sampling.h): what a kernel's share of the run is taken of.
std::int64_t pcSampleCount(Store& store, RunId id);
std::vector<KernelMetricRecord> kernelMetricsOf(Store& store, RunId id);
// One kernel's values (by the index on correlation id).
std::map<std::string, double> kernelMetricsOf(Store& store, RunId id, std::uint32_t correlationId);

MemcpyKind memcpyKindFromString(const std::string& text);
MemoryKind memoryKindFromString(const std::string& text);

}  // namespace ws
