#include "report_command.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <iostream>
#include <optional>

#include "export/report_renderer.h"
#include "store/store.h"

int runReportCommand(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");  // charts render without a display
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Write a run's inference benchmark and optimization report"));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("report"), QStringLiteral("the command"));
    parser.addPositionalArgument(QStringLiteral("RUN"), QStringLiteral("the run id"));
    QCommandLineOption db(QStringLiteral("db"), QStringLiteral("Store file."),
                          QStringLiteral("FILE"));
    QCommandLineOption baseline(QStringLiteral("baseline"),
                                QStringLiteral("Compare against this run."), QStringLiteral("RUN"));
    QCommandLineOption format(QStringLiteral("format"),
                              QStringLiteral("html, md or pdf (default: the file's extension)."),
                              QStringLiteral("FORMAT"));
    QCommandLineOption out(QStringList{QStringLiteral("o"), QStringLiteral("output")},
                           QStringLiteral("Output file."), QStringLiteral("FILE"));
    parser.addOptions({db, baseline, format, out});
    auto fail = [](const std::string& why, int code) {
        std::cerr << "warpscope report: " << why << '\n';
        return code;
    };
    if (!parser.parse(QApplication::arguments())) return fail(parser.errorText().toStdString(), 2);
    if (parser.isSet(QStringLiteral("help"))) {
        std::cout << parser.helpText().toStdString();
        return 0;
    }
    auto positional = parser.positionalArguments();
    if (positional.size() != 2 || !parser.isSet(out))
        return fail(
            "usage: warpscope report RUN [--db F] [--baseline RUN] [--format html|md|pdf] -o FILE",
            2);
    bool ok = false;
    ws::RunId run = positional[1].toLongLong(&ok);
    if (!ok) return fail("'" + positional[1].toStdString() + "' is not a run id", 2);
    std::optional<ws::RunId> base;
    if (parser.isSet(baseline)) {
        base = parser.value(baseline).toLongLong(&ok);
        if (!ok)
            return fail("--baseline '" + parser.value(baseline).toStdString() + "' is not a run id",
                        2);
    }
    QString path = parser.value(out);
    QString fmt = parser.isSet(format) ? parser.value(format) : QFileInfo(path).suffix();
    try {
        std::string store =
            parser.isSet(db) ? parser.value(db).toStdString() : ws::Store::defaultPath();
        if (!QFileInfo::exists(QString::fromStdString(store)))
            return fail(store + ": no such store", 1);
        ws::Store s(store);
        QString error = ws::ui::renderReport(s, run, base, fmt, path);
        if (!error.isEmpty()) return fail(error.toStdString(), 1);
    } catch (const std::exception& e) {
        return fail(e.what(), 1);
    }
    std::cout << path.toStdString() << '\n';
    return 0;
}
