// warpscope: the workbench GUI.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTimer>

#include "main_window.h"
#include "store/store.h"
#include "util/version.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    Q_INIT_RESOURCE(warpscope);  // lives in the static warpscope_ui library
    QApplication::setApplicationName(QStringLiteral("Warpscope"));
    QApplication::setOrganizationName(QStringLiteral("Warpscope"));
    QApplication::setApplicationVersion(QString::fromLatin1(ws::kWarpscopeVersion));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("GPU inference optimization workbench"));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption db(QStringLiteral("db"), QStringLiteral("Open this store."),
                          QStringLiteral("FILE"));
    QCommandLineOption select(QStringLiteral("select"), QStringLiteral("Select this run."),
                              QStringLiteral("RUN"));
    QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a PNG of the window once loaded, then quit."), QStringLiteral("PNG"));
    parser.addOptions({db, select, screenshot});
    parser.process(app);

    ws::ui::MainWindow window;
    QString path =
        parser.isSet(db) ? parser.value(db) : QString::fromStdString(ws::Store::defaultPath());
    if (parser.isSet(select)) window.selectRun(parser.value(select).toLongLong());
    if (parser.isSet(screenshot)) {
        QString png = parser.value(screenshot);
        auto grab = [&window, png] {
            QTimer::singleShot(300, &window, [&window, png] {
                window.grab().save(png);
                QApplication::quit();
            });
        };
        QObject::connect(&window, &ws::ui::MainWindow::timelineShown, &window, grab);
        QObject::connect(&window, &ws::ui::MainWindow::loadFailed, &window, grab);
    }
    window.show();
    window.openStore(QDir::cleanPath(path));
    return app.exec();
}
