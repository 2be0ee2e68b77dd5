#include "export/report_renderer.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QFileInfo>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextObjectInterface>
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
    // zlib level 1 (quality 80): charts are flat colour, so the files grow by a
    // seventh (a report 363 -> 414 kB) where encoding took a third of its time.
    plot->toPixmap(kChartWidth, kChartHeight).save(&buffer, "PNG", 80);
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

// The PDF is the HTML report laid out by Qt's rich-text engine on A4 pages,
// in CSS pixels (96 to the inch, the unit of the HTML's sizes). Charts are
// drawn as vectors at the text's width with their captions in one object, so
// a page break never separates the two; long identifiers get break points.
constexpr int kPdfDpi = 96;
constexpr int kFooterHeight = 22;           // page numbers, inside the printable area
constexpr int kPdfChartLayoutWidth = 1100;  // charts laid out this wide, then scaled
constexpr double kPdfChartAspect = 0.5;     // height / width
constexpr int kCaptionGap = 4;
constexpr int kChartObjectType = QTextFormat::UserObject + 1;
constexpr int kChartIdProperty = QTextFormat::UserProperty + 1;
constexpr int kChartCaptionProperty = QTextFormat::UserProperty + 2;
const QChar kBreak(0x200B);  // zero-width space: a line may break here

QFont captionFont() {
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(12);  // figcaption's size in the report's CSS
    return font;
}

// A chart and its caption as one inline object of the text: drawn by the
// chart itself onto the PDF's painter (vector), scaled to the object's width.
class ChartObject : public QObject, public QTextObjectInterface {
    Q_OBJECT
    Q_INTERFACES(QTextObjectInterface)
  public:
    ChartObject(std::map<std::string, QCustomPlot*> plots, qreal width, QPaintDevice* device)
        : plots_(std::move(plots)), width_(width), device_(device) {}

    QSizeF intrinsicSize(QTextDocument*, int, const QTextFormat& format) override {
        return {width_, chartHeight() + kCaptionGap + captionRect(format).height()};
    }

    void drawObject(QPainter* painter, const QRectF& rect, QTextDocument*, int,
                    const QTextFormat& format) override {
        // The layout draws whatever touches the page's clip, and QCustomPlot
        // replaces the clip with its own: a chart that begins the next page
        // would be drawn below this one's bottom margin too.
        if (painter->hasClipping() &&
            painter->clipBoundingRect().intersected(rect).height() < rect.height() / 2)
            return;
        painter->save();
        painter->translate(rect.topLeft());
        auto it = plots_.find(format.stringProperty(kChartIdProperty).toStdString());
        // QCustomPlot draws through its own painter class: the one the pages are drawn with.
        if (it != plots_.end() && painter == pagePainter_) {
            const QSize layout(kPdfChartLayoutWidth,
                               qRound(kPdfChartLayoutWidth * kPdfChartAspect));
            FitForExport fit(it->second, layout);
            painter->save();
            const qreal scale = width_ / layout.width();
            painter->scale(scale, scale);
            it->second->toPainter(pagePainter_, layout.width(), layout.height());
            painter->restore();
        }
        painter->setPen(QColor(0x55, 0x55, 0x55));
        painter->setFont(captionFont());
        painter->drawText(captionRect(format), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                          format.stringProperty(kChartCaptionProperty));
        painter->restore();
    }

    void setPagePainter(QCPPainter* painter) { pagePainter_ = painter; }

  private:
    qreal chartHeight() const { return width_ * kPdfChartAspect; }
    QRectF captionRect(const QTextFormat& format) const {
        QFontMetricsF metrics(captionFont(), device_);
        const QRectF box(0, chartHeight() + kCaptionGap, width_, 1e6);
        return metrics.boundingRect(box, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                                    format.stringProperty(kChartCaptionProperty));
    }

    std::map<std::string, QCustomPlot*> plots_;
    qreal width_;
    QPaintDevice* device_;
    QCPPainter* pagePainter_ = nullptr;
};

// <figure><img src="chart-ID"><figcaption>…</figcaption></figure> as a
// paragraph of its own holding only the image (Qt knows no <figure>: the
// image and caption ran inline into the text before them); the captions
// are returned by chart id.
QString figuresAsParagraphs(const QString& html, std::map<QString, QString>& captions) {
    static const QRegularExpression figure(QStringLiteral(
        R"re(<figure><img [^>]*src="chart-([a-z-]+)"[^>]*><figcaption>(.*?)</figcaption></figure>)re"));
    QString out;
    qsizetype from = 0;
    for (auto it = figure.globalMatch(html); it.hasNext();) {
        auto m = it.next();
        out += html.mid(from, m.capturedStart() - from);
        captions[m.captured(1)] = QTextDocumentFragment::fromHtml(m.captured(2)).toPlainText();
        out += QStringLiteral("<p><img src=\"chart-%1\"></p>").arg(m.captured(1));
        from = m.capturedEnd();
    }
    return out + html.mid(from);
}

// Replaces each chart image of `doc` by a chart object carrying its caption.
void insertChartObjects(QTextDocument& doc, const std::map<QString, QString>& captions) {
    std::vector<std::pair<int, QString>> images;  // position, chart id
    for (QTextBlock b = doc.begin(); b != doc.end(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            auto fragment = it.fragment();
            auto name = fragment.charFormat().toImageFormat().name();
            if (fragment.charFormat().isImageFormat() && name.startsWith(QLatin1String("chart-")))
                images.emplace_back(fragment.position(), name.mid(6));
        }
    for (auto i = images.rbegin(); i != images.rend(); ++i) {
        QTextCursor cursor(&doc);
        cursor.setPosition(i->first);
        cursor.setPosition(i->first + 1, QTextCursor::KeepAnchor);
        QTextCharFormat format;
        format.setObjectType(kChartObjectType);
        format.setProperty(kChartIdProperty, i->second);
        auto caption = captions.find(i->second);
        format.setProperty(kChartCaptionProperty,
                           caption == captions.end() ? QString() : caption->second);
        cursor.insertText(QString(QChar::ObjectReplacementCharacter), format);
    }
}

// "nvjet_sm90_tst_128x8_64x12_2x1_v_bz_TNT", "void f<a::b<128, 64>>(p)": a
// word this long would be broken at whatever letter reaches the column's
// edge; it gets break points after its separators instead.
QString withBreakPoints(const QString& text) {
    constexpr int kLongWord = 16;
    QString out;
    out.reserve(text.size() + text.size() / 4);
    int word = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        out += c;
        word = c.isSpace() ? 0 : word + 1;
        if (i + 1 >= text.size() || text[i + 1].isSpace()) continue;
        const QChar next = text[i + 1];
        const bool camelHump = c.isLower() && next.isUpper();  // ropeAppend|KvKernel
        const bool separator = camelHump || ((c == u'_' || c == u'/' || c == u'.') && next != c) ||
                               (c == u':' && i > 0 && text[i - 1] == u':') || c == u',' ||
                               c == u'<' || next == u'(' || (c == u'>' && next != u'>');
        if (separator && word >= 3) {
            // Only inside long words: look ahead for the word's end.
            qsizetype end = i;
            while (end < text.size() && !text[end].isSpace())
                ++end;
            if (word + (end - i - 1) >= kLongWord) out += kBreak;
        }
    }
    return out;
}

void addBreakPoints(QTextDocument& doc) {
    struct Edit {
        int position, length;
        QString text;
        QTextCharFormat format;
    };
    std::vector<Edit> edits;
    for (QTextBlock b = doc.begin(); b != doc.end(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            auto fragment = it.fragment();
            if (fragment.charFormat().isImageFormat() || fragment.charFormat().objectType() != 0)
                continue;
            QString text = withBreakPoints(fragment.text());
            if (text != fragment.text())
                edits.push_back(
                    {fragment.position(), fragment.length(), text, fragment.charFormat()});
        }
    for (auto e = edits.rbegin(); e != edits.rend(); ++e) {
        QTextCursor cursor(&doc);
        cursor.setPosition(e->position);
        cursor.setPosition(e->position + e->length, QTextCursor::KeepAnchor);
        cursor.insertText(e->text, e->format);
    }
}

// Moves a heading that ends a page, and a table whose header row ends one,
// to the next page (Qt's layout knows no page-break-after: avoid). One at a
// time: each move shifts what follows it.
void keepWithNext(QTextDocument& doc) {
    auto* layout = doc.documentLayout();
    const qreal pageHeight = doc.pageSize().height();
    auto page = [&](const QTextBlock& b) {
        return int(layout->blockBoundingRect(b).top() / pageHeight);
    };
    for (int round = 0; round < 200; ++round) {
        bool moved = false;
        for (QTextBlock b = doc.begin(); b.isValid() && !moved; b = b.next()) {
            QTextBlock next = b.next();
            if (!next.isValid()) break;
            QTextCursor cursor(b);
            auto* table = cursor.currentTable();
            auto breakBefore = [&](const QTextBlock& heading) {
                auto format = heading.blockFormat();
                if (format.pageBreakPolicy() != QTextFormat::PageBreak_Auto) return false;
                format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
                QTextCursor(heading).setBlockFormat(format);
                return true;
            };
            const bool heading = b.blockFormat().headingLevel() > 0 && !table;
            if (heading && page(next) > page(b)) {
                moved = breakBefore(b);
            } else if (table && table->rows() > 1 &&
                       b == table->cellAt(0, 0).firstCursorPosition().block() &&
                       page(table->cellAt(1, 0).firstCursorPosition().block()) > page(b)) {
                // With the heading above it, if there is one.
                QTextBlock before = b.previous();
                if (before.isValid() && before.blockFormat().headingLevel() > 0 &&
                    !QTextCursor(before).currentTable()) {
                    moved = breakBefore(before);
                } else if (auto format = table->format();
                           format.pageBreakPolicy() == QTextFormat::PageBreak_Auto) {
                    format.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
                    table->setFormat(format);
                    moved = true;
                }
            }
        }
        if (!moved) return;
        // Lays the whole document out again: after a table's format changed,
        // the incremental relayout left the blocks past it unplaced (a chart
        // and a heading were missing from the pages).
        doc.setPageSize(doc.pageSize());
    }
}

QString writePdf(const ReportData& data, const std::map<std::string, QCustomPlot*>& plots,
                 const QString& path) {
    QPdfWriter pdf(path);
    pdf.setResolution(kPdfDpi);
    pdf.setPageLayout(pdfReportPageLayout());
    pdf.setTitle(QStringLiteral("Warpscope report, run %1").arg(data.run.id));
    pdf.setCreator(QStringLiteral("Warpscope"));
    const QRect paper = pdf.pageLayout().paintRectPixels(kPdfDpi);
    const QSizeF page(paper.width(), paper.height() - kFooterHeight);

    QTextDocument doc;
    doc.documentLayout()->setPaintDevice(&pdf);
    doc.setDocumentMargin(0);
    doc.setPageSize(page);
    ChartObject charts(plots, page.width(), &pdf);
    doc.documentLayout()->registerHandler(kChartObjectType, &charts);
    std::map<QString, QString> captions;
    auto html = writeReport(data, ReportFormat::Html, [&](const std::string& id) {
        if (!plots.count(id)) return std::string();
        // A placeholder until the object replaces it, so nothing is looked up on disk.
        doc.addResource(QTextDocument::ImageResource,
                        QUrl(QStringLiteral("chart-%1").arg(QString::fromStdString(id))),
                        QImage(1, 1, QImage::Format_RGB32));
        return "chart-" + id;
    });
    // Tables a little smaller than on screen: eight columns of the
    // occupancy table fit the page's width without breaking a word.
    auto pageHtml = figuresAsParagraphs(QString::fromStdString(html), captions);
    pageHtml.replace(
        QLatin1String("</style>"),
        QLatin1String("body { margin: 0; } th, td { font-size: 12px; padding: 2px 5px; }</style>"));
    doc.setHtml(pageHtml);
    insertChartObjects(doc, captions);
    addBreakPoints(doc);
    // Words break only where they may (the identifiers' break points): a
    // column no longer narrows to a letter or two, "instan|ces".
    QTextOption text = doc.defaultTextOption();
    text.setWrapMode(QTextOption::WordWrap);
    doc.setDefaultTextOption(text);
    keepWithNext(doc);

    QCPPainter painter;
    if (!painter.begin(&pdf)) return QStringLiteral("%1: could not be written").arg(path);
    painter.setMode(QCPPainter::pmVectorized);
    painter.setRenderHint(QPainter::Antialiasing);
    charts.setPagePainter(&painter);
    const int pages = doc.pageCount();
    for (int i = 0; i < pages; ++i) {
        if (i > 0) pdf.newPage();
        painter.save();
        painter.translate(0, -i * page.height());
        doc.drawContents(&painter, QRectF(QPointF(0, i * page.height()), page));
        painter.restore();
        painter.setPen(QColor(0x77, 0x77, 0x77));
        painter.setFont(captionFont());
        painter.drawText(QRectF(0, page.height(), page.width(), kFooterHeight),
                         Qt::AlignRight | Qt::AlignBottom,
                         QStringLiteral("%1 / %2").arg(i + 1).arg(pages));
    }
    painter.end();
    return QFileInfo(path).size() > 0 ? QString()
                                      : QStringLiteral("%1: could not be written").arg(path);
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
    ChartsPanel panel;
    panel.resize(kChartWidth, kChartHeight);
    panel.setRuns(analyses);
    // The charts the report has, by the id its writer asks for.
    std::map<std::string, QCustomPlot*> plots;
    if (!data.latency.requests.empty()) {
        plots["latency"] = panel.latencyChart();
        plots["token-latency"] = panel.tokenChart();
    }
    if (!data.summary.kernels.empty()) plots["kernels"] = panel.kernelChart();
    if (panel.rooflineChart()->points() > 0) plots["roofline"] = panel.rooflineChart();
    if (panel.occupancyChart()->bars() > 0) plots["occupancy"] = panel.occupancyChart();
    if (data.sweep) {
        panel.setSweeps({*data.sweep});
        if (!panel.paretoChart()->points().empty()) plots["pareto"] = panel.paretoChart();
    }
    if (fmt == QLatin1String("pdf")) return writePdf(data, plots, path);

    std::map<std::string, QByteArray> charts;
    for (const auto& [id, plot] : plots)
        charts[id] = png(plot);
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
    return QStringLiteral("unknown report format '%1' (html, md or pdf)").arg(format);
}

QPageLayout pdfReportPageLayout() {
    return QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(15, 15, 15, 15),
                       QPageLayout::Millimeter);
}

}  // namespace ws::ui

#include "report_renderer.moc"
