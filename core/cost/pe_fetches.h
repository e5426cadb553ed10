#pragma once
// The global buffer's reads and updates counted where the PEs fetch and return, frame by frame across the
// clusters (doc/cost-model.md, "Global-buffer traffic"). The exact simulator and the cost model's step walk
// both feed it the PEs' tiles, so the two count by one definition.

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "core/arch/accelerator.h"

namespace marvel::cost {

/// Half-open range [begin, end) of one tensor axis in a PE's tile.
struct AxisSpan
{
    std::int64_t begin = 0, end = 0;
    std::int64_t size() const { return end > begin ? end - begin : 0; }
    friend bool operator==(const AxisSpan&, const AxisSpan&) = default;
};

/// Counts L2 reads per input-class tensor and L2 updates of the output from the PEs' tiles at every frame
/// (one step of the innermost level, the clusters in lock-step). At each frame a PE fetches the elements of
/// its tiles it did not hold at its own previous frame (it keeps its L1 across every level above it; a PE
/// recorded as holding nothing drops what it held, one not recorded at a frame keeps it). What the PEs of a
/// frame fetch leaves the L2 once per element with `Multicast::Elements`, once per group of PEs fetching
/// identical tiles with `Tiles`, once per PE with `None`. A PE returns the partial sums it held at its
/// previous frame and no longer holds, reduced across the PEs of the frame; finish() returns the last ones.
class PeFetchCounter
{
public:
    /// `extents[t]`: tensor t's axis sizes, the input-class tensors first and the output last; `pes` PE
    /// indices are used.
    void reset(
        const std::vector<std::vector<std::int64_t>>& extents, std::int64_t pes, arch::Multicast multicast);

    /// PE `pe` at frame `frame`: whether it holds tiles (`holds`; a PE past the last tile holds none) and
    /// whether it computes (holds partial sums); `tiles` is every tensor's axis spans, tensor after tensor.
    /// Frames of one PE come in order; different PEs' may interleave.
    void add(std::int64_t frame, std::int64_t pe, bool holds, bool computes, const AxisSpan* tiles)
    {
        addRun(frame, pe, 1, holds, computes, tiles, nullptr);
    }
    /// PEs pe0 .. pe0+count-1 at frame `frame`, as add() for each: PE pe0+j holds `tiles` with every axis k
    /// moved by j * deltas[k] (the PEs of one cluster along its spatial dimension hold translates of one
    /// box). Counted per run rather than per PE where the PEs' previous tiles were such a run too.
    void addRun(std::int64_t frame, std::int64_t pe0, std::int64_t count, bool holds, bool computes,
        const AxisSpan* tiles, const std::int64_t* deltas);
    /// Counts the frames added so far; frames added later must be later ones.
    void flush();
    /// Returns the partial sums the PEs still hold (after the last flush).
    void finish();

    std::int64_t reads(int tensor) const { return reads_[size_t(tensor)]; }
    std::int64_t updates() const { return updates_; }

private:
    static constexpr size_t kNone = ~size_t(0);
    /// PEs pe0 .. pe0+count-1 recorded at one frame (addRun).
    struct Run
    {
        std::int64_t frame = 0, pe0 = 0, count = 1;
        bool holds = false, computes = false;
        size_t tiles = kNone; ///< offset in spans_ (kNone when it holds nothing)
        size_t deltas = kNone; ///< offset in deltas_ (kNone for a single PE or when it holds nothing)
    };
    struct Tensor
    {
        std::vector<std::int64_t> extents, strides;
        size_t offset = 0; ///< of its axes in a record's spans
        size_t elements = 0;
        std::vector<std::uint32_t> stamp; ///< per element, for unions too scattered to compress
    };
    /// What the PEs pe .. pe+count-1 of one run fetch at a frame: `tile` their tiles (the first PE's, null
    /// when they hold none), `kept` what they held at their previous frame (likewise), both moved by
    /// j * deltas for PE pe+j (null when count is 1).
    struct Item
    {
        const AxisSpan *tile = nullptr, *kept = nullptr;
        const std::int64_t* deltas = nullptr;
        std::int64_t count = 1;
        bool holds = false, computes = false, held = false, heldOut = false;
    };
    /// What an item fetches of one tensor (inputs: its tiles outside what it kept) or returns (outputs: the
    /// partial sums it kept outside its tiles when it computes).
    struct Fetch
    {
        const AxisSpan *box = nullptr, *kept = nullptr;
        bool haveKept = false;
        const std::int64_t* deltas = nullptr;
        std::int64_t count = 1;
    };
    std::vector<Fetch> fetches_;
    /// The run's tiles at its PE j (in spans_, or made in scratch_, whose room is reserved).
    const AxisSpan* tileAt(const Run& r, std::int64_t j);
    /// The current frame's items (items_) of the runs group_.
    void buildItems();
    std::int64_t inputReads(int t);
    std::int64_t outputUpdates();
    /// The number of elements in the union of `count` boxes, each of x's axes.
    std::int64_t unionOf(Tensor& x, const AxisSpan* boxes, size_t count);
    /// The number of elements in the union collected (boxes_, translated as entries_ say).
    std::int64_t collectedVolume(Tensor& x);
    /// Starts a union (boxes_) and forgets the fetches seen for it.
    void clearBoxes();
    /// Adds to the union the parts of `box` outside `kept` (all of `box` when !haveKept), both moved by
    /// j * deltas + i * deltas2 for j in 0 .. count-1 and i in 0 .. count2-1 (null: not moved), unless an
    /// identical one was added.
    void collectOutside(const AxisSpan* box, const AxisSpan* kept, bool haveKept, size_t n,
        const std::int64_t* deltas = nullptr, std::int64_t count = 1, const std::int64_t* deltas2 = nullptr,
        std::int64_t count2 = 1);
    /// Collects what the items fetch of tensor x (or, `outputs`, return).
    void collectFolded(Tensor& x, bool outputs);
    /// Drops every run no PE refers to.
    void compact();

    std::vector<Tensor> tensors_;
    size_t axesPerRecord_ = 0;
    arch::Multicast multicast_ = arch::Multicast::Elements;
    /// Runs: those the PEs hold from earlier flushes, then from pendingFrom_ on the ones not yet counted.
    std::vector<Run> runs_;
    std::vector<AxisSpan> spans_;
    std::vector<std::int64_t> deltas_;
    size_t pendingFrom_ = 0;
    /// Per PE: its last run added (lastRun_) and its last run counted (keptRun_), -1 for none.
    std::vector<std::int64_t> lastRun_, keptRun_;
    std::vector<std::int64_t> reads_;
    std::int64_t updates_ = 0;
    std::uint32_t round_ = 0;
    std::vector<size_t> order_, starts_, group_;
    std::vector<Item> items_;
    std::vector<AxisSpan> scratch_, tileScratch_, partBoxes_;
    std::vector<size_t> tileOrder_;
    std::vector<std::int64_t> remap_;
    std::vector<Run> compactRuns_;
    std::vector<AxisSpan> compactSpans_;
    std::vector<std::int64_t> compactDeltas_;
    std::vector<AxisSpan> boxes_;
    size_t boxCount_ = 0;
    /// Per box collected: translated j * step along `axis` for j in 0 .. count-1 (axis -1: not moved), and
    /// i * step2 along axis2 for i in 0 .. count2-1.
    struct Entry
    {
        int axis = -1;
        std::int64_t step = 0, count = 1;
        int axis2 = -1;
        std::int64_t step2 = 0, count2 = 1;
    };
    /// Boxes moved run by run, a box and what it kept each (collectOutside keeps pointers to them).
    std::deque<std::array<AxisSpan, 64>> moved_;
    std::vector<std::int64_t> folds_; ///< the second steps of collectFolded, room reserved
    std::vector<Entry> entries_;
    std::vector<std::int64_t> breaks_, zeroDeltas_;
    std::vector<std::vector<std::int64_t>> cuts_; ///< per axis, the boxes' edges
    std::vector<std::uint32_t> cellStamp_;
    struct Seen
    {
        const AxisSpan *box = nullptr, *kept = nullptr;
        const std::int64_t* deltas = nullptr;
        std::int64_t count = 1;
        bool haveKept = false;
    };
    std::vector<Seen> seen_;
    std::vector<std::uint32_t> slotStamp_, slotEntry_; ///< open addressing over seen_, by round
    std::uint32_t seenRound_ = 1;
};

} // namespace marvel::cost
