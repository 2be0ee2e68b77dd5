#include "model/process_keys.h"

#include <charconv>
#include <sstream>

namespace ws {

std::vector<ProcessInfo> processesFromProperties(
    const std::map<std::string, std::string>& properties) {
    std::map<std::uint32_t, ProcessInfo> byPid;
    const std::string prefix = process_keys::kPrefix;
    for (const auto& [key, value] : properties) {
        if (key.compare(0, prefix.size(), prefix) != 0) continue;
        auto dot = key.find('.', prefix.size());
        if (dot == std::string::npos) continue;
        std::uint32_t pid = 0;
        auto [end, ec] = std::from_chars(key.data() + prefix.size(), key.data() + dot, pid);
        if (ec != std::errc() || end != key.data() + dot || pid == 0) continue;
        auto& p = byPid[pid];
        p.pid = pid;
        const std::string field = key.substr(dot + 1);
        if (field == "parent") std::from_chars(value.data(), value.data() + value.size(), p.parent);
        if (field == "command") p.command = value;
        if (field == "end") p.end = value;
        if (field == "end_ns") std::from_chars(value.data(), value.data() + value.size(), p.endNs);
        // A named copy: clang 14 cannot capture a structured binding.
        const std::string& text = value;
        auto number = [&text](int& into) {
            int v = -1;
            auto [e, c] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (c == std::errc() && e == text.data() + text.size() && v >= 0) into = v;
        };
        if (field == "rank") number(p.rank);
        if (field == "local_rank") number(p.localRank);
        if (field == "world_size") number(p.worldSize);
    }
    std::vector<ProcessInfo> out;
    for (auto& [pid, p] : byPid)
        out.push_back(std::move(p));
    return out;
}

std::string shortCommand(const std::string& command) {
    std::istringstream words(command);
    std::vector<std::string> argv;
    for (std::string w; words >> w;)
        argv.push_back(w);
    if (argv.empty()) return {};
    auto base = [](const std::string& path) {
        auto slash = path.rfind('/');
        return slash == std::string::npos ? path : path.substr(slash + 1);
    };
    const std::string program = base(argv[0]);
    const bool interpreter = program.rfind("python", 0) == 0 || program == "bash" ||
                             program == "sh" || program == "node" || program == "ruby";
    if (!interpreter) return program;
    // multiprocessing's spawn start method: "python3 -c 'from multiprocessing.spawn
    // import spawn_main; ...' --multiprocessing-fork".
    if (argv.back() == "--multiprocessing-fork") return program + " (spawned worker)";
    for (std::size_t i = 1; i < argv.size(); ++i) {
        if (argv[i] == "-m" && i + 1 < argv.size()) return argv[i + 1];
        if (argv[i] == "-c") return program + " -c";
        if (argv[i].empty() || argv[i][0] == '-') continue;
        return base(argv[i]);
    }
    return program;
}

}  // namespace ws
