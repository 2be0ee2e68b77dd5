// Writes a ReportData as Markdown or as one self-contained HTML page (the GUI
// turns the HTML into PDF). Charts are images the caller renders: chartSource
// maps a chart id ("latency", "roofline", "kernels", "token-latency") to an
// <img> source (a data: URI for self-contained HTML, a file for Markdown), or
// to "" to leave the chart out.
#pragma once

#include <functional>
#include <string>

#include "report/report_data.h"

namespace ws {

enum class ReportFormat { Markdown, Html };

using ChartSource = std::function<std::string(const std::string& chartId)>;

std::string writeReport(const ReportData& data, ReportFormat format,
                        const ChartSource& chartSource = {});

}  // namespace ws
