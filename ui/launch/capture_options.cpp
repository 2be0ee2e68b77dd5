#include "launch/capture_options.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QToolButton>
#include <QVBoxLayout>

namespace ws::ui {

CaptureOptions::CaptureOptions(QWidget* parent)
    : QWidget(parent),
      button_(new QToolButton(this)),
      gpuMetrics_(new QCheckBox(tr("GPU metrics over time"), this)),
      pcSampling_(new QCheckBox(tr("Where kernels stall (PC sampling)"), this)) {
    auto* menu = new QMenu(this);
    menu->setToolTipsVisible(true);
    menu->addSection(tr("Records"));
    auto* sets = new QActionGroup(this);
    allRecords_ =
        menu->addAction(tr("All: kernels, copies, runtime and driver calls, waits, "
                           "device samples"));
    lean_ = menu->addAction(tr("Lean: what torch.profiler's CUDA-only mode keeps"));
    lean_->setToolTip(
        tr("Kernels, copies, the runtime API calls and NVTX ranges, "
           "for the lowest cost (record --capture lean)"));
    for (QAction* a : {allRecords_, lean_}) {
        a->setCheckable(true);
        sets->addAction(a);
    }
    allRecords_->setChecked(true);
    menu->addSection(tr("CUDA graphs"));
    auto* graphs = new QActionGroup(this);
    graphNodes_ = menu->addAction(tr("Each kernel, traced to where it was captured"));
    graphSpans_ = menu->addAction(tr("One span per graph launch (cheapest)"));
    graphSpans_->setToolTip(tr("record --graph-trace graph"));
    for (QAction* a : {graphNodes_, graphSpans_}) {
        a->setCheckable(true);
        graphs->addAction(a);
    }
    graphNodes_->setChecked(true);
    menu->addSection(tr("Also"));
    allApis_ = menu->addAction(tr("Every API call, state reads too"));
    allApis_->setToolTip(
        tr("cudaGetDevice, cudaGetLastError, …: PyTorch makes about eight per kernel, and "
           "tracing them slows the program (record --all-apis)"));
    profilerApiRange_ = menu->addAction(tr("Only between cudaProfilerStart and Stop"));
    profilerApiRange_->setToolTip(
        tr("Every such window (torch.cuda.profiler.start/stop); the rest runs untraced, as "
           "nsys --capture-range=cudaProfilerApi (record --capture-range cudaProfilerApi)"));
    for (QAction* a : {allApis_, profilerApiRange_})
        a->setCheckable(true);
    connect(menu, &QMenu::triggered, this, &CaptureOptions::refresh);
    button_->setMenu(menu);
    button_->setPopupMode(QToolButton::InstantPopup);
    button_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);

    gpuMetrics_->setToolTip(
        tr("Sample the GPU's performance monitors 10,000 times a second while the program "
           "runs (CUPTI PM sampling, device-wide: SM, tensor pipe, DRAM, PCIe, NVLink): tracks "
           "under the kernels and `warpscope-cli gpu-metrics RUN` (record --gpu-metrics)"));
    pcSampling_->setToolTip(
        tr("Sample each SM's warps while the program runs (CUPTI PC sampling): the share of "
           "each kernel's samples by stall reason and its hottest source lines, in the kernel "
           "details and `warpscope-cli kernel RUN NAME` (record --pc-sampling; not with GPU "
           "metrics)"));
    // CUPTI 13.0 crashed programs sampled both ways at once (record refuses it).
    connect(gpuMetrics_, &QCheckBox::toggled, this, [this](bool on) {
        if (on) pcSampling_->setChecked(false);
    });
    connect(pcSampling_, &QCheckBox::toggled, this, [this](bool on) {
        if (on) gpuMetrics_->setChecked(false);
    });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout();
    row->addWidget(new QLabel(tr("Capture:"), this));
    row->addWidget(button_, 1);
    layout->addLayout(row);
    layout->addWidget(gpuMetrics_);
    layout->addWidget(pcSampling_);
    refresh();
}

LaunchCapture CaptureOptions::value() const {
    LaunchCapture c;
    c.set = lean_->isChecked() ? QStringLiteral("lean") : QStringLiteral("default");
    c.graphTrace = graphSpans_->isChecked() ? QStringLiteral("graph") : QStringLiteral("node");
    c.allApis = allApis_->isChecked();
    c.profilerApiRange = profilerApiRange_->isChecked();
    c.gpuMetrics = gpuMetrics_->isChecked();
    c.pcSampling = pcSampling_->isChecked();
    return c;
}

void CaptureOptions::setValue(const LaunchCapture& c) {
    // Checking one action of an exclusive group unchecks the other.
    (c.set == QLatin1String("lean") ? lean_ : allRecords_)->setChecked(true);
    (c.graphTrace == QLatin1String("graph") ? graphSpans_ : graphNodes_)->setChecked(true);
    allApis_->setChecked(c.allApis);
    profilerApiRange_->setChecked(c.profilerApiRange);
    gpuMetrics_->setChecked(c.gpuMetrics);
    pcSampling_->setChecked(c.pcSampling);  // wins over gpuMetrics: they exclude each other
    refresh();
}

QStringList CaptureOptions::recordArguments() const {
    const LaunchCapture c = value();
    QStringList args = {QStringLiteral("--capture"), c.set, QStringLiteral("--graph-trace"),
                        c.graphTrace};
    if (c.allApis) args << QStringLiteral("--all-apis");
    if (c.profilerApiRange)
        args << QStringLiteral("--capture-range") << QStringLiteral("cudaProfilerApi");
    if (c.gpuMetrics) args << QStringLiteral("--gpu-metrics");
    if (c.pcSampling) args << QStringLiteral("--pc-sampling");
    return args;
}

QString CaptureOptions::summary() const {
    const LaunchCapture c = value();
    QStringList parts = {
        c.set == QLatin1String("lean") ? tr("lean") : tr("all records"),
        c.graphTrace == QLatin1String("graph") ? tr("graph spans") : tr("graph kernels")};
    if (c.allApis) parts << tr("every API call");
    if (c.profilerApiRange) parts << tr("profiler windows only");
    return parts.join(QStringLiteral(", "));
}

void CaptureOptions::refresh() {
    // Lean keeps no state-reading calls: the two exclude each other.
    if (lean_->isChecked()) allApis_->setChecked(false);
    allApis_->setEnabled(!lean_->isChecked());
    button_->setText(summary());
    button_->setToolTip(tr("How the next launch is captured: %1").arg(summary()));
}

}  // namespace ws::ui
