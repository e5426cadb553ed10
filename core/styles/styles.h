#pragma once
// Popular mapping styles (Eyeriss-like row-stationary, NVDLA-like weight-stationary, ShiDianNao-like
// output-stationary) and past optimisers (Interstellar-like, dMazeRunner-like) as constraints on the
// on-chip space of the decoupled search, as the paper's evaluation encodes them. The loops a style
// parallelises are found by the part they play in the operator (output channel, input channel, output
// width/height, filter width/height), read from the tensors' subscripts rather than from loop names.
// doc/search.md, "Mapping styles and past optimisers", states every rule and fallback.

#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/search/search.h"

namespace marvel::styles {

/// The last one is not a constraint but our GAMMA-like genetic search (core/search/genetic.h), the
/// baseline of a search that proposes whole mappings itself.
enum class Style { RowStationary, WeightStationary, OutputStationary, Interstellar, DMazeRunner, Genetic };

/// "rs", "ws", "os", "interstellar", "dmazerunner", "genetic" (the CLI's names).
std::string toString(Style style);
std::optional<Style> styleFromString(std::string_view name);
/// Every style, in the order above: what the comparisons (`--compare-styles`, the app) search.
const std::vector<Style>& allStyles();
/// The styles that are constraints on the decoupled search (every one but Genetic): their spaces are
/// parts of Marvel's.
const std::vector<Style>& constraintStyles();
bool isConstraint(Style style);
/// "Eyeriss-like row-stationary", ...
std::string description(Style style);
/// "RS", "WS", "OS", "Interstellar", "dMazeRunner", "Genetic": for plot labels and table headers.
std::string shortLabel(Style style);
/// The optimisers (Interstellar-like, dMazeRunner-like) search GEMM-like operators in their convolution
/// form, as the paper does.
bool usesConvolutionForm(Style style);

/// The parts a loop plays; a loop may play several (a depth-wise channel is both channels).
enum Role : unsigned {
    OutChannel = 1u << 0, ///< indexes the output and a weight: K of a convolution, N of a GEMM
    InChannel = 1u << 1, ///< a reduction over the activation and a weight: C, or K of a GEMM
    OutHeight = 1u << 2, ///< output position of an outer window: Y' (the rows M of a window-free GEMM too)
    OutWidth = 1u << 3, ///< output position of the innermost window: X' (and a GEMM's M)
    FilterHeight = 1u << 4, ///< sliding loop of an outer window: R
    FilterWidth = 1u << 5, ///< sliding loop of the innermost window: S
    Batch = 1u << 6, ///< indexes the output and the activation only, beside windows: N
};

/// Each loop's roles and which tensors play which part (indices into LayerSpace::tensors).
struct LoopRoles
{
    std::vector<unsigned> roles; ///< per loop, Role bits
    int output = 0;
    int activation = -1; ///< the input tensor read through the windows (or, without windows, see .cpp)
    std::vector<int> weights; ///< the other input tensors
    bool has(std::size_t loop, unsigned role) const { return loop < roles.size() && (roles[loop] & role); }
};
LoopRoles loopRoles(const search::LayerSpace& space);

/// The constraint of `style` on `space`'s loops. A style whose parallel loops are all absent (or of
/// extent 1) keeps no parallel loop: the operator then runs on one PE, which is what the style gives.
/// The genetic search has none (empty).
search::SearchConstraint styleConstraint(Style style, const search::LayerSpace& space);

/// A GEMM-like operator as a 1x1 convolution: output channels K = the loops indexing the output and the
/// weight (N), input channels C = the reduction (K), output rows Y' = the loops indexing the output and
/// the activation (M), X' = R = S = 1. nullopt when the operator has windows or is not of that shape
/// (one statement, one product of two tensors, each loop playing exactly one of these parts).
struct ConvolutionForm
{
    ir::Operator op; ///< the convolution (conv2dLoopText), named as the original
    std::int64_t K = 1, C = 1, Y = 1;
    std::string text; ///< "CONV2D K=2048 (N) C=4096 (K) Y'=128 (M) X'=R=S=1"
};
std::optional<ConvolutionForm> convolutionForm(const ir::Operator& op);

/// One style's search of one operator. The result stays labelled as the original layer; `convForm`
/// says when the search ran on the convolution form (whose loops the mappings then use).
struct StyleSearch
{
    Style style = Style::RowStationary;
    search::LayerSearchResult search;
    std::optional<search::Candidate> best; ///< for the options' objective
    std::string convForm; ///< ConvolutionForm::text, or empty
    /// The PE-utilisation bound the search used: the options' bound, capped at the fraction of the PEs
    /// the style's parallel loops can fill, 0 when that found nothing.
    double peUtilizationBound = 0.0;
};

/// Searches `op` under `style` with the normal decoupled search (every other option as given), or with
/// the genetic search (options.genetic) for Style::Genetic. Throws InputError as search::searchLayer does.
StyleSearch searchLayerStyle(const ir::Operator& op, const arch::Accelerator& acc, Style style,
    const search::SearchOptions& options, search::SearchSink* sink = nullptr, std::stop_token stop = {});

/// Each of `styles` searched in turn (the app's labelled marks and per-style columns); stops early, the
/// remaining ones absent, when `stop` is requested.
std::vector<StyleSearch> searchLayerStyles(const ir::Operator& op, const arch::Accelerator& acc,
    const search::SearchOptions& options, const std::vector<Style>& styles = allStyles(),
    search::SearchSink* sink = nullptr, std::stop_token stop = {});

} // namespace marvel::styles
