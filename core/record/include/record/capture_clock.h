// One clock for a served run: the client times its requests and tokens on
// CLOCK_MONOTONIC (steady, never stepped), the capture stores kernels, API
// calls and NVTX ranges on the CUPTI clock (on Linux CLOCK_REALTIME-like: Unix
// nanoseconds, stepped and slewed by NTP). The offset between the two is read
// before the load and after it, and client times are moved onto the CUPTI
// clock by the offset interpolated between those two readings.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ws {

struct ServeLoadResult;

// One reading of (capture clock - steady clock), taken between two steady
// readings; the tightest of several is kept, its half-width the uncertainty.
struct ClockReading {
    std::int64_t steadyNs = 0;
    std::int64_t offsetNs = 0;       // capture clock minus steady clock
    std::int64_t uncertaintyNs = 0;  // half the steady interval around the read
};

// The capture clock as another process reads it: cuptiGetTimestamp from the
// libcupti the capture uses (loaded on demand, no CUDA context needed), else
// CLOCK_REALTIME, the clock a capture without any CUDA process stores device
// samples on.
class CaptureClock {
  public:
    CaptureClock();
    ~CaptureClock();
    CaptureClock(const CaptureClock&) = delete;
    CaptureClock& operator=(const CaptureClock&) = delete;

    ClockReading read() const;
    // "cupti" or "unix", and why when not cupti.
    const std::string& source() const { return source_; }
    const std::string& note() const { return note_; }

  private:
    std::int64_t now() const;
    void* lib_ = nullptr;
    int (*timestamp_)(std::uint64_t*) = nullptr;
    std::string source_ = "unix";
    std::string note_;
};

// The start and end readings and what maps a steady time onto the capture
// clock: the offset interpolated linearly in steady time, held at the nearer
// reading outside them.
struct ClockMapping {
    ClockReading start;
    ClockReading end;
    std::int64_t toCapture(std::int64_t steadyNs) const;
    std::int64_t driftNs() const { return end.offsetNs - start.offsetNs; }
    double driftPpm() const;
    // clock.* run properties: both readings, their uncertainty, the drift.
    std::vector<std::pair<std::string, std::string>> properties(const std::string& source) const;
};

// Moves a load's times (Unix time measured as steady + result.clockOffsetNs)
// onto the capture clock; clockOffsetNs becomes the offset at the start.
void alignToCapture(ServeLoadResult& result, const ClockMapping& mapping);

}  // namespace ws
