#include "store/recording_intent.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ws {

namespace {
std::string intentFile(const std::string& storePath) {
    return storePath + "-recording";
}
}  // namespace

RecordingIntent::RecordingIntent(const std::string& storePath) : path_(intentFile(storePath)) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0 && ::flock(fd_, LOCK_SH) != 0) {
        ::close(fd_);
        fd_ = -1;
    }
}

RecordingIntent::~RecordingIntent() {
    if (fd_ < 0) return;
    // The last recording removes the file, so a store folder keeps no trace
    // of it; while another recording holds its shared lock it stays.
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) ::unlink(path_.c_str());
    ::close(fd_);  // releases the lock
}

bool recordingIntended(const std::string& storePath) {
    int fd = ::open(intentFile(storePath).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    // An exclusive lock is granted only when no recording holds its shared one;
    // it is let go at once so a recording starting now is never delayed.
    bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    ::close(fd);
    return held;
}

}  // namespace ws
