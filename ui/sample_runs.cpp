#include "sample_runs.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "store/store.h"

namespace ws::ui {

QString bundledSampleStore() {
    const QString name = QStringLiteral("h200-captures.wsdb");
    QDir exe(QCoreApplication::applicationDirPath());
    const QStringList candidates = {
        exe.filePath(QStringLiteral("../share/warpscope/samples/") + name),
        QStringLiteral(WARPSCOPE_SOURCE_SAMPLES_DIR "/") + name,
    };
    for (const auto& c : candidates)
        if (QFileInfo::exists(c)) return QFileInfo(c).canonicalFilePath();
    return {};
}

QString userCopyOfSamples(QString* error) {
    QString source = bundledSampleStore();
    if (source.isEmpty()) {
        if (error) *error = QObject::tr("no bundled sample runs were found");
        return {};
    }
    QFileInfo defaultStore(QString::fromStdString(Store::defaultPath()));
    QString target = defaultStore.dir().filePath(QStringLiteral("samples.wsdb"));
    QDir().mkpath(defaultStore.absolutePath());
    if (!QFileInfo::exists(target)) {
        if (!QFile::copy(source, target)) {
            if (error) *error = QObject::tr("cannot copy %1 to %2").arg(source, target);
            return {};
        }
        QFile(target).setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup |
                                     QFile::ReadOther);
    }
    return target;
}

}  // namespace ws::ui
