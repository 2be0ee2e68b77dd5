#include "charts/chart_style.h"

#include "charts/chart_fit.h"

#include <qcustomplot.h>
#include <QApplication>
#include <QFileInfo>
#include <QPalette>
#include <QSvgGenerator>

namespace ws::ui {

QColor runColor(int index) {
    // Okabe–Ito palette.
    static const QColor colors[] = {
        QColor(0, 114, 178), QColor(213, 94, 0),   QColor(0, 158, 115),   QColor(204, 121, 167),
        QColor(230, 159, 0), QColor(86, 180, 233), QColor(120, 120, 120), QColor(240, 228, 66)};
    return colors[static_cast<std::size_t>(index) % std::size(colors)];
}

ChartColors chartColors() {
    const QPalette pal = QApplication::palette();
    ChartColors c;
    c.dark = pal.color(QPalette::Base).lightness() < 128;
    if (c.dark) {
        c.background = pal.color(QPalette::Base);
        c.text = pal.color(QPalette::Text);
        c.axis = QColor(0x8a, 0x8f, 0x98);
        c.subTick = QColor(0x5a, 0x5e, 0x66);
        c.grid = QColor(0x36, 0x39, 0x3f);
        c.legend = QColor(0x2b, 0x2d, 0x31, 225);
        c.ink = QColor(0xdf, 0xe1, 0xe5);
        c.muted = QColor(0x9a, 0x9f, 0xa6);
    } else {
        c.background = Qt::white;
        c.text = QColor(0x30, 0x36, 0x3d);
        c.axis = QColor(0x80, 0x86, 0x8b);
        c.subTick = QColor(0xb0, 0xb4, 0xb8);
        c.grid = QColor(0xe3, 0xe6, 0xe9);
        c.legend = QColor(255, 255, 255, 220);
        c.ink = QColor(40, 40, 40);
        c.muted = QColor(120, 120, 120);
    }
    return c;
}

void styleAxes(QCustomPlot* plot) {
    const ChartColors c = chartColors();
    plot->setBackground(c.background);
    for (auto* rect : plot->axisRects()) {
        for (auto* axis : rect->axes()) {
            axis->setBasePen(QPen(c.axis));
            axis->setTickPen(QPen(c.axis));
            axis->setSubTickPen(QPen(c.subTick));
            axis->grid()->setPen(QPen(c.grid, 1, Qt::SolidLine));
            axis->grid()->setZeroLinePen(QPen(c.axis, 1, Qt::SolidLine));
            axis->setLabelColor(c.text);
            axis->setTickLabelColor(c.text);
        }
    }
    for (auto* element : plot->plotLayout()->elements(true)) {
        if (auto* text = qobject_cast<QCPTextElement*>(element)) {
            text->setTextColor(c.text);
        } else if (auto* legend = qobject_cast<QCPLegend*>(element)) {
            legend->setBrush(c.legend);
            legend->setBorderPen(QPen(c.axis));
            legend->setTextColor(c.text);
        }
    }
}

void setCategoryTicks(QCPAxis* axis, const QSharedPointer<QCPAxisTickerText>& ticker) {
    axis->setTicker(ticker);
    axis->grid()->setZeroLinePen(Qt::NoPen);
}

void makeZoomable(QCPAxisRect* rect, Qt::Orientations orientations) {
    rect->parentPlot()->setInteractions(rect->parentPlot()->interactions() | QCP::iRangeDrag |
                                        QCP::iRangeZoom);
    rect->setRangeDrag(orientations);
    rect->setRangeZoom(orientations);
}

void linkAxes(QCPAxis* a, QCPAxis* b) {
    auto follow = [](QCPAxis* from, QCPAxis* to) {
        // setRange emits only on a change, so the pair settles after one round.
        QObject::connect(from, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), to,
                         [to](const QCPRange& range) {
                             to->setRange(range);
                             if (to->parentPlot())
                                 to->parentPlot()->replot(QCustomPlot::rpQueuedReplot);
                         });
    };
    follow(a, b);
    follow(b, a);
}

QString exportPlot(QCustomPlot* plot, const QString& path, int width, int height) {
    QString ext = QFileInfo(path).suffix().toLower();
    FitForExport fitted(plot, QSize(width, height));
    bool ok = false;
    if (ext == QLatin1String("png")) {
        // PNG is lossless: Qt's "quality" is the compression effort, and 95
        // wrote ~25× larger files (4.8 MB for a 1600×1000 chart) than 0.
        ok = plot->savePng(path, width, height, 1.0, 0);
    } else if (ext == QLatin1String("pdf")) {
        ok = plot->savePdf(path, width, height);
    } else if (ext == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle(QStringLiteral("Warpscope chart"));
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, width, height);
            painter.end();
        }
    } else {
        return QStringLiteral("%1: unknown format '%2' (png, svg or pdf)").arg(path, ext);
    }
    return ok ? QString() : QStringLiteral("%1: could not be written").arg(path);
}

}  // namespace ws::ui

namespace ws::ui {

QString windowPhrase(const std::vector<RunAnalysis>& runs) {
    QStringList phrases;
    for (const auto& r : runs) {
        QString w = QString::fromStdString(r.summary.window).section(QLatin1String(" ("), 0, 0);
        if (!w.isEmpty() && !phrases.contains(w)) phrases << w;
    }
    return phrases.join(QLatin1String(" / "));
}

}  // namespace ws::ui
