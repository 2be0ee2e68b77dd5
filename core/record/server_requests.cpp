#include "server_requests.h"

#include <curl/curl.h>

#include <cstring>

namespace ws {

namespace {

std::size_t discard(char*, std::size_t size, std::size_t count, void*) {
    return size * count;
}

std::size_t keep(char* data, std::size_t size, std::size_t count, void* into) {
    auto* body = static_cast<std::string*>(into);
    if (body->size() + size * count > (1u << 20)) return 0;  // libcurl fails the transfer
    body->append(data, size * count);
    return size * count;
}

int abandonWhenStopped(void* stop, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<const std::atomic<bool>*>(stop)->load() ? 1 : 0;
}

}  // namespace

long serverRequest(const char* method, const std::string& url, std::string& error, long timeoutMs,
                   const std::atomic<bool>* stop, std::string* body) {
    CURL* curl = curl_easy_init();
    if (!curl) {
        error = "libcurl could not make a handle";
        return 0;
    }
    char text[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    if (std::strcmp(method, "POST") == 0) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, 0L);
    }
    if (body) {
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
    } else {
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    }
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, text);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    if (stop) {
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, abandonWhenStopped);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(stop));
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    }
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeoutMs);
    long status = 0;
    CURLcode rc = curl_easy_perform(curl);
    if (rc == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        if (status != 200)
            error = std::string(method) + " " + url + ": HTTP " + std::to_string(status);
    } else {
        error = std::string(method) + " " + url + ": " + (text[0] ? text : curl_easy_strerror(rc));
    }
    curl_easy_cleanup(curl);
    return status;
}

}  // namespace ws
