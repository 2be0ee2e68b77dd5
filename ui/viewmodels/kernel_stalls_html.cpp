#include "viewmodels/kernel_stalls_html.h"

#include <QStringList>
#include <algorithm>

#include "model/pc_sampling.h"

namespace ws::ui {

namespace {

// One color per rank (most samples first), distinct on a light and a dark
// background; past the palette, reasons share the last, grey, as "other".
constexpr const char* kColors[] = {"#d62728", "#1f77b4", "#ff7f0e", "#2ca02c",
                                   "#9467bd", "#8c564b", "#17becf", "#7f7f7f"};
constexpr int kNamedReasons = static_cast<int>(std::size(kColors)) - 1;
// Instructions listed under the hottest lines (the lines say the rest).
constexpr std::size_t kInstructionsUnderLines = 5;

QString pct(double share) {
    return QStringLiteral("%1%").arg(100 * share, 0, 'f', 1);
}

QString swatch(const char* color) {
    return QStringLiteral("<span style='color:%1'>■</span>").arg(QLatin1String(color));
}

}  // namespace

QString kernelStallsHtml(const KernelStalls& s, std::uint32_t periodLog2, const std::string& cost) {
    QString html = QStringLiteral("<h3>Where its warps stall (PC sampling)</h3><p>");
    html += QStringLiteral("%1 samples over all its launches (%2 of the run's) at %3 instructions")
                .arg(s.samples)
                .arg(pct(s.runShare))
                .arg(s.instructionCount);
    if (periodLog2)
        html += QStringLiteral(", one per SM every 2<sup>%1</sup> cycles").arg(periodLog2);
    html += QStringLiteral(".");
    if (!cost.empty())
        html += QStringLiteral(" <span style='color:palette(mid)'>Sampling cost: %1.</span>")
                    .arg(QString::fromStdString(cost).toHtmlEscaped());
    html += QStringLiteral("</p>");

    // The bar: one cell per reason, as wide as its share.
    html += QStringLiteral(
        "<table width='100%' cellspacing='0' cellpadding='0' style='margin-bottom:4px'><tr>");
    double other = 0;
    for (int i = 0; i < static_cast<int>(s.reasons.size()); ++i) {
        const double share = s.reasons[static_cast<std::size_t>(i)].share;
        if (i >= kNamedReasons) {
            other += share;
            continue;
        }
        const int width = std::max(1, static_cast<int>(share * 100 + 0.5));
        html += QStringLiteral("<td width='%1%' height='14' bgcolor='%2'></td>")
                    .arg(width)
                    .arg(QLatin1String(kColors[i]));
    }
    if (other > 0)
        html += QStringLiteral("<td width='%1%' height='14' bgcolor='%2'></td>")
                    .arg(std::max(1, static_cast<int>(other * 100 + 0.5)))
                    .arg(QLatin1String(kColors[kNamedReasons]));
    html += QStringLiteral("</tr></table>");

    html += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    for (int i = 0; i < static_cast<int>(s.reasons.size()) && i < kNamedReasons; ++i) {
        const auto& r = s.reasons[static_cast<std::size_t>(i)];
        const auto about = pc_sampling::describeStallReason(r.reason);
        html += QStringLiteral(
                    "<tr><td>%1 %2</td><td align='right' style='padding:0 10px'>%3</td>"
                    "<td style='color:palette(mid)'>%4</td></tr>")
                    .arg(swatch(kColors[i]),
                         // Kept on one line: the hint beside it is what wraps.
                         QString::fromStdString(r.title).toHtmlEscaped().replace(
                             QLatin1Char(' '), QStringLiteral("&nbsp;")),
                         pct(r.share), QString::fromStdString(about.hint).toHtmlEscaped());
    }
    if (other > 0)
        html += QStringLiteral(
                    "<tr><td>%1 other reasons</td><td align='right' style='padding:0 10px'>%2"
                    "</td><td></td></tr>")
                    .arg(swatch(kColors[kNamedReasons]), pct(other));
    html += QStringLiteral("</table>");

    auto table = [&](const QString& title, const QStringList& header) {
        html += QStringLiteral("<h3>%1</h3><table cellspacing='0' cellpadding='2'><tr>").arg(title);
        for (const auto& h : header)
            html += QStringLiteral("<th align='left' style='padding-right:10px'>%1</th>").arg(h);
        html += QStringLiteral("</tr>");
    };
    auto cells = [&](const QStringList& values) {
        html += QStringLiteral("<tr>");
        for (const auto& v : values)
            html += QStringLiteral("<td style='padding-right:10px'>%1</td>").arg(v);
        html += QStringLiteral("</tr>");
    };
    if (!s.lines.empty()) {
        // The hottest line's file is named once, in the title; its lines read
        // as numbers and only lines of other files (inlined headers) say theirs.
        const auto& main = s.lines.front().sourceFile;
        table(QStringLiteral("Hottest source lines in <span title='%1'>%2</span>")
                  .arg(QString::fromStdString(main).toHtmlEscaped(),
                       QString::fromStdString(sourceFileName(main)).toHtmlEscaped()),
              {QStringLiteral("Samples"), QStringLiteral("Line"), QStringLiteral("Mostly"),
               QStringLiteral("Instr.")});
        for (const auto& l : s.lines)
            cells(
                {pct(l.share),
                 l.sourceFile == main
                     ? QString::number(l.line)
                     : QString::fromStdString(sourceLineText(l.sourceFile, l.line)).toHtmlEscaped(),
                 QString::fromStdString(l.topReason).toHtmlEscaped(),
                 QString::number(l.instructions)});
        html += QStringLiteral("</table>");
    }
    // The hottest instructions: all shown without lines, a few under them;
    // their SASS text where nvdisasm was found at capture.
    const bool sass = std::any_of(s.instructions.begin(), s.instructions.end(),
                                  [](const HotInstruction& i) { return !i.sass.empty(); });
    if (s.lines.empty() || sass) {
        const std::size_t shown = s.lines.empty() ? s.instructions.size() : kInstructionsUnderLines;
        QStringList header{QStringLiteral("Samples"), QStringLiteral("Offset")};
        header << (sass ? QStringLiteral("SASS") : QStringLiteral("Mostly"));
        table(QStringLiteral("Hottest instructions"), header);
        for (std::size_t n = 0; n < s.instructions.size() && n < shown; ++n) {
            const auto& i = s.instructions[n];
            cells({pct(i.share), QStringLiteral("0x%1").arg(i.pcOffset, 0, 16),
                   sass ? QStringLiteral("<code>%1</code>")
                              .arg(QString::fromStdString(i.sass).toHtmlEscaped())
                        : QString::fromStdString(i.topReason).toHtmlEscaped()});
        }
        html += QStringLiteral("</table>");
    }
    if (s.lines.empty())
        html += QStringLiteral(
            "<p style='color:palette(mid)'>No source lines: the kernel "
            "was built without <code>-lineinfo</code>.</p>");
    return html;
}

}  // namespace ws::ui
