// What one recording holds while the program runs, and the finishing step
// after it ends: records from every connection go through one StoreWriter,
// device samples wait for the first process's clock, replayed kernels wait
// for their launches, and the run's log collects the program's output.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "record/recorder.h"
#include "record/replayed_kernels.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "wire/frames.h"

namespace ws {

class RecordingSession {
  public:
    RecordingSession(Store& store, RunId run);

    // A sink for one connection's decoder.
    wire::Sink sink();
    // NVML samples, placed on the CUPTI clock once a process reported it.
    void addSamples(std::vector<SampleRecord> samples);
    // Writes what is buffered, the pending log, properties, the device and
    // dropped-record counts. A store locked by another process (or full) only
    // delays this: records wait in memory, bounded, and the log says so.
    void flush();

    // After the program ended: places what still waits, applies the NVTX
    // conventions, and marks the run with the outcome of `waitStatus`.
    RecordOutcome finish(int waitStatus, bool cancelled, std::int64_t elapsedNs);

    RecordProgress progress;
    std::string pendingLog;
    std::string driverVersion;  // from NVML; CUDA reports only its API version

  private:
    bool writeRunRows();
    void noteBlocked(const std::string& reason);
    void finalFlush();

    Store& store_;
    RunId run_;
    StoreWriter writer_;
    std::optional<std::int64_t> clockOffset_;  // CUPTI clock minus Unix time
    std::vector<SampleRecord> unplacedSamples_;
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
