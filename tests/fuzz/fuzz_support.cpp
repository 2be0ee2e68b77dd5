#include "fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <typeinfo>

namespace ws::fuzz {

namespace {

std::string makeScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "warpscope-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
        std::perror("warpscope fuzz: mkdtemp");
        std::abort();
    }
    return tmpl;
}

struct Scratch {
    std::string path = makeScratchDir();
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

}  // namespace

const std::string& scratchDir() {
    static Scratch scratch;
    return scratch.path;
}

std::string scratchFile(const std::string& name) {
    return scratchDir() + "/" + name;
}

void writeFile(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        std::fprintf(stderr, "warpscope fuzz: cannot write %s\n", path.c_str());
        std::abort();
    }
}

void removeDatabase(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        std::remove((path + suffix).c_str());
}

bool verbose() {
    static const bool on = std::getenv("WARPSCOPE_FUZZ_VERBOSE") != nullptr;
    return on;
}

void printRefusal(const char* where, const std::exception& e) {
    std::fprintf(stderr, "warpscope fuzz: %s refused the input: %s\n", where, e.what());
}

void undocumentedException(const char* where, const std::exception& e) {
    std::fprintf(stderr, "warpscope fuzz: %s threw %s, which its API does not document: %s\n",
                 where, typeid(e).name(), e.what());
    std::abort();
}

void undocumentedException(const char* where) {
    std::fprintf(stderr, "warpscope fuzz: %s threw a non-std::exception\n", where);
    std::abort();
}

}  // namespace ws::fuzz
