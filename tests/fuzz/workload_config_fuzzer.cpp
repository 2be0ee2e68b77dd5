// libFuzzer harness: a TOML workload config parsed and validated. The parser
// reports every problem as a ConfigError value and documents no exception, so
// anything thrown is a finding.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "config/workload_config.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(ws::fuzz::bytes(data, size));
    try {
        auto result = ws::parseWorkloadConfig(text, "fuzz.toml");
        for (const auto& error : result.errors)
            error.toString();
        if (result.ok()) ws::toString(result.config->kind);
    } catch (const std::exception& e) {
        ws::fuzz::undocumentedException("parseWorkloadConfig", e);
    } catch (...) {
        ws::fuzz::undocumentedException("parseWorkloadConfig");
    }
    return 0;
}
