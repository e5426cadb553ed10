#include "ui/sweep/design_labels.h"

#include <QObject>

namespace marvel::ui {

QString contextLabel(sweep::ContextParameter p)
{
    return p == sweep::ContextParameter::Kv ? QObject::tr("KV cache length (decode)")
                                            : QObject::tr("Sequence length (prefill)");
}

QString parameterLabel(sweep::Parameter p)
{
    switch (p) {
    case sweep::Parameter::Pes:
        return QObject::tr("PEs");
    case sweep::Parameter::Simd:
        return QObject::tr("SIMD lanes");
    case sweep::Parameter::L1:
        return QObject::tr("L1 per PE");
    case sweep::Parameter::L2:
        return QObject::tr("L2");
    case sweep::Parameter::NocBw:
        return QObject::tr("NoC bandwidth");
    case sweep::Parameter::OffchipBw:
        return QObject::tr("off-chip bandwidth");
    }
    return {};
}

QString valueLabel(sweep::Parameter p, std::int64_t v)
{
    if (p == sweep::Parameter::L1 || p == sweep::Parameter::L2) {
        if (v >= (1 << 20) && v % (1 << 20) == 0) return QStringLiteral("%1M").arg(v >> 20);
        if (v >= 1024 && v % 1024 == 0) return QStringLiteral("%1K").arg(v >> 10);
    }
    return QString::number(v);
}

QString parameterKey(sweep::Parameter p)
{
    const std::string_view name = sweep::parameterName(p);
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

QString bytesText(std::int64_t bytes)
{
    if (bytes >= (1 << 20) && bytes % (1 << 20) == 0) return QObject::tr("%1 MiB").arg(bytes >> 20);
    if (bytes >= 1024 && bytes % 1024 == 0) return QObject::tr("%1 KiB").arg(bytes >> 10);
    return QObject::tr("%1 B").arg(bytes);
}

QString designValueText(sweep::Parameter p, std::int64_t v)
{
    switch (p) {
    case sweep::Parameter::Pes:
        return QObject::tr("%L1 PEs").arg(v);
    case sweep::Parameter::Simd:
        return v == 1 ? QObject::tr("1 SIMD lane") : QObject::tr("%1 SIMD lanes").arg(v);
    case sweep::Parameter::L1:
        return QObject::tr("L1 %1 per PE").arg(bytesText(v));
    case sweep::Parameter::L2:
        return QObject::tr("L2 %1").arg(bytesText(v));
    case sweep::Parameter::NocBw:
        return QObject::tr("NoC %L1 elements/cycle").arg(v);
    case sweep::Parameter::OffchipBw:
        return QObject::tr("off-chip %L1 elements/cycle").arg(v);
    }
    return {};
}

} // namespace marvel::ui
