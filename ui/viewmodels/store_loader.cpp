#include "viewmodels/store_loader.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <optional>
#include <set>

#include "model/pc_sampling.h"
#include "store/store.h"
#include "viewmodels/timeline_stack.h"

namespace ws::ui {

StoreLoader::StoreLoader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<std::vector<ws::RunInfo>>("std::vector<ws::RunInfo>");
    qRegisterMetaType<std::vector<ws::RunId>>("std::vector<ws::RunId>");
    qRegisterMetaType<ws::ui::RunDetails>("ws::ui::RunDetails");
    qRegisterMetaType<ws::ui::WhatIfAnswer>("ws::ui::WhatIfAnswer");
    qRegisterMetaType<ws::ui::KernelDetails>("ws::ui::KernelDetails");
    qRegisterMetaType<std::vector<ws::RunAnalysis>>("std::vector<ws::RunAnalysis>");
    qRegisterMetaType<std::vector<ws::SweepTable>>("std::vector<ws::SweepTable>");
    qRegisterMetaType<std::shared_ptr<const ws::ReportInput>>(
        "std::shared_ptr<const ws::ReportInput>");
    qRegisterMetaType<std::shared_ptr<const ws::EventSearch>>(
        "std::shared_ptr<const ws::EventSearch>");
    qRegisterMetaType<std::shared_ptr<const ws::CollectiveReport>>(
        "std::shared_ptr<const ws::CollectiveReport>");
    qRegisterMetaType<std::shared_ptr<const ws::ui::TimelineData>>(
        "std::shared_ptr<const ws::ui::TimelineData>");
}

void StoreLoader::started() {
    if (inFlight_++ == 0) emit busyChanged(true);
}

void StoreLoader::finished() {
    if (--inFlight_ == 0) emit busyChanged(false);
}

template <typename Work, typename Deliver>
void StoreLoader::runJob(const JobCounter& counter, const QString& path, Work work, Deliver deliver,
                         bool readWrite) {
    const quint64 job = ++*counter;
    started();
    QPointer<StoreLoader> self(this);
    auto task = [self, path, job, latest = counter, work = std::move(work),
                 deliver = std::move(deliver), readWrite] {
        auto isStale = [&] { return job != latest->load(); };
        using Result = decltype(work(std::declval<Store&>(), isStale));
        std::optional<Result> result;
        QString error;
        try {
            // Each job has its own connection: SQLite handles are not shared
            // between threads here. Only opening the store (loadRuns) may
            // write: migrate it, mark abandoned runs. Reading a run never does.
            Store::Options options;
            options.readOnly = !readWrite;
            Store store(path.toStdString(), options);
            result = work(store, isStale);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, path, job, latest, result = std::move(result), error, deliver] {
                if (!self) return;
                self->finished();
                if (job != latest->load()) return;  // a newer job superseded this one
                if (!error.isEmpty())
                    emit self->failed(path, error);
                else
                    deliver(*self, *result);
            },
            Qt::QueuedConnection);
    };
    (void)QtConcurrent::run(std::move(task));
}

void StoreLoader::loadRuns(const QString& path) {
    struct Runs {
        std::vector<RunInfo> runs;
        std::vector<RunId> recovered;
    };
    runJob(
        runsJob_, path,
        [](Store& store, auto&&) {
            return Runs{listRuns(store), store.recoveredRuns()};
        },
        [path](StoreLoader& self, const Runs& r) {
            emit self.runsLoaded(path, r.runs, r.recovered);
        },
        /*readWrite=*/true);
}

void StoreLoader::loadDetails(const QString& path, RunId id) {
    runJob(
        detailsJob_, path,
        [id](Store& store, auto&&) {
            RunDetails d;
            d.run = requireRun(store, id);
            d.device = runDevice(store, id);
            d.workload = runWorkload(store, id);
            d.aggregates = runAggregates(store, id);
            d.properties = runProperties(store, id);
            d.quality = qualityOf(store, id);
            d.coldStart = checkColdStart(store, id);
            if (auto outliers = itlOutliers(store, id, 100);
                outliers.engineSteps > 0 && outliers.itlCount > 0)
                d.itlOutliers = std::move(outliers);
            d.log = runLog(store, id);
            return d;
        },
        [](StoreLoader& self, const RunDetails& d) { emit self.detailsLoaded(d); });
}

void StoreLoader::answerWhatIf(const QString& path, RunId id,
                               std::optional<WhatIfScenario> scenario) {
    runJob(
        whatIfJob_, path,
        [id, scenario](Store& store, auto&&) {
            WhatIfAnswer a;
            a.run = id;
            // A run that cannot be replayed is an answer, not a failure: the
            // panel says why (no tokens, a counter pass, a change that
            // matches no kernel).
            try {
                if (!scenario) {
                    a.options = suggestOptimizations(store, id, a.note);
                } else {
                    auto withFloors = *scenario;
                    const auto warning = setRoofFloors(store, id, withFloors);
                    a.scenario = withFloors.describe() +
                                 (warning.empty() ? std::string() : " (" + warning + ")");
                    a.prediction = predictWhatIf(loadWhatIfRun(store, id), withFloors);
                }
            } catch (const std::runtime_error& e) {
                a.note = e.what();
            }
            return a;
        },
        [](StoreLoader& self, const WhatIfAnswer& a) { emit self.whatIfAnswered(a); });
}

void StoreLoader::loadTimeline(const QString& path, RunId id) {
    runJob(
        timelineJob_, path,
        [id](Store& store, auto&& isStale) {
            return ws::ui::loadTimeline(store, id, isStale);  // superseded: stops, returns null
        },
        [](StoreLoader& self, const std::shared_ptr<const TimelineData>& data) {
            if (data) emit self.timelineLoaded(data);
        });
}

void StoreLoader::loadTimelineDetail(const QString& path, std::shared_ptr<const TimelineData> base,
                                     std::int64_t beginNs, std::int64_t endNs) {
    if (!base) return;
    runJob(
        detailJob_, path,
        [base, beginNs, endNs](Store& store, auto&& isStale) {
            return ws::ui::loadTimelineDetail(store, *base, beginNs, endNs, isStale);
        },
        [](StoreLoader& self, const std::shared_ptr<const TimelineData>& data) {
            if (data) emit self.timelineDetailLoaded(data);
        });
}

void StoreLoader::loadStackedTimeline(const QString& path, RunId first, RunId second,
                                      const QString& alignAt) {
    std::string align = alignAt.toStdString();
    runJob(
        timelineJob_, path,
        [first, second, align](Store& store, auto&& isStale) {
            auto a = ws::ui::loadTimeline(store, first, isStale);
            auto b = a ? ws::ui::loadTimeline(store, second, isStale) : nullptr;
            return a && b ? stackTimelines(*a, *b, align) : StackedTimeline{};
        },
        [](StoreLoader& self, const StackedTimeline& stacked) {
            if (!stacked.data) return;
            emit self.timelineLoaded(stacked.data);
            emit self.timelineStacked(stacked.note);
        });
}

void StoreLoader::loadAnalysis(const QString& path, const std::vector<RunId>& ids,
                               const WindowChoice& window) {
    runJob(
        analysisJob_, path,
        [ids, window](Store& store, auto&& isStale) {
            // Superseded: stop early.
            return analyzeRuns(
                store, ids, [&] { return isStale(); }, window);
        },
        [](StoreLoader& self, const std::vector<RunAnalysis>& runs) {
            emit self.analysisLoaded(runs);
        });
}

void StoreLoader::loadSweeps(const QString& path, const std::vector<RunId>& ids) {
    runJob(
        sweepJob_, path, [ids](Store& store, auto&&) { return sweepTablesOf(store, ids); },
        [](StoreLoader& self, const std::vector<SweepTable>& tables) {
            emit self.sweepsLoaded(tables);
        });
}

void StoreLoader::searchRun(const QString& path, RunId run, const QString& text) {
    QPointer<StoreLoader> self(this);
    runJob(
        searchJob_, path,
        [self, run, text](Store& store, auto&& isStale) {
            double shown = 0;
            auto found = searchRunEvents(
                store, run, text.toStdString(), kRunSearchRows, [&](double fraction) {
                    if (isStale()) return false;
                    if (fraction >= shown + 0.01) {  // a percent at a time
                        shown = fraction;
                        QMetaObject::invokeMethod(
                            qApp,
                            [self, run, text, fraction] {
                                if (self) emit self->runSearchProgress(run, text, fraction);
                            },
                            Qt::QueuedConnection);
                    }
                    return true;
                });
            return std::make_shared<const EventSearch>(std::move(found));
        },
        [run, text](StoreLoader& loader, const std::shared_ptr<const EventSearch>& found) {
            if (!found->stopped) emit loader.runSearchFound(run, text, found);
        });
}

void StoreLoader::loadCollectives(const QString& path, RunId run) {
    struct Result {
        std::shared_ptr<const CollectiveReport> report;
        std::int64_t originNs = 0;
    };
    runJob(
        collectivesJob_, path,
        [run](Store& store, auto&&) {
            std::set<std::uint32_t> processes;
            for (const auto& g : gpuStreamsOf(store, run))
                processes.insert(g.processId);
            Result r;
            if (processes.size() < 2) return r;  // one process: no ranks to match
            r.report = std::make_shared<const CollectiveReport>(analyzeCollectives(store, run));
            r.originNs = runAggregates(store, run).firstNs.value_or(0);
            return r;
        },
        [run](StoreLoader& self, const Result& r) {
            emit self.collectivesLoaded(run, r.report, r.originNs);
        });
}

void StoreLoader::loadKernel(const QString& path, RunId run, std::uint32_t stream,
                             std::int64_t startNs) {
    runJob(
        kernelJob_, path,
        [run, stream, startNs](Store& store, auto&&) {
            KernelDetails details;
            details.run = run;
            auto found = kernelsIn(store, run, {startNs, startNs + 1}, stream);
            auto it = std::find_if(found.begin(), found.end(),
                                   [&](const KernelRecord& k) { return k.startNs == startNs; });
            if (it == found.end()) throw std::runtime_error("the kernel is no longer in the store");
            details.kernel = *it;
            details.device = runDevice(store, run);
            if (details.device) {
                LaunchResources launch{
                    static_cast<int>(details.kernel.threadsPerBlock()),
                    details.kernel.registersPerThread,
                    details.kernel.staticSharedBytes + details.kernel.dynamicSharedBytes, -1};
                details.occupancy = theoreticalOccupancy(limitsOf(*details.device), launch);
            }
            details.metrics = kernelMetricsOf(store, run, details.kernel.correlationId);
            const auto& k = details.kernel;
            if (auto series = gpuMetricsOf(store, run, k.startNs, k.endNs); !series.empty()) {
                details.gpuMetrics =
                    summarizeGpuMetrics(series, {{k.startNs, k.endNs}}, k.deviceId);
                // Every launch of it: one pass over the run's kernels.
                details.gpuMetricsAllLaunches = gpuMetricsOfKernel(store, run, k.name, k.deviceId);
            }
            const auto properties = runProperties(store, run);
            details.pcSampled = properties.count(pc_sampling::kSamples) > 0;
            details.stallBufferFull = properties.count(pc_sampling::kBufferFull) > 0;
            if (details.pcSampled) {
                details.stalls = stallsOfKernel(store, run, k.name);
                if (auto period = numberProperty(properties, pc_sampling::kPeriod))
                    details.stallPeriodLog2 = static_cast<std::uint32_t>(*period);
                if (auto info = findRun(store, run))
                    details.stallCost = samplerCostText(properties, info->durationNs());
            }
            details.launch = launchingCall(store, run, details.kernel);
            details.captured = captureSiteOf(store, run, details.kernel);
            return details;
        },
        [](StoreLoader& self, const KernelDetails& k) { emit self.kernelLoaded(k); });
}

void StoreLoader::prepareReport(const QString& path, RunId run, std::optional<RunId> baseline) {
    runJob(
        reportJob_, path,
        [run, baseline](Store& store, auto&&) {
            return std::make_shared<const ReportInput>(ws::prepareReport(store, run, baseline));
        },
        [](StoreLoader& self, const std::shared_ptr<const ReportInput>& input) {
            emit self.reportPrepared(input);
        });
}

}  // namespace ws::ui
