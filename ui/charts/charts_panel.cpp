#include "charts/charts_panel.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QToolButton>
#include <QVBoxLayout>

#include "charts/chart_fit.h"
#include "charts/chart_style.h"
#include "charts/collectives_chart.h"
#include "charts/comparison_chart.h"
#include "charts/export_size_dialog.h"
#include "charts/kernel_chart.h"
#include "charts/latency_chart.h"
#include "charts/occupancy_chart.h"
#include "charts/pareto_chart.h"
#include "charts/request_timeline_chart.h"
#include "charts/roofline_chart.h"
#include "charts/summary_tables_page.h"
#include "charts/throughput_chart.h"
#include "charts/token_latency_chart.h"
#include "util/format.h"
#include "viewmodels/table_export.h"

namespace ws::ui {

ChartsPanel::ChartsPanel(QWidget* parent)
    : QTabWidget(parent),
      latency_(new LatencyChart(this)),
      kernels_(new KernelChart(this)),
      tokens_(new TokenLatencyChart(this)),
      requests_(new RequestTimelineChart(this)),
      throughput_(new ThroughputChart(this)),
      roofline_(new RooflineChart(this)),
      occupancy_(new OccupancyChart(this)),
      comparison_(new ComparisonChart(this)),
      pareto_(new ParetoChart(this)),
      collectives_(new CollectivesChart(this)),
      tables_(new SummaryTablesPage(this)),
      window_(new QComboBox(this)) {
    addTab(latency_, tr("Latency"));
    addTab(comparison_, tr("Comparison"));
    addTab(tokens_, tr("Per-token latency"));
    addTab(requests_, tr("Requests"));
    setTabToolTip(indexOf(requests_),
                  tr("A row per request of the first selected run: arrival to first token, "
                     "then each token coloured by the gap before it. Click a token to see that "
                     "gap on the timeline."));
    addTab(throughput_, tr("Throughput vs batch"));
    addTab(roofline_, tr("Roofline"));
    addTab(occupancy_, tr("Occupancy"));
    addTab(kernels_, tr("Kernel breakdown"));
    addTab(pareto_, tr("Sweep (Pareto)"));
    setTabVisible(indexOf(pareto_), false);
    addTab(collectives_, tr("Collectives"));
    setTabVisible(indexOf(collectives_), false);
    addTab(tables_, tr("Tables"));
    window_->setToolTip(
        tr("Which part of each run the kernel table, kernel breakdown, occupancy and the "
           "kernel comparison cover: while its requests were served (what a benchmark "
           "measures), the whole run (set-up and checks too), or an NVTX range"));
    // NVTX range names can be long ("gemv_bf16/splitk flops=… bytes=…"): at
    // their full length the combo box widened the window past the screen.
    window_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    window_->setMinimumContentsLength(30);
    window_->addItem(tr("Kernels: while requests were served"), QStringLiteral("requests"));
    window_->addItem(tr("Kernels: whole run"), QStringLiteral("run"));
    connect(window_, &QComboBox::activated, this, [this] { emit windowChanged(window()); });
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export…"));
    exportButton->setToolTip(
        tr("Save this chart as PNG, SVG or PDF, or the table as CSV or JSON; the menu "
           "also saves all charts on one page as a PNG or PDF"));
    auto* menu = new QMenu(exportButton);
    menu->addAction(tr("This Chart or Table…"), this, &ChartsPanel::exportCurrent);
    menu->addAction(tr("All Charts on One Page…"), this, [this] {
        QString path = QFileDialog::getSaveFileName(this, tr("Export Dashboard"), QString(),
                                                    tr("PNG image (*.png);;PDF document (*.pdf)"));
        if (path.isEmpty()) return;
        QSize size = ExportSizeDialog::ask(tr("Each chart"), this);
        if (size.isEmpty()) return;
        QString problem = exportDashboard(path, size.width(), size.height());
        if (!problem.isEmpty()) QMessageBox::warning(this, tr("Export failed"), problem);
    });
    exportButton->setMenu(menu);
    exportButton->setPopupMode(QToolButton::MenuButtonPopup);
    auto* corner = new QWidget(this);
    auto* cornerLayout = new QHBoxLayout(corner);
    cornerLayout->setContentsMargins(0, 0, 0, 0);
    rooflineByRange_ = new QCheckBox(tr("By NVTX range"), this);
    rooflineByRange_->setToolTip(
        tr("A point per NVTX range (attention, MLP, …): the counted kernels launched inside "
           "it, or captured inside it for CUDA graph replays, pooled; needs a run recorded "
           "with hardware counters"));
    connect(rooflineByRange_, &QCheckBox::toggled, this, [this](bool on) {
        roofline_->setByRange(on);
        roofline_->setRuns(runs_);
    });
    connect(this, &QTabWidget::currentChanged, this, &ChartsPanel::showRooflineToggle);
    cornerLayout->addWidget(rooflineByRange_);
    cornerLayout->addWidget(window_);
    cornerLayout->addWidget(exportButton);
    setCornerWidget(corner, Qt::TopRightCorner);
    showRooflineToggle();  // hidden until a run with counters is on the Roofline tab
    connect(exportButton, &QToolButton::clicked, this, &ChartsPanel::exportCurrent);
}

void ChartsPanel::changeEvent(QEvent* event) {
    QTabWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        setRuns(std::vector<RunAnalysis>(runs_));
        setSweeps(std::vector<SweepTable>(sweeps_));
    }
}

void ChartsPanel::setSweeps(const std::vector<SweepTable>& sweeps) {
    sweeps_ = sweeps;
    pareto_->setSweeps(sweeps);
    setTabVisible(indexOf(pareto_), !sweeps.empty());
}

void ChartsPanel::showRooflineToggle() {
    bool any = std::any_of(runs_.begin(), runs_.end(),
                           [](const RunAnalysis& r) { return !r.rangeRoofline.points.empty(); });
    const bool shown = any && currentWidget() == roofline_;
    rooflineByRange_->setVisible(shown);
    // The roofline covers whole runs: the kernel window does not apply there,
    // and at 1366 px both controls left the tabs no room.
    window_->setVisible(!shown);
}

void ChartsPanel::setCollectives(RunId run, std::shared_ptr<const CollectiveReport> report,
                                 std::int64_t originNs) {
    const bool any = report && !report->instances.empty();
    collectives_->setReport(run, std::move(report), originNs);
    setTabVisible(indexOf(collectives_), any);
}

bool ChartsPanel::collectivesShown() const {
    return isTabVisible(indexOf(collectives_));
}

bool ChartsPanel::paretoShown() const {
    return isTabVisible(indexOf(pareto_));
}

void ChartsPanel::setRuns(const std::vector<RunAnalysis>& runs) {
    runs_ = runs;
    latency_->setRuns(runs);
    tokens_->setRuns(runs);
    requests_->setRuns(runs);
    throughput_->setRuns(runs);
    roofline_->setRuns(runs);
    occupancy_->setRuns(runs);
    comparison_->setRuns(runs);
    showRooflineToggle();
    kernels_->setRuns(runs);
    tables_->setRuns(runs);
    offerRanges(runs);
}

KernelTableModel* ChartsPanel::kernelTable() const {
    return tables_->kernelTable();
}

WindowChoice ChartsPanel::window() const {
    return parseWindowChoice(window_->currentData().toString().toStdString());
}

void ChartsPanel::setWindow(const WindowChoice& window) {
    QString spec = QString::fromStdString(toSpec(window));
    int i = window_->findData(spec);
    if (i < 0 && window.kind == WindowChoice::Kind::Span) {
        // One time span on offer at a time: the one last selected on the timeline.
        for (int j = window_->count() - 1; j >= 0; --j)
            if (parseWindowChoice(window_->itemData(j).toString().toStdString()).kind ==
                WindowChoice::Kind::Span)
                window_->removeItem(j);
        window_->addItem(tr("Kernels: selected on the timeline, %1 to %2")
                             .arg(QString::fromStdString(formatDuration(window.fromNs)),
                                  QString::fromStdString(formatDuration(window.toNs))),
                         spec);
        i = window_->count() - 1;
    } else if (i < 0) {
        window_->addItem(tr("Kernels: NVTX range %1").arg(QString::fromStdString(window.range)),
                         spec);
        i = window_->count() - 1;
    }
    window_->setCurrentIndex(i);
}

// The ranges of the runs shown join the choices (kept once offered, so a
// choice stays while other runs are looked at).
void ChartsPanel::offerRanges(const std::vector<RunAnalysis>& runs) {
    for (const auto& r : runs)
        for (const auto& range : r.summary.ranges) {
            QString spec = QString::fromStdString("range:" + range.name);
            if (window_->findData(spec) < 0 && window_->count() < 40)
                window_->addItem(
                    tr("Kernels: NVTX range %1").arg(QString::fromStdString(range.name)), spec);
        }
}

QStringList ChartsPanel::exportAll(const QString& dir, const QString& format, int width, int height,
                                   QString* error) {
    QStringList written;
    QDir().mkpath(dir);
    for (auto [plot, name] : charts()) {
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

std::vector<std::pair<QCustomPlot*, const char*>> ChartsPanel::charts() const {
    std::vector<std::pair<QCustomPlot*, const char*>> list = {
        {latency_, "latency"},   {tokens_, "token-latency"}, {throughput_, "throughput"},
        {roofline_, "roofline"}, {occupancy_, "occupancy"},  {comparison_, "comparison"},
        {kernels_, "kernels"}};
    if (paretoShown()) list.emplace_back(pareto_, "pareto");
    if (collectivesShown()) list.emplace_back(collectives_, "collectives");
    return list;
}

QString ChartsPanel::exportDashboard(const QString& path, int chartWidth, int chartHeight) {
    auto list = charts();
    const int columns = 2, rows = int((list.size() + columns - 1) / columns);
    const QSize page(columns * chartWidth, rows * chartHeight);
    auto paint = [&](QPainter& painter) {
        painter.fillRect(QRect(QPoint(0, 0), page), chartColors().background);
        for (std::size_t i = 0; i < list.size(); ++i) {
            FitForExport fitted(list[i].first, QSize(chartWidth, chartHeight));
            QPixmap pixmap = list[i].first->toPixmap(chartWidth, chartHeight);
            painter.drawPixmap(int(i % columns) * chartWidth, int(i / columns) * chartHeight,
                               pixmap);
        }
    };
    QString ext = QFileInfo(path).suffix().toLower();
    if (ext == QLatin1String("png")) {
        QImage image(page, QImage::Format_RGB32);
        QPainter painter(&image);
        paint(painter);
        painter.end();
        return image.save(path) ? QString() : tr("%1: could not be written").arg(path);
    }
    if (ext == QLatin1String("pdf")) {
        QPdfWriter pdf(path);
        pdf.setResolution(96);
        pdf.setPageSize(QPageSize(QSizeF(page) * 25.4 / 96, QPageSize::Millimeter));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(tr("Warpscope dashboard"));
        QPainter painter(&pdf);
        if (!painter.isActive()) return tr("%1: could not be written").arg(path);
        paint(painter);
        return {};
    }
    return tr("%1: unknown format '%2' (png or pdf)").arg(path, ext);
}

void ChartsPanel::exportCurrent() {
    auto* plot = qobject_cast<QCustomPlot*>(currentWidget());
    if (!plot) {
        if (currentWidget() != tables_) return;
        QString path = QFileDialog::getSaveFileName(this, tr("Export Table"), QString(),
                                                    tr("CSV (*.csv);;JSON (*.json)"));
        if (path.isEmpty()) return;
        QString problem = exportTable(tables_->shownModel(), path);  // sorted as shown
        if (!problem.isEmpty()) QMessageBox::warning(this, tr("Export failed"), problem);
        return;
    }
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Chart"), QString(),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty()) return;
    QSize size = ExportSizeDialog::ask(tr("Chart"), this);
    if (size.isEmpty()) return;
    QString problem = exportPlot(plot, path, size.width(), size.height());
    if (!problem.isEmpty()) QMessageBox::warning(this, tr("Export failed"), problem);
}

}  // namespace ws::ui
