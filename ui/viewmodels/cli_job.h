// One warpscope-cli command run in the background with `--progress json`:
// long store work and recordings never block the window, and a crashing
// program or a bad file can never take it down. Its progress messages
// (io/progress_messages.h) come back as signals; any other line it prints is
// output. Used by the launch panel and by File ▸ Import and Compact.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include "io/progress_messages.h"

namespace ws::ui {

class CliJob : public QObject {
    Q_OBJECT
  public:
    explicit CliJob(QObject* parent = nullptr);
    void setCliPath(const QString& path) { cliPath_ = path; }
    QString cliPath() const { return cliPath_; }

    // Starts `warpscope-cli ARGS --progress json`.
    // `withProgress`: the command takes --progress json (record, import,
    // compact); quick edits (label, tag, rm) do not.
    void start(const QStringList& args, bool withProgress = true);
    bool running() const { return process_.state() != QProcess::NotRunning; }
    // SIGTERM: the CLI cancels cleanly and keeps what it did (a recording is
    // marked killed with what it recorded; compaction keeps whole batches).
    void cancel();

  signals:
    void message(const ws::progress::Message& m);
    // The program's output and any CLI line that is not a message.
    void output(const QString& text);
    // `summary`: the Done message's text, or the failure's reason (the last
    // Error message, else the last lines it printed, else how it ended).
    void finished(bool ok, const QString& summary);

  private:
    void readErrors();
    void keepLastLines(const QString& text);
    void onFinished(int exitCode, QProcess::ExitStatus status);

    QProcess process_;
    QString cliPath_;
    QString stderrTail_;  // an incomplete last line
    QString done_, error_;
    QStringList otherLines_;  // the last few non-message lines, for a reason
};

// Where the GUI finds warpscope-cli: $WARPSCOPE_CLI, else beside its own binary.
QString defaultCliPath();

}  // namespace ws::ui

Q_DECLARE_METATYPE(ws::progress::Message)
