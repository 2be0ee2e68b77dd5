#include "models/store_loader.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "store/store.h"

namespace ws::ui {

StoreLoader::StoreLoader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<std::vector<ws::RunInfo>>("std::vector<ws::RunInfo>");
    qRegisterMetaType<std::vector<ws::RunId>>("std::vector<ws::RunId>");
    qRegisterMetaType<ws::ui::RunDetails>("ws::ui::RunDetails");
    qRegisterMetaType<ws::ui::KernelDetails>("ws::ui::KernelDetails");
    qRegisterMetaType<std::vector<ws::ui::RunAnalysis>>("std::vector<ws::ui::RunAnalysis>");
    qRegisterMetaType<std::shared_ptr<const ws::ui::TimelineData>>(
        "std::shared_ptr<const ws::ui::TimelineData>");
}

void StoreLoader::started() {
    if (inFlight_++ == 0) emit busyChanged(true);
}

void StoreLoader::finished() {
    if (--inFlight_ == 0) emit busyChanged(false);
}

void StoreLoader::loadRuns(const QString& path) {
    const quint64 job = ++runsJob_;
    started();
    QPointer<StoreLoader> self(this);
    auto work = [self, path, job, this] {
        std::vector<RunInfo> runs;
        std::vector<RunId> recovered;
        QString error;
        try {
            // Each job has its own connection: SQLite handles are not shared
            // between threads here.
            Store store(path.toStdString());
            runs = listRuns(store);
            recovered = store.recoveredRuns();
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, path, job, runs = std::move(runs), recovered = std::move(recovered), error,
             this] {
                if (!self) return;
                finished();
                if (job != runsJob_) return;  // a newer load superseded this one
                if (!error.isEmpty())
                    emit failed(path, error);
                else
                    emit runsLoaded(path, runs, recovered);
            },
            Qt::QueuedConnection);
    };
    (void)QtConcurrent::run(work);
}

void StoreLoader::loadDetails(const QString& path, RunId id) {
    const quint64 job = ++detailsJob_;
    started();
    QPointer<StoreLoader> self(this);
    auto work = [self, path, id, job, this] {
        RunDetails details;
        QString error;
        try {
            Store store(path.toStdString());
            details.run = requireRun(store, id);
            details.device = runDevice(store, id);
            details.workload = runWorkload(store, id);
            details.aggregates = runAggregates(store, id);
            details.properties = runProperties(store, id);
            details.quality = qualityOf(store, id);
            details.log = runLog(store, id);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, path, job, details = std::move(details), error, this] {
                if (!self) return;
                finished();
                if (job != detailsJob_) return;
                if (!error.isEmpty())
                    emit failed(path, error);
                else
                    emit detailsLoaded(details);
            },
            Qt::QueuedConnection);
    };
    (void)QtConcurrent::run(work);
}

void StoreLoader::loadTimeline(const QString& path, RunId id) {
    const quint64 job = ++timelineJob_;
    started();
    QPointer<StoreLoader> self(this);
    auto work = [self, path, id, job, this] {
        std::shared_ptr<const TimelineData> data;
        QString error;
        try {
            Store store(path.toStdString());
            data = ws::ui::loadTimeline(store, id);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, path, job, data, error, this] {
                if (!self) return;
                finished();
                if (job != timelineJob_) return;
                if (!error.isEmpty())
                    emit failed(path, error);
                else if (data)
                    emit timelineLoaded(data);
            },
            Qt::QueuedConnection);
    };
    (void)QtConcurrent::run(work);
}

void StoreLoader::loadAnalysis(const QString& path, const std::vector<RunId>& ids) {
    const quint64 job = ++*analysisJob_;
    started();
    QPointer<StoreLoader> self(this);
    auto latest = analysisJob_;
    auto work = [self, path, ids, job, latest, this] {
        std::vector<RunAnalysis> runs;
        QString error;
        try {
            Store store(path.toStdString());
            for (auto id : ids) {
                if (job != *latest) break;  // superseded: stop early
                runs.push_back(analyzeRun(store, id));
            }
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, path, job, runs = std::move(runs), error, this] {
                if (!self) return;
                finished();
                if (job != *analysisJob_) return;
                if (!error.isEmpty())
                    emit failed(path, error);
                else
                    emit analysisLoaded(runs);
            },
            Qt::QueuedConnection);
    };
    (void)QtConcurrent::run(work);
}

void StoreLoader::loadKernel(const QString& path, RunId run, std::uint32_t stream,
                             std::int64_t startNs) {
    const quint64 job = ++kernelJob_;
    started();
    QPointer<StoreLoader> self(this);
    auto work = [self, path, run, stream, startNs, job, this] {
        KernelDetails details;
        details.run = run;
        QString error;
        try {
            Store store(path.toStdString());
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
            // The launch call ran shortly before the kernel; found by correlation id.
            forEachApiCall(store, run, {startNs - 2'000'000'000, startNs + 2'000'000'000},
                           std::nullopt, [&](const ApiCallRecord& a) {
                               if (a.correlationId == details.kernel.correlationId)
                                   details.launch = a;
                           });
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, path, job, details, error, this] {
                if (!self) return;
                finished();
                if (job != kernelJob_) return;
                if (!error.isEmpty())
                    emit failed(path, error);
                else
                    emit kernelLoaded(details);
            },
            Qt::QueuedConnection);
    };
    (void)QtConcurrent::run(work);
}

}  // namespace ws::ui
