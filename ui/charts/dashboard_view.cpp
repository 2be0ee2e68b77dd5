#include "charts/dashboard_view.h"

#include <qcustomplot.h>
#include <QDateTime>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <set>

#include "charts/chart_fit.h"
#include "charts/chart_style.h"
#include "charts/comparison_chart.h"
#include "charts/latency_chart.h"
#include "charts/occupancy_chart.h"
#include "charts/roofline_chart.h"

namespace ws::ui {

namespace {

QString runName(const RunAnalysis& r) {
    return QStringLiteral("#%1 %2").arg(r.run.id).arg(QString::fromStdString(r.run.label));
}

QString when(std::int64_t ns) {
    return QDateTime::fromMSecsSinceEpoch(ns / 1'000'000)
        .toString(QStringLiteral("yyyy-MM-dd HH:mm"));
}

// GPU, dates and store on one line; each run's energy on a line of its own.
QString detailsHtml(const QStringList& lines) {
    QStringList out{lines.mid(1, 3).join(QStringLiteral(" · ")).toHtmlEscaped()};
    for (const auto& line : lines.mid(4))
        out << line.toHtmlEscaped();
    return out.join(QStringLiteral("<br>"));
}

}  // namespace

DashboardView::DashboardView(QWidget* parent)
    : QWidget(parent),
      header_(new QLabel(this)),
      grid_(new QGridLayout),
      latency_(new LatencyChart(this)),
      roofline_(new RooflineChart(this)),
      occupancy_(new OccupancyChart(this)),
      comparison_(new ComparisonChart(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    header_->setWordWrap(true);
    header_->setTextFormat(Qt::RichText);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(header_);
    layout->addLayout(grid_, 1);
    grid_->setSpacing(6);
    // The header names each run's colour once for all four charts.
    for (FittedChart* chart :
         std::initializer_list<FittedChart*>{latency_, roofline_, occupancy_, comparison_})
        chart->setRunLegendShown(false);
    for (QWidget* chart :
         std::initializer_list<QWidget*>{latency_, roofline_, occupancy_, comparison_})
        chart->setMinimumSize(200, 150);
    arrange();
}

void DashboardView::setRuns(const std::vector<RunAnalysis>& runs) {
    runs_ = runs;
    stale_ = true;
    if (isVisible()) apply();
}

void DashboardView::setStorePath(const QString& path) {
    store_ = path;
    if (isVisible()) apply();
}

void DashboardView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_) apply();
}

void DashboardView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() != QEvent::PaletteChange) return;
    // A theme switch: the charts take their colours when they are drawn.
    stale_ = true;
    if (isVisible()) apply();
}

void DashboardView::apply() {
    stale_ = false;
    latency_->setRuns(runs_);
    roofline_->setRuns(runs_);
    occupancy_->setRuns(runs_);
    comparison_->setRuns(runs_);
    arrange();
    QStringList chips;
    for (std::size_t i = 0; i < runs_.size(); ++i)
        chips << QStringLiteral(
                     "<span style=\"white-space:nowrap\"><span "
                     "style=\"color:%1\">■</span>&nbsp;%2</span>")
                     .arg(runColor(int(i)).name(),
                          // Non-breaking hyphens: a name stays on one line.
                          runName(runs_[i]).toHtmlEscaped().replace(QLatin1Char('-'),
                                                                    QChar(0x2011)));
    QStringList lines = headerLines();
    header_->setText(runs_.empty()
                         ? tr("Dashboard: select runs in the run list")
                         : QStringLiteral("<b>%1</b><br>%2")
                               .arg(chips.join(QStringLiteral(" &nbsp; ")), detailsHtml(lines)));
}

void DashboardView::arrange() {
    for (auto* chart :
         std::initializer_list<QWidget*>{latency_, roofline_, occupancy_, comparison_})
        grid_->removeWidget(chart);
    // With a comparison: latency | comparison over roofline | occupancy;
    // with one run: latency | roofline over a wide occupancy.
    if (runs_.size() >= 2) {
        grid_->addWidget(latency_, 0, 0);
        grid_->addWidget(comparison_, 0, 1);
        grid_->addWidget(roofline_, 1, 0);
        grid_->addWidget(occupancy_, 1, 1);
        comparison_->show();
    } else {
        comparison_->hide();
        grid_->addWidget(latency_, 0, 0);
        grid_->addWidget(roofline_, 0, 1);
        grid_->addWidget(occupancy_, 1, 0, 1, 2);
    }
    grid_->setColumnStretch(0, 1);
    grid_->setColumnStretch(1, 1);
    grid_->setRowStretch(0, 1);
    grid_->setRowStretch(1, 1);
}

std::vector<QCustomPlot*> DashboardView::shownCharts() const {
    if (runs_.size() >= 2) return {latency_, comparison_, roofline_, occupancy_};
    return {latency_, roofline_, occupancy_};
}

QStringList DashboardView::headerLines() const {
    QStringList runs, gpus;
    std::set<QString> seen;
    std::int64_t first = 0, last = 0;
    for (const auto& r : runs_) {
        runs << runName(r);
        QString gpu = QString::fromStdString(r.run.device);
        if (!gpu.isEmpty() && seen.insert(gpu).second) gpus << gpu;
        if (r.run.startedAtNs > 0) {
            first = first ? std::min(first, r.run.startedAtNs) : r.run.startedAtNs;
            last = std::max(last, r.run.startedAtNs);
        }
    }
    QString dates = !first                      ? tr("unknown")
                    : when(first) == when(last) ? when(first)
                                                : tr("%1 to %2").arg(when(first), when(last));
    QStringList lines{
        tr("Runs: %1").arg(runs.join(QStringLiteral(", "))),
        tr("GPU: %1").arg(gpus.isEmpty() ? tr("none recorded") : gpus.join(QStringLiteral(", "))),
        tr("Recorded: %1").arg(dates), tr("Store: %1").arg(store_)};
    // Energy per output token and where it went, for each run that sampled it.
    for (const auto& r : runs_) {
        if (!r.latency.energyPerOutputTokenJ) continue;
        QString line = tr("Energy %1: %2 J/token")
                           .arg(runName(r).trimmed())
                           .arg(*r.latency.energyPerOutputTokenJ, 0, 'f', 3);
        if (const auto& e = r.energy) {
            std::vector<EnergyPart> top(
                e->classes.begin(),
                e->classes.begin() + std::min<std::size_t>(3, e->classes.size()));
            QStringList parts;
            if (!e->phases.empty())
                parts << QString::fromStdString(describeEnergyParts(*e, e->phases));
            parts << QString::fromStdString(describeEnergyParts(*e, top));
            line += QStringLiteral(" (%1)").arg(parts.join(QStringLiteral("; ")));
        }
        lines << line;
    }
    return lines;
}

std::vector<std::pair<QCustomPlot*, QRect>> DashboardView::cells(QSize size, int top) const {
    // A margin round the page, as the header has.
    const int gap = 8, margin = 12, w = (size.width() - 2 * margin - gap) / 2,
              h = (size.height() - top - margin - gap) / 2;
    auto at = [&](int row, int col, int cols = 1) {
        return QRect(margin + col * (w + gap), top + row * (h + gap), cols * w + (cols - 1) * gap,
                     h);
    };
    if (runs_.size() >= 2)
        return {{latency_, at(0, 0)},
                {comparison_, at(0, 1)},
                {roofline_, at(1, 0)},
                {occupancy_, at(1, 1)}};
    return {{latency_, at(0, 0)}, {roofline_, at(0, 1)}, {occupancy_, at(1, 0, 2)}};
}

QString DashboardView::exportTo(const QString& path, int width, int height) {
    if (stale_) {
        // Lay the charts out once so that they have their data and axes.
        apply();
    }
    const QString ext = QFileInfo(path).suffix().toLower();
    const QSize page(width, height);
    const ChartColors colors = chartColors();
    QFont title = font();
    title.setPointSizeF(title.pointSizeF() * 1.15);
    title.setBold(true);
    const QStringList lines = headerLines();
    const QFontMetrics titleMetrics(title);
    const int lineHeight = titleMetrics.lineSpacing() + 2, left = 12, right = width - 12;
    // The runs as colour chips (each run's colour in every chart), flowed over
    // as many lines as they need; then GPU, dates and store.
    struct Chip {
        QPoint at;
        QColor color;
        QString text;
    };
    std::vector<Chip> chips;
    int x = left + titleMetrics.horizontalAdvance(tr("Runs:")) + 8, y = 10;
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        QString text =
            titleMetrics.elidedText(runName(runs_[i]), Qt::ElideMiddle, right - left - 40);
        int w = 14 + titleMetrics.horizontalAdvance(text) + 18;
        if (x + w > right && !chips.empty()) {
            x = left + titleMetrics.horizontalAdvance(tr("Runs:")) + 8;
            y += lineHeight;
        }
        chips.push_back({QPoint(x, y), runColor(int(i)), text});
        x += w;
    }
    const int top = y + lineHeight * int(lines.size()) + 8;
    auto paint = [&](QCPPainter& painter) {
        painter.fillRect(QRect(QPoint(0, 0), page), colors.background);
        painter.setPen(colors.text);
        painter.setFont(title);
        painter.drawText(QRect(left, 10, right - left, lineHeight),
                         Qt::AlignLeft | Qt::AlignVCenter, tr("Runs:"));
        for (const auto& chip : chips) {
            painter.fillRect(QRect(chip.at.x(), chip.at.y() + (lineHeight - 10) / 2, 10, 10),
                             chip.color);
            painter.drawText(QRect(chip.at.x() + 14, chip.at.y(), right - chip.at.x(), lineHeight),
                             Qt::AlignLeft | Qt::AlignVCenter, chip.text);
        }
        painter.setFont(font());
        for (int i = 1; i < lines.size(); ++i) {
            QRect line(left, y + i * lineHeight, right - left, lineHeight);
            painter.drawText(
                line, Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetrics(font()).elidedText(lines[i], Qt::ElideMiddle, line.width()));
        }
        for (auto [chart, cell] : cells(page, top)) {
            FitForExport fitted(chart, cell.size());
            painter.save();
            painter.translate(cell.topLeft());
            chart->toPainter(&painter, cell.width(), cell.height());
            painter.restore();
        }
    };
    if (ext == QLatin1String("png")) {
        QImage image(page, QImage::Format_RGB32);
        QCPPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setMode(QCPPainter::pmNoCaching);
        paint(painter);
        painter.end();
        return image.save(path) ? QString() : tr("%1: could not be written").arg(path);
    }
    if (ext == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(page);
        svg.setViewBox(QRect(QPoint(0, 0), page));
        svg.setTitle(tr("Warpscope dashboard"));
        QCPPainter painter;
        if (!painter.begin(&svg)) return tr("%1: could not be written").arg(path);
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        paint(painter);
        painter.end();
        return {};
    }
    if (ext == QLatin1String("pdf")) {
        QPdfWriter pdf(path);
        pdf.setResolution(96);
        pdf.setPageSize(QPageSize(QSizeF(page) * 25.4 / 96, QPageSize::Millimeter));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(tr("Warpscope dashboard"));
        QCPPainter painter;
        if (!painter.begin(&pdf)) return tr("%1: could not be written").arg(path);
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        paint(painter);
        painter.end();
        return {};
    }
    return tr("%1: unknown format '%2' (png, svg or pdf)").arg(path, ext);
}

}  // namespace ws::ui
