#pragma once

#include <memory>
#include <optional>

#include <QMainWindow>

#include "core/project/project.h"
#include "core/search/search.h"
#include "core/styles/styles.h"
#include "core/sweep/sweep.h"
#include "ui/editor/operator_analysis.h"
#include "ui/recovery/recovery_store.h"
#include "ui/search/result_basis.h"

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QTableWidget;
class QDockWidget;
class QComboBox;
class QSpinBox;
class QMenu;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTimer;
class QTextBrowser;
class QMessageBox;
class QUrl;

namespace marvel::sweep {
class Grid;
}

namespace marvel::ui {

class GraphView;
class CodeEditor;
class OperatorLinks;
class AcceleratorPanel;
class AnimationPanel;
class ElidedLabel;
class SweepController;
class SweepPanel;
class CodesignController;
class CodesignPanel;
class MappingView;
class ParetoPlot;
class ModelTableModel;
class SearchController;
class SearchPanel;
struct SearchOutcome;

/// The Marvel Studio main window: the loop-nest editor with the conformability verdict, the reason for
/// each rule and the DDG; the accelerator and search panels; the live runtime-energy plot of a search
/// running in the background; and the selected mapping. Panels are dock widgets (View menu).
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    /// An orderly end (the window closed or the app quit): the recovery file goes; only a crash or a
    /// kill leaves it behind.
    ~MainWindow() override;

    /// File > New: an empty, untitled operator (after the unsaved-changes prompt), out of any project
    /// or model; the accelerator and the search settings stay.
    void newOperator();
    /// Loads a `.loop` file into the editor; false (with the reason in the status bar) when unreadable.
    bool openFile(const QString& path);
    /// Animates layer `layer` (the first when empty) of a MAESTRO mapping file on the accelerator in the
    /// accelerator panel. False, with the located error shown, when the file or layer cannot be used.
    bool animateMappingFile(const QString& path, const QString& layer = {});
    /// Writes the editor to `path` atomically (a failed write leaves the old file untouched).
    bool saveTo(const QString& path);
    QString currentFile() const { return m_file; }
    bool hasUnsavedChanges() const;
    /// What the unsaved-changes prompt says: the operator's text, the project's settings (which of the
    /// accelerator, the search settings, the model), or both, as they changed.
    QString unsavedChangesText() const;

    /// Re-analyses the editor text now instead of after the typing pause.
    void analyseNow();
    const OperatorAnalysis& analysis() const { return m_analysis; }

    QPlainTextEdit* editor() const;
    CodeEditor* codeEditor() const { return m_editor; }
    /// Ties the editor, the DDG and the rules' reasons together (selection both ways, rule links).
    OperatorLinks* operatorLinks() const { return m_links; }
    /// File > New from Template: every sample operator (samples/operators, then its nonconformable/).
    QMenu* templatesMenu() const { return m_templatesMenu; }
    /// Puts a sample operator into the editor as a new untitled operator (after the unsaved-changes
    /// prompt); false when cancelled or unreadable.
    bool newFromTemplate(const QString& path);
    QTableWidget* rulesTable() const { return m_rules; }
    QListWidget* diagnosticsList() const { return m_diagnostics; }
    GraphView* ddgView() const { return m_ddg; }
    QLabel* verdictLabel() const { return m_verdict; }
    AcceleratorPanel* acceleratorPanel() const { return m_accelerator; }
    SearchPanel* searchPanel() const { return m_searchPanel; }
    ParetoPlot* paretoPlot() const { return m_plot; }
    MappingView* mappingView() const { return m_mappingView; }
    AnimationPanel* animationPanel() const { return m_animation; }
    /// The centre's tabs: the runtime-energy plot, the animation and the design sweep (these two in scroll
    /// areas: a tab is a page that holds the view).
    QTabWidget* centreTabs() const { return m_centre; }
    SearchController* searchController() const { return m_controller; }
    SweepPanel* sweepPanel() const { return m_sweepPanel; }
    SweepController* sweepController() const { return m_sweepController; }
    CodesignPanel* codesignPanel() const { return m_codesignPanel; }
    CodesignController* codesignController() const { return m_codesignController; }

    /// Sweeps the Sweep tab's grid around the accelerator panel's accelerator: the model (every usable
    /// layer) when one is shown without a selected layer, else the operator in the editor or the selected
    /// layer; false with the reason in the Sweep tab when the ranges, accelerator or workload are wrong.
    bool runSweep();
    /// Loads design point `index` of the last sweep into the accelerator panel and searches it.
    bool loadDesignPoint(std::size_t index);
    /// Runs the Co-design tab's search around the accelerator panel's accelerator (its technology table
    /// prices the designs) for the same workload a sweep takes; false with the reason in the tab.
    bool runCodesign();
    /// Loads design `index` of the last co-design's grid into the accelerator panel and searches it for
    /// the co-design's objective.
    bool loadCodesignDesign(std::size_t index);

    /// Searches the operator in the editor on the accelerator panel's accelerator (Ctrl+R); false with
    /// the reason in the status bar when the operator does not parse or is not conformable.
    bool runSearch();
    void cancelSearch();
    /// The last finished search of the operator, if any.
    const std::shared_ptr<const search::LayerSearchResult>& lastResult() const { return m_lastResult; }
    /// Shows the front candidate with this index in the mapping view; false when it is not on the front.
    bool selectCandidate(std::uint64_t index);
    const std::optional<search::Candidate>& selectedCandidate() const { return m_selected; }

    /// Opens a project (.json): workload, accelerator, search settings. A broken project or one from a
    /// newer schema leaves the window's work as it was and says why (lastError()).
    bool openProject(const QString& path);
    /// Writes the window's state as a project, atomically.
    bool saveProjectTo(const QString& path);
    project::Project currentProject() const;
    QString currentProjectFile() const { return m_projectFile; }
    /// What File > Export Selected Mapping writes: a MAESTRO .m file, mapping JSON, tiled loop-nest text, or
    /// Timeloop input (NAME.timeloop: the folder NAME with problem.yaml, arch.yaml, map.yaml, ert.yaml;
    /// core/export/timeloop.h).
    enum class MappingFormat { Maestro, Json, LoopNest, Timeloop };
    /// The export dialog's filters, one per format in MappingFormat's order.
    static QStringList mappingExportFilters();
    /// The format the dialog's chosen filter names, and the path with that format's suffix (added when the
    /// name has another or none): the filter decides, not whatever the name happens to end with.
    static std::pair<QString, MappingFormat> mappingExportTarget(const QString& path, const QString& filter);
    /// Writes the selected mapping in `format` to `path` (taken as it is).
    bool exportMapping(const QString& path, MappingFormat format);
    /// The same, the format from the path's suffix (.m, .json, .timeloop; loop-nest text otherwise).
    bool exportMapping(const QString& path);
    QString lastError() const { return m_lastError; }

    /// Writes the unsaved work (editor, project, settings) to this window's recovery file, or removes
    /// the file when nothing is unsaved. Runs every few seconds (MARVEL_AUTOSAVE_MS, default 5000).
    void autosaveNow();
    QString recoveryFile() const { return m_recovery.path(); }
    /// Loads a recovery file left by a session that ended without saving; the work comes back unsaved.
    bool restoreRecovery(const QString& path);
    /// Asks whether to restore the newest recovery file of a session that is gone; true when restored.
    bool offerRecovery();

    /// Loads a built-in model or a model file into the Model panel; false (with the reason) on error.
    bool loadModel(const QString& nameOrPath);
    /// Shows layer `row` of the model: its loop nest (read-only) and, once searched, its plot and
    /// mapping; Ctrl+R then searches that layer. -1: back to the editor's own operator.
    void selectLayer(int row);
    /// Searches every layer of the model in the background, filling the model table.
    bool searchModel();
    ModelTableModel* modelTable() const { return m_model; }
    QTableView* modelView() const { return m_modelView; }
    /// Above a model layer's read-only loop nest: which layer of which model (elided to the dock's width).
    ElidedLabel* layerBanner() const { return m_layerBanner; }
    QLabel* modelTotals() const { return m_modelTotals; }

    /// The folder the "Open Sample" menu lists: samplesRoot()/operators (ui/samples_dir.h).
    static QString samplesDirectory();
    /// samples/projects beside samplesDirectory().
    static QString projectSamplesDirectory();
    /// Help > The MDC notation: the guide for newcomers (resources/mdc-guide.html) in a dock beside the
    /// views, created on first use; its sample: links open the classroom examples (openGuideLink).
    QTextBrowser* showGuide();
    /// Opens a link of the guide: sample:PATH (a file under samplesRoot()) with ?animate=MAPPING.m (also
    /// animate that MAESTRO mapping file), #animation (show the Animation tab) or #ddg (raise the DDG).
    /// Other links open in the desktop's browser. False when the file does not open.
    bool openGuideLink(const QUrl& url);
    /// Help > Keyboard shortcuts: the window's keys by where they work, as (group, "keys<TAB>what" rows):
    /// each menu in the menu bar's order with its actions in menu order, then each panel's own keys
    /// (buttons, QShortcuts) under its dock title or centre tab; native key names, each key once.
    QList<QPair<QString, QStringList>> shortcutGroups() const;
    /// shortcutGroups()'s rows, group after group.
    QStringList shortcutList() const;
    /// Help > Keyboard shortcuts: shortcutList() as a table in a box that does not block the window.
    QMessageBox* showShortcuts();

    /// Files opened or saved lately, newest first (QSettings; files that no longer exist are left out).
    static QStringList recentFiles();

    /// How the panels are arranged: Narrow below kWideWidth pixels (the search settings and the DDG share
    /// the left column's lower half as tabs), Wide from it (the search settings under the accelerator,
    /// which then runs the window's height; the DDG under the operator). Chosen again whenever the window
    /// is resized across kWideWidth, maximised or restored.
    enum class Arrangement { None, Narrow, Wide };
    static constexpr int kWideWidth = 1700;
    Arrangement arrangement() const { return m_arrangement; }
    /// `wanted` moved and shrunk into `available` (a screen's available geometry) with room for a window
    /// frame of `frame`, never below `minimum`; centred when it had to move.
    static QRect fittedGeometry(
        const QRect& wanted, const QRect& available, const QSize& minimum, const QMargins& frame = {});
    /// The size the window opens at without a saved one, on a screen with this available geometry.
    static constexpr QSize kPreferredSize{1440, 900};

signals:
    /// A search ended (finished, cancelled, failed); the app's --search --screenshot waits for it.
    void searchFinished();

protected:
    void closeEvent(QCloseEvent* event) override;
    /// Files dropped on the window: a model file (.onnx, .m) into the Model panel, a project (.json) or
    /// an operator (.loop) as File > Open does.
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // The parts, each in its own file under ui/window/ (ui/main_window.cpp: construction, show, close).
    // operator_pane.cpp: the editor, the verdict, the rules' reasons, the diagnostics and the DDG.
    void buildOperatorPane();
    void startAnalysisTimer();
    void showAnalysis();
    void jumpToDiagnostic(int row);
    // docks.cpp: the centre's tabs and the dock widgets.
    void buildCentre();
    void buildDocks();
    /// Puts the docks where `arrangement` has them and gives them its sizes for the window's size.
    void arrangeDocks(Arrangement arrangement);
    /// Gives the docks the current arrangement's sizes for the window's size.
    void applyDefaultDockSizes();
    /// Rearranges when the window's width crossed kWideWidth or it was maximised or restored.
    void rearrangeForSize();
    /// Keeps the window on its screen's available geometry (a saved one from a larger screen); true when
    /// it had to move or shrink.
    bool fitToScreen();
    /// Shows the centre's tab that holds `view` (the plot, the animation or the sweep).
    void showCentre(QWidget* view);
    // menus.cpp
    void buildMenus();
    void buildEditMenu(QMenu* file);
    // document.cpp: the operator file, the unsaved-changes prompt, the title, recent files.
    /// Before another operator takes the editor: no project file to save to, no model shown.
    void leaveProjectAndModel();
    void openDialog();
    bool save();
    bool saveAsDialog();
    /// Asks what to do with unsaved changes; false when the user cancels.
    bool confirmDiscard();
    void updateTitle();
    /// The project's `part` ("accelerator", "search settings", "model") changed since it was saved.
    void markSettingsDirty(const QString& part);
    void rememberRecentFile(const QString& path);
    static void forgetRecentFiles();
    // project.cpp and animate_mapping.cpp: projects, and what the Animation tab shows of them.
    void applyProject(const project::Project& p);
    void animateSelection(const project::Project& p);
    // recovery.cpp
    void startAutosave();
    QByteArray recoveryContent() const;
    // searching.cpp: starting searches and sweeps (runSearch, searchModel, runSweep above).
    void wireSweep();
    void wireCodesign();
    /// What a sweep or a co-design evaluates: the model (every usable layer) when one is shown without a
    /// selected layer, else the selected layer or the editor's operator. Throws InputError saying why
    /// none can be used. `wholeModel` says which.
    workloads::Workload designWorkload(bool& wholeModel);
    /// The model view's model at each value of a sweep's context axis (seq, kv); throws InputError when
    /// the workload is not a whole model or the model has no sequence.
    std::vector<workloads::Workload> contextWorkloads(
        const sweep::ContextAxis& context, bool wholeModel) const;
    /// The accelerator panel's accelerator; throws InputError naming its problems when it is invalid.
    arch::Accelerator validAccelerator() const;
    // result_wiring.cpp: the search controller's results into the plot, the table and the mapping view.
    void wireSearch();
    /// The model row the running search's layer `index` fills (-1: none, the editor's own operator).
    int resultRow(int index) const;
    void onSearchFinished(const SearchOutcome& outcome);
    void showCandidate(const search::Candidate& candidate);
    /// The compared styles of the shown layer: labelled marks on the plot, rows in the mapping view.
    void showStyles(const std::vector<styles::StyleSearch>& styles);
    /// Shows a layer's result in the plot and the mapping view; `roofline` is on `basis`'s accelerator.
    /// Shows a layer's search; `cloudRow`: the model row whose kept evaluated mappings the plot shows too
    /// (-1: the plot already has the run's, streamed).
    void showLayerResult(const std::shared_ptr<const search::LayerSearchResult>& result,
        const ResultBasis& basis, std::int64_t roofline, int cloudRow = -1);
    // figure_basis.cpp: what each view's figures were computed for, and marking stale what no longer
    // matches the panels.
    ResultBasis currentBasis() const;
    std::string currentWorkloadKey() const;
    /// Compares every view's basis with the panels' state and marks the views stale or current.
    void refreshStaleness();
    /// What changed since the shown sweep ran (empty: nothing, or no sweep).
    QString sweepChange() const;
    /// What changed since the shown co-design ran (empty: nothing, or none ran).
    QString codesignChange() const;
    /// What changed since a sweep or co-design of `grid` ran on `basis` for `objective`, of a model or of
    /// one layer: the parameters the grid varies do not count (a design of it may be loaded).
    QString designStudyChange(
        const ResultBasis& basis, const sweep::Grid& grid, bool ofModel, search::Objective objective) const;
    /// The search settings changed: stale marks now, and a search again after the pause.
    void onSearchSettingsChanged();
    // model_panel.cpp
    QWidget* buildModelPanel();
    void updateModelTotals();
    // main_window.cpp
    void reportError(const QString& title, const QString& message);

    CodeEditor* m_editor = nullptr;
    OperatorLinks* m_links = nullptr;
    QMenu* m_templatesMenu = nullptr;
    QLabel* m_verdict = nullptr;
    QTableWidget* m_rules = nullptr;
    QListWidget* m_diagnostics = nullptr;
    GraphView* m_ddg = nullptr;
    QTimer* m_analyseTimer = nullptr;
    OperatorAnalysis m_analysis;
    QString m_file;
    QMenu* m_viewMenu = nullptr;
    QWidget* m_operatorPane = nullptr;
    QDockWidget* m_guide = nullptr; ///< the MDC guide (guide.cpp), created on first use
    std::vector<QDockWidget*> m_docks; ///< operator, ddg, search, accelerator, mapping, model
    bool m_layoutRestored = false; ///< restoreState() found the last session's dock layout
    Arrangement m_arrangement = Arrangement::None; ///< of the docks now; None before the first show
    bool m_ddgOnTop = false; ///< narrow arrangement: the DDG's tab, not the search settings', is raised
    bool m_stateChanged = false; ///< maximised, restored or full screen since the last arrangement
    QTimer* m_arrangeTimer = nullptr; ///< rearranges once a resize pauses
    QRect m_chosenGeometry; ///< the geometry the window chose for itself, until it shows
    AcceleratorPanel* m_accelerator = nullptr;
    SearchPanel* m_searchPanel = nullptr;
    ParetoPlot* m_plot = nullptr;
    MappingView* m_mappingView = nullptr;
    AnimationPanel* m_animation = nullptr;
    QTabWidget* m_centre = nullptr;
    SearchController* m_controller = nullptr;
    SweepPanel* m_sweepPanel = nullptr;
    SweepController* m_sweepController = nullptr;
    CodesignPanel* m_codesignPanel = nullptr;
    CodesignController* m_codesignController = nullptr;
    std::shared_ptr<const sweep::Grid> m_codesignGrid; ///< of the shown co-design
    search::Objective m_codesignObjective = search::Objective::Runtime;
    std::optional<ResultBasis> m_codesignBasis;
    bool m_codesignOfModel = false;
    std::vector<search::Candidate> m_front;
    std::shared_ptr<const search::LayerSearchResult> m_lastResult; ///< the shown layer's result
    ResultBasis m_shownBasis; ///< of m_lastResult
    std::int64_t m_roofline = 0; ///< of m_lastResult's operator on m_shownBasis's accelerator
    std::optional<search::Candidate> m_selected;
    /// Of the running or last search; a model search's workload is each layer's (m_requestKeys).
    ResultBasis m_searchedBasis;
    std::int64_t m_searchedRoofline = 0; ///< of the running or last search of one operator
    std::vector<std::string> m_requestKeys; ///< workloadKey() of each layer of the running search
    // What each view shows was computed for (empty: it shows nothing computed).
    std::optional<ResultBasis> m_plotBasis;
    std::optional<ResultBasis> m_mappingBasis;
    std::optional<ResultBasis> m_animationBasis;
    int m_animationParts = AllParts; ///< the parts of m_animationBasis its figures depend on
    std::optional<ResultBasis> m_sweepBasis;
    std::shared_ptr<const sweep::Grid> m_sweepGrid; ///< of the shown sweep
    bool m_sweepOfModel = false; ///< the shown sweep is of the whole model
    /// The model a shown sweep over the context (seq, kv) instantiated at each value; empty otherwise.
    QString m_sweepContextModel;
    sweep::PointSearch m_sweepPointSearch
        = sweep::PointSearch::Full; ///< the search that made the shown sweep
    QTimer* m_rerunTimer = nullptr; ///< a search again after a pause in changing the search settings
    QString m_projectFile;
    ModelTableModel* m_model = nullptr;
    QSortFilterProxyModel* m_modelProxy = nullptr;
    QTableView* m_modelView = nullptr;
    QComboBox* m_modelCombo = nullptr;
    /// A transformer's context (phase, tokens), shown for the models that take one.
    QWidget* m_contextBox = nullptr;
    QComboBox* m_phaseCombo = nullptr;
    QSpinBox* m_tokensSpin = nullptr;
    /// The context the model view's model is instantiated at (empty: the model's defaults).
    workloads::SequenceOptions m_sequence;
    /// Shows the context controls for `nameOrPath` (a built-in transformer or an ONNX file) at the context
    /// `workload` was loaded with, hides them for the others.
    void showContext(const QString& nameOrPath);
    QLabel* m_modelTotals = nullptr;
    ElidedLabel* m_layerBanner = nullptr;
    QPushButton* m_editCopy = nullptr;
    QString m_modelName; ///< built-in name or file path; empty: no model
    int m_layer = -1; ///< model layer in the editor (source row), -1: the editor's own operator
    bool m_searchingModel = false; ///< the running search covers every layer of the model
    std::vector<int> m_modelRequestRows; ///< model row of each layer of the running model search
    std::optional<project::SelectedMapping> m_pendingSelection;
    QString m_lastError;
    bool m_settingsDirty = false; ///< accelerator or search settings changed since the project was saved
    QStringList m_dirtyParts; ///< which of them changed (markSettingsDirty), for the prompt
    bool m_searchedOnce = false;
    RecoveryStore m_recovery;
    QTimer* m_autosaveTimer = nullptr; ///< accelerator edits re-run the search after the first one
};

} // namespace marvel::ui
