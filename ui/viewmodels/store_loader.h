// Loads runs and run details from a store on a worker thread. Every request
// carries a job id; a result that arrives after a newer request was made is
// dropped, so a slow load never overwrites a newer one.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cold_start.h"
#include "analysis/collectives.h"
#include "analysis/event_search.h"
#include "analysis/gpu_metric_summary.h"
#include "analysis/graph_nodes.h"
#include "analysis/itl_outliers.h"
#include "analysis/occupancy.h"
#include "analysis/pc_sample_summary.h"
#include "analysis/run_analysis.h"
#include "analysis/sweep.h"
#include "analysis/whatif.h"
#include "model/records.h"
#include "report/report_data.h"
#include "store/run_queries.h"
#include "viewmodels/timeline_data.h"

namespace ws::ui {

struct KernelDetails {
    RunId run = 0;
    KernelRecord kernel;
    std::optional<DeviceInfo> device;
    std::optional<Occupancy> occupancy;     // with the run's device limits
    std::optional<ApiCallRecord> launch;    // the API call that launched it
    std::optional<CaptureSite> captured;    // where its CUDA graph node was captured
    std::map<std::string, double> metrics;  // hardware counters (record --metrics)
    // GPU metrics (record --gpu-metrics) over this launch, and over every
    // launch of the same kernel on its GPU (its group: count and time).
    std::vector<GpuMetricStats> gpuMetrics;
    std::optional<GpuMetricGroup> gpuMetricsAllLaunches;
    // Where its warps stall over all its launches (record --pc-sampling), and
    // the sampling period (log2 cycles; 0 unknown).
    std::optional<KernelStalls> stalls;
    std::uint32_t stallPeriodLog2 = 0;
    std::string stallCost;         // what sampling cost the run (samplerCostText); "" unknown
    bool pcSampled = false;        // the run was recorded with --pc-sampling
    bool stallBufferFull = false;  // CUPTI's hardware buffer filled: sampling stopped early
};

// What the What-if panel shows: the options a run suggests, ranked, or one
// scenario's prediction; `note` says why there is neither.
struct WhatIfAnswer {
    RunId run = 0;
    std::vector<RankedOption> options;
    std::optional<WhatIfPrediction> prediction;
    std::string scenario;  // WhatIfScenario::describe() of the prediction
    std::string note;
};

struct RunDetails {
    RunInfo run;
    std::optional<DeviceInfo> device;
    std::optional<WorkloadInfo> workload;
    RunAggregates aggregates;
    std::map<std::string, std::string> properties;
    std::vector<QualityRecord> quality;
    ColdStartCheck coldStart;  // start-up work inside requests' TTFT
    // A served run's slowest ITLs; nothing without engine steps and tokens.
    std::optional<ItlOutlierReport> itlOutliers;
    std::string log;
};

class StoreLoader : public QObject {
    Q_OBJECT
  public:
    // Matches of a whole-run search kept (as many as Find Results lists).
    static constexpr std::size_t kRunSearchRows = 10'000;

    explicit StoreLoader(QObject* parent = nullptr);

    // Starts loading the run list of `path`; emits runsLoaded or failed.
    void loadRuns(const QString& path);
    // Starts loading one run's details; emits detailsLoaded or failed.
    void loadDetails(const QString& path, RunId id);
    // Starts loading one run's timeline; emits timelineLoaded or failed.
    void loadTimeline(const QString& path, RunId id);
    // Loads the single events of [beginNs, endNs) of a paged timeline;
    // emits timelineDetailLoaded. A newer request or timeline load drops it.
    void loadTimelineDetail(const QString& path, std::shared_ptr<const TimelineData> base,
                            std::int64_t beginNs, std::int64_t endNs);
    // Loads two runs' timelines stacked, the second aligned to the first at
    // the first range whose name contains `alignAt`; emits timelineLoaded,
    // then timelineStacked with what was aligned.
    void loadStackedTimeline(const QString& path, RunId first, RunId second,
                             const QString& alignAt);
    // Starts analysing the given runs for the charts, kernel tables over
    // `window`; emits analysisLoaded.
    void loadAnalysis(const QString& path, const std::vector<RunId>& ids,
                      const WindowChoice& window = {});
    // Reads the sweep groups the given runs belong to (each once, in the
    // order first met); emits sweepsLoaded, with none when no run is in one.
    void loadSweeps(const QString& path, const std::vector<RunId>& ids);
    // Matches the NCCL collectives of a run whose GPU work comes from two
    // or more processes (a distributed run); emits collectivesLoaded, with
    // no report for any other run (nothing is read then).
    void loadCollectives(const QString& path, RunId run);
    // Loads the kernel that starts at `startNs` on `stream`; emits kernelLoaded.
    void loadKernel(const QString& path, RunId run, std::uint32_t stream, std::int64_t startNs);
    // Ranks the options run `run` suggests (no scenario) or predicts one
    // scenario by replaying the run; emits whatIfAnswered, with a note and
    // nothing else when the run cannot be replayed.
    void answerWhatIf(const QString& path, RunId run, std::optional<WhatIfScenario> scenario);
    // Analyses a run (against `baseline`) for its report; emits reportPrepared.
    void prepareReport(const QString& path, RunId run, std::optional<RunId> baseline);
    // Searches every kernel, copy and API call of a run by label (for a
    // paged timeline, which holds one window): emits runSearchProgress while
    // it reads and runSearchFound at the end. A newer search or
    // cancelRunSearch stops it.
    void searchRun(const QString& path, RunId run, const QString& text);
    void cancelRunSearch() { ++*searchJob_; }
    bool busy() const { return inFlight_ > 0; }

  signals:
    void runsLoaded(const QString& path, const std::vector<ws::RunInfo>& runs,
                    const std::vector<ws::RunId>& recovered);
    void detailsLoaded(const ws::ui::RunDetails& details);
    void timelineLoaded(std::shared_ptr<const ws::ui::TimelineData> timeline);
    void timelineStacked(const QString& note);
    void timelineDetailLoaded(std::shared_ptr<const ws::ui::TimelineData> timeline);
    void analysisLoaded(const std::vector<ws::RunAnalysis>& runs);
    void sweepsLoaded(const std::vector<ws::SweepTable>& sweeps);
    // `report` null: not a distributed run. `originNs`: the run's first record.
    void collectivesLoaded(ws::RunId run, std::shared_ptr<const ws::CollectiveReport> report,
                           qint64 originNs);
    void kernelLoaded(const ws::ui::KernelDetails& kernel);
    void runSearchProgress(ws::RunId run, const QString& text, double fraction);
    void runSearchFound(ws::RunId run, const QString& text,
                        std::shared_ptr<const ws::EventSearch> found);
    void reportPrepared(const std::shared_ptr<const ws::ReportInput>& input);
    void whatIfAnswered(const ws::ui::WhatIfAnswer& answer);
    void failed(const QString& path, const QString& message);
    void busyChanged(bool busy);

  private:
    // The latest job id of one kind. Shared with the workers, which may
    // outlive this object and check it to stop or drop stale results.
    using JobCounter = std::shared_ptr<std::atomic<quint64>>;
    static JobCounter newCounter() { return std::make_shared<std::atomic<quint64>>(0); }

    // Runs work(store, isStale) on a worker thread with its own connection to
    // the store at `path`, then deliver(result) on the GUI thread unless a
    // newer job of the same kind started meanwhile; errors emit failed().
    template <typename Work, typename Deliver>
    void runJob(const JobCounter& counter, const QString& path, Work work, Deliver deliver,
                bool readWrite = false);
    void started();
    void finished();

    JobCounter runsJob_ = newCounter();
    JobCounter detailsJob_ = newCounter();
    JobCounter whatIfJob_ = newCounter();
    JobCounter timelineJob_ = newCounter();
    JobCounter detailJob_ = newCounter();
    JobCounter analysisJob_ = newCounter();
    JobCounter sweepJob_ = newCounter();
    JobCounter collectivesJob_ = newCounter();
    JobCounter kernelJob_ = newCounter();
    JobCounter reportJob_ = newCounter();
    JobCounter searchJob_ = newCounter();
    int inFlight_ = 0;
};

}  // namespace ws::ui

Q_DECLARE_METATYPE(ws::ui::RunDetails)
Q_DECLARE_METATYPE(ws::ui::KernelDetails)

// Analyses cross threads in queued signals.
Q_DECLARE_METATYPE(std::vector<ws::RunAnalysis>)
Q_DECLARE_METATYPE(std::vector<ws::SweepTable>)
