#pragma once
// Reading the members of one JSON object of an input file into C++ values, with one Diagnostic per
// problem naming the file and the field path (prefix + key, e.g. "accelerator.num_pes"), so that a reader
// reports every wrong field at once. Used by the accelerator and project readers.

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/diagnostic.h"

namespace marvel {

class JsonFields
{
public:
    /// `object` must outlive this reader; `prefix` is prepended to every key in diagnostics.
    JsonFields(const nlohmann::json& object, std::string file, std::string prefix);

    /// An integer (a whole floating-point number such as 1e3 is accepted; 1.5 is not).
    void integer(const char* key, std::int64_t& out, bool required = false);
    void real(const char* key, double& out, bool required = false);
    void boolean(const char* key, bool& out, bool required = false);
    void string(const char* key, std::string& out, bool required = false);
    /// The sub-object `key`, or null (with an error when it is present but not an object, or missing and
    /// required).
    const nlohmann::json* object(const char* key, bool required = false);
    /// The member `key` of any type, or null (with an error when it is missing and required).
    const nlohmann::json* member(const char* key, bool required = false);

    /// Reports every member not in `known` as an unknown field.
    void rejectUnknown(std::initializer_list<std::string_view> known);
    /// Adds a problem for `key` (prefixed like the others).
    void error(std::string_view key, std::string message);

    std::vector<Diagnostic>& diagnostics() { return m_diagnostics; }
    const std::string& prefix() const { return m_prefix; }

    /// How a value is named in messages: `the number 1.5`, `string "abc"`, `array`.
    static std::string describe(const nlohmann::json& value);

private:
    const nlohmann::json& m_object;
    std::string m_file;
    std::string m_prefix;
    std::vector<Diagnostic> m_diagnostics;
};

} // namespace marvel
