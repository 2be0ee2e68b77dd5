#pragma once

namespace ws {
extern const char* const kWarpscopeVersion;
}
