// Reports of fixture runs in every format: written, self-contained, and a run
// without tokens or a contract still gets a report that says what is missing.
#include <gtest/gtest.h>

#include <QFile>
#include <QFileInfo>

#include "export/report_renderer.h"
#include "store/store.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"

namespace ws::ui {
namespace {

QByteArray readAll(const QString& path) {
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}

TEST(ReportRenderer, WritesHtmlMarkdownAndPdf) {
    testing::TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto runs = testing::writeFixtureStore(path);
    Store store(path);
    QString out = QString::fromStdString(dir.path().string());

    QString html = out + "/report.html";
    ASSERT_TRUE(renderReport(store, runs.decoderOk, runs.kernelFailed, "html", html).isEmpty());
    auto page = readAll(html);
    EXPECT_TRUE(page.startsWith("<!DOCTYPE html>"));
    EXPECT_TRUE(page.contains("data:image/png;base64,"));  // charts embedded, nothing to fetch
    EXPECT_TRUE(page.contains("<h2>Workload contract</h2>"));
    EXPECT_TRUE(page.contains("<h2>Against the baseline</h2>"));
    EXPECT_FALSE(page.contains("src=\"http"));

    QString md = out + "/report.md";
    ASSERT_TRUE(renderReport(store, runs.decoderOk, std::nullopt, "md", md).isEmpty());
    auto text = readAll(md);
    EXPECT_TRUE(text.contains("## Latency and throughput"));
    EXPECT_TRUE(text.contains("](report-latency.png)"));
    EXPECT_TRUE(QFileInfo::exists(out + "/report-latency.png"));

    QString pdf = out + "/report.pdf";
    ASSERT_TRUE(renderReport(store, runs.decoderOk, std::nullopt, "pdf", pdf).isEmpty());
    EXPECT_TRUE(readAll(pdf).startsWith("%PDF"));
    EXPECT_GT(QFileInfo(pdf).size(), 10000);

    EXPECT_FALSE(
        renderReport(store, runs.decoderOk, std::nullopt, "docx", out + "/r.docx").isEmpty());
}

TEST(ReportRenderer, ARunWithoutTokensSaysWhatIsMissing) {
    testing::TempDir dir;
    auto path = dir.file("runs.wsdb");
    auto runs = testing::writeFixtureStore(path);
    Store store(path);
    QString md = QString::fromStdString(dir.file("killed.md"));
    ASSERT_TRUE(renderReport(store, runs.commandKilled, std::nullopt, "md", md).isEmpty());
    auto text = readAll(md);
    EXPECT_TRUE(text.contains("the run ended killed"));
    EXPECT_TRUE(text.contains("no requests or tokens"));
}

}  // namespace
}  // namespace ws::ui
