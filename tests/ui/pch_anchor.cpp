// The object that warpscope_ui_test_pch compiles: the precompiled header
// (gtest and qcustomplot) that every drawing test program reuses.
