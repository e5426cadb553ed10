#pragma once
// The global buffer's reads and updates counted where the PEs fetch and return, frame by frame across the
// clusters (doc/cost-model.md, "Global-buffer traffic"). The exact simulator and the cost model's step walk
// both feed it the PEs' tiles, so the two count by one definition.

#include <cstdint>
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
    void add(std::int64_t frame, std::int64_t pe, bool holds, bool computes, const AxisSpan* tiles);
    /// Counts the frames added so far; frames added later must be later ones.
    void flush();
    /// Returns the partial sums the PEs still hold (after the last flush).
    void finish();

    std::int64_t reads(int tensor) const { return reads_[size_t(tensor)]; }
    std::int64_t updates() const { return updates_; }

private:
    struct Record
    {
        std::int64_t frame = 0, pe = 0;
        bool holds = false, computes = false;
        size_t tiles = 0; ///< offset in spans_
    };
    struct Tensor
    {
        std::vector<std::int64_t> extents, strides;
        size_t offset = 0; ///< of its axes in a record's spans
        size_t elements = 0;
        std::vector<std::uint32_t> stamp; ///< per element, for unions too scattered to compress
    };
    /// The number of elements in the union of the boxes collected (boxes_), each of x's axes.
    std::int64_t unionVolume(Tensor& x);
    /// Starts a union (boxes_) and forgets the fetches seen for it.
    void clearBoxes();
    /// Adds to the union the part of `box` outside `kept`, unless an identical pair was added.
    void collectOutside(const AxisSpan* box, const AxisSpan* kept, bool haveKept, size_t n);
    const AxisSpan* tileOf(const Record& r, int t) const
    {
        return spans_.data() + r.tiles + tensors_[size_t(t)].offset;
    }

    std::vector<Tensor> tensors_;
    size_t axesPerRecord_ = 0;
    arch::Multicast multicast_ = arch::Multicast::Elements;
    std::vector<Record> records_;
    std::vector<AxisSpan> spans_;
    /// Per PE: its tiles at its last recorded frame (offset in kept_), whether it held them and partial sums.
    std::vector<AxisSpan> kept_;
    std::vector<char> held_, heldOut_;
    std::vector<std::int64_t> lastRecord_; ///< per PE, its last record not yet flushed, or -1
    std::vector<std::int64_t> reads_;
    std::int64_t updates_ = 0;
    std::uint32_t round_ = 0;
    std::vector<size_t> order_, starts_;
    std::vector<AxisSpan> boxes_;
    size_t boxCount_ = 0;
    std::vector<std::vector<std::int64_t>> cuts_; ///< per axis, the boxes' edges
    std::vector<std::uint32_t> cellStamp_;
    struct Seen
    {
        const AxisSpan *box = nullptr, *kept = nullptr;
        bool haveKept = false;
    };
    std::vector<Seen> seen_;
    std::vector<std::uint32_t> slotStamp_, slotEntry_; ///< open addressing over seen_, by round
    std::uint32_t seenRound_ = 1;
};

} // namespace marvel::cost
