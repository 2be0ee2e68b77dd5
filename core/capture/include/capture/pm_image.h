// PM sampling's counter data image evaluated on the host: the metrics'
// values per sample from the image CUPTI decoded the hardware buffer into,
// through CUPTI's host API (chip name and counter availability; no GPU and
// no driver). The sampler (pm_sampler.cpp) evaluates its images with it, and
// keeps them in a file when WARPSCOPE_GPU_METRICS_KEEP names a folder, so a
// test evaluates images recorded on a GPU (tests/data) through the same code.
#pragma once

#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ws::capture {

// CUPTI's host object for PM sampling of `chip` with `names` added, and the
// config image it makes of them; nullptr with `why` when one of them cannot
// be sampled on that chip or the set needs more than one pass.
CUpti_Profiler_Host_Object* pmHostWith(const std::string& chip,
                                       std::vector<std::uint8_t>& availability,
                                       const std::vector<const char*>& names,
                                       std::vector<std::uint8_t>& config, std::string& why);
void pmHostRelease(CUpti_Profiler_Host_Object* host);

struct PmSample {
    std::uint64_t startNs = 0;  // CUPTI's clock
    std::uint64_t endNs = 0;
    std::vector<double> values;  // one per metric, in the host object's order
};

// The metrics' values of sample `index` of a decoded image, by the host
// object alone (no GPU): false when CUPTI cannot evaluate it.
bool evaluatePmSample(CUpti_Profiler_Host_Object* host, const std::vector<std::uint8_t>& image,
                      const std::vector<const char*>& names, std::size_t index,
                      std::vector<double>& values);

// Every completed sample of an image with its times, from the live session:
// CUPTI counts an image's samples and reads their times only with the
// sampler at hand (measured: without it the count reads 0 and the times
// fail). False with `why` when the image cannot be read.
bool evaluatePmImage(CUpti_Profiler_Host_Object* host, CUpti_PmSampling_Object* sampler,
                     const std::vector<std::uint8_t>& image, const std::vector<const char*>& names,
                     std::vector<PmSample>& out, std::string& why);

// The file a GPU's sampler keeps (WARPSCOPE_GPU_METRICS_KEEP=DIR, one file
// DIR/gpuN.pmkeep per GPU): chip, availability image and metric names, then
// each decoded image with the samples the live evaluation made of it.
inline constexpr const char* kPmKeepEnvironment = "WARPSCOPE_GPU_METRICS_KEEP";
struct KeptPmImage {
    std::vector<std::uint8_t> image;
    std::vector<PmSample> live;
};
struct KeptPm {
    std::string chip;
    std::vector<std::uint8_t> availability;
    std::vector<std::string> metrics;
    std::vector<KeptPmImage> images;
};
void keepPmHeader(std::FILE* file, const std::string& chip,
                  const std::vector<std::uint8_t>& availability,
                  const std::vector<std::string>& metrics);
void keepPmImage(std::FILE* file, const std::vector<std::uint8_t>& image,
                 const std::vector<PmSample>& live);
// False with `why` (what, at which byte) for a file that is not one or is cut short.
bool readKeptPm(const std::string& path, KeptPm& out, std::string& why);

}  // namespace ws::capture
