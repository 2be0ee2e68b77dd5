#include "charts/chart_fit.h"

#include <QFontMetrics>

namespace ws::ui {

namespace {
const char* kFullText = "wsFullText";
}

void FittedChart::fitTo(QSize size) {
    for (auto* element : plotLayout()->elements(true)) {
        if (auto* note = qobject_cast<QCPTextElement*>(element))
            wrapNote(note, size.width() - 12);
        else if (auto* l = qobject_cast<QCPLegend*>(element))
            spreadLegend(l, size.width() - 12);
    }
}

void FittedChart::resizeEvent(QResizeEvent* event) {
    fitTo(event->size());
    QCustomPlot::resizeEvent(event);
}

void FittedChart::layOutAt(QSize size) {
    setViewport(QRect(QPoint(0, 0), size));
    updateLayout();
}

FitForExport::FitForExport(QCustomPlot* plot, QSize size)
    : chart_(qobject_cast<FittedChart*>(plot)) {
    if (chart_) chart_->fitTo(size);
}

FitForExport::~FitForExport() {
    if (chart_) {
        chart_->fitTo(chart_->size());
        chart_->setViewport(chart_->rect());
        chart_->replot(QCustomPlot::rpQueuedReplot);
    }
}

void setNote(QCPTextElement* note, const QString& text) {
    note->setProperty(kFullText, text);
    int width = note->parentPlot() ? note->parentPlot()->viewport().width() - 12 : 0;
    if (width > 50)
        wrapNote(note, width);
    else
        note->setText(text);
}

void wrapNote(QCPTextElement* note, int width) {
    QVariant full = note->property(kFullText);
    if (!full.isValid()) return;
    QFontMetrics fm(note->font());
    QStringList lines;
    QString line;
    for (const QString& word : full.toString().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        QString next = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && fm.horizontalAdvance(next) > width) {
            lines << line;
            line = word;
        } else {
            line = next;
        }
    }
    if (!line.isEmpty()) lines << line;
    for (auto& l : lines)
        l = fm.elidedText(l, Qt::ElideMiddle, width);
    note->setText(lines.join(QLatin1Char('\n')));
}

void placeLegendBelow(QCustomPlot* plot, int row) {
    auto* legend = plot->legend;
    if (auto* inset = legend->layout(); inset && inset != plot->plotLayout()) inset->take(legend);
    plot->plotLayout()->insertRow(row);
    plot->plotLayout()->addElement(row, 0, legend);
    plot->plotLayout()->setRowStretchFactor(row, 0.001);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setMargins(QMargins(4, 2, 4, 2));
    legend->setRowSpacing(0);
    legend->setColumnSpacing(12);
    markLegendBelow(legend);
}

void markLegendBelow(QCPLegend* legend) {
    legend->setProperty("wsBelow", true);
    // An empty legend's size hint is a few pixels wide, and the plot's one
    // column would shrink to it: room for any width, whatever it holds.
    legend->setMaximumSize(1'000'000, QWIDGETSIZE_MAX);
}

void spreadLegend(QCPLegend* legend, int width) {
    if (!legend->property("wsBelow").toBool()) return;
    int widest = 1;
    for (int i = 0; i < legend->itemCount(); ++i) {
        auto* item = legend->item(i);
        if (!item) continue;
        widest = std::max(widest, item->minimumOuterSizeHint().width());
    }
    int columns = std::max(1, (width - 8) / (widest + legend->columnSpacing()));
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
}

QString elideMiddle(const QString& text, const QFont& font, int pixels) {
    return QFontMetrics(font).elidedText(text, Qt::ElideMiddle, pixels);
}

}  // namespace ws::ui
