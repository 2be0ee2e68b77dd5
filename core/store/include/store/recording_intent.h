// A recording announces itself to other processes that use the same store
// before it needs the write lock, so long maintenance (compact's VACUUM,
// which holds the lock for as long as it runs) can step aside. The signal is
// a shared advisory lock (flock) on `<store>-recording`, beside the store.
#pragma once

#include <string>

namespace ws {

class RecordingIntent {
  public:
    // Best effort: where the file cannot be made (read-only folder) there is
    // no signal, and a recording then waits for the lock instead.
    explicit RecordingIntent(const std::string& storePath);
    ~RecordingIntent();
    RecordingIntent(const RecordingIntent&) = delete;
    RecordingIntent& operator=(const RecordingIntent&) = delete;

  private:
    std::string path_;
    int fd_ = -1;
};

// True while some process holds a RecordingIntent for this store.
bool recordingIntended(const std::string& storePath);

}  // namespace ws
