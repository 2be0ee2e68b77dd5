#include "cli/interrupt_flag.h"

#include <signal.h>

namespace ws::cli {

namespace {

std::atomic<bool> interrupted{false};

void onSignal(int) {
    interrupted = true;
}

}  // namespace

std::atomic<bool>& stopOnInterrupt() {
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    return interrupted;
}

}  // namespace ws::cli
