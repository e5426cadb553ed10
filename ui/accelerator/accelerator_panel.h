#pragma once
// Edits an accelerator: every parameter with its unit and an explanation, presets (the paper's
// platforms, every accelerator in samples/ and the user's own, kept as JSON files in the user's config
// folder), open/save of JSON and MAESTRO files. Each change is
// validated by core; a field with a problem is flagged with core's reason and nothing is emitted until
// the accelerator is valid again. Valid changes are emitted after a short pause, so holding an arrow key
// on the PE count re-runs the search once the key is released or every pause.

#include <QHash>
#include <QWidget>

#include "core/arch/accelerator.h"

class QAbstractSpinBox;
class QComboBox;
class QLabel;
class QTimer;

namespace marvel::ui {

class AcceleratorPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AcceleratorPanel(QWidget* parent = nullptr);

    /// Shows `acc` without emitting acceleratorChanged.
    void setAccelerator(const arch::Accelerator& acc);
    /// The fields' accelerator. Edited away from what was loaded (a preset, a file, a project), it is
    /// named for what changed, "Edge 1024 with DRAM (edited: 256 PEs)", so that projects, exports and
    /// arch.yaml do not claim the preset (editedName).
    arch::Accelerator accelerator() const;
    /// `origin`'s name with the fields `edited` changes from it ("P2 (edge) (edited: 256 PEs, L2 64 KiB)");
    /// `origin`'s own name when nothing differs.
    static std::string editedName(const arch::Accelerator& origin, const arch::Accelerator& edited);
    bool isValid() const { return m_problems.isEmpty(); }
    QStringList problems() const { return m_problems; }
    /// The field editor for a JSON key such as "num_pes", "l1_bytes" or "energy.l2_access".
    QAbstractSpinBox* field(const QString& key) const { return m_fields.value(key); }
    /// Loads a preset by its label ("P1 (Eyeriss-like)" ...) or a file path; false when unknown.
    bool loadPreset(const QString& labelOrPath);
    /// The panel's message: why a file could not be loaded, or what is invalid.
    QString message() const;
    static QString acceleratorsDirectory();
    /// Where "Save as preset..." keeps the user's accelerators (one JSON file each).
    static QString userPresetsDirectory();
    /// Saves the panel's accelerator as a user preset called `name` and selects it; false (with the
    /// reason shown) when the accelerator is invalid or the file cannot be written.
    bool saveAsPreset(const QString& name);
    /// Fills the preset list again: the samples, then the user's presets.
    void reloadPresets();
    QComboBox* presetList() const { return m_presets; }
    /// What one NoC send reaches (item data: arch::Multicast).
    QComboBox* multicastChoice() const { return m_multicast; }
    /// The technology table the energies come from: "" (the energy fields as typed, in MAC units) or a
    /// table of samples/technology ("45nm", "maestro"); the energy fields then show what it gives for the
    /// sizes, read-only.
    QComboBox* technologyChoice() const { return m_technology; }
    /// The preset a new window opens on: the sample with the most PEs among those that charge DRAM
    /// accesses (a platform with a memory system); the paper's P2 when no sample does.
    int defaultPresetIndex() const;

signals:
    /// A valid accelerator: after the typing pause, or at once when a preset or a file is loaded.
    void acceleratorChanged(const marvel::arch::Accelerator& acc);
    /// Any edit by the user (for the window's unsaved-changes state).
    void edited();

private:
    void onEdited();
    void revalidate();
    void openFile();
    void saveFile();
    void savePresetDialog();
    void syncPresetSelection();

    QMap<QString, QAbstractSpinBox*> m_fields;
    QComboBox* m_presets = nullptr;
    QComboBox* m_multicast = nullptr;
    QComboBox* m_technology = nullptr;
    /// The energies typed (or read) without a table: back in the fields when "own values" is chosen again.
    arch::EnergyModel m_ownEnergy;
    void applyTechnologyChoice(); ///< m_base's table from the choice, then the energy fields
    QHash<QString, arch::Accelerator> m_presetCache; ///< preset file -> its accelerator
    QLabel* m_message = nullptr;
    QTimer* m_debounce = nullptr;
    arch::Accelerator m_base; ///< name and the fields the panel does not show
    arch::Accelerator m_origin; ///< as loaded or saved last: what the name describes
    QStringList m_problems;
    bool m_loading = false;
};

} // namespace marvel::ui
