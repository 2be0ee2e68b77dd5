#include "collectives/nccl_all_reduce.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace ws::kernels {

namespace {

struct NcclApi {
    void* handle = nullptr;
    std::string path;
    ncclResult_t (*getVersion)(int*) = nullptr;
    ncclResult_t (*getUniqueId)(ncclUniqueId*) = nullptr;
    ncclResult_t (*commInitRank)(ncclComm_t*, int, ncclUniqueId, int) = nullptr;
    ncclResult_t (*commDestroy)(ncclComm_t) = nullptr;
    ncclResult_t (*allReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                              cudaStream_t) = nullptr;
    const char* (*errorString)(ncclResult_t) = nullptr;
};

// Where PyTorch's wheel put its NCCL, asked of the python3 on PATH.
std::string torchNcclPath() {
    std::unique_ptr<FILE, int (*)(FILE*)> p(
        popen("python3 -c \"import nvidia.nccl, os; "
              "print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib', 'libnccl.so.2'))\" "
              "2>/dev/null",
              "r"),
        pclose);
    if (!p) return {};
    char line[4096] = {};
    if (!std::fgets(line, sizeof line, p.get())) return {};
    std::string path(line);
    while (!path.empty() && (path.back() == '\n' || path.back() == '\r'))
        path.pop_back();
    return path;
}

template <typename F>
void bind(NcclApi& api, F& fn, const char* name) {
    fn = reinterpret_cast<F>(dlsym(api.handle, name));
    if (!fn) throw std::runtime_error(api.path + ": has no " + name);
}

NcclApi loadApi() {
    NcclApi api;
    std::string tried;
    auto attempt = [&](const std::string& path) {
        if (path.empty() || api.handle) return;
        api.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (api.handle)
            api.path = path;
        else
            tried += "\n  " + path + ": " + dlerror();
    };
    if (const char* env = std::getenv("WARPSCOPE_NCCL_LIBRARY")) attempt(env);
    attempt("libnccl.so.2");
    if (!api.handle) {
        std::string torch = torchNcclPath();
        if (torch.empty())
            tried += "\n  PyTorch's bundled NCCL: python3 has no nvidia.nccl";
        else
            attempt(torch);
    }
    if (!api.handle)
        throw std::runtime_error(
            "tensor parallelism needs NCCL and none could be loaded (set WARPSCOPE_NCCL_LIBRARY "
            "to a libnccl.so.2):" +
            tried);
    bind(api, api.getVersion, "ncclGetVersion");
    bind(api, api.getUniqueId, "ncclGetUniqueId");
    bind(api, api.commInitRank, "ncclCommInitRank");
    bind(api, api.commDestroy, "ncclCommDestroy");
    bind(api, api.allReduce, "ncclAllReduce");
    bind(api, api.errorString, "ncclGetErrorString");
    return api;
}

const NcclApi& api() {
    static std::once_flag once;
    static std::unique_ptr<NcclApi> loaded;
    static std::string failure;
    std::call_once(once, [] {
        try {
            loaded = std::make_unique<NcclApi>(loadApi());
        } catch (const std::exception& e) {
            failure = e.what();
        }
    });
    if (!loaded) throw std::runtime_error(failure);
    return *loaded;
}

void check(ncclResult_t r, const char* call) {
    if (r != ncclSuccess)
        throw std::runtime_error(std::string(call) + ": " + api().errorString(r) + " (NCCL " +
                                 std::to_string(int(r)) + ")");
}

}  // namespace

std::string ncclIdToHex(const ncclUniqueId& id) {
    static const char digits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * sizeof id.internal);
    for (char c : id.internal) {
        auto byte = static_cast<unsigned char>(c);
        hex += digits[byte >> 4];
        hex += digits[byte & 15];
    }
    return hex;
}

ncclUniqueId ncclIdFromHex(const std::string& hex) {
    ncclUniqueId id{};
    if (hex.size() != 2 * sizeof id.internal)
        throw std::invalid_argument("NCCL id: " + std::to_string(2 * sizeof id.internal) +
                                    " hex digits expected, got " + std::to_string(hex.size()));
    auto nibble = [&](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        throw std::invalid_argument(std::string("NCCL id: '") + c + "' is not a hex digit");
    };
    for (std::size_t i = 0; i < sizeof id.internal; ++i)
        id.internal[i] = static_cast<char>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
    return id;
}

NcclInfo ncclInfo() {
    const auto& a = api();
    int v = 0;
    check(a.getVersion(&v), "ncclGetVersion");
    // major*10000 + minor*100 + patch since 2.9; major*1000 + minor*100 + patch before.
    std::string version = v >= 10000
                              ? std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) +
                                    "." + std::to_string(v % 100)
                              : std::to_string(v / 1000) + "." + std::to_string(v / 100 % 10) +
                                    "." + std::to_string(v % 100);
    if (v < 21000)
        throw std::runtime_error(a.path + ": NCCL " + version +
                                 " is older than 2.10, the first that sums bf16");
    return {a.path, version};
}

ncclUniqueId newNcclId() {
    ncclUniqueId id{};
    check(api().getUniqueId(&id), "ncclGetUniqueId");
    return id;
}

NcclAllReduce::NcclAllReduce(const ncclUniqueId& id, int ranks, int rank) {
    check(api().commInitRank(&comm_, ranks, id, rank), "ncclCommInitRank");
}

NcclAllReduce::~NcclAllReduce() {
    if (comm_) api().commDestroy(comm_);
}

void NcclAllReduce::sum(__nv_bfloat16* data, std::size_t count, cudaStream_t stream) {
    check(api().allReduce(data, data, count, ncclBfloat16, ncclSum, comm_, stream),
          "ncclAllReduce");
}

}  // namespace ws::kernels
