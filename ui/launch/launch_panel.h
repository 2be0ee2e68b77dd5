// Launching a workload from the GUI: pick a config (bundled or your own),
// edit it with validation as you type, start it. The GUI runs
// `warpscope-cli record` as a child process — it never links CUDA, and a
// crashing workload cannot take it down — and shows its progress, log and a
// Cancel that leaves the run marked killed with what was recorded. With a
// host, that record runs on a GPU server through ssh (`record --host`).
#pragma once

#include <QWidget>

#include "launch/capture_options.h"
#include "viewmodels/cli_job.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace ws::ui {

class LaunchPanel : public QWidget {
    Q_OBJECT
  public:
    explicit LaunchPanel(QWidget* parent = nullptr);

    void setStorePath(const QString& path) { storePath_ = path; }
    void setCliPath(const QString& path) { job_.setCliPath(path); }
    // Where it runs: empty or "local" here, else a user@host or ssh config
    // alias (`record --host`): recorded there, the run brought back here.
    void setHost(const QString& host);
    QString host() const;
    // Bundled presets and the user's configs (~/.config/warpscope/workloads).
    void reloadConfigs();
    void selectConfig(const QString& path);
    void setConfigText(const QString& text);
    QString configText() const;
    QString validationText() const;
    bool canLaunch() const;
    QString statusText() const;
    bool running() const { return job_.running(); }
    // LaunchCapture's defaults until changed.
    void setCaptureOptions(const LaunchCapture& capture);

  public slots:
    void launch();
    void cancel();

  signals:
    void logOutput(const QString& text);
    void runFinished(bool ok, const QString& summary);
    // A live progress line arrived: the run exists in the store from now on.
    void progressed();

  private:
    void validate();
    void showMessage(const progress::Message& m);
    void onFinished(bool ok, const QString& summary);

    QComboBox* configs_;
    QLineEdit* host_;
    CaptureOptions* capture_;
    QPlainTextEdit* editor_;
    QLabel* validation_;
    QPushButton* launchButton_;
    QPushButton* cancelButton_;
    QProgressBar* progress_;
    QLabel* counters_;
    QLabel* status_;
    CliJob job_;
    QString storePath_;
    QString configFile_;  // the text being launched, written here first
    bool valid_ = false;
};

// Why launching cannot work on this machine, or empty when it can.
QString launchUnavailableReason();

}  // namespace ws::ui
