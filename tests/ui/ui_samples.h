#pragma once
// Sample files several ui tests open, named once: ui_tests compiles its files in groups (unity build,
// tests/CMakeLists.txt), where a constant defined in two files of a group would clash.

#include <string>

#include <QString>

namespace uitest {

inline const std::string kSamples = MARVEL_SAMPLES_DIR;
inline const QString kGemm = QStringLiteral(MARVEL_SAMPLES_DIR "/operators/gemm.loop");
inline const QString kEdge = QStringLiteral(MARVEL_SAMPLES_DIR "/accelerators/P2_edge.json");

} // namespace uitest
