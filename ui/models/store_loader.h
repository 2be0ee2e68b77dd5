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

#include "analysis/occupancy.h"
#include "model/records.h"
#include "models/run_analysis.h"
#include "models/timeline_data.h"
#include "store/run_queries.h"

namespace ws::ui {

struct KernelDetails {
    RunId run = 0;
    KernelRecord kernel;
    std::optional<DeviceInfo> device;
    std::optional<Occupancy> occupancy;   // with the run's device limits
    std::optional<ApiCallRecord> launch;  // the API call that launched it
};

struct RunDetails {
    RunInfo run;
    std::optional<DeviceInfo> device;
    std::optional<WorkloadInfo> workload;
    RunAggregates aggregates;
    std::map<std::string, std::string> properties;
    std::vector<QualityRecord> quality;
    std::string log;
};

class StoreLoader : public QObject {
    Q_OBJECT
  public:
    explicit StoreLoader(QObject* parent = nullptr);

    // Starts loading the run list of `path`; emits runsLoaded or failed.
    void loadRuns(const QString& path);
    // Starts loading one run's details; emits detailsLoaded or failed.
    void loadDetails(const QString& path, RunId id);
    // Starts loading one run's timeline; emits timelineLoaded or failed.
    void loadTimeline(const QString& path, RunId id);
    // Starts analysing the given runs for the charts; emits analysisLoaded.
    void loadAnalysis(const QString& path, const std::vector<RunId>& ids);
    // Loads the kernel that starts at `startNs` on `stream`; emits kernelLoaded.
    void loadKernel(const QString& path, RunId run, std::uint32_t stream, std::int64_t startNs);
    bool busy() const { return inFlight_ > 0; }

  signals:
    void runsLoaded(const QString& path, const std::vector<ws::RunInfo>& runs,
                    const std::vector<ws::RunId>& recovered);
    void detailsLoaded(const ws::ui::RunDetails& details);
    void timelineLoaded(std::shared_ptr<const ws::ui::TimelineData> timeline);
    void analysisLoaded(const std::vector<ws::ui::RunAnalysis>& runs);
    void kernelLoaded(const ws::ui::KernelDetails& kernel);
    void failed(const QString& path, const QString& message);
    void busyChanged(bool busy);

  private:
    void started();
    void finished();
    std::atomic<quint64> runsJob_{0};
    std::atomic<quint64> detailsJob_{0};
    std::atomic<quint64> timelineJob_{0};
    // Shared with the worker, which checks it between runs and may outlive us.
    std::shared_ptr<std::atomic<quint64>> analysisJob_ = std::make_shared<std::atomic<quint64>>(0);
    std::atomic<quint64> kernelJob_{0};
    int inFlight_ = 0;
};

}  // namespace ws::ui

Q_DECLARE_METATYPE(ws::ui::RunDetails)
Q_DECLARE_METATYPE(ws::ui::KernelDetails)
