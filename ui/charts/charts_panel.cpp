#include "charts/charts_panel.h"

#include <QDir>
#include <QFileDialog>
#include <QHeaderView>
#include <QMessageBox>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>

#include "charts/chart_style.h"
#include "charts/kernel_chart.h"
#include "charts/latency_chart.h"
#include "charts/roofline_chart.h"
#include "charts/throughput_chart.h"
#include "charts/token_latency_chart.h"
#include "models/kernel_table_model.h"

namespace ws::ui {

ChartsPanel::ChartsPanel(QWidget* parent)
    : QTabWidget(parent),
      latency_(new LatencyChart(this)),
      kernels_(new KernelChart(this)),
      tokens_(new TokenLatencyChart(this)),
      throughput_(new ThroughputChart(this)),
      roofline_(new RooflineChart(this)),
      table_(new KernelTableModel(this)) {
    addTab(latency_, tr("Latency"));
    addTab(tokens_, tr("Per-token latency"));
    addTab(throughput_, tr("Throughput vs batch"));
    addTab(roofline_, tr("Roofline"));
    addTab(kernels_, tr("Kernel breakdown"));
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(table_);
    proxy->setSortRole(KernelTableModel::SortRole);
    auto* view = new QTableView(this);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->sortByColumn(KernelTableModel::Total, Qt::DescendingOrder);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(20);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setAlternatingRowColors(true);
    addTab(view, tr("Kernel table"));
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export…"));
    exportButton->setToolTip(tr("Save this chart as PNG, SVG or PDF, or the table as CSV"));
    setCornerWidget(exportButton, Qt::TopRightCorner);
    connect(exportButton, &QToolButton::clicked, this, &ChartsPanel::exportCurrent);
}

void ChartsPanel::setRuns(const std::vector<RunAnalysis>& runs) {
    latency_->setRuns(runs);
    tokens_->setRuns(runs);
    throughput_->setRuns(runs);
    roofline_->setRuns(runs);
    kernels_->setRuns(runs);
    table_->setRuns(runs);
}

QStringList ChartsPanel::exportAll(const QString& dir, const QString& format, int width, int height,
                                   QString* error) {
    QStringList written;
    QDir().mkpath(dir);
    const std::pair<QCustomPlot*, const char*> charts[] = {{latency_, "latency"},
                                                           {tokens_, "token-latency"},
                                                           {throughput_, "throughput"},
                                                           {roofline_, "roofline"},
                                                           {kernels_, "kernels"}};
    for (auto [plot, name] : charts) {
        QString path = QDir(dir).filePath(QStringLiteral("%1.%2").arg(QLatin1String(name), format));
        QString problem = exportPlot(plot, path, width, height);
        if (!problem.isEmpty()) {
            if (error) *error = problem;
            return written;
        }
        written << path;
    }
    return written;
}

void ChartsPanel::exportCurrent() {
    auto* plot = qobject_cast<QCustomPlot*>(currentWidget());
    if (!plot) {
        QString path =
            QFileDialog::getSaveFileName(this, tr("Export Table"), QString(), tr("CSV (*.csv)"));
        if (path.isEmpty()) return;
        QSaveFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(table_->toCsv().toUtf8()) < 0 || !f.commit())
            QMessageBox::warning(this, tr("Export failed"),
                                 tr("%1: could not be written").arg(path));
        return;
    }
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Chart"), QString(),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty()) return;
    QString problem = exportPlot(plot, path, 1600, 900);
    if (!problem.isEmpty()) QMessageBox::warning(this, tr("Export failed"), problem);
}

}  // namespace ws::ui
