#!/usr/bin/env python3
"""Reads the clock-event (throttle) reason bitmask through NVML, as the
sampler does, to check the entry point and bits on the GPU machine."""
import ctypes

nvml = ctypes.CDLL("libnvidia-ml.so.1")
assert nvml.nvmlInit_v2() == 0
dev = ctypes.c_void_p()
assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) == 0
for fn in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
    reasons = ctypes.c_ulonglong()
    try:
        rc = getattr(nvml, fn)(dev, ctypes.byref(reasons))
    except AttributeError:
        print(fn, "missing")
        continue
    print(fn, "rc", rc, "reasons", hex(reasons.value))
