#include "ui/samples_dir.h"

#include "core/resources/samples_dir.h"

namespace marvel::ui {

QString samplesRoot()
{
    return QString::fromStdString(resources::samplesRoot().string());
}

} // namespace marvel::ui
