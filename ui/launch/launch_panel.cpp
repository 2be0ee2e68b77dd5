#include "launch/launch_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QVBoxLayout>

#include "config/workload_config.h"
#include "util/format.h"

namespace ws::ui {

namespace {
QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QStringList configFolders() {
    QStringList dirs;
    QDir exe(QCoreApplication::applicationDirPath());
    dirs << exe.filePath(QStringLiteral("../share/warpscope/workloads"))
         << QStringLiteral(WARPSCOPE_SOURCE_WORKLOADS_DIR)
         << QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
                QStringLiteral("/warpscope/workloads");
    return dirs;
}
}  // namespace

QString launchUnavailableReason() {
    if (!QFileInfo::exists(QStringLiteral("/dev/nvidiactl")) &&
        !QFileInfo::exists(QStringLiteral("/dev/nvidia0")))
        return QObject::tr(
            "No NVIDIA GPU on this machine: a launched program runs, but nothing "
            "is captured from CUDA. Record on a GPU server with `warpscope-cli "
            "record` and open its store here.");
    return {};
}

LaunchPanel::LaunchPanel(QWidget* parent)
    : QWidget(parent),
      configs_(new QComboBox(this)),
      host_(new QLineEdit(this)),
      capture_(new CaptureOptions(this)),
      editor_(new QPlainTextEdit(this)),
      validation_(new QLabel(this)),
      launchButton_(new QPushButton(tr("Launch"), this)),
      cancelButton_(new QPushButton(tr("Cancel"), this)),
      progress_(new QProgressBar(this)),
      counters_(new QLabel(this)),
      status_(new QLabel(this)) {
    // Named for the journeys, which press them as a user does.
    launchButton_->setObjectName(QStringLiteral("launchButton"));
    cancelButton_->setObjectName(QStringLiteral("cancelLaunchButton"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(configs_);
    auto* where = new QHBoxLayout();
    where->addWidget(new QLabel(tr("Host:"), this));
    host_->setPlaceholderText(tr("local — or user@host / ssh alias of a GPU server"));
    host_->setToolTip(
        tr("Runs `warpscope-cli record` there through ssh (your keys and agent, no password "
           "prompt) and brings the run back into this store"));
    host_->setClearButtonEnabled(true);
    where->addWidget(host_, 1);
    layout->addLayout(where);
    layout->addWidget(capture_);
    editor_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    editor_->setPlaceholderText(tr("A workload config (TOML): name, kind, [contract], [command]"));
    layout->addWidget(editor_, 1);
    validation_->setWordWrap(true);
    validation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(validation_);
    auto* buttons = new QHBoxLayout();
    buttons->addWidget(launchButton_);
    buttons->addWidget(cancelButton_);
    buttons->addWidget(progress_, 1);
    layout->addLayout(buttons);
    counters_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setWordWrap(true);
    layout->addWidget(counters_);
    layout->addWidget(status_);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setTextVisible(false);
    cancelButton_->setEnabled(false);
    if (QString why = launchUnavailableReason(); !why.isEmpty()) status_->setText(why);

    connect(configs_, &QComboBox::currentIndexChanged, this, [this](int index) {
        QString path = configs_->itemData(index).toString();
        if (!path.isEmpty()) setConfigText(readText(path));
    });
    connect(editor_, &QPlainTextEdit::textChanged, this, &LaunchPanel::validate);
    connect(launchButton_, &QPushButton::clicked, this, &LaunchPanel::launch);
    connect(cancelButton_, &QPushButton::clicked, this, &LaunchPanel::cancel);
    connect(&job_, &CliJob::output, this, &LaunchPanel::logOutput);
    connect(&job_, &CliJob::message, this, &LaunchPanel::showMessage);
    connect(&job_, &CliJob::finished, this, &LaunchPanel::onFinished);
    reloadConfigs();
}

void LaunchPanel::reloadConfigs() {
    configs_->clear();
    for (const QString& dir : configFolders()) {
        for (const QFileInfo& f :
             QDir(dir).entryInfoList({QStringLiteral("*.toml")}, QDir::Files, QDir::Name))
            if (configs_->findData(f.canonicalFilePath()) < 0)
                configs_->addItem(f.completeBaseName(), f.canonicalFilePath());
    }
}

void LaunchPanel::selectConfig(const QString& path) {
    int i = configs_->findData(QFileInfo(path).canonicalFilePath());
    if (i >= 0) configs_->setCurrentIndex(i);
}

void LaunchPanel::setConfigText(const QString& text) {
    editor_->setPlainText(text);
}
QString LaunchPanel::configText() const {
    return editor_->toPlainText();
}
void LaunchPanel::setHost(const QString& host) {
    host_->setText(host);
}
QString LaunchPanel::host() const {
    QString h = host_->text().trimmed();
    return h.compare(QStringLiteral("local"), Qt::CaseInsensitive) == 0 ? QString() : h;
}
QString LaunchPanel::validationText() const {
    return validation_->text();
}
QString LaunchPanel::statusText() const {
    return status_->text();
}
bool LaunchPanel::canLaunch() const {
    return launchButton_->isEnabled();
}

void LaunchPanel::validate() {
    auto result = parseWorkloadConfig(editor_->toPlainText().toStdString(), "config");
    valid_ = result.ok();
    if (!valid_) {
        QStringList lines;
        for (const auto& e : result.errors)
            lines << QStringLiteral("line %1, column %2: %3: %4")
                         .arg(e.line)
                         .arg(e.column)
                         .arg(QString::fromStdString(e.field), QString::fromStdString(e.message));
        validation_->setStyleSheet(QStringLiteral("color: #b3261e"));
        validation_->setText(lines.join('\n'));
    } else {
        // Every kind runs through `warpscope-cli record --workload`: a command
        // as given, decoder and kernel workloads and servers through
        // warpscope-workload on this machine's GPU (a CPU server anywhere).
        validation_->setStyleSheet(QStringLiteral("color: #1e7b34"));
        QString what;
        switch (result.config->kind) {
            case WorkloadKind::Command:
                break;
            case WorkloadKind::Serve:
                what = tr(" — a server: recorded until you press Cancel");
                break;
            default:
                what = tr(" — runs the built-in %1 workload on this machine's GPU")
                           .arg(QString::fromLatin1(toString(result.config->kind)));
        }
        validation_->setText(
            tr("Valid: %1%2").arg(QString::fromStdString(result.config->name), what));
    }
    launchButton_->setEnabled(valid_ && !running());
}

void LaunchPanel::launch() {
    validate();
    if (!valid_ || running()) return;
    // The edited text is what runs: it goes to a file the CLI reads and stores.
    static QTemporaryDir tmp;
    configFile_ =
        tmp.filePath(QStringLiteral("workload-%1.toml").arg(QDateTime::currentMSecsSinceEpoch()));
    QFile f(configFile_);
    if (!f.open(QIODevice::WriteOnly) || f.write(editor_->toPlainText().toUtf8()) < 0) {
        status_->setText(tr("Cannot write %1").arg(configFile_));
        return;
    }
    f.close();
    QStringList args = {QStringLiteral("record"), QStringLiteral("--workload"), configFile_};
    if (!storePath_.isEmpty()) args << QStringLiteral("--db") << storePath_;
    args << capture_->recordArguments();
    const QString remote = host();
    if (!remote.isEmpty()) args << QStringLiteral("--host") << remote;
    status_->setText(remote.isEmpty() ? tr("Running…") : tr("Running on %1…").arg(remote));
    counters_->clear();
    progress_->setRange(0, 0);  // busy: a run has no known end
    launchButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    host_->setEnabled(false);
    capture_->setEnabled(false);
    job_.start(args);
}

void LaunchPanel::setCaptureOptions(const LaunchCapture& capture) {
    capture_->setValue(capture);
}

void LaunchPanel::cancel() {
    // The recorder forwards SIGINT to the program (SIGKILL on a second cancel)
    // and marks the run killed, keeping what it recorded.
    job_.cancel();
}

void LaunchPanel::showMessage(const progress::Message& m) {
    switch (m.kind) {
        case progress::Kind::Record: {
            const auto& p = m.record;
            counters_->setText(
                tr("%1 · %2 kernels · %3 copies (%4) · %5 API calls · %6 tokens%7")
                    .arg(QString::fromStdString(formatDuration(p.elapsedNs)))
                    .arg(p.kernels)
                    .arg(p.memcpys)
                    .arg(QString::fromStdString(formatBytes(p.memcpyBytes)))
                    .arg(p.apiCalls)
                    .arg(p.tokens)
                    .arg(p.dropped ? tr(" · %1 DROPPED").arg(p.dropped) : QString()));
            emit progressed();
            break;
        }
        case progress::Kind::Note:
            emit logOutput(QStringLiteral("[warpscope] %1\n").arg(QString::fromStdString(m.text)));
            break;
        default:
            break;  // Done and Error arrive as the job's summary
    }
}

void LaunchPanel::onFinished(bool ok, const QString& summary) {
    progress_->setRange(0, 1);
    progress_->setValue(1);
    cancelButton_->setEnabled(false);
    launchButton_->setEnabled(valid_);
    host_->setEnabled(true);
    capture_->setEnabled(true);
    status_->setText(summary);
    emit runFinished(ok, summary);
}

}  // namespace ws::ui
