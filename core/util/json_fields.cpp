#include "core/util/json_fields.h"

#include <cmath>

namespace marvel {

namespace {
bool isWholeNumber(double d)
{
    // 1e3 is written by some tools for 1000; 1.5 is a mistake.
    return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15;
}
} // namespace

JsonFields::JsonFields(const nlohmann::json& object, std::string file, std::string prefix)
    : m_object(object)
    , m_file(std::move(file))
    , m_prefix(std::move(prefix))
{ }

void JsonFields::integer(const char* key, std::int64_t& out, bool required)
{
    const nlohmann::json* v = member(key, required);
    if (!v) return;
    if (v->is_number_integer()
        && !(v->is_number_unsigned() && v->get<std::uint64_t>() > std::uint64_t(INT64_MAX)))
        out = v->get<std::int64_t>();
    else if (v->is_number_unsigned())
        error(key, "is out of range");
    else if (v->is_number_float() && isWholeNumber(v->get<double>()))
        out = static_cast<std::int64_t>(v->get<double>());
    else
        error(key, "must be an integer, not " + describe(*v));
}

void JsonFields::real(const char* key, double& out, bool required)
{
    if (const nlohmann::json* v = member(key, required)) {
        if (v->is_number())
            out = v->get<double>();
        else
            error(key, "must be a number, not " + describe(*v));
    }
}

void JsonFields::boolean(const char* key, bool& out, bool required)
{
    if (const nlohmann::json* v = member(key, required)) {
        if (v->is_boolean())
            out = v->get<bool>();
        else
            error(key, "must be true or false, not " + describe(*v));
    }
}

void JsonFields::string(const char* key, std::string& out, bool required)
{
    if (const nlohmann::json* v = member(key, required)) {
        if (v->is_string())
            out = v->get<std::string>();
        else
            error(key, "must be a string, not " + describe(*v));
    }
}

const nlohmann::json* JsonFields::object(const char* key, bool required)
{
    const nlohmann::json* v = member(key, required);
    if (v && !v->is_object()) {
        error(key, "must be an object, not " + describe(*v));
        return nullptr;
    }
    return v;
}

const nlohmann::json* JsonFields::member(const char* key, bool required)
{
    const auto it = m_object.find(key);
    if (it == m_object.end()) {
        if (required) error(key, "missing required field");
        return nullptr;
    }
    return &*it;
}

void JsonFields::rejectUnknown(std::initializer_list<std::string_view> known)
{
    for (const auto& [key, value] : m_object.items()) {
        bool ok = false;
        for (auto k : known)
            ok = ok || k == key;
        if (!ok) error(key, "unknown field");
    }
}

void JsonFields::error(std::string_view key, std::string message)
{
    Diagnostic d;
    d.file = m_file;
    d.field = m_prefix + std::string(key);
    d.message = std::move(message);
    m_diagnostics.push_back(std::move(d));
}

std::string JsonFields::describe(const nlohmann::json& v)
{
    if (v.is_number_float()) return "the number " + v.dump();
    return std::string(v.type_name()) + (v.is_string() ? " \"" + v.get<std::string>() + "\"" : "");
}

} // namespace marvel
