// What one recording holds while the program runs, and the finishing step
// after it ends: records from every connection go through one StoreWriter,
// device samples wait for the first process's clock, replayed kernels wait
// for their launches, and the run's log collects the program's output.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conventions/correlation_ids.h"
#include "conventions/stream_assigner.h"
#include "record/recorder.h"
#include "record/replayed_kernels.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "wire/frames.h"

namespace ws {

// Stopped from outside (Ctrl-C, kill, the OOM killer) is "killed"; a crash
// (SIGSEGV, SIGABRT, ...) is "failed".
bool isKillSignal(int sig);

class RecordingSession {
  public:
    RecordingSession(Store& store, RunId run);

    // A sink for one connection's decoder.
    wire::Sink sink();
    // NVML samples, placed on the CUPTI clock once a process reported it.
    void addSamples(std::vector<SampleRecord> samples);
    // GPU performance-monitor series on Unix time, placed the same way.
    void addGpuMetrics(std::vector<GpuMetricSeries> series);
    // Writes what is buffered, the pending log, properties, the device and
    // dropped-record counts. A store locked by another process (or full) only
    // delays this: records wait in memory, bounded, and the log says so.
    void flush();

    struct Ending {
        int waitStatus = 0;
        bool cancelled = false;         // Ctrl-C or cancel(): the run is "killed"
        bool stoppedOnRequest = false;  // the recorder stopped it for its companion
        std::int64_t elapsedNs = 0;
        bool companionFailed = false;
        std::string errorTail;  // the program's last stderr lines
        std::function<void(Store&, RunId, RecordOutcome&)> companionFinish;
    };
    // After the program ended: places what still waits, applies the NVTX
    // conventions, lets the companion add its rows, and marks the run.
    RecordOutcome finish(const Ending& ending);

    // The program's output as it arrives: watched for another CUPTI client
    // that lost (or won) the one callback subscription a process has.
    void noteOutput(std::string_view bytes);

    RecordProgress progress;
    std::string pendingLog;
    std::string driverVersion;  // from NVML; CUDA reports only its API version

  private:
    bool writeRunRows();
    // The stream id stored for a GPU record of process `pid` (StreamAssigner).
    std::uint32_t streamOf(std::uint32_t pid, std::uint32_t device, std::uint32_t stream);
    // The correlation id stored for one of process `pid` (CorrelationIds).
    std::uint32_t correlationOf(std::uint32_t pid, std::uint32_t id);
    void noteBlocked(const std::string& reason);
    // A process's capture stream closed: how it ended (process_keys::end).
    void processEnded(std::uint32_t pid, bool saidBye);
    void noteProcessEnd(std::uint32_t pid, const std::string& end, std::int64_t unixNs);
    void finalFlush();
    // Replayed kernels placed as their call and duration arrived.
    void writePlacedKernels();

    Store& store_;
    RunId run_;
    StoreWriter writer_;
    StreamAssigner streams_;
    CorrelationIds correlations_;
    std::optional<std::int64_t> clockOffset_;  // CUPTI clock minus Unix time
    std::string reportingPids_;                // "pid(parent pid)" of each process, in order
    // Streams closed without a goodbye by processes that looked alive then:
    // pid → when (Unix time), settled when the recording ends.
    std::map<std::uint32_t, std::int64_t> unsettledEnds_;
    std::string outputLine_;  // the output's unfinished last line
    // capture_keys::kCuptiConflict's value once a conflict was seen.
    std::string cuptiConflict_;
    // record --capture-range: windows seen so far, and their total length.
    std::int64_t captureWindows_ = 0;
    std::int64_t captureWindowsNs_ = 0;
    std::int64_t queryCalls_ = 0;  // state-reading calls made while traced, all processes
    PcSamplingTotals pcSampling_;  // summed over the processes that sampled
    bool queryCallsChanged_ = false;
    std::vector<SampleRecord> unplacedSamples_;
    std::vector<GpuMetricSeries> unplacedGpuMetrics_;
    std::optional<DeviceInfo> pendingDevice_;
    bool deviceSeen_ = false;
    std::vector<std::pair<std::string, std::string>> pendingProperties_;
    std::optional<std::chrono::steady_clock::time_point> blockedSince_;
    std::int64_t discardedLogged_ = 0;
    std::int64_t rejectedRecords_ = 0;
    std::int64_t droppedPending_ = 0;
    ReplayedKernels replayed_;  // a counter pass's kernels, until they can be placed
};

}  // namespace ws
