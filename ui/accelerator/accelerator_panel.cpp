#include "ui/accelerator/accelerator_panel.h"

#include <span>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTimer>
#include <QVBoxLayout>

#include "core/arch/accelerator_io.h"
#include "core/tech/technology.h"
#include "ui/samples_dir.h"
#include "ui/sweep/design_labels.h"

namespace marvel::ui {

namespace {
constexpr int kDebounceMs = 300;
const QString kCustomItem = QStringLiteral("custom"); ///< item data of the "not a preset" entry

struct FieldSpec
{
    const char* key;
    const char* label;
    const char* unit;
    const char* tip;
    double max;
    int decimals; ///< 0: integer spin box
};

// Ranges are wide on purpose: core's validation, not the spin box, says what is wrong.
const FieldSpec kCompute[] = {
    {"num_pes", "PEs", "", "Processing elements in the array; each has a private L1 buffer.", 1e9, 0},
    {"simd_lanes", "SIMD lanes", "MACs/cycle", "Multiply-accumulates one PE does per cycle.", 1e6, 0},
    {"clock_mhz", "Clock", "MHz", "Clock frequency; converts cycles into time.", 1e6, 1},
    {"vector_unit.lanes", "Vector unit", "lanes",
        "Lanes of a vector unit beside the PE array, fed from L2: softmax, normalisations, activation "
        "functions and element-wise arithmetic run on it. 0: none, they run on the PEs (one element per PE "
        "per cycle).",
        1e6, 0},
    // No label: beside the lanes, on their row (the panel fits the dock column at 1440x900).
    {"vector_unit.ops_per_cycle", "", "ops/cycle",
        "Element operations (an add, a multiply, an exp) each vector lane does per cycle.", 1e6, 0},
};
const FieldSpec kBuffers[] = {
    {"l1_bytes", "L1 per PE", "bytes",
        "Private buffer of each PE. A mapping fits when the cost model's L1 requirement (double "
        "buffered) is at most this.",
        1e12, 0},
    {"l2_bytes", "L2 (shared)", "bytes",
        "Shared on-chip buffer between DRAM and the PEs. Holds the level-3 tile of every tensor, double "
        "buffered.",
        1e15, 0},
    {"bytes_per_element", "Word size", "bytes", "Bytes per tensor element; buffer sizes divide by it.", 64,
        0},
};
const FieldSpec kNetwork[] = {
    {"noc_bandwidth_elements_per_cycle", "NoC", "elem/cycle",
        "Elements every NoC level moves per cycle (between L2 and the PEs).", 1e9, 0},
    {"noc_latency_cycles", "", "cycles", "NoC latency: cycles added to every NoC transfer (hops).", 1e6, 0},
    {"offchip_bandwidth_elements_per_cycle", "Off-chip bandwidth", "elem/cycle",
        "Elements per cycle between DRAM and L2. A finite bandwidth makes the runtime wait for DRAM: in "
        "corrected fidelity for each level-3 step's DRAM traffic, in maestro fidelity by MAESTRO's formula.",
        1e12, 0},
    {"dram_block_bytes", "DRAM block", "bytes",
        "DRAM burst size; the off-chip search counts the distinct blocks a tile touches.", 1e6, 0},
};
const FieldSpec kEnergy[] = {
    {"energy.mac", "MAC", "MAC units", "Energy of one multiply-accumulate (the unit of the others).", 1e9, 3},
    {"energy.l1_access", "L1 access", "MAC units", "Energy of one L1 read or write, in MAC energies.", 1e9,
        3},
    {"energy.l2_access", "L2 access", "MAC units", "Energy of one L2 read or write, in MAC energies.", 1e9,
        3},
    {"energy.dram_access", "DRAM access", "MAC units",
        "Energy of one element moved between DRAM and L2 (read or written back), in MAC energies. 0 charges "
        "none, as MAESTRO and the paper's platforms do; the Eyeriss paper puts a DRAM access at about 200 "
        "MACs.",
        1e9, 3},
    {"energy.mac_energy_nj", "MAC energy", "nJ", "One MAC's energy in nanojoules (converts to nJ).", 1e6, 6},
};

double valueOf(const arch::Accelerator& a, const QString& key)
{
    if (key == "num_pes") return double(a.numPes);
    if (key == "simd_lanes") return double(a.simdLanes);
    if (key == "clock_mhz") return a.clockMHz;
    if (key == "l1_bytes") return double(a.l1Bytes);
    if (key == "l2_bytes") return double(a.l2Bytes);
    if (key == "bytes_per_element") return double(a.bytesPerElement);
    if (key == "noc_bandwidth_elements_per_cycle") return double(a.nocBandwidth);
    if (key == "noc_latency_cycles") return double(a.nocLatency);
    if (key == "offchip_bandwidth_elements_per_cycle") return double(a.offchipBandwidth);
    if (key == "dram_block_bytes") return double(a.dramBlockBytes);
    if (key == "energy.mac") return a.energy.mac;
    if (key == "energy.l1_access") return a.energy.l1Access;
    if (key == "energy.l2_access") return a.energy.l2Access;
    if (key == "energy.dram_access") return a.energy.dramAccess;
    if (key == "energy.mac_energy_nj") return a.energy.macEnergyNanojoule;
    if (key == "energy.vector_op") return a.energy.vectorOp;
    if (key == "vector_unit.lanes") return double(a.vectorUnit.lanes);
    if (key == "vector_unit.ops_per_cycle") return double(a.vectorUnit.opsPerCycle);
    return 0;
}

void setValue(arch::Accelerator& a, const QString& key, double v)
{
    const auto i = static_cast<std::int64_t>(std::llround(v));
    if (key == "num_pes") a.numPes = i;
    if (key == "simd_lanes") a.simdLanes = i;
    if (key == "clock_mhz") a.clockMHz = v;
    if (key == "l1_bytes") a.l1Bytes = i;
    if (key == "l2_bytes") a.l2Bytes = i;
    if (key == "bytes_per_element") a.bytesPerElement = i;
    if (key == "noc_bandwidth_elements_per_cycle") a.nocBandwidth = i;
    if (key == "noc_latency_cycles") a.nocLatency = i;
    if (key == "offchip_bandwidth_elements_per_cycle") a.offchipBandwidth = i;
    if (key == "dram_block_bytes") a.dramBlockBytes = i;
    if (key == "energy.mac") a.energy.mac = v;
    if (key == "energy.l1_access") a.energy.l1Access = v;
    if (key == "energy.l2_access") a.energy.l2Access = v;
    if (key == "energy.dram_access") a.energy.dramAccess = v;
    if (key == "energy.mac_energy_nj") a.energy.macEnergyNanojoule = v;
    if (key == "energy.vector_op") a.energy.vectorOp = v;
    if (key == "vector_unit.lanes") a.vectorUnit.lanes = i;
    if (key == "vector_unit.ops_per_cycle") a.vectorUnit.opsPerCycle = i;
}

double spinValue(const QAbstractSpinBox* box)
{
    if (auto* d = qobject_cast<const QDoubleSpinBox*>(box)) return d->value();
    return static_cast<const QSpinBox*>(box)->value();
}
} // namespace

QString AcceleratorPanel::acceleratorsDirectory()
{
    return samplesRoot() + QStringLiteral("/accelerators");
}

AcceleratorPanel::AcceleratorPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    // Tight between the groups: the whole panel, technology choice included, fits the dock column at
    // 1440x900 without scrolling.
    layout->setSpacing(3);
    auto* presetRow = new QHBoxLayout;
    m_presets = new QComboBox;
    m_presets->setToolTip(
        tr("The paper's platforms, every accelerator file in samples/accelerators and your own presets"));
    m_presets->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_presets->setMinimumContentsLength(12);
    reloadPresets();
    connect(m_presets, &QComboBox::activated, this, [this](int i) {
        if (m_presets->itemData(i).toString() == kCustomItem) return; // what the fields already show
        if (!loadPreset(m_presets->itemData(i).toString())) return;
        emit edited();
        // Another accelerator, as a file opened or a field changed: the window searches it again.
        if (isValid()) emit acceleratorChanged(accelerator());
    });
    auto* open = new QPushButton(tr("Open..."));
    auto* save = new QPushButton(tr("Save..."));
    auto* savePreset = new QPushButton(tr("Save as preset..."));
    savePreset->setToolTip(tr("Keep this accelerator in the preset list (in %1)")
                               .arg(QDir::toNativeSeparators(userPresetsDirectory())));
    connect(savePreset, &QPushButton::clicked, this, &AcceleratorPanel::savePresetDialog);
    open->setToolTip(tr("Open an accelerator file (JSON or MAESTRO .m)"));
    save->setToolTip(tr("Save this accelerator as JSON or a MAESTRO .m file"));
    connect(open, &QPushButton::clicked, this, &AcceleratorPanel::openFile);
    connect(save, &QPushButton::clicked, this, &AcceleratorPanel::saveFile);
    // The preset list takes the whole width; the file buttons go below it, so the panel stays narrow
    // enough for the dock column beside the plot.
    presetRow->addWidget(m_presets, 1);
    layout->addLayout(presetRow);
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(open);
    fileRow->addWidget(save);
    fileRow->addStretch(1);
    fileRow->addWidget(savePreset);
    layout->addLayout(fileRow);

    auto addGroup = [&](const QString& title, std::span<const FieldSpec> specs) -> QFormLayout* {
        auto* group = new QGroupBox(title);
        auto* form = new QFormLayout(group);
        form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
        // Tight rows: every field should show without scrolling in the dock column at 1440x900.
        form->setVerticalSpacing(2);
        form->setContentsMargins(6, 2, 6, 2);
        QLabel* rowLabel = nullptr;
        QWidget* rowField = nullptr;
        auto addPendingRow = [&] {
            if (rowField) form->addRow(rowLabel, rowField);
        };
        for (const FieldSpec& spec : specs) {
            QAbstractSpinBox* box = nullptr;
            if (spec.decimals == 0) {
                auto* s = new QSpinBox;
                s->setRange(-1, static_cast<int>(std::min(spec.max, 2147483647.0)));
                if (*spec.unit) s->setSuffix(QStringLiteral(" ") + tr(spec.unit));
                s->setGroupSeparatorShown(true);
                connect(s, &QSpinBox::valueChanged, this, &AcceleratorPanel::onEdited);
                box = s;
            } else {
                auto* d = new QDoubleSpinBox;
                d->setDecimals(spec.decimals);
                d->setRange(-1, spec.max);
                if (*spec.unit) d->setSuffix(QStringLiteral(" ") + tr(spec.unit));
                connect(d, &QDoubleSpinBox::valueChanged, this, &AcceleratorPanel::onEdited);
                box = d;
            }
            // Qt sizes a spin box for its largest value (10^9 with a unit): far wider than any value
            // an accelerator has, and wider than the dock column; the field still grows with the dock.
            box->setMinimumWidth(
                box->fontMetrics().horizontalAdvance(QStringLiteral("1,000,000 elem/cycle")) + 40);
            box->setToolTip(tr(spec.tip));
            box->setProperty("baseToolTip", tr(spec.tip));
            box->setObjectName(QString::fromLatin1(spec.key));
            m_fields.insert(QString::fromLatin1(spec.key), box);
            if (!*spec.label && rowField) {
                // A field without a label shares the row before it, both boxes narrower.
                auto* row = new QWidget;
                auto* h = new QHBoxLayout(row);
                h->setContentsMargins(0, 0, 0, 0);
                h->setSpacing(4);
                for (QWidget* w : {rowField, static_cast<QWidget*>(box)}) {
                    w->setMinimumWidth(
                        w->fontMetrics().horizontalAdvance(QStringLiteral("1,000 ops/cycle")) + 24);
                    h->addWidget(w, 1);
                }
                rowField = row;
                continue;
            }
            addPendingRow();
            rowLabel = new QLabel(tr(spec.label));
            rowLabel->setToolTip(tr(spec.tip));
            rowField = box;
        }
        addPendingRow();
        layout->addWidget(group);
        return form;
    };
    addGroup(tr("Compute"), kCompute);
    addGroup(tr("Buffers"), kBuffers);
    QFormLayout* network = addGroup(tr("Network and memory"), kNetwork);
    QFormLayout* energyForm = addGroup(tr("Energy per access"), kEnergy);
    // A technology table prices the actions for the buffers' sizes (core/tech): with one chosen, the
    // energy fields show its figures and follow every size change.
    m_technology = new QComboBox;
    m_technology->setObjectName(QStringLiteral("technology"));
    m_technology->addItem(tr("own values"), QString());
    for (const std::string& name : tech::technologyNames())
        m_technology->addItem(QString::fromStdString(name), QString::fromStdString(name));
    m_technology->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_technology->setMinimumContentsLength(10);
    m_technology->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    const QString technologyTip = tr(
        "Where the energies come from. Own values: the fields below, in MAC units (MAESTRO's model). A "
        "technology table (samples/technology) gives pJ per action for these sizes - a bigger buffer costs "
        "more per access - and the area in mm\u00b2 and power in mW the reports show.");
    m_technology->setToolTip(technologyTip);
    connect(m_technology, &QComboBox::currentIndexChanged, this, [this] {
        if (m_loading) return;
        applyTechnologyChoice();
        onEdited();
    });
    auto* technologyLabel = new QLabel(tr("Technology"));
    technologyLabel->setToolTip(technologyTip);
    energyForm->insertRow(0, technologyLabel, m_technology);

    // What one NoC send reaches decides the global buffer's reads (doc/cost-model.md, "Global-buffer
    // traffic"; doc/timeloop.md): the item data is the arch::Multicast value.
    m_multicast = new QComboBox;
    m_multicast->setObjectName(QStringLiteral("multicast"));
    m_multicast->addItem(tr("elements"), int(arch::Multicast::Elements));
    m_multicast->addItem(tr("identical tiles"), int(arch::Multicast::Tiles));
    m_multicast->addItem(tr("none"), int(arch::Multicast::None));
    // As narrow as the spin boxes: the dock column must fit a 1280-pixel screen.
    m_multicast->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_multicast->setMinimumContentsLength(10);
    const QString multicastTip = tr(
        "What one NoC send reaches (corrected fidelity). Elements: an element several PEs need is sent once "
        "(MAESTRO's NoC; overlapping window halos too). Identical tiles: one send reaches the PEs whose "
        "tiles are the same; each PE gets its own halo (Timeloop's network). None: every PE's copy is sent "
        "separately. Changes the global buffer's reads, the NoC's time and L2 energy.");
    m_multicast->setToolTip(multicastTip);
    connect(m_multicast, &QComboBox::currentIndexChanged, this, &AcceleratorPanel::onEdited);
    auto* multicastLabel = new QLabel(tr("Multicast"));
    multicastLabel->setToolTip(multicastTip);
    network->addRow(multicastLabel, m_multicast);

    m_message = new QLabel;
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #c62828"));
    layout->addWidget(m_message);
    layout->addStretch(1);

    m_debounce = new QTimer(this);
    m_debounce->setObjectName(QStringLiteral("acceleratorDebounce")); // --bench times a retune from it
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, [this] {
        if (isValid()) emit acceleratorChanged(accelerator());
    });
    if (m_presets->count() > 0) {
        m_presets->setCurrentIndex(defaultPresetIndex());
        loadPreset(m_presets->currentData().toString());
    }
}

int AcceleratorPanel::defaultPresetIndex() const
{
    // A platform with a memory system: the sample preset in MAC units that charges DRAM accesses with the
    // most PEs (the edge one), so a new user sees DRAM traffic and runtime-energy trade-offs. The paper's
    // P1/P2 charge none (they reproduce its figures); P2 is the default only when no sample charges DRAM.
    const QString samples = QDir(acceleratorsDirectory()).absolutePath();
    int best = -1;
    std::int64_t bestPes = -1;
    for (int i = 0; i < m_presets->count(); ++i) {
        const QString path = m_presets->itemData(i).toString();
        const auto it = m_presetCache.constFind(path);
        if (it == m_presetCache.constEnd() || QFileInfo(path).absolutePath() != samples) continue;
        // MAESTRO's energies (no technology table): what the paper, the guide and the screenshots show.
        if (it->energy.dramAccess > 0 && it->technology.empty() && it->numPes > bestPes) {
            best = i;
            bestPes = it->numPes;
        }
    }
    if (best >= 0) return best;
    const int p2 = m_presets->findText(QStringLiteral("P2"), Qt::MatchStartsWith);
    return p2 >= 0 ? p2 : 0;
}

QString AcceleratorPanel::message() const
{
    return m_message->text();
}

QString AcceleratorPanel::userPresetsDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + QStringLiteral("/presets");
}

void AcceleratorPanel::reloadPresets()
{
    const QString current = m_presets->currentData().toString();
    m_presets->clear();
    m_presetCache.clear();
    auto addFrom = [this](const QString& folder, const QString& suffix) {
        const QDir dir(folder);
        for (const QFileInfo& info : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            arch::Accelerator loaded;
            try {
                loaded = arch::loadAccelerator(info.absoluteFilePath().toStdString());
            } catch (const InputError&) {
                continue; // a broken file is not offered as a preset
            }
            m_presets->addItem(QString::fromStdString(loaded.name) + suffix, info.absoluteFilePath());
            m_presetCache.insert(info.absoluteFilePath(), loaded);
        }
    };
    addFrom(acceleratorsDirectory(), {});
    const int samples = m_presets->count();
    addFrom(userPresetsDirectory(), tr(" (my preset)"));
    if (samples > 0 && m_presets->count() > samples) m_presets->insertSeparator(samples);
    if (const int i = m_presets->findData(current); i >= 0) m_presets->setCurrentIndex(i);
}

bool AcceleratorPanel::saveAsPreset(const QString& name)
{
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty()) return false;
    if (!isValid()) {
        m_message->setText(tr("Fix the accelerator before saving it as a preset:\n") + m_problems.join('\n'));
        return false;
    }
    // The file name keeps only characters every file system accepts; the label keeps the user's name.
    QString fileName;
    for (const QChar c : trimmed)
        fileName += c.isLetterOrNumber() || c == '-' || c == '_' ? c : QChar('_');
    arch::Accelerator acc = accelerator();
    acc.name = trimmed.toStdString();
    const QString path = userPresetsDirectory() + QLatin1Char('/') + fileName + QStringLiteral(".json");
    try {
        QDir().mkpath(userPresetsDirectory());
        arch::saveAccelerator(acc, path.toStdString());
    } catch (const InputError& e) {
        m_message->setText(QString::fromStdString(e.what()));
        return false;
    }
    m_base.name = acc.name;
    m_base.description = acc.description;
    m_origin = acc;
    reloadPresets();
    if (const int i = m_presets->findData(path); i >= 0) m_presets->setCurrentIndex(i);
    m_message->clear();
    return true;
}

void AcceleratorPanel::savePresetDialog()
{
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Save as preset"), tr("Preset name:"),
        QLineEdit::Normal, QString::fromStdString(accelerator().name), &ok);
    if (ok) saveAsPreset(name);
}

bool AcceleratorPanel::loadPreset(const QString& labelOrPath)
{
    QString path = labelOrPath;
    if (const int i = m_presets->findText(labelOrPath); i >= 0) path = m_presets->itemData(i).toString();
    try {
        setAccelerator(arch::loadAccelerator(path.toStdString()));
    } catch (const InputError& e) {
        m_message->setText(QString::fromStdString(e.what()));
        return false;
    }
    if (const int i = m_presets->findData(path); i >= 0) m_presets->setCurrentIndex(i);
    return true;
}

void AcceleratorPanel::setAccelerator(const arch::Accelerator& acc)
{
    m_loading = true;
    m_base = acc;
    m_origin = acc;
    m_ownEnergy = acc.technology.empty() ? acc.energy : arch::EnergyModel{};
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it) {
        if (auto* d = qobject_cast<QDoubleSpinBox*>(it.value()))
            d->setValue(valueOf(acc, it.key()));
        else
            static_cast<QSpinBox*>(it.value())->setValue(static_cast<int>(valueOf(acc, it.key())));
    }
    m_multicast->setCurrentIndex(m_multicast->findData(int(acc.multicast)));
    int t = m_technology->findData(QString::fromStdString(acc.technology));
    if (t < 0 && !acc.technology.empty()) { // a table of its own (a file): listed under its name
        m_technology->addItem(QString::fromStdString(acc.technology), QString::fromStdString(acc.technology));
        t = m_technology->count() - 1;
    }
    m_technology->setCurrentIndex(std::max(t, 0));
    m_loading = false;
    applyTechnologyChoice();
    revalidate();
}

void AcceleratorPanel::applyTechnologyChoice()
{
    const QString name = m_technology->currentData().toString();
    const bool hadTable = m_base.technologyTable != nullptr;
    if (!hadTable && !name.isEmpty()) m_ownEnergy = accelerator().energy; // what "own values" restores
    if (name.toStdString() != m_base.technology || (!name.isEmpty() && !m_base.technologyTable)) {
        m_base.technology = name.toStdString();
        m_base.technologyTable.reset();
        m_base.dramType.clear();
        if (!name.isEmpty()) {
            try {
                const QString file
                    = samplesRoot() + QStringLiteral("/technology/") + name + QStringLiteral(".json");
                m_base.technologyTable
                    = tech::loadTechnology(QFileInfo::exists(file) ? file.toStdString() : name.toStdString());
            } catch (const InputError& e) {
                m_message->setText(QString::fromStdString(e.what()));
                m_base.technology.clear();
            }
        }
    }
    // The energy fields: the table's figures for the current sizes, read-only, in its unit.
    const bool table = m_base.technologyTable != nullptr;
    const QString unit = table && tech::physicalUnits(m_base) ? tr("pJ") : tr("MAC units");
    const arch::Accelerator acc = accelerator();
    const bool wasLoading = m_loading;
    m_loading = true;
    for (const FieldSpec& spec : kEnergy) {
        auto* box = qobject_cast<QDoubleSpinBox*>(m_fields.value(QString::fromLatin1(spec.key)));
        if (!box) continue;
        box->setReadOnly(table);
        box->setEnabled(!table || QLatin1String(spec.key) != QLatin1String("energy.mac_energy_nj"));
        if (QLatin1String(spec.unit) == QLatin1String("MAC units"))
            box->setSuffix(QStringLiteral(" ") + unit);
        if (table) box->setValue(valueOf(acc, QString::fromLatin1(spec.key)));
        if (!table && hadTable) {
            arch::Accelerator own = acc;
            own.energy = m_ownEnergy;
            box->setValue(valueOf(own, QString::fromLatin1(spec.key)));
        }
    }
    m_loading = wasLoading;
}

arch::Accelerator AcceleratorPanel::accelerator() const
{
    arch::Accelerator acc = m_base;
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it)
        setValue(acc, it.key(), spinValue(it.value()));
    acc.multicast = static_cast<arch::Multicast>(m_multicast->currentData().toInt());
    tech::applyTechnology(acc); // a table's energies for the sizes the fields hold now
    if (const std::string name = editedName(m_origin, acc); name != acc.name) {
        acc.name = name;
        acc.description
            = tr("Edited in Marvel Studio from %1.").arg(QString::fromStdString(m_origin.name)).toStdString()
            + (m_origin.description.empty()
                    ? ""
                    : " " + tr("Its description: ").toStdString() + m_origin.description);
    }
    return acc;
}

std::string AcceleratorPanel::editedName(const arch::Accelerator& origin, const arch::Accelerator& edited)
{
    const auto bytes = bytesText;
    auto number = [](double v) { return QString::number(v, 'g', 6); };
    QStringList changes;
    auto add = [&changes](bool differs, const QString& text) {
        if (differs) changes << text;
    };
    add(edited.numPes != origin.numPes, tr("%1 PEs").arg(edited.numPes));
    add(edited.simdLanes != origin.simdLanes, tr("%1 SIMD lanes").arg(edited.simdLanes));
    add(edited.vectorUnit != origin.vectorUnit,
        tr("%1 vector lanes x %2 ops").arg(edited.vectorUnit.lanes).arg(edited.vectorUnit.opsPerCycle));
    add(edited.clockMHz != origin.clockMHz, tr("%1 MHz").arg(number(edited.clockMHz)));
    add(edited.l1Bytes != origin.l1Bytes, tr("L1 %1").arg(bytes(edited.l1Bytes)));
    add(edited.l2Bytes != origin.l2Bytes, tr("L2 %1").arg(bytes(edited.l2Bytes)));
    add(edited.bytesPerElement != origin.bytesPerElement, tr("%1-byte words").arg(edited.bytesPerElement));
    add(edited.nocBandwidth != origin.nocBandwidth, tr("NoC %1 elem/cycle").arg(edited.nocBandwidth));
    add(edited.nocLatency != origin.nocLatency, tr("NoC latency %1").arg(edited.nocLatency));
    add(edited.offchipBandwidth != origin.offchipBandwidth,
        tr("off-chip %1 elem/cycle").arg(edited.offchipBandwidth));
    add(edited.dramBlockBytes != origin.dramBlockBytes,
        tr("DRAM block %1").arg(bytes(edited.dramBlockBytes)));
    add(edited.multicast != origin.multicast, tr("multicast changed"));
    add(edited.technology != origin.technology,
        edited.technology.empty() ? tr("own energies")
                                  : tr("%1 technology").arg(QString::fromStdString(edited.technology)));
    // Under a table the energies follow the sizes: only energies typed in the fields are an edit.
    if (edited.technology.empty() && origin.technology.empty()) {
        const arch::EnergyModel &a = origin.energy, &b = edited.energy;
        add(b.mac != a.mac, tr("MAC energy %1").arg(number(b.mac)));
        add(b.l1Access != a.l1Access, tr("L1 access %1").arg(number(b.l1Access)));
        add(b.l2Access != a.l2Access, tr("L2 access %1").arg(number(b.l2Access)));
        add(b.dramAccess != a.dramAccess, tr("DRAM access %1").arg(number(b.dramAccess)));
        add(b.macEnergyNanojoule != a.macEnergyNanojoule,
            tr("%1 nJ per MAC").arg(number(b.macEnergyNanojoule)));
    }
    if (changes.isEmpty()) return origin.name;
    if (changes.size() > 3) changes = changes.mid(0, 3) << tr("...");
    const QString base = origin.name.empty() ? tr("custom") : QString::fromStdString(origin.name);
    return tr("%1 (edited: %2)").arg(base, changes.join(QStringLiteral(", "))).toStdString();
}

void AcceleratorPanel::onEdited()
{
    if (m_loading) return;
    if (m_base.technologyTable) applyTechnologyChoice(); // the energies follow the sizes
    revalidate();
    emit edited();
    if (isValid())
        m_debounce->start();
    else
        m_debounce->stop();
}

void AcceleratorPanel::syncPresetSelection()
{
    // The list names what the fields hold: the preset with these parameters, else a custom entry.
    const arch::Accelerator acc = accelerator();
    int match = -1;
    for (int i = 0; i < m_presets->count() && match < 0; ++i) {
        const auto it = m_presetCache.constFind(m_presets->itemData(i).toString());
        if (it != m_presetCache.constEnd() && arch::sameParameters(*it, acc) && it->name == acc.name)
            match = i;
    }
    const int custom = m_presets->findData(kCustomItem);
    if (match >= 0) {
        m_presets->setCurrentIndex(match);
        if (custom >= 0) m_presets->removeItem(custom);
        return;
    }
    const QString label
        = tr("%1 (not a preset)").arg(QString::fromStdString(acc.name.empty() ? "custom" : acc.name));
    if (custom >= 0)
        m_presets->setItemText(custom, label);
    else
        m_presets->insertItem(0, label, kCustomItem);
    m_presets->setCurrentIndex(m_presets->findData(kCustomItem));
}

void AcceleratorPanel::revalidate()
{
    m_problems.clear();
    QMap<QString, QStringList> byField;
    for (const Diagnostic& d : arch::validate(accelerator())) {
        const QString text = QString::fromStdString(d.format());
        m_problems << text;
        byField[QString::fromStdString(d.field)] << QString::fromStdString(d.message);
    }
    for (auto it = m_fields.begin(); it != m_fields.end(); ++it) {
        const QStringList reasons = byField.value(it.key());
        it.value()->setStyleSheet(
            reasons.isEmpty() ? QString() : QStringLiteral("background: #fde0dc; border: 1px solid #c62828"));
        it.value()->setToolTip(reasons.isEmpty() ? it.value()->property("baseToolTip").toString()
                                                 : reasons.join(QLatin1Char('\n')));
    }
    syncPresetSelection();
    m_message->setText(m_problems.isEmpty()
            ? QString()
            : tr("Not searched until fixed:\n") + m_problems.join(QLatin1Char('\n')));
}

void AcceleratorPanel::openFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open accelerator"), acceleratorsDirectory(),
        tr("Accelerators (*.json *.m);;All files (*)"));
    if (path.isEmpty()) return;
    if (loadPreset(path)) {
        emit edited();
        if (isValid()) emit acceleratorChanged(accelerator());
    }
}

void AcceleratorPanel::saveFile()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save accelerator"), {}, tr("JSON (*.json);;MAESTRO hardware (*.m)"));
    if (path.isEmpty()) return;
    try {
        arch::saveAccelerator(accelerator(), path.toStdString());
    } catch (const InputError& e) {
        m_message->setText(QString::fromStdString(e.what()));
    }
}

} // namespace marvel::ui
