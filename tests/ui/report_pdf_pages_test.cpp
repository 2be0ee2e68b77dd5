// The PDF report's pages, rendered by poppler's pdftoppm as a reader's viewer
// would show them: nothing may be drawn in the page margins, for a run whose
// tables hold many long template kernel names and whose charts are full width.
#include <gtest/gtest.h>

#include <QDir>
#include <QImage>
#include <QPageLayout>
#include <QProcess>
#include <QStandardPaths>
#include <cmath>
#include <string>
#include <vector>

#include "export/report_renderer.h"
#include "store/store.h"
#include "store/store_writer.h"
#include "support/fixture_store.h"
#include "support/temp_dir.h"

namespace ws::ui {
namespace {

constexpr int kDpi = 50;
constexpr int kAntialias = 2;  // pixels a glyph's or line's edge may bleed

// Names as PyTorch, FlashAttention and CUTLASS kernels are reported: long,
// templated, with few or no spaces.
std::vector<std::string> longKernelNames() {
    std::vector<std::string> names = {
        "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128,64,128,4,false,false,"
        "cutlass::bfloat16_t,Flash_kernel_traits<128,64,128,4,cutlass::bfloat16_t>>,false,false,"
        "false,false,true,true,false,false>(flash::Flash_fwd_params)",
        "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_"
        "align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
        "segment_k_off_kernel__5x_cublas",
        "void at::native::vectorized_elementwise_kernel<4,at::native::BinaryFunctor<c10::BFloat16,"
        "c10::BFloat16,c10::BFloat16,at::native::binary_internal::MulFunctor<float>>,"
        "at::detail::Array<char*,3>>(int,at::native::BinaryFunctor<c10::BFloat16,c10::BFloat16,"
        "c10::BFloat16,at::native::binary_internal::MulFunctor<float>>,at::detail::Array<char*,3>)",
        "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16,__nv_bfloat16,"
        "(vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*,__nv_bfloat16 const*,__nv_bfloat16*,"
        "__nv_bfloat16*,long const*,int,int,int,int,int,int,float const*,float const*)",
        "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT",
        "ropeAppendKvCacheAndQuantizeKernelWithoutAnySeparatorsAtAll",
    };
    for (int i = 0; names.size() < 24; ++i)
        names.push_back("void gemv_bf16_splitk_kernel<" + std::to_string(64 << (i % 4)) + "," +
                        std::to_string(i) +
                        ",true,cutlass::arch::Sm90>(GemvParams<__nv_bfloat16>)");
    return names;
}

// A decoder run: 24 kernels in a prefill and eight decode steps, eight
// requests with tokens, on the fixture H200.
RunId writeRun(Store& store, int variant) {
    NewRun run;
    run.label = "llama-3.2-1b-instruct-with-a-long-variant-name-" + std::to_string(variant);
    run.workload = WorkloadInfo{"llama-3.2-1b-bf16", "decoder", "name = \"llama-3.2-1b\"\n"};
    run.device = testing::fixtureDevice();
    run.startedAtNs = 1'764'770'400'000'000'000 + variant * 60'000'000'000LL;
    RunId id = store.beginRun(run);
    const auto names = longKernelNames();
    {
        StoreWriter w(store, id);
        std::uint32_t correlation = 100;
        std::int64_t t = 9'000'000'000;
        const std::int64_t stepNs = 1'200'000 + 40'000 * variant;
        for (int step = 0; step < 9; ++step) {
            std::int64_t each = stepNs / std::int64_t(names.size());
            for (std::size_t k = 0; k < names.size(); ++k) {
                KernelRecord r;
                r.startNs = t + std::int64_t(k) * each;
                r.endNs = r.startNs + each * (1 + k % 5) / 6 + 1'000 * variant;
                r.streamId = 7;
                r.contextId = 1;
                r.correlationId = correlation++;
                r.name = names[k];
                r.gridX = 132;
                r.blockX = 128 << (k % 3);
                r.registersPerThread = 32 + 8 * int(k % 20);
                r.dynamicSharedBytes = 4096 * int(k % 7);
                w.add(r);
            }
            t += stepNs;
        }
        for (int r = 0; r < 8; ++r) {
            std::int64_t first = 9'000'000'000 + stepNs + r * 20'000;
            w.add(RequestRecord{r, 9'000'000'000 - r * 30'000, first + 8 * stepNs, 512, 8, true});
            for (int k = 0; k < 8; ++k)
                w.add(TokenRecord{r, k, first + k * (stepNs + (r % 3) * 10'000)});
        }
        w.flush();
    }
    store.finishRun(id, RunStatus::Ok, 0, std::nullopt, run.startedAtNs + 3'000'000'000LL);
    return id;
}

// Where pixels may be drawn on a page rendered at kDpi: its printable area.
QRect printableArea(const QPageLayout& layout, QSize imageSize) {
    const QMarginsF margins = layout.margins(QPageLayout::Point);
    const double scale = kDpi / 72.0;
    return QRect(
        QPoint(int(std::floor(margins.left() * scale)) - kAntialias,
               int(std::floor(margins.top() * scale)) - kAntialias),
        QPoint(imageSize.width() - int(std::floor(margins.right() * scale)) - 1 + kAntialias,
               imageSize.height() - int(std::floor(margins.bottom() * scale)) - 1 + kAntialias));
}

TEST(ReportRendererPdf, NothingIsDrawnInThePageMargins) {
    const QString pdftoppm = QStandardPaths::findExecutable(QStringLiteral("pdftoppm"));
    if (pdftoppm.isEmpty())
        GTEST_SKIP() << "pdftoppm (poppler-utils, scripts/install-deps.sh) is not on PATH: "
                        "the PDF's pages cannot be rendered to check their margins";
    testing::TempDir dir;
    Store store(dir.file("runs.wsdb"));
    RunId baseline = writeRun(store, 0);
    RunId run = writeRun(store, 1);
    const QString out = QString::fromStdString(dir.path().string());
    const QString pdf = out + "/report.pdf";
    ASSERT_EQ(renderReport(store, run, baseline, "pdf", pdf), QString());

    QProcess render;
    render.start(pdftoppm, {QStringLiteral("-r"), QString::number(kDpi), QStringLiteral("-png"),
                            pdf, out + "/page"});
    ASSERT_TRUE(render.waitForFinished(60'000));
    ASSERT_EQ(render.exitCode(), 0) << render.readAllStandardError().toStdString();
    const QStringList pages =
        QDir(out).entryList({QStringLiteral("page-*.png")}, QDir::Files, QDir::Name);
    ASSERT_GE(pages.size(), 4);  // tables of 24 kernels, six charts

    const QPageLayout layout = pdfReportPageLayout();
    for (const QString& name : pages) {
        QImage page(out + "/" + name);
        ASSERT_FALSE(page.isNull()) << name.toStdString();
        page = page.convertToFormat(QImage::Format_RGB32);
        const QSizeF paper = layout.fullRectPoints().size() * (kDpi / 72.0);
        EXPECT_LE(std::abs(page.width() - paper.width()), 1.0);
        const QRect printable = printableArea(layout, page.size());
        int outside = 0;
        QPoint first;
        for (int y = 0; y < page.height(); ++y) {
            const auto* line = reinterpret_cast<const QRgb*>(page.constScanLine(y));
            for (int x = 0; x < page.width(); ++x) {
                const QRgb c = line[x];
                const bool ink = qRed(c) < 245 || qGreen(c) < 245 || qBlue(c) < 245;
                if (ink && !printable.contains(x, y) && outside++ == 0) first = QPoint(x, y);
            }
        }
        EXPECT_EQ(outside, 0) << name.toStdString() << ": " << outside
                              << " pixels drawn in the margin, the first at (" << first.x() << ", "
                              << first.y() << "); the printable area is (" << printable.left()
                              << ", " << printable.top() << ")–(" << printable.right() << ", "
                              << printable.bottom() << ") with " << kAntialias
                              << " px of antialiasing";
    }
}

}  // namespace
}  // namespace ws::ui
