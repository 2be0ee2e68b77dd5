#include "viewmodels/cli_job.h"

#include <QCoreApplication>
#include <QDir>

namespace ws::ui {

QString defaultCliPath() {
    QString fromEnvironment = qEnvironmentVariable("WARPSCOPE_CLI");
    if (!fromEnvironment.isEmpty()) return fromEnvironment;
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("warpscope-cli"));
}

CliJob::CliJob(QObject* parent) : QObject(parent), cliPath_(defaultCliPath()) {
    qRegisterMetaType<ws::progress::Message>();
    connect(&process_, &QProcess::readyReadStandardOutput, this, [this] {
        QString text = QString::fromUtf8(process_.readAllStandardOutput());
        emit output(text);
        keepLastLines(text);
    });
    connect(&process_, &QProcess::readyReadStandardError, this, &CliJob::readErrors);
    connect(&process_, &QProcess::finished, this, &CliJob::onFinished);
    connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            emit finished(false, tr("Cannot start %1: %2").arg(cliPath_, process_.errorString()));
    });
}

void CliJob::start(const QStringList& args, bool withProgress) {
    if (running()) return;
    stderrTail_.clear();
    done_.clear();
    error_.clear();
    otherLines_.clear();
    process_.start(cliPath_, withProgress ? args + QStringList{QStringLiteral("--progress"),
                                                               QStringLiteral("json")}
                                          : args);
}

void CliJob::cancel() {
    if (running()) process_.terminate();
}

void CliJob::readErrors() {
    stderrTail_ += QString::fromUtf8(process_.readAllStandardError());
    qsizetype nl;
    while ((nl = stderrTail_.indexOf(QLatin1Char('\n'))) >= 0) {
        QString line = stderrTail_.left(nl);
        stderrTail_.remove(0, nl + 1);
        auto m = progress::parseJsonLine(line.toStdString());
        if (!m) {
            emit output(line + QLatin1Char('\n'));
            keepLastLines(line);
            continue;
        }
        if (m->kind == progress::Kind::Done) done_ = QString::fromStdString(m->text);
        if (m->kind == progress::Kind::Error) error_ = QString::fromStdString(m->text);
        emit message(*m);
    }
}

// The last lines the program (or the CLI) printed: the reason a failed run
// gives, shown with its status instead of a bare exit code.
void CliJob::keepLastLines(const QString& text) {
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        QString trimmed = line.trimmed();
        if (trimmed.isEmpty() || trimmed.startsWith(QLatin1String("[warpscope] run "))) continue;
        otherLines_ << trimmed;
    }
    while (otherLines_.size() > 4)
        otherLines_.removeFirst();
}

void CliJob::onFinished(int exitCode, QProcess::ExitStatus status) {
    if (!stderrTail_.isEmpty()) stderrTail_ += QLatin1Char('\n');
    readErrors();
    bool ok = status == QProcess::NormalExit && exitCode == 0;
    QString summary;
    if (!error_.isEmpty())
        summary = error_;
    else if (!done_.isEmpty())
        summary = ok || otherLines_.isEmpty()
                      ? done_
                      : done_ + QLatin1Char('\n') + otherLines_.join(QLatin1Char('\n'));
    else if (!ok && !otherLines_.isEmpty())
        summary = otherLines_.join(QLatin1Char('\n'));
    else if (status != QProcess::NormalExit)
        summary = tr("warpscope-cli stopped unexpectedly: %1").arg(process_.errorString());
    else if (!ok)
        summary = tr("warpscope-cli exited with status %1").arg(exitCode);
    emit finished(ok, summary);
}

}  // namespace ws::ui
