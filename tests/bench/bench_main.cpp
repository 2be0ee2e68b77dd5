// Google Benchmark main; with the GUI built, a QGuiApplication on the
// offscreen platform first, so painting benchmarks have fonts.
#include <benchmark/benchmark.h>

#ifdef WARPSCOPE_BENCH_GUI
#include <QGuiApplication>
#endif

int main(int argc, char** argv) {
#ifdef WARPSCOPE_BENCH_GUI
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
#endif
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
