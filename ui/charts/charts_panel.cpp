#include "charts/charts_panel.h"

#include <QDir>
#include <QFileDialog>
#include <QMessageBox>
#include <QToolButton>

#include "charts/chart_style.h"
#include "charts/kernel_chart.h"
#include "charts/latency_chart.h"

namespace ws::ui {

ChartsPanel::ChartsPanel(QWidget* parent)
    : QTabWidget(parent), latency_(new LatencyChart(this)), kernels_(new KernelChart(this)) {
    addTab(latency_, tr("Latency"));
    addTab(kernels_, tr("Kernel breakdown"));
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export…"));
    exportButton->setToolTip(tr("Save this chart as PNG, SVG or PDF"));
    setCornerWidget(exportButton, Qt::TopRightCorner);
    connect(exportButton, &QToolButton::clicked, this, &ChartsPanel::exportCurrent);
}

void ChartsPanel::setRuns(const std::vector<RunAnalysis>& runs) {
    latency_->setRuns(runs);
    kernels_->setRuns(runs);
}

QStringList ChartsPanel::exportAll(const QString& dir, const QString& format, int width, int height,
                                   QString* error) {
    QStringList written;
    QDir().mkpath(dir);
    const std::pair<QCustomPlot*, const char*> charts[] = {{latency_, "latency"},
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
    if (!plot) return;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Chart"), QString(),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty()) return;
    QString problem = exportPlot(plot, path, 1600, 900);
    if (!problem.isEmpty()) QMessageBox::warning(this, tr("Export failed"), problem);
}

}  // namespace ws::ui
