// How a launch captures, in as little width as a docked panel has: one
// "Capture:" button whose menu holds the record set (record --capture
// default|lean), how CUDA graphs are traced (--graph-trace node|graph), every
// API call (--all-apis, not with lean) and the cudaProfilerStart–Stop
// windows (--capture-range cudaProfilerApi), its text summing up the
// choice; and the two samplers, which exclude each other (--gpu-metrics,
// --pc-sampling: PC sampling wins).
#pragma once

#include <QStringList>
#include <QWidget>

class QAction;
class QCheckBox;
class QToolButton;

namespace ws::ui {

struct LaunchCapture {
    QString set = QStringLiteral("default");  // or "lean"
    QString graphTrace = QStringLiteral("node");
    bool allApis = false;
    bool profilerApiRange = false;
    bool gpuMetrics = false;
    bool pcSampling = false;
};

class CaptureOptions : public QWidget {
    Q_OBJECT
  public:
    explicit CaptureOptions(QWidget* parent = nullptr);
    LaunchCapture value() const;
    void setValue(const LaunchCapture& capture);
    // record's options for the choice.
    QStringList recordArguments() const;
    // The summary the button shows ("all records, graph kernels, …").
    QString summary() const;

  private:
    void refresh();  // the summary, and every API call off and disabled with lean
    QToolButton* button_;
    QAction* allRecords_;
    QAction* lean_;
    QAction* graphNodes_;
    QAction* graphSpans_;
    QAction* allApis_;
    QAction* profilerApiRange_;
    QCheckBox* gpuMetrics_;
    QCheckBox* pcSampling_;
};

}  // namespace ws::ui
