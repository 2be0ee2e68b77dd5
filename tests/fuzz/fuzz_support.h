// What the libFuzzer harnesses share: a scratch folder for inputs that must
// be files (SQLite stores and exports), and the line between an expected
// refusal and a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ws::fuzz {

// A folder of this process's own, created on first use and removed at exit.
const std::string& scratchDir();
// scratchDir()/name.
std::string scratchFile(const std::string& name);
void writeFile(const std::string& path, std::string_view bytes);
// Removes an SQLite file and its -wal, -shm and -journal companions.
void removeDatabase(const std::string& path);

inline std::string_view bytes(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// An exception the API does not document for bad input: printed with its type,
// then abort(), so libFuzzer records the input as a crash.
[[noreturn]] void undocumentedException(const char* where, const std::exception& e);
[[noreturn]] void undocumentedException(const char* where);

// True when WARPSCOPE_FUZZ_VERBOSE is set: refusals are printed (for seeing
// why an input is refused when replaying it; too slow while fuzzing).
bool verbose();
void printRefusal(const char* where, const std::exception& e);

// Runs `body`; std::runtime_error and its subclasses (ws::StoreError, import
// errors, codec and wire errors) are the documented refusal of bad input and
// are swallowed. Anything else thrown is a finding.
template <typename F>
void expectOnlyRuntimeErrors(const char* where, F&& body) {
    try {
        body();
    } catch (const std::runtime_error& e) {
        if (verbose()) printRefusal(where, e);
    } catch (const std::exception& e) {
        undocumentedException(where, e);
    } catch (...) {
        undocumentedException(where);
    }
}

}  // namespace ws::fuzz
