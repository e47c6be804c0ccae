// tests/support/pch.cpp: the translation unit that builds the test programs'
// shared precompiled header (tests/CMakeLists.txt, FL_TESTS_PCH); it holds
// nothing of its own.
