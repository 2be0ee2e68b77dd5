#include "export/report_renderer.h"

#include <QBuffer>
#include <QFileInfo>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>
#include <map>

#include "analysis/run_analysis.h"
#include "charts/chart_fit.h"
#include "charts/charts_panel.h"
#include "charts/kernel_chart.h"
#include "charts/latency_chart.h"
#include "charts/occupancy_chart.h"
#include "charts/pareto_chart.h"
#include "charts/roofline_chart.h"
#include "charts/token_latency_chart.h"
#include "report/report_writer.h"

namespace ws::ui {

namespace {

constexpr int kChartWidth = 1200, kChartHeight = 600;

QByteArray png(QCustomPlot* plot) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    // Notes and legends laid out for the image, not for the (never shown)
    // widget: a caption wrapped to a widget's default width was a column.
    FitForExport fit(plot, QSize(kChartWidth, kChartHeight));
    plot->toPixmap(kChartWidth, kChartHeight).save(&buffer, "PNG");
    return bytes;
}

QString writeText(const QString& path, const std::string& text) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), qint64(text.size())) < 0 ||
        !f.commit())
        return QStringLiteral("%1: could not be written").arg(path);
    return {};
}

bool knownFormat(const QString& format) {
    QString fmt = format.toLower();
    return fmt == QLatin1String("html") || fmt == QLatin1String("md") ||
           fmt == QLatin1String("pdf");
}

}  // namespace

QString renderReport(Store& store, RunId run, std::optional<RunId> baseline, const QString& format,
                     const QString& path) {
    if (!knownFormat(format))
        return QStringLiteral("unknown report format '%1' (html, md or pdf)").arg(format);
    return writeReportFile(prepareReport(store, run, baseline), format, path);
}

QString writeReportFile(const ReportInput& input, const QString& format, const QString& path) {
    QString fmt = format.toLower();
    if (!knownFormat(format))
        return QStringLiteral("unknown report format '%1' (html, md or pdf)").arg(format);
    const auto& analyses = input.analyses;
    const auto& data = input.data;
    const RunId run = data.run.id;
    ChartsPanel panel;
    panel.resize(kChartWidth, kChartHeight);
    panel.setRuns(analyses);
    std::map<std::string, QByteArray> charts;
    if (!data.latency.requests.empty()) {
        charts["latency"] = png(panel.latencyChart());
        charts["token-latency"] = png(panel.tokenChart());
    }
    if (!data.summary.kernels.empty()) charts["kernels"] = png(panel.kernelChart());
    if (panel.rooflineChart()->points() > 0) charts["roofline"] = png(panel.rooflineChart());
    if (panel.occupancyChart()->bars() > 0) charts["occupancy"] = png(panel.occupancyChart());
    if (data.sweep) {
        panel.setSweeps({*data.sweep});
        if (!panel.paretoChart()->points().empty()) charts["pareto"] = png(panel.paretoChart());
    }

    if (fmt == QLatin1String("html")) {
        auto html = writeReport(data, ReportFormat::Html, [&](const std::string& id) {
            auto it = charts.find(id);
            return it == charts.end()
                       ? std::string()
                       : "data:image/png;base64," + it->second.toBase64().toStdString();
        });
        return writeText(path, html);
    }
    if (fmt == QLatin1String("md")) {
        QFileInfo info(path);
        QString problem;
        auto md = writeReport(data, ReportFormat::Markdown, [&](const std::string& id) {
            auto it = charts.find(id);
            if (it == charts.end()) return std::string();
            QString name = QStringLiteral("%1-%2.png")
                               .arg(info.completeBaseName(), QString::fromStdString(id));
            QSaveFile f(info.dir().filePath(name));
            if (!f.open(QIODevice::WriteOnly) || f.write(it->second) < 0 || !f.commit())
                problem = QStringLiteral("%1: could not be written").arg(f.fileName());
            return name.toStdString();
        });
        return problem.isEmpty() ? writeText(path, md) : problem;
    }
    // PDF: Qt's rich-text engine lays out the HTML; charts are document resources.
    QTextDocument doc;
    auto html = writeReport(data, ReportFormat::Html, [&](const std::string& id) {
        auto it = charts.find(id);
        if (it == charts.end()) return std::string();
        QString name = QStringLiteral("chart-%1.png").arg(QString::fromStdString(id));
        QImage image =
            QImage::fromData(it->second, "PNG").scaledToWidth(600, Qt::SmoothTransformation);
        doc.addResource(QTextDocument::ImageResource, QUrl(name), image);
        return name.toStdString();
    });
    doc.setHtml(QString::fromStdString(html));
    QPdfWriter pdf(path);
    pdf.setResolution(96);  // the HTML's CSS pixels are screen pixels
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    pdf.setTitle(QStringLiteral("Warpscope report, run %1").arg(run));
    pdf.setCreator(QStringLiteral("Warpscope"));
    doc.print(&pdf);
    return QFileInfo(path).size() > 0 ? QString()
                                      : QStringLiteral("%1: could not be written").arg(path);
}

}  // namespace ws::ui
