// One executable per test area (tests/CMakeLists.txt): every tests/<area>/tst_*.cpp is compiled with
// this header forced in first (-include), which turns the file's QTEST_MAIN, QTEST_GUILESS_MAIN or
// QTEST_APPLESS_MAIN into a registration under the file's name (tst_search for tst_search.cpp) instead
// of a main(). test_main.cpp runs the test its first argument names, so each file stays its own CTest
// test in its own process, set up exactly as the macro would have set it up (the same application
// object, the class's initMain(), the source path QFINDTESTDATA uses).
// Linked together, the files of an area must keep their helpers in an anonymous namespace; compiled as a
// unity build (several files to a translation unit, MARVEL_UNITY_BUILD), their names must differ too.
#pragma once

#include <QtTest/qtest.h>

namespace marvel::testing {

/// Runs one test file's class with Qt Test's command line (argv[0], then Qt Test's options).
using TestEntry = int (*)(int argc, char** argv);

/// Records the entry point of the test file `sourceFile` (its __FILE__); always true.
bool registerTest(const char* sourceFile, TestEntry entry);

} // namespace marvel::testing

// Qt's three main macros all expand through QTEST_MAIN_WRAPPER (qtest.h), so replacing it replaces
// them all; the body is Qt 6's own main() with a registration in place of the name main.
#undef QTEST_MAIN_WRAPPER
#define QTEST_MAIN_WRAPPER(TestObject, ...)                                                                  \
    static int marvelRunTest##TestObject(int argc, char* argv[])                                             \
    {                                                                                                        \
        TESTLIB_SELFCOVERAGE_START(#TestObject)                                                              \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                                   \
        __VA_ARGS__                                                                                          \
        TestObject tc;                                                                                       \
        QTEST_SET_MAIN_SOURCE_PATH                                                                           \
        return QTest::qExec(&tc, argc, argv);                                                                \
    }                                                                                                        \
    [[maybe_unused]] static const bool marvelTestRegistered##TestObject                                      \
        = marvel::testing::registerTest(__FILE__, marvelRunTest##TestObject);
