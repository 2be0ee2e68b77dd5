#include "charts/chart_style.h"

#include <qcustomplot.h>
#include <QFileInfo>
#include <QSvgGenerator>

namespace ws::ui {

QColor runColor(int index) {
    // Okabe–Ito palette.
    static const QColor colors[] = {
        QColor(0, 114, 178), QColor(213, 94, 0),   QColor(0, 158, 115),   QColor(204, 121, 167),
        QColor(230, 159, 0), QColor(86, 180, 233), QColor(120, 120, 120), QColor(240, 228, 66)};
    return colors[static_cast<std::size_t>(index) % std::size(colors)];
}

void styleAxes(QCustomPlot* plot) {
    for (auto* rect : plot->axisRects()) {
        for (auto* axis : rect->axes()) {
            axis->setBasePen(QPen(QColor(0x80, 0x86, 0x8b)));
            axis->setTickPen(QPen(QColor(0x80, 0x86, 0x8b)));
            axis->setSubTickPen(QPen(QColor(0xb0, 0xb4, 0xb8)));
            axis->grid()->setPen(QPen(QColor(0xe3, 0xe6, 0xe9), 1, Qt::SolidLine));
            axis->setLabelColor(QColor(0x30, 0x36, 0x3d));
            axis->setTickLabelColor(QColor(0x30, 0x36, 0x3d));
        }
    }
}

QString exportPlot(QCustomPlot* plot, const QString& path, int width, int height) {
    QString ext = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (ext == QLatin1String("png")) {
        ok = plot->savePng(path, width, height, 1.0, 95);
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
