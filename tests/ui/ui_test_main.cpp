// GoogleTest main for UI tests: a QApplication on the offscreen platform.
#include <gtest/gtest.h>

#include <QApplication>

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Tests must not read or write the user's settings.
    qputenv("XDG_CONFIG_HOME", "/tmp/warpscope-ui-test-config");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
    Q_INIT_RESOURCE(warpscope);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
