// MainWindow's store work run elsewhere: reports prepared by the loader, and
// import, compact, rename, tag and delete through warpscope-cli.
#include "main_window.h"

#include <memory>
#include <utility>

#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QStatusBar>

#include "export/report_renderer.h"
#include "runs_panel.h"
#include "store/store.h"
#include "util/format.h"
#include "viewmodels/cli_job.h"
#include "viewmodels/run_list_model.h"
#include "viewmodels/store_loader.h"

namespace ws::ui {

void MainWindow::exportReport() {
    auto focused = runs_->focusedRun();
    if (!focused || storePath_.isEmpty()) {
        QMessageBox::information(this, tr("Export Report"), tr("Select a run first."));
        return;
    }
    exportReportOf(*focused);
}

void MainWindow::exportReportOf(RunId run) {
    // Against the pinned baseline, else the lowest other selected run.
    std::optional<RunId> baseline = runModel_->baseline();
    if (!baseline)
        for (RunId id : runs_->selectedRuns())
            if (id != run && (!baseline || id < *baseline)) baseline = id;
    if (baseline == run) baseline.reset();
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Report"), QStringLiteral("warpscope-run-%1.html").arg(run),
        tr("HTML page (*.html);;PDF document (*.pdf);;Markdown (*.md)"));
    if (path.isEmpty()) return;
    exportReportTo(run, baseline, path);
}

void MainWindow::exportReportTo(RunId run, std::optional<RunId> baseline, const QString& path) {
    // The store work runs as a loader job; charts (widgets) and the file are
    // made here once it is done. A newer export supersedes a pending one.
    reportPath_ = path;
    statusBar()->showMessage(tr("Preparing the report of run %1…").arg(run));
    loader_->prepareReport(storePath_, run, baseline);
}

void MainWindow::onReportPrepared(const std::shared_ptr<const ReportInput>& input) {
    QString path = std::exchange(reportPath_, QString());
    if (path.isEmpty() || !input) return;
    statusBar()->showMessage(tr("Writing %1…").arg(QFileInfo(path).fileName()));
    QString error = writeReportFile(*input, QFileInfo(path).suffix(), path);
    if (!error.isEmpty()) {
        statusBar()->clearMessage();
        QMessageBox::warning(this, tr("Export Report"), error);
    } else {
        statusBar()->showMessage(tr("Report written to %1").arg(path), 8000);
        emit reportWritten(path);
    }
}

void MainWindow::exportTraceTo(RunId run, const QString& path) {
    const bool json =
        path.endsWith(QLatin1String(".json")) || path.endsWith(QLatin1String(".json.gz"));
    runCli(tr("Export Trace"), tr("Writing %1…").arg(QFileInfo(path).fileName()),
           {QStringLiteral("export"), QString::number(run), QStringLiteral("--format"),
            json ? QStringLiteral("chrome-trace") : QStringLiteral("perfetto"),
            QStringLiteral("-o"), path, QStringLiteral("--db"), storePath_},
           false, [this, path] {
               statusBar()->showMessage(
                   tr("Trace written to %1 (open it in ui.perfetto.dev)").arg(path), 10000);
               emit traceWritten(path);
           });
}

void MainWindow::importTrace() {
    if (storePath_.isEmpty()) {
        QMessageBox::information(this, tr("Import Trace"), tr("Open a store first."));
        return;
    }
    QString file = QFileDialog::getOpenFileName(
        this, tr("Import Trace"), QString(),
        tr("Traces and results (*.sqlite *.json *.json.gz *.jsonl);;"
           "Nsight Systems SQLite export (*.sqlite);;"
           "PyTorch profiler trace, vLLM result or GuideLLM report (*.json *.json.gz);;"
           "SGLang bench_serving or AIPerf results (*.jsonl);;All files (*)"));
    if (file.isEmpty()) return;
    runCli(tr("Import Trace"), tr("Importing %1…").arg(QFileInfo(file).fileName()),
           {QStringLiteral("import"), file, QStringLiteral("--db"), storePath_});
}

void MainWindow::compactStore() {
    if (storePath_.isEmpty()) return;
    runCli(tr("Compact Store"), tr("Compacting %1…").arg(QFileInfo(storePath_).fileName()),
           {QStringLiteral("compact"), QStringLiteral("--db"), storePath_});
}

void MainWindow::runCli(const QString& title, const QString& busyText, const QStringList& args,
                        bool withProgress, std::function<void()> done) {
    // In warpscope-cli, as launches are: long store work never blocks the
    // window and a bad file can never take it down. Its progress shows in the
    // status bar; its failure reason in a message box.
    auto* job = new CliJob(this);
    busyLabel_->setText(busyText);
    connect(job, &CliJob::message, this, [this, busyText](const progress::Message& m) {
        if (m.kind == progress::Kind::Compact)
            busyLabel_->setText(tr("Compacting: %1 / %2 event chunks").arg(m.done).arg(m.total));
        else if (m.kind == progress::Kind::Import && m.total > 0 && m.done > 0)
            busyLabel_->setText(tr("%1 (%2 of %3)")
                                    .arg(busyText, QString::fromStdString(formatBytes(m.done)),
                                         QString::fromStdString(formatBytes(m.total))));
        else if (m.kind == progress::Kind::Import && m.total > 0)
            busyLabel_->setText(
                tr("%1 (%2)").arg(busyText, QString::fromStdString(formatBytes(m.total))));
    });
    connect(job, &CliJob::finished, this,
            [this, job, title, done = std::move(done)](bool ok, const QString& summary) {
                busyLabel_->clear();
                job->deleteLater();
                if (!ok) {
                    QMessageBox::warning(this, title,
                                         summary.isEmpty() ? tr("%1 failed").arg(title) : summary);
                    return;
                }
                if (done) {
                    done();
                    return;
                }
                statusBar()->showMessage(summary, 10000);
                openStore(storePath_);
            });
    job->start(args, withProgress);
}

}  // namespace ws::ui
